"""CuPy's import on a thread (xpshim/_preload.py): made ready at ``import xpshim``, started there
in gpu mode and at the first call that needs the device in auto mode, each case in a fresh
interpreter with a stand-in CUDA driver (``ctypes.CDLL`` of libcuda answers with an object that
counts ``cuInit``) and a stand-in ``cupy`` package first on ``sys.path``.

What is checked: the thread starts only where the GPU may be chosen; nothing initialises CUDA
at import in auto mode; a fork after the import waits for it; a failed import is told as before,
at the first call; the program's own work (a Pillow decode) runs while CuPy is imported. Order
is shown by events and log lines, never by timings.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Installed before `import xpshim`: the stand-in driver, and a log that both threads write to.
PRELUDE = """
import ctypes, importlib.util, json, os, sys, threading
sys.path.insert(0, {fake_dir!r})
LOG = []
import builtins
builtins._preload_log = LOG
builtins._preload_gate = threading.Event()
CUINIT = []
CONTEXT = []

class FakeDriver:
    def cuInit(self, flags):
        CUINIT.append(threading.current_thread().name)
        return 0

    def cuDeviceGetCount(self, ref):
        ref._obj.value = 1
        return 0

    def cuDeviceGet(self, ref, ordinal):
        ref._obj.value = ordinal
        return 0

    def cuDevicePrimaryCtxRetain(self, ref, dev):
        CONTEXT.append(threading.current_thread().name)
        return 0

_real_cdll = ctypes.CDLL

def cdll(name, *args, **kwargs):
    if "cuda" in str(name):
        if not {driver}:
            raise OSError(name + ": cannot open shared object file")
        return FakeDriver()
    return _real_cdll(name, *args, **kwargs)

ctypes.CDLL = cdll
if not {cupy_found}:
    _find = importlib.util.find_spec
    importlib.util.find_spec = lambda name, *a: None if name == "cupy" else _find(name, *a)
"""

# The stand-in CuPy: logs its start and end (and its thread), then, as `behaviour` says, waits
# for the main thread's signal, sleeps, fails to import, or fails at the first allocation.
FAKE_CUPY = """
import builtins, threading, time
_log = getattr(builtins, "_preload_log", [])
_log.append("cupy import starts on " + threading.current_thread().name)
behaviour = {behaviour!r}
if behaviour == "gate":
    builtins._preload_gate.wait(10)
elif behaviour == "sleep":
    time.sleep(0.5)
elif behaviour == "broken":
    raise ImportError("fake: libcublas.so.12 cannot be opened")


class ndarray:
    pass


class _Runtime:
    @staticmethod
    def getDeviceCount():
        return 1

    @staticmethod
    def getDeviceProperties(i):
        return {{"name": b"Fake GPU"}}


class cuda:
    runtime = _Runtime


def empty(n):
    if behaviour == "gate":
        raise RuntimeError("fake: no memory on this device")
    return ndarray()


done = True
_log.append("cupy import ends")
"""


def run(tmp_path, code, behaviour="plain", driver=True, cupy_found=True, **env):
    """Run ``code`` after the prelude in a fresh interpreter; its last line of output, as JSON."""
    fake = tmp_path / "fake"
    (fake / "cupy").mkdir(parents=True, exist_ok=True)
    (fake / "cupy" / "__init__.py").write_text(FAKE_CUPY.format(behaviour=behaviour))
    src = PRELUDE.format(fake_dir=str(fake), driver=driver, cupy_found=cupy_found) + textwrap.dedent(code)
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    e.update(env)
    e.setdefault("XPSHIM_START_AFTER_MS", "0")  # (the GPU starts at the first call that needs the device)
    r = subprocess.run([sys.executable, "-c", src], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


STATE = """
from xpshim import _backend, _preload
AT_IMPORT = _preload.started()
from xpshim import _device
_device.current_device()  # (what the first call that needs the device asks: auto mode's start)
if _backend._bg is not None:
    _backend._bg.join()  # (auto mode: the GPU's start on its own thread, ended before looking)
print(json.dumps({"at_import": AT_IMPORT, "started": _preload.started(), "cupy": "cupy" in sys.modules, "cuinit": CUINIT,
                  "threads": sorted(t.name for t in threading.enumerate()), "pending": _backend.pending}))
"""


@pytest.mark.parametrize("case, env, kw, started", [
    ("auto", {}, {}, True),
    ("XPSHIM_DEVICE=auto", {"XPSHIM_DEVICE": "auto"}, {}, True),
    ("XPSHIM_DEVICE=gpu", {"XPSHIM_DEVICE": "gpu"}, {}, True),
    ("XPSHIM_DEVICE=cpu", {"XPSHIM_DEVICE": "cpu"}, {}, False),
    # (the simulated GPU's stand-in thread: it only sleeps, for the pending path's sake; no CuPy)
    ("simulated GPU", {"XPSHIM_SIMULATE_GPU": "1"}, {}, True),
    ("simulated GPU, gpu mode", {"XPSHIM_SIMULATE_GPU": "1", "XPSHIM_DEVICE": "gpu"}, {}, False),
    ("CuPy not installed", {}, {"cupy_found": False}, False),
    ("no driver", {}, {"driver": False}, False),
])
def test_thread_starts_only_where_the_gpu_may_be_chosen(tmp_path, case, env, kw, started):
    state, err = run(tmp_path, "import xpshim\n" + STATE, **kw, **env)
    assert state["started"] is started, case
    # gpu mode checks the GPU at import; auto mode starts nothing there (a program's own work
    # before its first call shares the GIL with no import: docs/placement.md, "Start-up")
    assert state["at_import"] is (started and env.get("XPSHIM_DEVICE") == "gpu"), case
    assert err == ""
    if env.get("XPSHIM_SIMULATE_GPU"):
        assert state["cupy"] is False and state["cuinit"] == []
    if not started:
        # nothing imported early, and no thread (the CPU path loads no CuPy: test_import.py)
        assert state["threads"] == ["MainThread"]
        assert state["cupy"] is False
    if env.get("XPSHIM_DEVICE") != "gpu":
        # auto mode: no cuInit on the program's thread at import; where the GPU may be chosen,
        # CUDA starts on its own thread, overlapping the program's work (docs/placement.md)
        want = ["xpshim-gpu-start"] if started and not env.get("XPSHIM_SIMULATE_GPU") else []
        assert state["cuinit"] == want
        assert state["pending"] is started  # (the call ran on the CPU while the GPU started: a later one settles)
    elif env.get("XPSHIM_SIMULATE_GPU"):
        assert state["pending"] is False  # (gpu mode chooses at import; no driver is asked)
    else:
        assert state["cuinit"] == ["MainThread"] and state["pending"] is False  # gpu mode checks the GPU at import


def test_cpu_mode_loads_no_thread_machinery():
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    r = subprocess.run([sys.executable, "-c", "import sys, xpshim; print('threading' in sys.modules, 'cupy' in sys.modules)"],
                       cwd=ROOT, env={**e, "XPSHIM_DEVICE": "cpu"}, capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ["False", "False"], r.stderr


def test_the_first_call_waits_and_settles_the_choice(tmp_path):
    state, err = run(tmp_path, """
        import xpshim as np
        from xpshim import _backend, _preload, _ndarray
        before = ("MainThread" in CUINIT, _backend.pending, "xp" not in vars(_backend), _preload.started())  # (xp: read only once settled)
        np.zeros(3)  # (the first call: the GPU starts on its threads; the call runs on the CPU meanwhile)
        _backend.gpu_status()  # (what a call given a GPU array does: waits for the start, settles)
        why = np.why_device()
        bound = _ndarray._cupy_ndarray is sys.modules["cupy"].ndarray  # (the listeners heard of CuPy)
        print(json.dumps({"before": list(before), "why": why, "cuinit": CUINIT, "context": CONTEXT,
                          "steps": sorted(k for k in _backend.start_times if k != "t0"),
                          "bound": bound,
                          "pending": _backend.pending, "live": _backend.live, "xp": _backend.xp.__name__,
                          "info": _preload.describe(), "log": LOG}))
    """)
    assert state["before"] == [False, True, True, False]
    assert "1 CUDA device(s), device 0 is Fake GPU" in state["why"], state["why"]
    assert state["cuinit"] == ["xpshim-gpu-start"]  # CUDA starts on its own thread, from the first call
    # the context is made there too, through the driver, while CuPy still imports; each step is timed
    assert state["context"] == ["xpshim-gpu-start"]
    # (cuBLAS's warm-up too, where CuPy has it: the stand-in has not)
    assert state["steps"] == sorted(["cuInit", "context", "import waited for", "first allocation", "probe"])
    assert (state["pending"], state["live"], state["xp"], state["bound"]) == (False, True, "cupy", True)
    assert state["log"] == ["cupy import starts on xpshim-cupy-import", "cupy import ends"]
    assert "started on a thread" in state["info"] and "the first call waited" in state["info"]
    assert err == ""


def test_a_shape_call_while_the_start_ends_is_made_on_the_cpu(tmp_path):
    # Auto mode: np.zeros(3) asks where new arrays go while the GPU is still starting; the start
    # ends between that call's reads of the device. A small shape stays NumPy's either way (the
    # stand-in CuPy has no zeros: a call sent to it fails).
    state, err = run(tmp_path, """
        import xpshim as np
        from xpshim import _backend
        real, looks = _backend.status_now, []
        def status_now():  # (still starting at the first look; settled, usable, at the next)
            looks.append(1)
            if len(looks) == 1:
                return None
            _backend.begin()
            return _backend.gpu_status()
        _backend.status_now = status_now
        a = np.zeros(3)
        print(json.dumps({"type": type(a).__module__, "looks": len(looks), "live": _backend.live,
                          "a": a.tolist()}))
    """)
    assert state == {"type": "numpy", "looks": 2, "live": True, "a": [0.0, 0.0, 0.0]}
    assert err == ""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX's")
def test_a_fork_after_import_waits_for_the_import(tmp_path):
    # The stand-in import sleeps: without the fork hook the child would find it half done.
    state, _ = run(tmp_path, """
        import xpshim
        from xpshim import _preload
        xpshim.zeros(3)  # (the first call starts the import)
        alive_before = [t.name for t in threading.enumerate() if t.name == "xpshim-cupy-import"]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            cp = sys.modules.get("cupy")
            from xpshim import _backend
            os.write(w, json.dumps([getattr(cp, "done", False), _backend.gpu_status().reason == _backend.FORKED,
                                    _backend.live]).encode())
            os._exit(0)
        os.close(w)
        child = json.loads(os.read(r, 1000).decode())
        os.waitpid(pid, 0)
        print(json.dumps({"alive_before": alive_before, "child": child, "log": LOG}))
    """, behaviour="sleep")
    assert state["alive_before"] == ["xpshim-cupy-import"]  # (the fork did find it running)
    # a whole CuPy; the parent had started CUDA (auto mode, on its thread), so the child, which
    # cannot use it, makes its arrays on the CPU and says why
    assert state["child"] == [True, True, False]
    assert state["log"][-1] == "cupy import ends"


@pytest.mark.parametrize("device", ["auto", "gpu"])
def test_a_failed_import_is_told_at_the_first_call_as_before(tmp_path, device):
    reason = "CuPy cannot use the GPU (ImportError: fake: libcublas.so.12 cannot be opened)"
    state, err = run(tmp_path, """
        try:
            import xpshim as np
        except Exception as exc:
            print(json.dumps({"import": f"{type(exc).__name__}: {exc}"}))
            raise SystemExit
        from xpshim import _backend
        pending = _backend.pending
        a = np.ones(40000) * 2
        _backend.gpu_status()  # (settled: why_device tells the outcome)
        print(json.dumps({"pending": pending, "why": np.why_device(), "type": type(a).__module__,
                          "sum": float(a.sum()), "live": _backend.live}))
    """, behaviour="broken", XPSHIM_DEVICE=device)
    assert err == ""  # nothing printed by the thread
    if device == "gpu":
        assert state["import"].startswith("DeviceError: XPSHIM_DEVICE=gpu asks for the GPU, but none is usable: "
                                          + reason), state
    else:
        assert state["pending"] is True
        assert state["why"] == "XPSHIM_DEVICE=auto and no usable GPU: " + reason
        assert (state["type"], state["sum"], state["live"]) == ("numpy", 80000.0, False)


def test_a_pillow_decode_runs_while_cupy_is_imported(tmp_path):
    pytest.importorskip("PIL")
    # The stand-in import waits until the image is decoded; the decode's wrapper gives the signal.
    # Were the decode after the wait (or the import at `import xpshim`), the log would say so.
    state, _ = run(tmp_path, f"""
        import numpy
        from PIL import Image, ImageFile
        import xpshim as np
        LOG.append("imported xpshim")
        _load = ImageFile.ImageFile.load

        def load(self):
            if self.tile:
                LOG.append("decode")
                builtins._preload_gate.set()
            return _load(self)

        ImageFile.ImageFile.load = load
        path = {str(tmp_path / "photo.png")!r}
        pixels = numpy.arange(300 * 200 * 3, dtype=numpy.uint8).reshape(200, 300, 3)
        Image.fromarray(pixels).save(path)
        image = Image.open(path)
        a = np.array(image)
        LOG.append("array made")
        from xpshim import _backend
        _backend.gpu_status()  # (settled: why_device tells the outcome)
        print(json.dumps({{"log": LOG, "equal": bool((numpy.asarray(a) == pixels).all()), "why": np.why_device()}}))
    """, behaviour="gate")
    log = state["log"]
    assert sorted(log) == sorted(["cupy import starts on xpshim-cupy-import", "imported xpshim", "decode",
                                  "cupy import ends", "array made"]), log
    # the decode ran while CuPy was importing, and the array was made after it; whether the import
    # ended before the array was made is the threads' race: the call does not wait for the import
    # (it runs on the CPU while the GPU starts: docs/placement.md)
    assert log.index("decode") < log.index("cupy import ends"), log
    assert log.index("imported xpshim") < log.index("decode") < log.index("array made"), log
    assert state["equal"] is True
    assert "CuPy cannot use the GPU (RuntimeError: fake: no memory on this device)" in state["why"]


def test_load_ext_says_where_arrays_go_without_starting_the_gpu(tmp_path):
    # CuPy's import waits at the gate: %load_ext must not wait for it, nor initialise CUDA on the
    # program's thread (the import's start-up thread may have called cuInit: docs/placement.md)
    state, err = run(tmp_path, """
        import contextlib, io
        import xpshim
        from xpshim import _backend, _ipython

        class Shell:
            user_ns = {}
            def register_magic_function(self, *args):
                pass

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            _ipython.load(Shell())
        after = {"pending": _backend.pending, "cuinit": CUINIT.count("MainThread")}
        builtins._preload_gate.set()
        print(json.dumps({"said": buf.getvalue(), **after}))
    """, behaviour="gate")
    assert state["pending"] is True and state["cuinit"] == 0  # nothing started
    assert state["said"].count("\n") == 1 and "the first call decides" in state["said"], state["said"]
    assert err == ""

