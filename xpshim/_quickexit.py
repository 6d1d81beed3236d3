"""The end of a process whose GPU is still starting: it does not wait for the start.

Auto mode imports CuPy and starts CUDA (``cuInit``, the context) on threads from the program's
first call that needs the device on (``_preload``, ``_backend.begin``), so that the start
overlaps the program's own work. A short program ends before they do: waiting for them at exit
cost ``python -c "import xpshim"`` 0.4 s over NumPy's import on an H100 (benchmarks/HISTORY.md),
and ending the interpreter while CUDA was starting on a daemon thread died of SIGSEGV there
(``exit()`` runs the CUDA libraries' teardown while the thread is still inside them).

So the threads are daemons, watched here. At the interpreter's end, threading's exit hook
(``_exiting``, run before threads are joined and before ``atexit``'s functions) looks at them:

* if one is still starting (CuPy importing, or CUDA's probe not ended: until then every call of
  the program ran on the CPU, so it has used no GPU), C's stdio buffers are flushed
  (``fflush(NULL)``) and glibc's ``on_exit`` is given ``_exit``. Python's own end then runs as
  always (``atexit`` functions, its streams flushed, modules torn down), and when ``exit()``
  starts the C-level exit work, ``_exit`` ends the process at once with the program's own
  status (0, 1 after an uncaught exception, ``sys.exit``'s code).
* if the start has got past CUDA's probe (the program may be using the GPU; only cuBLAS's
  warm-up is left), the end waits for it, and exits as usual.

What a program that ends during the start loses: every C-level exit handler and library
destructor registered before the end (C ``atexit`` handlers, C++ static destructors: profilers'
and coverage tools' data, a C library's buffered files), and C stdio written after the hook.
Python's own ``atexit`` functions all run. Where ``on_exit`` is missing (not glibc: Windows,
macOS) the end waits for the threads, as it did when they were not daemons.
"""

import ctypes

_watched = []    # the start-up threads (daemons)
_hooked = False
skipped = None   # the process ended with _exit while a start-up thread ran (set by _exiting)


def watch(thread, starting=None):
    """Keep ``thread`` (a daemon of the GPU's start, watched before it starts) from delaying the
    process's end while ``starting()`` is true (always, where None). Raises RuntimeError at the
    interpreter's shutdown (no hook can be registered then: the caller starts no thread)."""
    global _hooked
    if not _hooked:
        import threading

        threading._register_atexit(_exiting)  # (private, since Python 3.9; concurrent.futures' hook)
        _hooked = True
    _watched.append((thread, starting))


def daemon_ok():
    """True where a start-up thread may be a daemon (the hook can end the process safely)."""
    import threading

    return hasattr(threading, "_register_atexit") and _libc_on_exit() is not None


def _libc_on_exit():
    try:
        libc = ctypes.CDLL(None)  # (TypeError on Windows: no process-wide handle)
        return libc, libc.on_exit, libc._exit
    except (OSError, AttributeError, TypeError):
        return None


def _exiting():
    global skipped
    alive = [(t, starting) for t, starting in _watched if t.is_alive()]
    if not alive:
        return
    found = _libc_on_exit()
    if found is None or any(starting is not None and not starting() for _, starting in alive):
        for t, _ in alive:  # (no on_exit here, or the GPU may be in use: the usual end)
            t.join()
        return
    libc, on_exit, _exit = found
    libc.fflush(None)
    on_exit.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
    on_exit(ctypes.cast(_exit, ctypes.c_void_p), None)  # (on_exit calls it as _exit(status, arg))
    skipped = [t.name for t, _ in alive]
