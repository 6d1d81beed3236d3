"""The GPU array against NumPy: operators, methods, indexing, conversions,
routing of mixed inputs, and the counting of every copy.

Each test runs with the ``gpu`` fixture: on the NumPy-backed stand-in
everywhere, and on the real GPU where one is usable (``-m gpu``).
"""

import copy
import operator
import pickle
import typing
import warnings

import numpy
import pytest

import xpshim as np
from conftest import transfers
from xpshim._ndarray import ndarray as GpuArray

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.lt, operator.le, operator.eq, operator.ne,
          operator.gt, operator.ge]
INT_ONLY = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


def ref(x):
    return np.asnumpy(x)


def same(got, want):
    got_h = np.asnumpy(got)
    numpy.testing.assert_allclose(got_h, want, rtol=1e-12, atol=0, equal_nan=True)
    assert got_h.dtype == numpy.asarray(want).dtype, (got_h.dtype, numpy.asarray(want).dtype)
    assert got_h.shape == numpy.shape(want)


@pytest.fixture
def pair(gpu):
    h = numpy.arange(1, 13, dtype=numpy.float64).reshape(3, 4)
    return np.asarray(h), h


def test_creation_lands_on_gpu(gpu):
    for x in (np.zeros(3), np.ones((2, 2)), np.arange(5), np.linspace(0, 1, 4), np.eye(3),
              np.array([1, 2]), np.asarray(numpy.ones(2)), np.random.rand(2, 2), np.full(2, 7)):
        assert isinstance(x, GpuArray), type(x)
        assert isinstance(x, np.ndarray)
    assert isinstance(numpy.ones(2), np.ndarray)
    assert np.get_device(np.zeros(1)) == "gpu"


@pytest.mark.parametrize("op", BINARY, ids=lambda o: o.__name__)
def test_binary_operators(pair, op):
    d, h = pair
    same(op(d, d + 1), op(h, h + 1))
    same(op(d, 2), op(h, 2))
    same(op(3, d), op(3, h))
    same(op(d, 2.5), op(h, 2.5))


@pytest.mark.parametrize("op", INT_ONLY, ids=lambda o: o.__name__)
def test_integer_operators(gpu, op):
    h = numpy.arange(12, dtype=numpy.int32).reshape(3, 4)
    d = np.asarray(h)
    same(op(d, 2), op(h, 2))
    same(op(d, d % 3), op(h, h % 3))


def test_unary_and_matmul(pair):
    d, h = pair
    same(-d, -h)
    same(+d, +h)
    same(abs(-d), abs(-h))
    same(d @ d.T, h @ h.T)
    same(~np.asarray(numpy.arange(4)), ~numpy.arange(4))


def test_inplace_operators_keep_identity(pair):
    d, h = pair
    ident = id(d)
    d += 1
    h += 1
    d *= 2
    h *= 2
    d -= d
    h -= h
    assert id(d) == ident
    same(d, h)


def test_nep50_weak_scalars(gpu):
    h = numpy.arange(4, dtype=numpy.float32)
    d = np.asarray(h)
    same(d * 2.5, h * 2.5)  # stays float32
    same(d + numpy.float64(1), h + numpy.float64(1))  # a NumPy scalar is strong: float64


def test_mixed_numpy_and_list_inputs_move_to_gpu(pair):
    d, h = pair
    r = d + numpy.ones(4)
    assert isinstance(r, GpuArray)
    same(r, h + 1)
    r = numpy.ones(4) + d  # NumPy on the left defers to the GPU array
    assert isinstance(r, GpuArray)
    same(r, h + 1)
    same(np.dot(d, [1.0, 2.0, 3.0, 4.0]), numpy.dot(h, [1.0, 2.0, 3.0, 4.0]))
    same(np.concatenate([d, numpy.zeros((1, 4))]), numpy.concatenate([h, numpy.zeros((1, 4))]))
    assert np.stats()["transfers"]["host_to_device"]["count"] >= 3


def test_numpy_only_inputs_stay_on_host(gpu):
    r = np.sum(numpy.arange(4))
    assert type(r) is numpy.int64
    assert isinstance(np.sqrt(numpy.ones(3)), numpy.ndarray)


def test_a_gpu_array_anywhere_in_a_list_or_keyword_runs_the_call_on_the_gpu(pair):
    """The dispatch's fast path takes only lists of NumPy arrays to NumPy: a GPU array later in
    the list, or as a keyword, still runs the call on the GPU."""
    d, h = pair
    z = numpy.zeros((1, 4))
    for got in (np.concatenate((z, z, d)), np.stack([z[0], d[0]]), np.concatenate([z, z], axis=0, out=np.zeros((2, 4)))):
        assert isinstance(got, GpuArray)
    same(np.concatenate((z, z, d)), numpy.concatenate((z, z, h)))
    same(np.stack([z[0], d[0]]), numpy.stack([z[0], h[0]]))
    r = np.concatenate((z, z))
    assert type(r) is numpy.ndarray and r.shape == (2, 4)
    out = np.zeros((2, 4))
    assert np.concatenate([z, z + 1], axis=0, out=out) is out
    same(out, numpy.concatenate([z, z + 1]))


def test_reductions_and_methods(pair):
    d, h = pair
    for name in ("sum", "mean", "std", "var", "min", "max", "argmax", "argmin", "prod", "cumsum", "any", "all"):
        same(getattr(d, name)(), getattr(h, name)())
        same(getattr(d, name)(axis=0), getattr(h, name)(axis=0))
    same(d.reshape(4, 3), h.reshape(4, 3))
    same(d.T.copy(), h.T.copy())
    same(d.astype(numpy.float32), h.astype(numpy.float32))
    same(d.clip(2, 5), h.clip(2, 5))
    same(d.take([0, 2], axis=1), h.take([0, 2], axis=1))
    same(np.sum(d, axis=1, keepdims=True), numpy.sum(h, axis=1, keepdims=True))
    same(np.linalg.norm(d), numpy.linalg.norm(h))
    same(np.fft.fft(d).real, numpy.fft.fft(h).real)


def test_attributes(pair):
    d, h = pair
    assert d.shape == h.shape and d.dtype == h.dtype and d.ndim == h.ndim
    assert d.size == h.size and d.nbytes == h.nbytes and d.itemsize == h.itemsize
    assert len(d) == len(h)
    same(d.T, h.T)
    same(d.real, h.real)


def test_indexing_matches_numpy(pair):
    d, h = pair
    for key in [0, -1, (1, 2), slice(None, None, -1), (slice(None), [0, 3]), [2, 0],
                (Ellipsis, 1), (None, 0), (numpy.array([0, 2]),), numpy.array([True, False, True])]:
        same(d[key], h[key])
    same(d[d > 5], h[h > 5])
    same(d[::-1, ::-2], h[::-1, ::-2])
    same(d[np.asarray(numpy.array([2, 1]))], h[numpy.array([2, 1])])


@pytest.mark.parametrize("key", [[0, 3], [-4], (slice(None), [0, 4]), (numpy.array([5]),)],
                         ids=str)
def test_out_of_bounds_fancy_index_raises(pair, key):
    d, h = pair
    with pytest.raises(IndexError):
        h[key]
    with pytest.raises(IndexError):
        d[key]
    with pytest.raises(IndexError):
        d[np.asarray(numpy.array([0, 3]))]


def test_setitem(pair):
    d, h = pair
    for key, val in [(0, 9.0), ((1, 2), -1.0), (slice(None), numpy.arange(4.0)), ([0, 2], [7.0, 7, 7, 7])]:
        d[key] = val
        h[key] = val
        same(d, h)
    d[d > 5] = 0
    h[h > 5] = 0
    same(d, h)


def test_scalar_conversions(pair):
    d, h = pair
    x = d[1, 2]
    assert float(x) == float(h[1, 2]) and int(x) == int(h[1, 2]) and bool(x) is True
    assert complex(x) == complex(h[1, 2])
    assert operator.index(np.asarray(numpy.int64(3))) == 3
    assert f"{d.sum():.2f}" == f"{h.sum():.2f}"
    assert d.item(5) == h.item(5) and d[0, 0].item() == h[0, 0].item()
    with pytest.raises(ValueError, match="ambiguous"):
        bool(d)
    with pytest.raises(TypeError):
        operator.index(d[0, 0])  # a float 0-d array is no index, as in NumPy


def test_repr_str_and_tolist_match_numpy(pair):
    d, h = pair
    assert repr(d) == repr(h)
    assert str(d) == str(h)
    assert d.tolist() == h.tolist()
    assert d.tobytes() == h.tobytes()


def test_iteration(pair):
    d, h = pair
    rows = list(d)
    assert len(rows) == 3 and all(isinstance(r, GpuArray) for r in rows)
    same(rows[1], h[1])
    with pytest.raises(TypeError):
        iter(d.sum())


def test_copy_deepcopy_pickle(pair):
    d, h = pair
    for c in (copy.copy(d), copy.deepcopy(d), d.copy(), pickle.loads(pickle.dumps(d))):
        assert isinstance(c, GpuArray)
        same(c, h)
        c[0, 0] = -5
        assert float(d[0, 0]) == 1.0


def test_numpy_ufunc_on_gpu_array_stays_on_gpu(pair):
    d, h = pair
    r = numpy.sqrt(d)
    assert isinstance(r, GpuArray)
    same(r, numpy.sqrt(h))


def test_chain_makes_no_transfers(pair):
    d, h = pair
    before = transfers()
    r = np.exp(np.sqrt(d) * 2 + 1).sum(axis=0)
    r = np.where(r > 0, r, -r)
    r = np.concatenate([r, r])[::2]
    assert isinstance(r, GpuArray)
    assert transfers() == before


def test_explicit_moves_are_counted(pair):
    d, h = pair
    np.reset_stats()
    hh = np.asnumpy(d)
    assert type(hh) is numpy.ndarray
    numpy.asarray(d)
    s = np.stats()["transfers"]
    assert s["device_to_host"]["count"] == 2
    assert s["device_to_host"]["bytes"] == 2 * h.nbytes
    back = np.to_device(hh, "gpu")
    assert isinstance(back, GpuArray)
    assert np.stats()["transfers"]["host_to_device"]["count"] == 1
    assert np.to_device(d, "cpu").__class__ is numpy.ndarray


def test_fallback_is_visible_counted_and_right(pair, monkeypatch):
    d, h = pair
    mask = h > h.mean()  # (a masked fold of a ufunc without identity: not covered on the GPU)
    with pytest.warns(np.FallbackWarning, match="subtract.reduce") as rec:
        r = np.subtract.reduce(d, axis=1, where=mask, initial=0.0)
    assert rec[0].filename == __file__  # the warning points at this line, not at xpshim
    assert isinstance(r, GpuArray)
    same(r, numpy.subtract.reduce(h, axis=1, where=mask, initial=0.0))
    assert np.stats()["fallbacks"]["xpshim.subtract.reduce"]["count"] == 1
    monkeypatch.setattr(np._config, "fallback_policy", "raise")
    with pytest.raises(np.FallbackError, match="XPSHIM_FALLBACK"):
        np.subtract.reduce(d, axis=1, where=mask, initial=0.0)


def test_fallback_for_missing_keyword(pair):
    d, h = pair
    with pytest.warns(np.FallbackWarning, match="kind"):
        r = np.partition(d.ravel(), 3, kind="introselect")
    same(r, numpy.partition(h.ravel(), 3, kind="introselect"))


def test_ufunc_reduce_maps_to_cupy_reductions(pair):
    d, h = pair
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.FallbackWarning)
        same(np.add.reduce(d), numpy.add.reduce(h))
        same(np.maximum.reduce(d, axis=1), numpy.maximum.reduce(h, axis=1))
        same(np.logical_and.reduce(d > 2, axis=None), numpy.logical_and.reduce(h > 2, axis=None))
        same(np.add.accumulate(d), numpy.add.accumulate(h))
        same(np.multiply.outer(d[0], d[1]), numpy.multiply.outer(h[0], h[1]))


def test_ufunc_at_writes_in_place(gpu):
    h = numpy.zeros(5)
    d = np.asarray(h)
    np.add.at(d, [0, 0, 3], 1.0)
    numpy.add.at(h, [0, 0, 3], 1.0)
    same(d, h)


def test_mutating_method_fallback_writes_back(gpu):
    h = numpy.arange(6.0)
    d = np.asarray(h)
    view = d[1:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.FallbackWarning)
        d.fill(3.0)
    same(view, numpy.full(5, 3.0))


def test_cpu_device_inside_gpu_process(gpu):
    d = np.arange(3.0)
    with np.device("cpu"):
        z = np.zeros(3)
        assert type(z) is numpy.ndarray
        back = np.asarray(d)  # creation follows the current device: a counted copy
        assert type(back) is numpy.ndarray
        assert isinstance(np.sum(d), GpuArray)  # a call on GPU data still runs there
    assert np.get_device() == "gpu"


def test_random_generator(gpu):
    rng = np.random.default_rng(0)
    x = rng.random(1000)
    assert isinstance(x, GpuArray) and 0 <= float(x.min()) and float(x.max()) < 1
    np.random.seed(1)
    a = np.random.rand(5)
    np.random.seed(1)
    b = np.random.rand(5)
    same(a, np.asnumpy(b))


def test_numba_jit_on_gpu_arrays(gpu):
    numba = pytest.importorskip("numba")

    @numba.jit(nopython=True)
    def double_in_place_and_total(x):
        out = np.zeros(1)
        for i in range(x.shape[0]):
            x[i] *= 2.0
            out[0] += x[i]
        return out

    d = np.arange(5.0)
    r = double_in_place_and_total(d)
    assert type(r) is numpy.ndarray and r[0] == 20.0
    same(d, numpy.arange(5.0) * 2)  # the change was written back to the device


def test_ndarray_constructor_on_each_device(gpu):
    x = np.ndarray((2, 3), dtype=np.float32)
    assert isinstance(x, GpuArray) and x.shape == (2, 3) and x.dtype == numpy.float32
    with np.device("cpu"):
        assert type(np.ndarray((2,))) is numpy.ndarray


def test_out_argument_returns_the_same_array(pair):
    d, h = pair
    o = np.empty(4)
    r = np.sum(d, axis=0, out=o)
    assert r is o
    same(o, h.sum(axis=0))
    o2 = np.empty_like(d)
    assert np.add(d, 1, out=o2) is o2
    same(o2, h + 1)


def test_divmod_and_numpy_scalar_operands(pair):
    d, h = pair
    q, r = divmod(d, 3)
    same(q, h // 3)
    same(r, h % 3)
    same(numpy.float32(2) * d, numpy.float32(2) * h)
    same(np.where(d > 5, d, 0), numpy.where(h > 5, h, 0))


def test_view_with_an_array_class_is_a_gpu_view(gpu):
    # NumPy's view() takes an ndarray class as its first argument (linalg's tests do
    # x.view(x.__class__)); CuPy's would read it as a dtype.
    h = numpy.arange(4.0)
    d = np.asarray(h)
    for cls in (np.ndarray, numpy.ndarray, d.__class__):
        v = d.view(cls)
        assert isinstance(v, GpuArray) and v.dtype == h.view(numpy.ndarray).dtype
    d.view(np.ndarray)[0] = 9.0  # the same memory
    same(d, numpy.array([9.0, 1.0, 2.0, 3.0]))
    same(d.view(numpy.int64), numpy.array([9.0, 1.0, 2.0, 3.0]).view(numpy.int64))
    with pytest.warns(np.FallbackWarning):  # a NumPy subclass: on the host
        assert type(d.reshape(2, 2).view(numpy.matrix)) is numpy.matrix
        m = np.asarray(numpy.arange(3, dtype=numpy.float32)).view(numpy.matrix)
        assert m.dtype == numpy.float32 and m.shape == (1, 3)


def test_an_unaligned_view_is_refused_before_the_gpu_reads_it(gpu):
    # NumPy's test_count_nonzero_non_aligned_array: an int8 slice one byte in, viewed as
    # int64. NumPy reads it on the host; on the GPU the first kernel to touch it faults,
    # and that fault ends every later GPU call of the process. xpshim refuses the view.
    h = numpy.zeros(65, dtype=numpy.int8)[1:]
    assert h.view(numpy.int64).flags.aligned is False
    d = np.zeros(65, dtype=np.int8)[1:]
    with pytest.raises(ValueError, match="not be aligned to 8 bytes"):
        d.view(np.int64)
    with pytest.raises(ValueError, match="aligned"):  # a stride that is not a multiple
        np.zeros((4, 9), dtype=np.int8)[:, :8].view(np.int64)
    same(d.copy().view(np.int64), h.copy().view(numpy.int64))  # the fix the message names
    same(np.zeros(64, dtype=np.int8)[8:].view(np.int64), numpy.zeros(56, dtype=numpy.int8).view(numpy.int64))


def test_choose_takes_a_sequence_of_arrays_and_scalars_that_broadcast(gpu):
    # NumPy broadcasts and promotes the choices; CuPy takes them as one stacked array.
    h = numpy.random.default_rng(0).random((4, 3)).astype(numpy.float32)
    lo, hi = numpy.float32(0.3), numpy.array([0.6, 0.7, 0.8], numpy.float32)
    sel_h = (h < lo) + 2 * (h > hi)
    d, sel = np.asarray(h), np.asarray(sel_h)
    want = sel_h.choose((h, lo, hi))
    same(sel.choose((d, lo, np.asarray(hi))), want)
    same(np.choose(sel, (d, lo, hi)), want)
    same(np.choose(np.asarray([0, 1, 0]), ([1, 2, 3], 10)), numpy.choose([0, 1, 0], ([1, 2, 3], 10)))
    same(np.choose(sel, [d, 0.5, 2]), numpy.choose(sel_h, [h, 0.5, 2]))  # Python scalars are weak
    out = np.zeros((4, 3), numpy.float32)
    assert sel.choose((d, lo, hi), out=out) is out  # as NumPy: out= itself comes back
    same(out, want)


def test_flags_are_numpys_flags_object(gpu):
    # NumPy code reads x.flags.writeable, x.flags['C'], compares flags; CuPy's Flags has
    # three attributes and three keys.
    h = numpy.arange(6.0).reshape(2, 3)
    for dv, hv in ((np.asarray(h), h), (np.asarray(h).T, h.T), (np.asarray(h)[:, ::2], h[:, ::2])):
        f, g = dv.flags, hv.flags
        for name in ("c_contiguous", "f_contiguous", "writeable", "aligned", "writebackifcopy",
                     "fnc", "forc", "behaved", "carray", "farray", "contiguous", "fortran"):
            assert getattr(f, name) == getattr(g, name), name
        for key in ("C", "F", "W", "A", "X", "C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "ALIGNED",
                    "FNC", "FORC", "BEHAVED", "CARRAY", "FARRAY", "CA", "FA", "B"):
            assert f[key] == g[key], key
        assert (f.num & ~0x4) == (g.num & ~0x4)  # (ownership aside: the host array's views own nothing)
    d = np.asarray(h)
    assert d.flags == d.flags and d.flags == numpy.ones((2, 3)).flags
    assert not (d.flags == d.T.flags)
    with pytest.raises(KeyError):
        d.flags["U"]
    d.flags.writeable = True  # already so
    f = d.flags
    f.writeable = False  # (read-only from now on, as NumPy's: tests/gpu_side/test_read_only.py)
    assert not f.writeable and not d.flags.writeable and "WRITEABLE : False" in repr(d.flags)
    with pytest.raises(ValueError, match="read-only"):
        d[0, 0] = 1.0
    with pytest.raises(ValueError):
        d.flags.aligned = False  # GPU memory is always aligned
    assert "C_CONTIGUOUS : True" in repr(d.flags)


def test_negative_zero_written_into_a_gpu_array_keeps_its_sign(gpu):
    # NumPy's TestBoolCmp: sign[4::6][mask] = -0.; CuPy writes a zero by memset
    for dt in (numpy.float64, numpy.float32, numpy.complex128):
        a = np.ones(8, dtype=dt)
        a[numpy.arange(8) % 2 == 0] = -0.0
        a[1:3] = -0.0
        a[5] = dt(-0.0)
        h = np.asnumpy(a)
        want = numpy.ones(8, dtype=dt)
        want[numpy.arange(8) % 2 == 0] = -0.0
        want[1:3] = -0.0
        want[5] = dt(-0.0)
        assert (numpy.signbit(h.real) == numpy.signbit(want.real)).all(), (dt, h)
        b = np.ones(3, dtype=dt)
        b.fill(-0.0)
        assert numpy.signbit(np.asnumpy(b).real).all(), dt


def test_comparison_with_none_is_elementwise(gpu):
    a = np.ones(3)
    assert np.asnumpy(a == None).tolist() == [False] * 3  # noqa: E711
    assert np.asnumpy(a != None).tolist() == [True] * 3  # noqa: E711
    assert np.get_device(a == None) == "gpu"  # noqa: E711


@pytest.mark.parametrize("shape", [5, (2, 3), (), (0, 4), [3, 1]])
@pytest.mark.parametrize("order", ["C", "F"])
def test_pinned_host_arrays_are_numpys_arrays(shape, order):
    """empty_pinned / zeros_pinned answer NumPy arrays as numpy.empty / numpy.zeros do (in
    pinned memory only where a GPU is usable: tests/gpu_side/test_transfer_gpu.py)."""
    want = numpy.zeros(shape, "float32", order)
    for got in (np.zeros_pinned(shape, "float32", order), np.empty_pinned(shape, "float32", order)):
        assert type(got) is numpy.ndarray and got.shape == want.shape and got.dtype == want.dtype
        assert got.flags.c_contiguous == want.flags.c_contiguous and got.flags.f_contiguous == want.flags.f_contiguous
    numpy.testing.assert_array_equal(np.zeros_pinned(shape, "float32", order), want)
    with pytest.raises(TypeError):
        np.empty_pinned(2.5)


@pytest.mark.parametrize("nbytes", [0, 1, (4 << 20) - 1, (9 << 20) + 5])
@pytest.mark.parametrize("threads", [False, True])
def test_file_bytes_read_in_pieces_are_the_files(tmp_path, monkeypatch, nbytes, threads):
    """The reader behind np.load's pinned path: the bytes from an offset, from one thread or
    split over several (os.preadv may return short reads: each piece loops until full)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from xpshim import _pinned

    if not hasattr(os, "preadv"):
        pytest.skip("os.preadv is not available on this platform (np.load then takes NumPy's path)")
    data = numpy.random.default_rng(5).integers(0, 256, nbytes + 77, dtype=numpy.uint8)
    path = tmp_path / "b.bin"
    path.write_bytes(data.tobytes())
    pool = ThreadPoolExecutor(3) if threads else None
    monkeypatch.setitem(_pinned._state, "pool", pool)
    dst = numpy.full(nbytes, 7, numpy.uint8)
    fd = os.open(path, os.O_RDONLY)
    def read(dst):  # (as the staging pipeline reads a chunk below 2 * SEND_PIECE)
        _pinned._parallel(dst.size, lambda a, b: _pinned._read_range(dst[a:b], fd, 77 + a))

    try:
        read(dst)
        with pytest.raises(EOFError, match="the file ended"):
            read(numpy.empty(nbytes + 1, numpy.uint8))
    finally:
        os.close(fd)
        if pool is not None:
            pool.shutdown()
    numpy.testing.assert_array_equal(dst, data[77:])


@pytest.mark.parametrize("m", [1, (4 << 10) - 1, 4 << 10, (37 << 10) + 3])
def test_staging_pieces_are_sent_in_order_once_filled(m):
    """The staging pipeline's pieces (``_pinned.in_order``): filled on several threads at once,
    each sent after it is filled, in order, covering the buffer once."""
    from concurrent.futures import ThreadPoolExecutor

    from xpshim import _pinned

    src = numpy.random.default_rng(m).integers(0, 256, m, dtype=numpy.uint8)
    buf = numpy.zeros(m, numpy.uint8)
    sent = []

    def send(a, b):
        assert numpy.array_equal(buf[a:b], src[a:b])  # filled before it is sent
        sent.append((a, b))

    with ThreadPoolExecutor(3) as pool:
        _pinned.in_order(pool, m, lambda a, b: numpy.copyto(buf[a:b], src[a:b]), send, piece=4 << 10)
    assert sent == [(a, min(m, a + (4 << 10))) for a in range(0, m, 4 << 10)]
    numpy.testing.assert_array_equal(buf, src)


def test_a_failed_staging_piece_stops_the_sends_after_all_pieces_end():
    """A piece that fails (a file shorter than its header says): nothing from it on is sent, and
    no piece is still running when the error reaches the caller (the buffer is free again)."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from xpshim import _pinned

    running, lock, sent = [0], threading.Lock(), []

    def part(a, b):
        with lock:
            running[0] += 1
        try:
            if a == 2:
                raise EOFError("the file ended")
            time.sleep(0.02)
        finally:
            with lock:
                running[0] -= 1

    with ThreadPoolExecutor(3) as pool:
        with pytest.raises(EOFError, match="the file ended"):
            _pinned.in_order(pool, 8, part, lambda a, b: sent.append((a, b)), piece=1)
        assert running[0] == 0
    assert sent == [(0, 1), (1, 2)]


@pytest.mark.parametrize("src_off,dst_off,n", [(0, 0, 8 << 20), (3, 5, (8 << 20) - 77), (1, 0, (1 << 20) + 13),
                                               (0, 63, 1 << 20), (5, 1, 255), (0, 0, 0)])
def test_non_temporal_copy_gives_numpys_bytes(src_off, dst_off, n):
    """The staging fill (``_ntcopy.copy``): the bytes NumPy's copy gives, at any alignment of
    source and destination and any length (the unaligned head and the tail done by NumPy),
    and nothing written outside the destination."""
    from xpshim import _ntcopy

    _ntcopy._function()  # compiled now (staging compiles it on a thread of its own)
    src = numpy.random.default_rng(n).integers(0, 256, n + 128, dtype=numpy.uint8)
    dst = numpy.zeros(n + 128, numpy.uint8)
    _ntcopy.copy(dst[dst_off:dst_off + n], src[src_off:src_off + n])
    numpy.testing.assert_array_equal(dst[dst_off:dst_off + n], src[src_off:src_off + n])
    assert not dst[:dst_off].any() and not dst[dst_off + n:].any()


def test_non_temporal_copy_is_compiled_here():
    """CI's host has llvmlite (Numba's compiler): the fast fill must be in use there, not
    quietly replaced by NumPy's copy."""
    from xpshim import _ntcopy

    assert _ntcopy._function() is not None, _ntcopy._state["why"]
    assert _ntcopy.status().startswith("non-temporal stores")


def test_non_temporal_copy_falls_back_to_numpys_and_says_why(monkeypatch):
    """Where llvmlite cannot compile the copy, NumPy's copy does the work, and the info line
    says so and why."""
    from xpshim import _ntcopy

    def broken():
        raise OSError("libllvmlite.so: cannot open shared object file")

    monkeypatch.setattr(_ntcopy, "_compile", broken)
    monkeypatch.setattr(_ntcopy, "_state", {"fn": None, "why": None})
    _ntcopy.start()
    _ntcopy._state["thread"].join()
    src = numpy.arange(3 << 20, dtype=numpy.uint32).view(numpy.uint8)
    dst = numpy.empty_like(src)
    _ntcopy.copy(dst, src)
    numpy.testing.assert_array_equal(dst, src)
    assert _ntcopy.status() == "NumPy's copy (non-temporal copy unavailable: OSError: libllvmlite.so: cannot open shared object file)"


def _unbound_calls():
    """(name, arguments) of every method NumPy's ndarray has that xpshim's class defines too, with
    the first of a few argument lists NumPy's unbound method answers for a 2 x 3 float array."""
    h = numpy.arange(6.0).reshape(2, 3)
    out = []
    for name in sorted(set(dir(numpy.ndarray)) & set(vars(np.ndarray))):
        npm = getattr(numpy.ndarray, name)
        # (__iter__, __dlpack__ and Python 3.12's __buffer__ answer an iterator, a capsule and a
        # memoryview, whose reprs hold addresses)
        if not callable(npm) or name in ("__new__", "__init__", "__init_subclass__", "__class_getitem__",
                                        "__subclasshook__", "__reduce_ex__", "__setstate__", "resize",
                                        "__array_wrap__", "__array_ufunc__", "__array_function__", "__iter__",
                                        "__dlpack__", "__buffer__"):
            continue
        for args in ((), (0,), (1, 0), (h,), (2.0,)):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    npm(h.copy(), *args)
            except Exception:
                continue
            out.append((name, args))
            break
    return out


class _Sub(numpy.ndarray):
    pass


@pytest.mark.parametrize("name,args", _unbound_calls(), ids=lambda v: v if isinstance(v, str) else "")
def test_numpys_unbound_methods_read_from_the_class_take_numpy_arrays(gpu, name, args):
    # `np.ndarray.__getitem__(self, key)` in a subclass (`class Sub(np.ndarray)` makes NumPy's):
    # a method read from xpshim's class, on a NumPy array or a subclass's, is NumPy's own; on a
    # GPU array, xpshim's, with the same answer
    from arguments import outcome

    for make in (lambda m: m.arange(6.0).reshape(2, 3), lambda m: numpy.arange(6.0).reshape(2, 3).view(_Sub)):
        want = outcome(getattr(numpy.ndarray, name), [make(numpy), *args], {})
        assert outcome(getattr(np.ndarray, name), [make(numpy), *args], {}) == want, name
    g = np.asarray(numpy.arange(6.0).reshape(2, 3))
    assert type(g) is np.ndarray
    want = outcome(getattr(numpy.ndarray, name), [numpy.arange(6.0).reshape(2, 3), *args], {})
    got = outcome(getattr(np.ndarray, name), [g, *[np.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args]], {})
    if want[0] == "answer" and name not in ("__repr__", "__str__", "__format__", "__hash__", "__sizeof__", "__reduce__",
                                           "__dlpack__", "__dlpack_device__", "tobytes", "__array__", "item", "tolist",
                                           "__copy__", "__deepcopy__", "__array_namespace__", "__buffer__"):
        assert got == want, name


def test_numpys_class_protocol_on_a_numpy_subclass(gpu):
    class Sub(np.ndarray):  # (NumPy's subclass, made as a program writes it)
        def __new__(cls, shape):
            obj = np.ndarray.__new__(cls, shape, dtype=numpy.float32)
            obj.tag = "new"
            return obj

        def __array_finalize__(self, obj):
            np.ndarray.__array_finalize__(self, obj)
            self.tag = getattr(obj, "tag", None)

        def __setitem__(self, key, value):
            np.ndarray.__setitem__(self, key, value)

    s = Sub((2, 3))
    s[...] = 1.0
    v = s[1:]
    assert type(s) is Sub and isinstance(s, numpy.ndarray) and s.tag == "new" and v.tag == "new"
    assert s.dtype == numpy.float32 and float(s.sum()) == 6.0
    assert type(np.ndarray.__new__(np.ndarray, (2,))) in (np.ndarray, numpy.ndarray)
    assert str(np.ndarray[typing.Any, numpy.dtype[numpy.float64]]) == str(numpy.ndarray[typing.Any, numpy.dtype[numpy.float64]])
    assert np.ndarray.__getitem__ is np.ndarray.__getitem__


@pytest.mark.parametrize("key", [0, slice(2, 5), Ellipsis, (0,), [0, 1]], ids=repr)
def test_deleting_elements_is_numpys_error(gpu, key):
    """``del a[key]``: NumPy's ValueError (an array's size is fixed), and nothing changes."""
    h = numpy.arange(5)
    with pytest.raises(ValueError) as numpys:
        del h[key]
    with np.device("gpu"):
        g = np.asarray(numpy.arange(5))
        with pytest.raises(ValueError) as ours:
            del g[key]
    assert str(ours.value) == str(numpys.value)
    assert np.asnumpy(g).tolist() == list(range(5))
