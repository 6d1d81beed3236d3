"""Device selection, environment variables, the error paths, and `python -m xpshim info`.

Each case runs in a fresh interpreter, since the variables are read at import.
"""

import json
import os
import subprocess
import sys

import pytest

import xpshim
from xpshim import _backend

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NO_GPU = not _backend.gpu_status().usable


def py(code, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    e.update(env, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, cwd=ROOT)


@pytest.mark.parametrize("var,value", [("XPSHIM_DEVICE", "tpu"), ("XPSHIM_FALLBACK", "loud"),
                                       ("XPSHIM_TRANSFERS", "never")])
def test_unknown_env_value_names_the_valid_ones(var, value):
    r = py("import xpshim", **{var: value})
    assert r.returncode != 0
    assert "ConfigError" in r.stderr and var in r.stderr and repr(value) in r.stderr
    assert "use one of" in r.stderr


@pytest.mark.skipif(not NO_GPU, reason="this machine has a usable GPU")
def test_forced_gpu_without_one_fails_with_reason_and_fix():
    r = py("import xpshim", XPSHIM_DEVICE="gpu")
    assert r.returncode != 0
    assert "DeviceError" in r.stderr and _backend.gpu_status().reason in r.stderr
    assert "XPSHIM_DEVICE=cpu" in r.stderr


@pytest.mark.skipif(not NO_GPU, reason="this machine has a usable GPU")
def test_auto_without_gpu_is_cpu_and_does_not_import_cupy():
    r = py("import sys, xpshim as np; a = np.arange(3) * 2; "
           "print(np.get_device(), type(a).__module__, 'cupy' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["cpu", "numpy", "False"]


def test_cpu_device_never_imports_cupy():
    r = py("import sys, xpshim as np; np.sum(np.ones(3)); print('cupy' in sys.modules)", XPSHIM_DEVICE="cpu")
    assert r.stdout.strip() == "False", r.stderr


@pytest.mark.skipif(not NO_GPU, reason="this machine has a usable GPU")
def test_device_gpu_context_without_gpu_raises():
    with pytest.raises(xpshim.DeviceError, match="none is usable"):
        with xpshim.device("gpu"):
            pass


def test_device_context_rejects_unknown_names():
    with pytest.raises(xpshim.ConfigError, match="auto, cpu, gpu"):
        with xpshim.device("npu"):
            pass


def test_device_context_is_per_thread(cpu):
    import threading

    seen = []
    t = threading.Thread(target=lambda: seen.append(xpshim.get_device()))
    t.start()
    t.join()
    assert xpshim.get_device() == "cpu"
    assert seen == [xpshim._device.resolve_default()]


def test_cupy_installed_without_gpu_path():
    pytest.importorskip("cupy")
    if not NO_GPU:
        pytest.skip("this machine has a usable GPU")
    import cupy

    assert cupy.cuda.is_available() is False
    st = _backend.gpu_status()
    assert not st.usable and st.reason  # a reason, not a crash at the first allocation


def test_info_explains_the_choice():
    r = subprocess.run([sys.executable, "-m", "xpshim", "info"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for word in ("device", "copies", "numpy", "cupy", "numba", "known problems"):
        assert word in out
    assert ("no usable GPU" in out) == NO_GPU


def test_report_written_at_exit(tmp_path):
    path = tmp_path / "report.json"
    r = py("import xpshim as np; np.sum(np.ones(3))", XPSHIM_REPORT=str(path))
    assert r.returncode == 0, r.stderr
    rep = json.loads(path.read_text())
    assert set(rep) == {"transfers", "placement", "fallbacks"}


STAND_IN = ("import sys, warnings; sys.path.insert(0, 'tests/support'); import fakecupy, xpshim as np; "
            "np._backend.install(fakecupy); a = np.arange(4.0)\n"
            # a fallback: a masked fold of a ufunc without identity is not covered on the GPU
            "def fold(): return np.subtract.reduce(a, where=a > 1, initial=0.0)\n")


def test_fallback_raise_policy_in_a_fresh_process():
    code = STAND_IN + ("try:\n    fold()\nexcept np.FallbackError as e:\n"
                       "    print('raised', 'XPSHIM_FALLBACK' in str(e))")
    r = py(code, XPSHIM_FALLBACK="raise")
    assert r.stdout.strip() == "raised True", r.stderr


def test_silent_policy_counts_without_warning():
    code = STAND_IN + ("warnings.simplefilter('error'); fold(); "
                       "print(np.stats()['fallbacks']['xpshim.subtract.reduce']['count'])")
    r = py(code, XPSHIM_FALLBACK="silent")
    assert r.stdout.strip() == "1", r.stderr


def test_out_of_memory_error_names_the_fix(gpu):
    if gpu == "fake":
        import fakecupy
        from xpshim._route import Route

        def boom(*a, **k):
            raise fakecupy.OutOfMemoryError("out of memory allocating 10**15 bytes")
        r = Route("xpshim.zeros", boom, "zeros")
        r.resolved_for, r.resolved = _backend.xp, boom
        with pytest.raises(xpshim.OutOfMemoryError, match="Free GPU arrays"):
            r.gpu(((10**14,),), {})
    else:
        with pytest.raises(xpshim.OutOfMemoryError, match="Free GPU arrays"):
            xpshim.zeros((10**14,))
        x = xpshim.ones(3)  # nothing was lost: the GPU still works
        assert float(x.sum()) == 3.0


def test_device_auto_in_a_cpu_default_process_makes_gpu_arrays(tmp_path):
    # A process started on the CPU (XPSHIM_DEVICE=cpu) that later enters device("auto")
    # on a machine with a usable GPU (here the stand-in) makes GPU arrays there, from the
    # crossover size up (smaller ones stay NumPy arrays: size-aware placement).
    code = (
        "import fakecupy, xpshim\n"
        "from xpshim import _backend\n"
        "_backend.xp = fakecupy\n"
        "_backend._status = _backend.GpuStatus(True, 'stand-in', 1)\n"
        "with xpshim.device('auto') as d:\n"
        "    a = xpshim.ones(2**15)\n"
        "    print(d, xpshim.get_device(a), type(a).__name__, type(a + 1).__name__)\n"
        "    print(xpshim.get_device(xpshim.ones(3)))\n"
    )
    env = dict(os.environ, XPSHIM_DEVICE="cpu", PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests", "support")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["gpu", "gpu", "ndarray", "ndarray", "cpu"]


def test_bad_pinned_cap_names_the_fix():
    r = py("import xpshim", XPSHIM_PINNED_RESULTS_MAX="4GB")
    assert r.returncode != 0
    assert "ConfigError" in r.stderr and "XPSHIM_PINNED_RESULTS_MAX='4GB'" in r.stderr and "integer" in r.stderr


@pytest.mark.parametrize("value", ["4GB", "-1"])
def test_bad_registered_cap_names_the_fix(value):
    r = py("import xpshim", XPSHIM_REGISTERED_MAX=value)
    assert r.returncode != 0
    assert "ConfigError" in r.stderr and f"XPSHIM_REGISTERED_MAX={value!r}" in r.stderr and "integer" in r.stderr


def test_registered_cap_of_zero_turns_registering_off():
    r = py("from xpshim import _register; print(_register.CAP, _register.status())", XPSHIM_REGISTERED_MAX="0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "0" and "off (XPSHIM_REGISTERED_MAX=0)" in r.stdout


# ---- every XPSHIM_* variable, checked at import -------------------------------------------------
# name -> (bad values, a phrase of the fix the error must name, a good value that imports)
VARIABLES = {
    "XPSHIM_DEVICE": (["tpu", "GPU0", "1"], "use one of auto, cpu, gpu, dask", "cpu"),
    "XPSHIM_FALLBACK": (["loud", "0"], "use one of warn, silent, raise", "silent"),
    "XPSHIM_TRANSFERS": (["never", "yes"], "use one of count, warn", "warn"),
    "XPSHIM_REPORT": (["/no/such/dir/r.json", "/", "{tmp}"], "unset XPSHIM_REPORT", "{tmp}/r.json"),
    "XPSHIM_CROSSOVER": (["-1", "lots", "1.5", "1e30"], "whole number >= 0", "3.2e4"),
    "XPSHIM_PINNED_RESULTS_MAX": (["-5", "4GB", "1.5"], "integer >= 0", "0"),
    "XPSHIM_REGISTERED_MAX": (["-1", "4GB"], "integer >= 0", "1073741824"),
    "XPSHIM_DASK_SCHEDULER": (["nowhere", "tcp:/x", "host:port"], "scheduler's address", "tcp://127.0.0.1:8786"),
    "XPSHIM_DASK_CHUNK_TYPE": (["tpu", "gpu"], "use one of auto, numpy, cupy", "cupy"),
    "XPSHIM_DASK_CHUNK_BYTES": (["lots", "0", "-1MiB", "12 parsecs"], "256MiB", "64MiB"),
    "XPSHIM_SIMULATE_GPU": (["yes", "2", "true"], "use one of 0, 1", "1"),
    "XPSHIM_SEEDS": (["always", "1"], "use one of learn, eager, off", "eager"),
    "XPSHIM_SIMULATE_IMPORT_MS": (["-1", "soon", "1e9"], "a number from 0 to 600000", "250"),
    "XPSHIM_START_AFTER_MS": (["-1", "later", "1e9"], "a number from 0 to 600000", "0"),
    "XPSHIM_FAST_EXIT": (["yes", "2", "off"], "use one of 0, 1", "0"),
}
# Set by xpshim itself, not by users: `python -m xpshim run` hands its import scope to the
# multiprocessing children it starts (xpshim/_scope.py)
INTERNAL = {"XPSHIM_RUN_SCOPE"}


def test_the_table_covers_every_variable_the_library_reads():
    import re

    found = set()
    for folder, _, files in os.walk(os.path.join(ROOT, "xpshim")):
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(folder, f)) as src:
                    found |= set(re.findall(r"XPSHIM_[A-Z_]*[A-Z](?![A-Z_*])", src.read()))  # (not XPSHIM_DASK_*)
    assert found - set(VARIABLES) - INTERNAL == set()


BAD = [(var, value) for var, (values, _, _) in VARIABLES.items() for value in values]


@pytest.mark.parametrize("var,value", BAD)
def test_a_bad_value_stops_the_import_and_names_the_fix(var, value, tmp_path):
    value = value.format(tmp=tmp_path)
    r = py("import xpshim; print('imported')", **{var: value})
    assert r.returncode != 0 and "imported" not in r.stdout
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("xpshim.ConfigError: ") and var in last and VARIABLES[var][1] in last, r.stderr


@pytest.mark.parametrize("var", sorted(VARIABLES))
def test_a_good_value_imports(var, tmp_path):
    env = {var: VARIABLES[var][2].format(tmp=tmp_path)}
    if var == "XPSHIM_DEVICE":
        env[var] = "cpu"
    r = py("import xpshim; print('imported')", **env)
    assert r.returncode == 0 and r.stdout.strip() == "imported", r.stderr


def test_the_report_keeps_its_path_when_the_program_changes_directory(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    r = subprocess.run([sys.executable, "-c", "import os, xpshim as np; os.chdir('elsewhere'); np.sum(np.ones(3))"],
                       capture_output=True, text=True, cwd=tmp_path,
                       env={**{k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")},
                            "PYTHONPATH": ROOT, "XPSHIM_REPORT": "r.json"})
    assert r.returncode == 0, r.stderr
    assert set(json.loads((tmp_path / "r.json").read_text())) == {"transfers", "placement", "fallbacks"}


@pytest.mark.skipif(not NO_GPU, reason="this machine has a usable GPU")
def test_device_gpu_without_one_names_the_cause_not_a_variable_that_is_not_set():
    r = py("import xpshim\nwith xpshim.device('gpu'): pass")
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("xpshim.DeviceError: ") and _backend.gpu_status().reason in last
    assert "XPSHIM_DEVICE" not in last and 'xpshim.device("cpu")' in last
