"""CuPy's import on a thread, so that it overlaps the program's own work (reading its data)
instead of adding to it: started at ``import xpshim`` in gpu mode, and in auto mode once calls
have asked for the device for ``_backend.START_AFTER_S``, or before the decode of a large photo
given to ``np.array`` (``_backend.begin``).

A GPU program pays, once per process, for CuPy's import and for CUDA's start-up (the driver's
``cuInit`` and the context that the first allocation makes): about 0.65 s together on an H200.
The import is Python work that holds the GIL: begun at ``import xpshim``, it shared the GIL with
the program's own imports and set-up, which ran up to twice as long meanwhile; begun at the first
call, it overlaps the work on the program's data (a decode, NumPy's loops, which release the
GIL), and a program that never calls xpshim on data pays nothing for it.

Whether it may start (``_backend.preload`` decides, at import, in this order, cheapest first):

* ``XPSHIM_DEVICE`` is ``auto`` (the default) or ``gpu``, and ``XPSHIM_SIMULATE_GPU`` is not 1:
  with ``cpu`` or ``dask`` nothing here runs, and ``import xpshim`` costs what it did;
* CuPy is installed (``importlib.util.find_spec``: no import);
* the driver's library loads (``ctypes.CDLL("libcuda.so.1")``, which the driver probe loads
  anyway; kept for it). Loading the library is not initialising CUDA: ``cuInit`` is not called
  here. ``/dev/nvidia0`` or ``/proc/driver/nvidia`` would cost less, but they are Linux's only,
  and absent where the driver is (WSL2's ``/dev/dxg``, Windows); where no driver is installed the
  failed load costs what the probe's did before, and is not paid twice.

No CUDA on this thread: it imports CuPy and nothing else. In auto mode the GPU's start (the
driver's ``cuInit``, the context) runs on a second thread that waits for this one
(``_backend.start_in_background``); calls made meanwhile run on the CPU (docs/placement.md,
"Start-up"). A child forked after that cannot use CUDA: it makes its arrays on the CPU and says
why (``_backend._forked``). With ``XPSHIM_DEVICE=gpu`` the import still checks the GPU, as before
(an absent GPU fails there, at import, with the reason); the thread then overlaps CuPy's import
with the driver's start-up.

Auto mode decides at the first call: ``import xpshim`` used to choose the device at once, which
meant CuPy's import, ``cuInit`` and the first allocation (about 0.65 s on an H200) before the
program's first line ran. Where the thread starts, the import now only marks the GPU as possible
(``_backend.live``, so names resolve to the routed functions, as on a GPU machine before), and
the first call that needs the device (``_device.current_device``, ``placing``, or a CuPy array
among its arguments) asks ``_backend.status_now``: while the start-up thread (the driver probe,
the wait for the import, the first allocation) still runs, the call runs on the CPU; once it has
ended, the choice is settled on the caller's thread. Where that finds
no usable GPU, ``live`` goes back to False: answers are the same, but the names resolved before
it are the routed ones (a slower CPU path), and CuPy was imported for nothing (on the thread).
That happens only where CuPy is installed and the driver loads but no device is usable.

The first call of a program that reads a photo is ``np.array(image)``, where Pillow decodes it
(``Image.open`` reads only the header). ``xpshim.array`` decodes it first (``_pil.decode``), then
chooses the device: every route decodes the image anyway, and fails with the same error where it
cannot, so only the order changes, and the decode (which releases the GIL) overlaps the import.

Fork: ``os.register_at_fork(before=wait)`` makes a fork wait for the import to finish, so that a
child never inherits a half-imported CuPy (its module lock held by a thread that does not exist
in the child). Nothing else blocks: ``subprocess`` does not run fork hooks.

Only ``cupy`` is imported on the thread (and what CuPy imports), never a module of xpshim: the
package's ``__init__`` is still running on the main thread, and two threads importing the
package's submodules at once can meet Python's import-lock deadlock detection.

Errors: whatever the import raises is kept, not printed; ``_backend.gpu_status`` raises it again
at the point where it imported CuPy itself before, so the reason ("CuPy cannot use the GPU
(ImportError: ...)") and the moment it is told (the first call; ``XPSHIM_DEVICE=gpu``'s
DeviceError at import) are unchanged. A program that ends before the import does not wait for
it: the thread is a daemon, and ``_quickexit`` ends such a process before the C-level teardown
(where glibc's ``on_exit`` is missing, the end waits for the import, as before).

No environment variable turns it off: it changes only when CuPy's import happens, not what any
call does. ``python -m xpshim info`` says whether it ran and how long the first call waited
(``describe()``).
"""

import os
import sys
import time

_thread = None
_error = None       # what the import raised on the thread, for gpu_status to raise again
_took = None        # seconds the import took on the thread
_waited = None      # seconds the first wait blocked (None: nothing has waited yet)
_hooked = False


# While CuPy imports on its thread (Python work that holds the GIL), the program's own thread
# shares the GIL with it. At Python's default switch interval (5 ms) each time the program's
# thread gives the GIL up (a file read, a decoder's chunk, a NumPy call that releases it) it may
# wait 5 ms to get it back: a 1920x1080 photo's read-convert-write went from 67 ms to 951 ms
# beside a busy thread, and to 103 ms at 0.1 ms (benchmarks/HISTORY.md). So the interval is
# 0.1 ms until the import ends, then what it was (unless the program changed it meanwhile).
SWITCH_INTERVAL = 1e-4
_saved_interval = None  # (the program's interval, ours as read back) while the import runs


def _work(simulated_s=None):
    global _error, _took
    t0 = time.perf_counter()
    try:
        if simulated_s is None:
            import cupy  # noqa: F401  (CuPy and what it imports: no xpshim module, no CUDA call)
        else:
            time.sleep(simulated_s)  # the simulated GPU: CuPy's import stood for by its duration
    except BaseException as exc:  # kept for gpu_status, which reports it as it did before
        _error = exc
    finally:
        if _saved_interval is not None and sys.getswitchinterval() == _saved_interval[1]:
            sys.setswitchinterval(_saved_interval[0])
    _took = time.perf_counter() - t0


def start(simulated_s=None):
    """Start importing CuPy on a thread (once); later calls do nothing. ``simulated_s``: the
    simulated GPU's stand-in, a thread that only takes that long (``XPSHIM_SIMULATE_IMPORT_MS``),
    so that calls made while "CuPy" is still importing are exercised without a GPU."""
    global _thread, _hooked
    if _thread is not None:
        return
    import threading  # (only here: the CPU path never loads it)

    from . import _quickexit

    global _saved_interval
    daemon = _quickexit.daemon_ok()
    t = threading.Thread(target=_work, args=(simulated_s,), name="xpshim-cupy-import", daemon=daemon)
    if daemon:
        _quickexit.watch(t)  # (the process's end does not wait for the import; raises at shutdown)
    before = sys.getswitchinterval()
    if before > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)
        _saved_interval = (before, sys.getswitchinterval())  # (as read back: rounded to microseconds)
    try:
        t.start()  # (raises at the interpreter's shutdown: the caller imports on its own thread then)
    except BaseException:
        if _saved_interval is not None:
            sys.setswitchinterval(before)
            _saved_interval = None
        raise
    _thread = t  # (published once started: wait() never joins a thread that has not started)
    if not _hooked and hasattr(os, "register_at_fork"):
        os.register_at_fork(before=wait)  # a child never inherits a half-imported CuPy
        _hooked = True


def started():
    """True when CuPy's import was started on a thread."""
    return _thread is not None


def wait():
    """Block until the thread's import has ended (at once when none was started); the exception
    it raised, or None."""
    global _waited
    if _thread is None:
        return None
    if _waited is None:
        t0 = time.perf_counter()
        _thread.join()
        _waited = time.perf_counter() - t0
    else:
        _thread.join()
    return _error


def describe():
    """One line for ``python -m xpshim info``: whether CuPy's import was started early, how long
    it took, and how long the first call waited for it."""
    if _thread is None:
        return ("not started (where the GPU may be chosen it starts at import in gpu mode, and in auto mode "
                "once calls have asked for the device for XPSHIM_START_AFTER_MS, or for data worth it)")
    if _thread.is_alive():
        return "started on a thread, still running"
    took = f"took {_took * 1e3:.0f} ms" + (f", failed ({type(_error).__name__})" if _error is not None else "")
    waited = "nothing has waited for it yet" if _waited is None else f"the first call waited {_waited * 1e3:.1f} ms"
    return f"started on a thread; {took}; {waited}"
