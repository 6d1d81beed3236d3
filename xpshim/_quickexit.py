"""The end of a process whose GPU is still starting: it does not wait for the start.

Auto mode imports CuPy and starts CUDA (``cuInit``, the context, cuBLAS) on threads from
``import xpshim`` on (``_preload``, ``_backend.start_in_background``), so that the start overlaps
the program's own work. A short program ends before they do: waiting for them at exit cost
``python -c "import xpshim"`` 0.4 s over NumPy's import on an H100 (benchmarks/HISTORY.md), and
ending the interpreter while CUDA was starting on a daemon thread died of SIGSEGV there
(``exit()`` runs the CUDA libraries' teardown while the thread is still inside them).

So the threads are daemons, watched here. At the interpreter's end, threading's exit hook
(``_exiting``, run before threads are joined and before ``atexit``'s functions) looks at them;
if one still runs:

* C's stdio buffers are flushed (``fflush(NULL)``);
* glibc's ``on_exit`` is given ``_exit``. Python's own end then runs as always (``atexit``
  functions, its streams flushed, modules torn down), and when ``exit()`` starts the C-level
  teardown, ``_exit`` ends the process at once with the program's own status (0, 1 after an
  uncaught exception, ``sys.exit``'s code), before the teardown registered earlier (CUDA's and
  its libraries', which have nothing to free in a process that never used the GPU).

What a program loses: only C-level ``atexit`` work of libraries loaded before the GPU's start
ended (Python's ``atexit`` functions all run). Where ``on_exit`` is missing (not glibc) the hook
waits for the threads, as it did when they were not daemons.
"""

import ctypes

_watched = []    # the start-up threads (daemons)
_hooked = False
skipped = None   # the process ended with _exit while a start-up thread ran (set by _exiting)


def watch(thread):
    """Keep ``thread`` (a started daemon of the GPU's start) from delaying the process's end."""
    global _hooked
    _watched.append(thread)
    if not _hooked:
        import threading

        threading._register_atexit(_exiting)  # (private, since Python 3.9; concurrent.futures' hook)
        _hooked = True


def daemon_ok():
    """True where a start-up thread may be a daemon (the hook can end the process safely)."""
    import threading

    return hasattr(threading, "_register_atexit") and _libc_on_exit() is not None


def _libc_on_exit():
    try:
        libc = ctypes.CDLL(None)
        return libc, libc.on_exit, libc._exit
    except (OSError, AttributeError):
        return None


def _exiting():
    global skipped
    alive = [t for t in _watched if t.is_alive()]
    if not alive:
        return
    found = _libc_on_exit()
    if found is None:
        for t in alive:
            t.join()
        return
    libc, on_exit, _exit = found
    libc.fflush(None)
    on_exit.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
    on_exit(ctypes.cast(_exit, ctypes.c_void_p), None)  # (on_exit calls it as _exit(status, arg))
    skipped = [t.name for t in alive]
