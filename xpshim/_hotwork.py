"""Large work that NumPy does on the host where xpshim never sees it, found by sampling.

In auto mode, arrays that NumPy's own operators build from small NumPy arrays (nbody's
``pos[None, :, :] - pos[:, None, :]`` of a 2048 x 3 ``pos``) stay on the host: no xpshim call
takes them (docs/placement.md, "Large arrays that NumPy's own operators make"). What shows them
is time: one operation of the user's line running for tens of milliseconds in C code called
straight from that line, without the GIL (NumPy's loops release it). A daemon thread reads the
main thread's frame every ``INTERVAL_S``, when it gets the GIL at once; where the same instruction
of the same user frame (and the same locals) is found ``STREAK`` times in a row, with no xpshim
frame above it and the main thread computing while this one holds the GIL (``_runs_without_gil``),
that function and its caller are reported to placement (``report``), which then
makes the small arrays they create on the GPU ("seeds"), and the broadcast with them: the rules
that send a loop's small arrays back to the host apply to these as to any seed. A loop of small
operations never shows one instruction that long; a frame running in xpshim is xpshim's own work.

Started by the device layer once auto mode places arrays on a real GPU (``start``).
"""

import sys

from . import _callsite

INTERVAL_S = 0.01
STREAK = 3  # (three reads of one instruction, ten milliseconds apart: it ran for 20 ms or more)
GIL_SLACK_S = 0.002  # (a read whose wake-up took longer than this found the GIL held: not counted)
HOLD_S = 0.001  # (a repeated reading: the GIL held this long to see whether the main thread computes meanwhile)
MAX_SEEN = 4096

seen = {}  # _callsite.Code -> True: a function (or the caller of one) found running large host work
report = None  # placement's hook, called with each newly seen code's record (set by _placement)
_thread = None
_PKG = _callsite.PKG_DIR


def sample(frame):
    """One reading of the main thread's ``frame``, where the user's line runs C code directly (no
    xpshim frame above it): (its key: the user frame, its instruction and the identities of its
    locals; the frame), else None."""
    f = frame
    codes = _callsite.codes
    while f is not None:
        code = f.f_code
        if code.co_filename.startswith(_PKG):
            return None  # (xpshim's own work: it sees its arrays)
        k = codes.get(id(code))
        if k is None:
            k = _callsite.key(code)
        if not k.inside:
            # (its locals too: a loop whose one GIL-releasing operation is where the GIL is always
            # taken from it shows the same instruction at every read, but its counters move)
            return (id(f), code, f.f_lasti, _locals_ids(f), f)
        f = f.f_back
    return None


_CO_OPTIMIZED = 1  # (inspect.CO_OPTIMIZED: a function's frame, whose locals live in fast slots)


def _by_name(get):
    """A reader of a function frame's locals, each looked up by name with ``get(frame, name)``
    (which raises NameError, ValueError or KeyError for one not bound)."""
    def ids(f):
        out = []
        for name in f.f_code.co_varnames:
            try:
                out.append(id(get(f, name)))  # (no reference kept past this line)
            except (NameError, ValueError, KeyError):  # (not bound yet, or deleted)
                out.append(0)
        return tuple(out)
    return ids


def _slot_reader():
    """A reader of a function frame's local values' identities that holds none of them: 3.13's
    live ``f_locals`` view, CPython 3.12's ``PyFrame_GetVar`` (a local read from its slot), or on
    CPython 3.11 the slots' addresses read in place (``_slots_311``); None elsewhere."""
    if sys.version_info >= (3, 13):  # (PEP 667: a view of the slots, the closure's cells beside them)
        return _by_name(lambda f, name: f.f_locals[name])
    if sys.implementation.name != "cpython" or hasattr(sys, "getobjects"):  # (not a debug build's layout)
        return None
    try:
        import ctypes
    except ImportError:
        return None
    if sys.version_info[:2] == (3, 11) and ctypes.sizeof(ctypes.c_void_p) == 8:
        return _slots_311(ctypes)
    if sys.version_info[:2] != (3, 12):
        return None
    g = ctypes.pythonapi.PyFrame_GetVar
    g.restype = ctypes.py_object  # (a new reference, which ctypes takes over)
    g.argtypes = (ctypes.py_object, ctypes.py_object)
    return _by_name(g)


def _slots_311(ctypes):
    """CPython 3.11: a frame object's interpreter frame (``f_frame``, after the object's header
    and ``f_back``) holds its code at byte 32 and its locals from byte 72 on
    (Include/internal/pycore_frame.h, 3.11: eight pointers, an int, a bool and a char before
    ``localsplus``). The slots' values are the locals' addresses, their identities, read without a
    reference; a frame whose code is not where it should be is not read."""
    word = ctypes.c_void_p.from_address

    def ids(f):
        frame = word(id(f) + 24).value
        code = f.f_code
        if not frame or word(frame + 32).value != id(code):
            return ()
        return tuple(word(frame + 72 + 8 * i).value or 0 for i in range(code.co_nlocals))
    return ids


_reader = False  # (made at the first reading: ctypes is not imported with xpshim)


def _locals_ids(f):
    """The identities of frame ``f``'s local values, read without keeping any of them alive.

    A function frame's ``f_locals`` (before Python 3.13, PEP 667) copies its locals into a dict
    that the frame keeps: the user's ``del big`` would then not free ``big`` until the frame
    ends or is read again, and a ``locals()`` dict the user holds would change under them. So
    a function's locals are read from their slots, by name (``_slot_reader``); a module's or
    class body's ``f_locals`` is its namespace itself, read as it is. Elsewhere (another
    interpreter) the key is the frame and its instruction alone."""
    if not f.f_code.co_flags & _CO_OPTIMIZED:
        return tuple(map(id, f.f_locals.values()))
    global _reader
    if _reader is False:
        _reader = _slot_reader()
    return () if _reader is None else _reader(f)


def note(f):
    """The user frame ``f`` was found running one instruction for long: its function and its
    caller's are reported (as their ``_callsite.Code``)."""
    for code in (f.f_code, f.f_back.f_code if f.f_back is not None else None):
        k = _callsite.key(code) if code is not None else None
        if k is not None and k not in seen and len(seen) < MAX_SEEN and not k.inside:
            seen[k] = True
            if report is not None:
                report(k)


def _run(main_id):
    import threading
    import time

    me = threading.current_thread()
    clock = time.monotonic
    try:  # (the main thread's CPU clock: Linux and macOS)
        clk = time.pthread_getcpuclockid(main_id)
    except (AttributeError, OSError):
        clk = None
    last, streak = None, 0
    while _thread is me:
        t0 = clock()
        time.sleep(INTERVAL_S)
        if clock() - t0 > INTERVAL_S + GIL_SLACK_S:
            # (the GIL came back late: the main thread was running Python, which gives it up only
            # every switch interval, at the same few instructions of a loop; a long NumPy
            # operation runs without it. Or this thread was not scheduled in time, on a busy
            # host: where the main thread's CPU clock can be read, a repeated reading is counted
            # only when it computes without the GIL (_runs_without_gil), so the reading is
            # skipped without forgetting the streak; else the streak starts again)
            if clk is None:
                last, streak = None, 0
            continue
        frame = sys._current_frames().get(main_id)
        if frame is None:
            return  # (the main thread is gone)
        s = sample(frame)
        del frame
        if s is None:
            last, streak = None, 0
            continue
        key = s[:4]
        if last is not None and key == last:
            if clk is not None and not _runs_without_gil(clk, clock):
                continue  # (waiting for the GIL, or idle, or not scheduled meanwhile: not counted)
            streak += 1
            if streak == STREAK:
                note(s[4])
        else:
            streak = 1
        last = key
        s = None


def _runs_without_gil(clk, clock):
    """True when the main thread computes while this one holds the GIL for ``HOLD_S``: it is in C
    code that released the GIL (a NumPy operation), not running Python (which would wait for the
    GIL here: a loop's small operations, each a GIL hand-over, look like one long instruction to
    the frame alone), nor waiting (a sleep, a read: no CPU)."""
    import time

    c0 = time.clock_gettime(clk)
    end = clock() + HOLD_S
    while clock() < end:  # (holding the GIL: a busy wait, shorter than the switch interval)
        pass
    return time.clock_gettime(clk) - c0 > HOLD_S / 10


def start():
    """Start the sampling thread (once per process; a forked child starts none)."""
    global _thread
    if _thread is not None:
        return
    import threading

    t = threading.Thread(target=_run, args=(threading.main_thread().ident,), name="xpshim-hot-work", daemon=True)
    _thread = t
    try:
        t.start()
    except RuntimeError:  # (a first call during the interpreter's end: no new thread then, and nothing to learn)
        _thread = None


def running():
    """True while the sampling thread runs."""
    return _thread is not None


def stop():
    """Stop the sampling thread (tests; it ends within ``INTERVAL_S``)."""
    global _thread
    t, _thread = _thread, None
    if t is not None:
        t.join()
