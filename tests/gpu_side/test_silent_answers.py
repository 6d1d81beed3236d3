"""Answers CuPy 14 gives silently otherwise than NumPy (the simulated GPU gives CuPy's, as CuPy's
source says: xpshim/_simgpu/cupy.py), and xpshim gives NumPy's: arange with a step its dtype
truncates, a write from the memory it goes to (a dtype view), shares_memory's max_work,
resize of a referenced array, and array(copy=None) on the CPU path."""

import warnings

import numpy
import pytest

import xpshim
from xpshim import _simgpu

_DTYPES = [numpy.dtype(c) for c in "bhilqBHILQefdFD"]
_BOUNDS = [(-3, 3, 0.5), (0, 10, 1.5), (1, -4, -0.7), (0.1, 2.0, 0.3), (0.5, 7, 1), (-2, 9, 2.5), (0, 1, 0.1),
           (3, 20, 3), (1e15, 1e15 + 40, 3.5), (0, 5, 1)]


def _same(want, got):
    got = xpshim.asnumpy(got)
    return want.dtype == got.dtype and want.shape == got.shape and numpy.array_equal(want, got, equal_nan=True)


def test_the_simulated_gpu_answers_arange_as_cupy():
    """CuPy's arange: typ(start) + i * typ(step) (cupy/_creation/ranges.py)."""
    got = _simgpu.module().arange(-3, 3, 0.5, dtype=numpy.int64)
    assert got.get().tolist() == [-3] * 12


@pytest.mark.parametrize("dtype", _DTYPES, ids=str)
def test_arange_steps_as_numpys(gpu, dtype):
    bad = []
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for start, stop, step in _BOUNDS:
            if dtype.kind == "u" and min(start, stop) < 0:
                continue
            for call in ((start, stop, step), (start, stop, step, dtype)):
                kw = {} if len(call) == 3 else {"dtype": dtype}
                try:
                    want = numpy.arange(*call[:3], **kw)
                except Exception as e:
                    want = e
                try:
                    got = xpshim.arange(*call[:3], **kw)
                except Exception as e:
                    got = e
                if isinstance(want, Exception) or isinstance(got, Exception):
                    if type(want) is not type(got):
                        bad.append((call, repr(want), repr(got)))
                elif not (_same(want, got) or (gpu == "cuda" and _one_ulp(want, xpshim.asnumpy(got)))):
                    bad.append((call, want.tolist(), xpshim.asnumpy(got).tolist()))
    assert bad == []


def _one_ulp(want, got):
    """Within one unit in the last place, in NumPy's dtype: NumPy's fill computes ``first + i *
    delta``, which a host compiler may fuse into one multiply-add (NumPy's build and CPU decide;
    docs/differences.md, "Last bits"); the GPU computes the two operations apart."""
    if want.dtype != got.dtype or want.shape != got.shape or want.dtype.kind not in "fc":
        return False
    for part in ((numpy.real, numpy.imag) if want.dtype.kind == "c" else (lambda v: v,)):
        w, g = part(want), part(got)
        if not numpy.all(numpy.abs(w - g) <= numpy.spacing(numpy.abs(w))):
            return False
    return True


_SAME_SIZE = [(numpy.dtype(a), numpy.dtype(b)) for group in ("ehH", "fiIF"[:3], "dqQF") for a in group for b in group
              if a != b]


def test_the_simulated_gpu_keeps_the_bits_as_cupy():
    """CuPy skips a copy from the very memory it writes, whatever the dtypes (_scatter_op)."""
    cp = _simgpu.module()
    z = cp.asarray(numpy.array([1.5, 2.5], numpy.float32))
    y = z.view(numpy.int32)
    y[:] = z
    assert y.get().tolist() == numpy.array([1.5, 2.5], numpy.float32).view(numpy.int32).tolist()


@pytest.mark.parametrize("pair", _SAME_SIZE, ids=lambda p: f"{p[0]}-as-{p[1]}")
def test_a_write_from_the_memory_it_goes_to_reads_it_first(gpu, pair):
    src, dst = pair
    keys = [slice(None), Ellipsis, slice(1, None), slice(None, None, 2)]
    bad = []
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key in keys:
            # (no negative value cast to an unsigned dtype: C leaves that undefined, and the
            # host's and CUDA's conversions differ, as for divergences.INPUTS)
            want_z = (numpy.arange(16) * 1.25 - (0 if dst.kind == "u" else 3)).astype(src)
            got_z = xpshim.asarray(want_z.copy())
            want_y, got_y = want_z.view(dst), got_z.view(dst)
            value = slice(None, -1) if key == slice(1, None) else key  # (a[1:] = a[:-1]: overlapping, shifted)
            want_y[key] = want_z[value]
            got_y[key] = got_z[value]
            if not (_same(want_y, got_y) and _same(want_z, got_z)):
                bad.append(key)
    assert bad == []


def _overlaps(mod):
    """Pairs of views of one array, NumPy's docstring's hard case among them (scaled down)."""
    x = mod.zeros(200000, dtype=mod.int8)
    st = mod.lib.stride_tricks
    a = mod.arange(60.).reshape(6, 10)
    return [(a[::2], a[1::2]), (a[::2], a), (a, a.T), (a[:, 1:], a[:, :-1]), (a[0], a[1]), (a[2:4, 3], a[:, 3]),
            (a[1:1], a), (a[0, 0:1].reshape(()), a[0, 1:2].reshape(())), (a[0, 0:1].reshape(()), a),
            (st.as_strided(x, strides=(367, 611, 855), shape=(20, 20, 20)),
             st.as_strided(x[6402:], strides=(1223, 1224, 1), shape=(20, 20, 1)))]


@pytest.mark.parametrize("name", ["shares_memory", "may_share_memory"])
def test_shares_memory_is_numpys_for_every_max_work(gpu, name):
    bad = []
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, ((h1, h2), (g1, g2)) in enumerate(zip(_overlaps(numpy), _overlaps(xpshim))):
            for work in (None, -1, 0, 1, 1000):
                try:
                    want = getattr(numpy, name)(h1, h2, max_work=work)
                except Exception as e:
                    want = (type(e), str(e))
                try:
                    got = getattr(xpshim, name)(g1, g2, max_work=work)
                except Exception as e:
                    got = (type(e), str(e))
                if want != got:
                    bad.append((i, work, want, got))
    assert bad == []


def _resizes(mod):
    """x.resize of arrays held in different ways: (name, the call)."""
    def named():
        a = mod.zeros(6)
        a.resize((2, 2))
        return a

    def aliased():
        a = mod.zeros(6)
        b = a  # noqa: F841
        a.resize((2, 2))

    def in_a_list():
        a = mod.zeros(6)
        held = [a]  # noqa: F841
        a.resize(3)

    def viewed():
        a = mod.zeros(6)
        v = a[1:]  # noqa: F841
        a.resize(3)

    def a_view():
        a = mod.zeros(6)
        a[1:].resize(3)

    def aliased_unchecked():
        a = mod.zeros(6)
        b = a  # noqa: F841
        a.resize(3, refcheck=False)
        return a

    def temporary():
        mod.zeros(6).resize(3)

    # the same number of elements: a new shape over the same memory, whoever holds it (NumPy
    # checks ownership and references only where it reallocates)
    def aliased_same_size():
        a = mod.arange(6.0)
        b = a
        a.resize((2, 3))
        b[1, 2] = -1.0  # (b is a)
        return a

    def viewed_same_size():
        a = mod.arange(6.0)
        v = a[1:]
        a.resize(3, 2)
        a[2, 1] = -1.0
        return v  # (sees the write)

    def a_view_same_size():
        a = mod.arange(7.0)
        v = a[1:]
        v.resize([2, 3])
        v[0, 0] = -1.0
        return a

    def a_strided_view_same_size():
        mod.arange(6.0)[::2].resize(3)

    def fortran_same_size():
        a = mod.asfortranarray(mod.arange(6.0).reshape(2, 3))
        held = [a]  # noqa: F841
        a.resize((3, 2))
        return a

    def read_only_same_size():
        a = mod.arange(4.0)
        a.flags.writeable = False
        a.resize((2, 2))
        return a

    def read_only_grows():
        a = mod.arange(4.0)
        a.flags.writeable = False
        a.resize(6)
        # (NumPy leaves a read-only array's grown part as its allocator gives it: zeros on one
        # host, old bytes on another; the shape and the kept part are NumPy's promise)
        return a[:4] if a.shape == (6,) else a

    def negative_same_product():
        a = mod.arange(4.0)
        a.resize((-2, -2))

    def empty_same_size():
        a = mod.zeros((0, 3))
        b = a  # noqa: F841
        a.resize((3, 0))
        return a

    return [named, aliased, in_a_list, viewed, a_view, aliased_unchecked, temporary, aliased_same_size,
            viewed_same_size, a_view_same_size, a_strided_view_same_size, fortran_same_size,
            read_only_same_size, read_only_grows, negative_same_product, empty_same_size]


def test_resize_refuses_as_numpys(gpu):
    bad = []
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for want_call, got_call in zip(_resizes(numpy), _resizes(xpshim)):
            try:
                want = want_call()
                want = None if want is None else want.tolist()
            except Exception as e:
                want = (type(e), str(e))
            try:
                got = got_call()
                got = None if got is None else (xpshim.asnumpy(got) if type(got) is xpshim.ndarray else got).tolist()
            except Exception as e:
                got = (type(e), str(e))
            if want != got:
                bad.append((want_call.__name__, want, got))
    assert bad == []


@pytest.mark.parametrize("name", ["array", "asarray", "asanyarray"])
def test_copy_none_of_a_numpy_array_is_itself_on_the_cpu_path(name):
    h = numpy.arange(5.)
    with xpshim.device("cpu"):
        for copy in (None, False, True):
            for dtype in (None, h.dtype, numpy.float32):
                want = getattr(numpy, name)(h, dtype, copy=copy) if not (copy is False and dtype == numpy.float32) else None
                if want is None:
                    continue
                got = getattr(xpshim, name)(h, dtype, copy=copy)
                assert (got is h) == (want is h), (copy, dtype)
                assert _same(want, got)
