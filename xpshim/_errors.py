"""The exceptions and warnings xpshim raises, in one place."""

# The advice that ends an error about what was detected here (python -m xpshim info shows the
# error itself without it: there the advice would send the user back where they are).
INFO_HINT = "`python -m xpshim info` shows what was detected."


class XpshimError(Exception):
    """Base class of xpshim's own errors."""


class ConfigError(XpshimError, ValueError):
    """An environment variable or argument names an unknown setting."""


class DeviceError(XpshimError, RuntimeError):
    """The GPU was asked for but cannot be used here."""


class FallbackError(XpshimError, NotImplementedError):
    """A call would run on the host and ``XPSHIM_FALLBACK=raise`` forbids it."""


class FallbackWarning(UserWarning):
    """A call ran on the host NumPy because the GPU backend lacks it."""


class TransferWarning(UserWarning):
    """Data crossed between host and device implicitly, or a value was read from the GPU into
    Python (only with ``XPSHIM_TRANSFERS=warn``)."""


class OutOfMemoryError(XpshimError, MemoryError):
    """The GPU ran out of memory; the message says what to try."""


for _cls in (XpshimError, ConfigError, DeviceError, FallbackError, FallbackWarning, TransferWarning, OutOfMemoryError):
    _cls.__module__ = "xpshim"  # tracebacks name them as users import them


# ---- tracebacks at the user's line ------------------------------------------------------------
# A call's error (NumPy's, or one of the user's function's) is told from the public call the user
# wrote: the frames of xpshim's routing and CuPy's internals beneath it are left out, as NumPy's C
# functions show none. The public entry points (_dispatch's wrappers, the ufunc's calls, the array's
# methods) re-raise through ``trimmed`` in an ``except`` clause, which costs nothing when nothing
# raises (Python 3.11's zero-cost exceptions); the entry point's own frame is the one left.
_INTERNAL = frozenset({"xpshim", "cupy", "cupyx", "cupy_backends", "fastrlock"})


def trimmed(e):
    """``e``, its traceback below the entry point that re-raises it with xpshim's and CuPy's frames
    left out (what the user's own functions, called back, and NumPy's Python code show is kept)."""
    import types

    t = e.__traceback__
    t = t.tb_next if t is not None else None  # (the entry point's own frame: the raise adds it again)
    kept = []
    while t is not None:
        if t.tb_frame.f_globals.get("__name__", "").partition(".")[0] not in _INTERNAL:
            kept.append(t)
        t = t.tb_next
    tb = None
    for t in reversed(kept):
        tb = types.TracebackType(tb, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return e.with_traceback(tb)
