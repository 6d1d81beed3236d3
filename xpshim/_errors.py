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
