"""A program that ends while the GPU is still starting (CuPy's import, CUDA's start, on threads
since ``import xpshim``) ends at once, with its own exit status, its output and its ``atexit``
functions (``xpshim._quickexit``).

On the simulated GPU the import is a thread that sleeps ``XPSHIM_SIMULATE_IMPORT_MS``: a process
that had to wait for it would take that long. On a real GPU (``-m gpu``) programs end at random
points of CUDA's start, many times over: none may crash, none may lose its status or output.
"""

import os
import subprocess
import sys
import time

import pytest

from conftest import _real_gpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

needs_on_exit = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's on_exit: Linux only")


def _run(code, env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_") and k != "NUMBA_ENABLE_CUDASIM"}
    e.update(env, PYTHONPATH=ROOT)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)
    return r, time.perf_counter() - t0


SLOW_IMPORT = {"XPSHIM_SIMULATE_GPU": "1", "XPSHIM_DEVICE": "auto", "XPSHIM_SIMULATE_IMPORT_MS": "20000",
               "XPSHIM_START_AFTER_MS": "0"}  # (the GPU starts at the first call that needs the device)

ENDINGS = {  # program -> (exit status, text its stdout ends with, text its stderr holds)
    "print(np.arange(4).sum())": (0, "6", ""),
    "print('x'); sys.exit(3)": (3, "x", ""),
    "sys.exit('bye')": (1, "", "bye"),
    "raise ValueError('boom')": (1, "", "ValueError: boom"),
    "sys.stdout.write('no newline'); sys.stdout.flush(); os._exit(4)": (4, "no newline", ""),
    "import ctypes; ctypes.CDLL(None).printf(b'from C')": (0, "from C", ""),
}


@needs_on_exit
@pytest.mark.parametrize("body", list(ENDINGS))
def test_a_program_ending_while_the_gpu_starts_keeps_its_status_output_and_atexit(body):
    code = ("import atexit, os, sys\natexit.register(lambda: print('atexit ran', file=sys.stderr))\n"
            f"import xpshim as np\n{body}\n")
    r, took = _run(code, SLOW_IMPORT)
    status, out, err = ENDINGS[body]
    assert r.returncode == status, r.stderr
    assert r.stdout.rstrip("\n").endswith(out), r.stdout
    assert err in r.stderr
    if "_exit" not in body:
        assert "atexit ran" in r.stderr
    assert took < 10, took  # (the import it did not wait for takes 20 s)


def test_a_program_that_outlives_the_start_uses_the_gpu_and_ends_normally():
    code = "import time, xpshim as np\ntime.sleep(0.5)\na = np.ones(100000)\nprint(type(a).__name__, float(a.sum()))\n"
    r, _ = _run(code, {**SLOW_IMPORT, "XPSHIM_SIMULATE_IMPORT_MS": "50"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ndarray", "100000.0"]


@pytest.mark.gpu
def test_programs_ending_at_random_points_of_cudas_start_end_cleanly():
    if not _real_gpu():
        pytest.skip("no usable CUDA GPU")
    code = ("import random, sys, time\nimport xpshim as np\n"
            "time.sleep(random.Random(int(sys.argv[1])).random() * 0.8)\n"
            "print(float(np.ones(10**6).sum()))\nsys.exit(int(sys.argv[1]) % 3)\n")
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    e["PYTHONPATH"] = ROOT
    procs = [(i, subprocess.Popen([sys.executable, "-c", code, str(i)], cwd=ROOT, env=e, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)) for i in range(24)]
    bad = []
    for i, p in procs:
        out, err = p.communicate(timeout=120)
        if p.returncode != i % 3 or out.strip() != "1000000.0":
            bad.append((i, p.returncode, out[-200:], err[-500:]))
    assert bad == []


def test_asking_why_while_the_gpu_starts_does_not_wait_for_it():
    code = ("import time, xpshim as np\nnp.zeros(3)\nt = time.perf_counter()\nprint(np.why_device())\n"
            "print(time.perf_counter() - t < 5)\n")
    r, took = _run(code, SLOW_IMPORT)
    assert r.returncode == 0, r.stderr
    why, quick = r.stdout.strip().splitlines()
    assert "still starting" in why and quick == "True"
    assert took < 10


def test_the_gil_switch_interval_is_short_only_while_cupy_imports():
    # (a program thread waits up to one interval for the GIL each time it gives it up: 5 ms by default)
    code = ("import sys, time\nprint(sys.getswitchinterval())\nimport xpshim as np\nnp.zeros(3)\n"
            "print(sys.getswitchinterval())\ntime.sleep(1.0)\nprint(sys.getswitchinterval())\n"
            "sys.setswitchinterval(0.01)\n")
    r, _ = _run(code, {**SLOW_IMPORT, "XPSHIM_SIMULATE_IMPORT_MS": "300"})
    before, during, after = map(float, r.stdout.split())
    assert before == after == 0.005 and during <= 1e-4 + 1e-9
    # a program that sets its own interval meanwhile keeps it
    code = "import sys, time\nimport xpshim as np\nnp.zeros(3)\nsys.setswitchinterval(0.02)\ntime.sleep(1.0)\nprint(sys.getswitchinterval())\n"
    r, _ = _run(code, {**SLOW_IMPORT, "XPSHIM_SIMULATE_IMPORT_MS": "300"})
    assert float(r.stdout) == 0.02


def test_first_calls_on_several_threads_at_once_start_the_gpu_once():
    # (each thread's first call needs the device while none has started it: one starts both
    # threads, the others wait for that, and every call runs on the CPU meanwhile)
    code = ("import threading, numpy, xpshim as np\nfrom xpshim import _backend\n"
            "a = numpy.arange(1000.0)\nout, errors = {}, []\nbar = threading.Barrier(6)\n"
            "def work(i):\n    bar.wait()\n    try:\n        out[i] = float(np.sqrt(np.asarray(a)).sum())\n"
            "    except Exception as e:\n        errors.append(repr(e))\n"
            "ts = [threading.Thread(target=work, args=(i,)) for i in range(6)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\n"
            "print(errors, sorted(set(out.values())) == [float(numpy.sqrt(a).sum())], len(out),\n"
            "      _backend._status is None, sum(t.name == 'xpshim-cupy-import' for t in threading.enumerate()))\n")
    for _ in range(3):
        r, _ = _run(code, {**SLOW_IMPORT, "XPSHIM_SIMULATE_IMPORT_MS": "2000"})
        assert r.returncode == 0, r.stderr
        # no error, NumPy's answer on every thread, nothing settled while the start runs, one import
        assert r.stdout.split() == ["[]", "True", "6", "True", "1"], r.stdout


@pytest.mark.parametrize("where", ["atexit", "thread"])
def test_a_first_call_during_the_interpreters_end_answers(where):
    # (an atexit function, or a thread still running after the main thread ended: no thread can
    # start then, and the call runs on the caller's thread)
    code = ("import atexit, threading, time, xpshim as np\n"
            "def late(who):\n    print(who, float(np.sum(np.arange(10.0))), flush=True)\n"
            + ("atexit.register(late, 'atexit')\n" if where == "atexit" else
               "threading.Thread(target=lambda: (time.sleep(0.3), late('thread'))).start()\n"))
    r, _ = _run(code, {**SLOW_IMPORT, "XPSHIM_SIMULATE_IMPORT_MS": "50"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [where, "45.0"], (r.stdout, r.stderr)
