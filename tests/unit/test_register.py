"""Pinning in place (``_register``): which uploads register an array's memory, and when the
registration ends. The CUDA calls are recorded by a stand-in runtime that copies bytes with
``ctypes.memmove`` (the real ones run in ``test_transfer_gpu.py`` on a GPU): this checks the
bookkeeping, not the driver."""

import ctypes
import gc

import numpy
import pytest

from xpshim import _pinned, _register

MIB = 1 << 20


def _upload(cp, host):
    return _register.upload(cp, host, _pinned.direct)


class _Error(Exception):
    pass


class _Runtime:
    CUDARuntimeError = _Error

    def __init__(self):
        self.calls = []
        self.refuse = None

    def hostRegister(self, ptr, n, flags):
        if self.refuse:
            raise _Error(self.refuse)
        self.calls.append(("register", ptr, n))

    def hostUnregister(self, ptr):
        self.calls.append(("unregister", ptr))

    def memcpyAsync(self, dst, src, n, kind, stream):
        assert kind == 1
        ctypes.memmove(dst, src, n)


class _Device:
    """A CuPy-like array in host memory (``data.ptr``)."""

    def __init__(self, shape, dtype):
        self.h = numpy.empty(shape, dtype)
        self.data = type("ptr", (), {"ptr": self.h.ctypes.data})()


class _Stream:
    ptr = 0

    def synchronize(self):
        pass


class _Cuda:
    def __init__(self):
        self.runtime = _Runtime()

    def get_current_stream(self):
        return _Stream()


class _CuPy:
    def __init__(self):
        self.cuda = _Cuda()

    def empty(self, shape, dtype):
        return _Device(shape, dtype)


@pytest.fixture
def cp(monkeypatch):
    monkeypatch.setattr(_register, "CAP", 64 * MIB)
    fake = _CuPy()
    yield fake
    _register.release_all(fake)


def _calls(cp, kind):
    return [c for c in cp.cuda.runtime.calls if c[0] == kind]


def test_second_upload_registers_and_later_ones_see_writes(cp):
    small = numpy.arange(4 * MIB // 8, dtype=numpy.float64)  # below MIN_BYTES: always staged
    for _ in range(3):
        assert _upload(cp, small) is None
    assert _calls(cp, "register") == []

    big = numpy.random.default_rng(0).random(20 * MIB // 8)
    assert _upload(cp, big) is None
    d = _upload(cp, big)
    assert numpy.array_equal(d.h, big)
    assert _calls(cp, "register") == [("register", big.ctypes.data, big.nbytes)]
    big[5] = -1.0  # the array stays the user's: the next upload sends what is there now
    d = _upload(cp, big)
    assert d.h[5] == -1.0 and numpy.array_equal(d.h, big)
    view = big[MIB // 8:]  # a contiguous view of it: sent in place too, no new registration
    assert numpy.array_equal(_upload(cp, view).h, view)
    assert len(_calls(cp, "register")) == 1
    assert "1 array(s), 20 MiB" in _register.status()


def test_freeing_the_array_ends_its_registration(cp):
    big = numpy.ones(20 * MIB // 8)
    ptr = big.ctypes.data
    _upload(cp, big)
    _upload(cp, big)
    assert _calls(cp, "unregister") == []
    del big
    gc.collect()
    assert _calls(cp, "unregister") == [("unregister", ptr)]
    assert "0 array(s), 0 MiB" in _register.status()


def test_small_views_of_a_large_array_are_staged(cp):
    base = numpy.zeros(80 * MIB // 8)  # (within the cap, but each view is under half of it)
    part = base[: 20 * MIB // 8]
    assert _upload(cp, part) is None
    assert _upload(cp, part) is None
    assert _calls(cp, "register") == []
    half = base[: 40 * MIB // 8]
    _upload(cp, half)
    assert _upload(cp, half) is None  # 80 MiB: over the 64 MiB cap
    assert _calls(cp, "register") == []


def test_the_oldest_registration_makes_room_under_the_cap(cp):
    a, b = numpy.ones(40 * MIB // 8), numpy.ones(40 * MIB // 8)
    for x in (a, a, b):
        _upload(cp, x)
    assert _calls(cp, "register") == [("register", a.ctypes.data, a.nbytes)]
    assert numpy.array_equal(_upload(cp, b).h, b)
    assert _calls(cp, "unregister") == [("unregister", a.ctypes.data)]
    assert _calls(cp, "register")[-1] == ("register", b.ctypes.data, b.nbytes)
    assert _upload(cp, a) is None  # a starts over: staged, seen once


def test_a_registered_array_cannot_be_resized_under_it(cp):
    """NumPy refuses ``ndarray.resize`` of an array with weak references (the registration holds
    one), so its memory cannot move while registered; were that to change, the address check
    would still end the registration (``upload``)."""
    a = numpy.ones(20 * MIB // 8)
    _upload(cp, a)
    _upload(cp, a)
    with pytest.raises(ValueError):
        a.resize(30 * MIB // 8, refcheck=False)


def test_a_refused_registration_stages_and_says_why(cp):
    cp.cuda.runtime.refuse = "cudaErrorHostMemoryAlreadyRegistered: part of it is registered already"
    a = numpy.ones(20 * MIB // 8)
    assert _upload(cp, a) is None
    assert _upload(cp, a) is None
    assert "the driver last refused one: cudaErrorHostMemoryAlreadyRegistered" in _register.status()


def test_memory_numpy_did_not_allocate_is_never_registered(cp):
    buf = bytearray(20 * MIB)
    a = numpy.frombuffer(buf, numpy.uint8)
    for _ in range(3):
        assert _upload(cp, a) is None
    assert _calls(cp, "register") == []
