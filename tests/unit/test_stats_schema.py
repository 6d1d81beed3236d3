"""docs/stats.md documents ``xpshim.stats()`` and the ``XPSHIM_REPORT`` file as a JSON Schema: what
xpshim writes is checked against that schema, key for key (no key undocumented, none missing),
with every group of counts filled by a program that copies, reads values, moves and falls back."""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "stats.md")

# A program that makes every kind of event once at least, on the simulated GPU in auto mode.
PROGRAM = '''
import json, numpy, xpshim as np
from xpshim import _backend
_backend.gpu_status()              # (auto mode: wait for the GPU's start, which the first call begins)
a = np.arange(100000.0)            # a GPU array (over the crossover)
b = np.asarray(numpy.ones(100000)) # a copy to the GPU
c = a + b
total = 0.0
for i in range(200):               # a loop reading it element by element: moved to the host
    total += c[i]
d = c * 2                          # moved back to the GPU
h = np.asnumpy(d)                  # a copy to the host
v = float(d.sum())                 # a value read
def make():
    return np.zeros(100000)
for i in range(3):                 # arrays made at a line whose arrays a loop used
    z = make()
    for j in range(100):
        z[j] = j
r = np.subtract.reduce(a, where=a > 1, initial=0.0)   # no GPU version: a fallback
print(json.dumps(np.stats()))
'''


def schema():
    """The JSON block under the doc's "## Schema" heading."""
    text = open(DOC, encoding="utf-8").read()
    section = text.split("\n## Schema\n", 1)[1]
    return json.loads(re.search(r"```json\n(.*?)\n```", section, re.S).group(1))


def validate(value, node, root, path="$"):
    """The errors of ``value`` against the schema ``node`` (the keywords docs/stats.md uses)."""
    if "$ref" in node:
        target = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return validate(value, target, root, path)
    errors = []
    kind = node.get("type")
    types = {"object": dict, "integer": int, "string": str}
    if kind and (not isinstance(value, types[kind]) or (kind == "integer" and isinstance(value, bool))):
        return [f"{path}: {type(value).__name__}, not {kind}"]
    if "minimum" in node and value < node["minimum"]:
        errors.append(f"{path}: {value} < {node['minimum']}")
    if kind == "object":
        props = node.get("properties", {})
        errors += [f"{path}: no {k!r}" for k in node.get("required", ()) if k not in value]
        for k, v in value.items():
            if "propertyNames" in node and not re.search(node["propertyNames"]["pattern"], k):
                errors.append(f"{path}: the key {k!r} does not match {node['propertyNames']['pattern']!r}")
            if k in props:
                errors += validate(v, props[k], root, f"{path}.{k}")
            elif node.get("additionalProperties") is False:
                errors.append(f"{path}: {k!r} is not documented")
            elif isinstance(node.get("additionalProperties"), dict):
                errors += validate(v, node["additionalProperties"], root, f"{path}[{k!r}]")
    return errors


def test_the_validator_finds_what_is_wrong():
    s = schema()
    good = {"transfers": {d: {"count": 1, "bytes": 8, "sites": {"/a.py:3 (asarray)": 1}}
                          for d in ("host_to_device", "device_to_host", "values_read")},
            "placement": {"to_device": {"count": 0, "bytes": 0, "sites": {}},
                          "to_host": {"count": 0, "bytes": 0, "sites": {}},
                          "at_loop_lines": {"count": 1, "bytes": 8, "sites": {"/a.py:3": 1}}},
            "fallbacks": {"xpshim.median": {"count": 1, "sites": {"<stdin>:1": 1}}}}
    assert validate(good, s, s) == []
    bad = json.loads(json.dumps(good))
    bad["transfers"]["host_to_device"]["sites"] = {"/a.py (asarray)": 1}
    bad["placement"]["extra"] = 1
    del bad["fallbacks"]["xpshim.median"]["count"]
    bad["transfers"]["values_read"]["bytes"] = "8"
    errors = validate(bad, s, s)
    assert len(errors) == 4, errors


def test_stats_and_the_report_file_match_the_documented_schema(tmp_path):
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPSHIM_", "NUMBA_ENABLE_CUDASIM"))}
    env.update(PYTHONPATH=ROOT, XPSHIM_SIMULATE_GPU="1", XPSHIM_FALLBACK="silent", XPSHIM_REPORT=str(report))
    (tmp_path / "job.py").write_text(PROGRAM)
    r = subprocess.run([sys.executable, "job.py"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    stats, written = json.loads(r.stdout), json.loads(report.read_text())
    s = schema()
    for what in (stats, written):
        assert validate(what, s, s) == []
        groups = [*what["transfers"].values(), *what["placement"].values(), *what["fallbacks"].values()]
        # every group was filled (so each kind of site was checked), and its sites add up to its count
        assert all(g["count"] > 0 and sum(g["sites"].values()) == g["count"] for g in groups), what
    assert list(written["fallbacks"]) == ["xpshim.subtract.reduce"]
    assert written["transfers"]["values_read"]["sites"] == {f"{tmp_path / 'job.py'}:13 (float())": 1}
    assert written["fallbacks"]["xpshim.subtract.reduce"]["sites"] == {f"{tmp_path / 'job.py'}:20": 1}


def test_every_documented_key_is_in_the_layout_table():
    text = open(DOC, encoding="utf-8").read()
    s = schema()
    keys = [f"{top}.{k}" for top in ("transfers", "placement") for k in s["properties"][top]["properties"]]
    for k in keys + ["fallbacks.NAME"]:
        assert f"| `{k}` |" in text, k
