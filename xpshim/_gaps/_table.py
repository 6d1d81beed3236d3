"""The gap table: ``implements`` registers a GPU implementation by NumPy name, and ``Decline``
is what an implementation raises for a case it does not cover (the package docstring says how
they are used). The family modules import this; the package loads them."""

IMPL = {}  # name -> Impl


class Decline(Exception):
    """Raised by an implementation, before any work, for a case it does not cover."""


class Impl:
    __slots__ = ("fn", "kwargs", "how", "replaces", "holder")

    def __init__(self, fn, kwargs, how, replaces=False, holder=False):
        self.fn, self.kwargs, self.how, self.replaces, self.holder = fn, kwargs, how, replaces, holder

    def covers(self, kwargs, native=frozenset()):
        """Whether it takes these keywords: its own, or (a keyword gap) those CuPy's takes."""
        return self.kwargs is None or all(k in self.kwargs or k in native for k in kwargs)

    def claims(self, kwargs):
        """A keyword gap claims a call that passes one of its keywords (even where CuPy's
        signature names that keyword but refuses it, as packbits does ``axis``)."""
        return self.kwargs is not None and not self.kwargs.isdisjoint(kwargs)


def implements(name, kwargs=None, how="cupy", replaces=False, holder=False):
    """Register ``fn`` as the GPU implementation of ``name``.

    ``kwargs``: None when it takes every keyword NumPy's takes; else the set of
    keywords it adds over CuPy's function (a keyword gap: it gets every call that
    passes one of those, with CuPy's own keywords alongside).
    ``how``: "cupy" (a composition of CuPy operations) or "numba" (a kernel).
    ``replaces``: used instead of CuPy's function of that name, which exists but does not
    do what NumPy's does (its callbacks would get raw CuPy arrays, say).
    ``holder``: a method of a GPU object (``random.Generator.<m>``) that gets xpshim's object
    (CuPy's object and its host twin) instead of CuPy's object alone.
    """
    def deco(fn):
        IMPL[name] = Impl(fn, None if kwargs is None else frozenset(kwargs), how, replaces, holder)
        return fn
    return deco
