"""A program's first call, made while auto mode's device choice is still pending (right after
``import xpshim as np``, with CuPy's import under way on its thread): every public name answers
what it answers once the device is chosen (``tests/support/first_calls.py``, in a fresh process).

On the simulated GPU the stand-in for CuPy's import is a thread that sleeps
(``XPSHIM_SIMULATE_IMPORT_MS``), so the pending state and the wait for the import are the real
ones; on a real GPU (``-m gpu``) the same script runs with CuPy in auto and gpu mode.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import _real_gpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "support", "first_calls.py")


def _run(env, *args, code=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_") and k != "NUMBA_ENABLE_CUDASIM"}
    e.update(env, PYTHONPATH=ROOT)
    cmd = [sys.executable, SCRIPT, *args] if code is None else [sys.executable, "-c", code]
    r = subprocess.run(cmd, cwd=ROOT, env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()[-1]


_SIM = {"XPSHIM_SIMULATE_GPU": "1", "XPSHIM_DEVICE": "auto", "XPSHIM_SIMULATE_IMPORT_MS": "300",
        "XPSHIM_START_AFTER_MS": "0"}  # (the GPU starts at the first call that needs the device)


def _needs_real_gpu():
    if not _real_gpu():
        pytest.skip("no usable CUDA GPU")


@pytest.mark.parametrize("case", [
    pytest.param((_SIM, ()), id="simulated-auto"),
    pytest.param((_SIM, ("--unusable",)), id="simulated-auto-no-gpu-found"),
    pytest.param(({"XPSHIM_DEVICE": "auto"}, ()), id="cuda-auto", marks=pytest.mark.gpu),
    pytest.param(({"XPSHIM_DEVICE": "gpu"}, ()), id="cuda-gpu", marks=pytest.mark.gpu),
])
def test_every_public_name_called_before_the_choice_answers_as_after_it(case):
    env, args = case
    if "XPSHIM_SIMULATE_GPU" not in env:
        _needs_real_gpu()
    got = json.loads(_run(env, *args))
    assert got["calls"] > 600, got["calls"]  # (the generator reached the names)
    deferred = env["XPSHIM_DEVICE"] == "auto"
    assert got["pending"] == (got["calls"] if deferred else 0)  # (each call met an undecided device)
    assert got["bad"] == {}


_SEEDED = """
import json, xpshim as np
{before}
np.random.seed(5)
a = np.random.rand(100003)          # past the crossover: drawn on the GPU
b = np.random.randint(0, 10, 5)     # small: NumPy's generator, on the host
print(json.dumps([np.asnumpy(a)[:5].tolist(), np.asnumpy(b).tolist(), type(a).__name__]))
"""


@pytest.mark.parametrize("where", ["simulated", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_a_seed_given_before_the_choice_holds_on_the_device_chosen(where):
    """``np.random.seed(0)`` as a program's first line keeps the GPU's start for later, and the
    GPU's generator is seeded when the device is chosen: the draws are those of a program that
    seeded after the GPU had started."""
    env = dict(_SIM) if where == "simulated" else {"XPSHIM_DEVICE": "auto"}
    if where == "cuda":
        _needs_real_gpu()
    first = json.loads(_run(env, code=_SEEDED.format(before="from xpshim import _backend; assert _backend.pending")))
    after = json.loads(_run(env, code=_SEEDED.format(before="np.zeros(100003).sum()  # the GPU chosen first")))
    assert first == after
    assert first[2] == "ndarray"


def test_the_seed_alone_leaves_the_choice_pending():
    out = _run(_SIM, code="import xpshim as np; from xpshim import _backend; np.random.seed(0); "
                          "print(_backend.pending, 'xp' in vars(_backend))")
    assert out == "True False"  # (nothing read the backend: it is still unread, and undecided)


# ---- auto mode's start-up: the GPU starts on a thread, the program runs on the CPU meanwhile ----

_SLOW = {**_SIM, "XPSHIM_SIMULATE_IMPORT_MS": "4000"}  # (a GPU start far longer than the calls below)

_WHILE_STARTING = """
import json, numpy, xpshim as np
from xpshim import _backend, _device
h = numpy.ones(100003)                 # past the crossover: the GPU's, once it has started
a = np.asarray(h)                      # made while the GPU starts: on the CPU, no wait
s = float((a * 2).sum())
during = [type(a).__module__, _backend.pending, _backend._bg.is_alive(), s]
_device.WAIT_FOR_GPU = 200_000         # (the threshold, lowered so that a small test crosses it)
big = np.asarray(numpy.ones(300_000))  # data worth the wait: waits for the GPU
after = [type(big).__module__, _backend.pending, _backend._bg.is_alive()]
c = np.asarray(h)                      # the GPU chosen now: past the crossover, on it
print(json.dumps({"during": during, "after": after, "later": [type(c).__module__, type(a + c).__module__]}))
"""


def test_calls_made_while_the_gpu_starts_run_on_the_cpu_and_large_data_waits():
    got = json.loads(_run(_SLOW, code=_WHILE_STARTING))
    assert got["during"] == ["numpy", True, True, 200006.0]
    assert got["after"] == ["xpshim", False, False]
    assert got["later"] == ["xpshim", "xpshim"]


_FORK = """
import json, os, numpy, xpshim as np
from xpshim import _backend
h = numpy.ones(100003)
a = np.asarray(h)
parent = type(a).__module__
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    b = np.asarray(h)
    os.write(w, json.dumps([type(b).__module__, np.why_device()]).encode())
    os._exit(0)
os.close(w)
child = json.loads(os.read(r, 10000).decode())
os.waitpid(pid, 0)
print(json.dumps({"parent": parent, "child": child}))
"""


def test_a_forked_child_of_a_process_that_started_cuda_runs_on_the_cpu_saying_why():
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_") and k != "NUMBA_ENABLE_CUDASIM"}
    e.update(_SIM, PYTHONPATH=ROOT, XPSHIM_SIMULATE_IMPORT_MS="0")
    code = ("import time, xpshim; from xpshim import _backend; xpshim.zeros(3); "
            "_backend._bg.join()\n" + _FORK)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["parent"] == "xpshim"
    assert got["child"][0] == "numpy" and "forked from one that had started CUDA" in got["child"][1]
    assert r.stderr.count("forked from one that had started CUDA") == 1  # (said once, by the child)


_RENTED = """
import json, time, numpy, xpshim as np
from xpshim import _backend
h = numpy.ones(100003)
first = type(np.asarray(h)).__module__   # needs the device: the clock starts, the GPU does not
started_soon = not _backend.not_started()
time.sleep({wait})
second = type(np.asarray(h)).__module__  # asked again: past START_AFTER_S, the GPU starts now
started = not _backend.not_started()
if started:
    _backend.gpu_status()
third = type(np.asarray(h)).__module__
big = not _backend.not_started()
print(json.dumps([first, started_soon, second, started, third]))
"""


@pytest.mark.parametrize("wait", [0.0, 0.4])
def test_the_gpu_starts_only_once_the_program_has_asked_for_it_long_enough(wait):
    """Auto mode rents before it buys (docs/placement.md, Start-up): a script whose calls end
    within ``START_AFTER_S`` of its first call that needs the device never starts the GPU; one
    that goes on asking starts it then."""
    got = json.loads(_run({**_SIM, "XPSHIM_SIMULATE_IMPORT_MS": "0", "XPSHIM_START_AFTER_MS": "300"},
                          code=_RENTED.format(wait=wait)))
    if wait:
        assert got == ["numpy", False, "numpy", True, "xpshim"]
    else:
        assert got == ["numpy", False, "numpy", False, "numpy"]


_AT_ONCE = """
import json, numpy, xpshim as np
from xpshim import _backend
_backend.START_SIZE = 200_000            # (lowered so that a small test crosses it)
a = np.asarray(numpy.ones(100003))
before = not _backend.not_started()
b = np.asarray(numpy.ones(250_000))      # data worth the start: it starts at once, without waiting
print(json.dumps([type(a).__module__, before, not _backend.not_started(), type(b).__module__]))
"""


def test_data_worth_the_start_starts_the_gpu_at_once():
    got = json.loads(_run({**_SIM, "XPSHIM_SIMULATE_IMPORT_MS": "2000", "XPSHIM_START_AFTER_MS": "300"}, code=_AT_ONCE))
    assert got == ["numpy", False, True, "numpy"]
