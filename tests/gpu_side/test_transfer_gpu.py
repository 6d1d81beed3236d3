"""The fast paths that only the real CuPy takes: pinned, pipelined copies, Pillow
images read in place, and the one-pass dot. Each compared with NumPy.

All tests here need a CUDA GPU (marker ``gpu``); elsewhere they are skipped.
"""

import numpy
import pytest
from PIL import Image

import xpshim
from xpshim import _pinned

pytestmark = pytest.mark.gpu

SIZES = [0, 3, (16 << 10) - 8, 16 << 10, (64 << 10) - 8, 64 << 10, (1 << 20) - 8, 1 << 20, (17 << 20) + 24, 40 << 20, (130 << 20) + 24]  # bytes, around the thresholds
DTYPES = ["uint8", "int16", "float32", "float64", "complex128", "bool"]


def _host(nbytes, dtype, seed=0):
    dt = numpy.dtype(dtype)
    n = max(nbytes // dt.itemsize, 0)
    rng = numpy.random.default_rng(seed)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    if dt.kind in "iu":
        return rng.integers(0, 100, n).astype(dt)
    return rng.standard_normal(n).astype(dt)


@pytest.mark.parametrize("nbytes", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip(real_gpu, nbytes, dtype):
    h = _host(nbytes, dtype)
    d = xpshim.asarray(h)
    assert type(d) is xpshim.ndarray
    back = xpshim.asnumpy(d)
    assert back.dtype == h.dtype and back.shape == h.shape
    assert numpy.array_equal(back, h)
    st = xpshim.stats()["transfers"]
    assert st["host_to_device"]["bytes"] == h.nbytes and st["device_to_host"]["bytes"] == h.nbytes


@pytest.mark.parametrize("fill", ["non-temporal", "numpy"])
@pytest.mark.parametrize("offset", [0, 1, 13])
def test_upload_by_either_staging_fill(real_gpu, monkeypatch, fill, offset):
    """Uploads of 130 MiB (three staging chunks, in 4 MiB pieces) from a source at any byte
    offset: the device has the host's bytes, whether the buffers are filled with non-temporal
    stores (compiled first, so that this upload uses them) or by NumPy's copy."""
    from xpshim import _ntcopy

    if fill == "numpy":
        monkeypatch.setitem(_ntcopy._state, "fn", None)
    else:
        assert _ntcopy._function() is not None, _ntcopy._state["why"]
    raw = _host((130 << 20) + 64, "uint8", seed=offset)
    h = raw[offset:offset + (130 << 20) + 5]
    assert numpy.array_equal(xpshim.asnumpy(xpshim.asarray(h)), h)


@pytest.mark.parametrize("view", ["strided", "reversed", "fortran", "transposed"])
def test_non_contiguous_both_ways(real_gpu, view):
    base = _host(24 << 20, "float64").reshape(1024, -1)
    h = {"strided": base[::2, ::3], "reversed": base[::-1, ::-1], "fortran": numpy.asfortranarray(base),
         "transposed": base.T}[view]
    d = xpshim.asarray(h)
    assert numpy.array_equal(xpshim.asnumpy(d), h)
    dv = d.T[::-1]  # a non-contiguous device view, copied back
    assert numpy.array_equal(xpshim.asnumpy(dv), h.T[::-1])


def test_results_are_independent_and_writable(real_gpu):
    h = _host(8 << 20, "float64")
    d = xpshim.asarray(h)
    a, b = xpshim.asnumpy(d), xpshim.asnumpy(d)
    a[:] = 0
    assert a.flags.writeable and numpy.array_equal(b, h)
    assert numpy.array_equal(xpshim.asnumpy(d), h)
    h[:] = 1  # the device copy does not follow the source
    assert not numpy.array_equal(xpshim.asnumpy(d), h)


def test_past_the_pinned_cap_results_are_staged(real_gpu, monkeypatch):
    monkeypatch.setattr(_pinned, "RESULT_CAP", 4 << 20)
    h = _host(40 << 20, "int16")
    d = xpshim.asarray(h)
    held = [xpshim.asnumpy(d) for _ in range(3)]
    for r in held:
        assert numpy.array_equal(r, h)
    assert _pinned._held[0] <= 4 << 20


def test_pinned_results_are_released(real_gpu):
    import gc

    before = _pinned._held[0]
    r = xpshim.asnumpy(xpshim.asarray(_host(8 << 20, "uint8")))
    assert _pinned._held[0] == before + r.nbytes
    del r
    gc.collect()
    assert _pinned._held[0] == before


@pytest.mark.parametrize("mode", ["L", "P", "RGB", "RGBA", "CMYK", "YCbCr", "I", "F"])
@pytest.mark.parametrize("size", [(5, 3), (6000, 1500)])
def test_pillow_image_to_gpu(real_gpu, mode, size):
    rng = numpy.random.default_rng(4)
    w, h = size
    if mode == "I":
        img = Image.fromarray(rng.integers(-1000, 1000, (h, w), dtype=numpy.int32))
    elif mode == "F":
        img = Image.fromarray(rng.standard_normal((h, w)).astype(numpy.float32))
    else:
        img = Image.fromarray(rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8), "RGBA").convert(mode)
    ref = numpy.array(img)
    for make in (xpshim.array, xpshim.asarray):
        xpshim.reset_stats()
        d = make(img)
        assert type(d) is xpshim.ndarray
        got = xpshim.asnumpy(d)
        assert got.dtype == ref.dtype and got.shape == ref.shape and numpy.array_equal(got, ref)
        assert xpshim.stats()["transfers"]["host_to_device"]["count"] == 1


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64", "bool", "float16"])
@pytest.mark.parametrize("k", [1, 3, 4, 8])
def test_dot_last_axis_matches_numpy(real_gpu, dtype, k):
    rng = numpy.random.default_rng(k)
    h = (rng.random((37, 29, k + 1)) * 200).astype(dtype)[..., :k]  # a strided slice, as the idiom has
    for w in (list(rng.random(k)), [int(v) for v in rng.integers(-3, 4, k)], tuple(rng.random(k))):
        ref = numpy.dot(h, w)
        got = xpshim.dot(xpshim.asarray(h), w)
        assert type(got) is xpshim.ndarray and got.dtype == ref.dtype and got.shape == ref.shape
        numpy.testing.assert_allclose(xpshim.asnumpy(got), ref, rtol=1e-6 if ref.dtype.kind == "f" else 0)
    wd = rng.random(k)
    numpy.testing.assert_allclose(xpshim.asnumpy(xpshim.dot(xpshim.asarray(h[::-1]), xpshim.asarray(wd))),
                                  numpy.dot(h[::-1], wd), rtol=1e-12)


def test_dot_outside_the_pattern_is_cupys(real_gpu):
    rng = numpy.random.default_rng(0)
    a, b = rng.random((20, 9)), rng.random(9)  # k = 9 > MAX_K
    numpy.testing.assert_allclose(xpshim.asnumpy(xpshim.dot(xpshim.asarray(a), list(b))), a @ b, rtol=1e-12)
    m = rng.random((9, 4))
    numpy.testing.assert_allclose(xpshim.asnumpy(xpshim.dot(xpshim.asarray(a), xpshim.asarray(m))), a @ m, rtol=1e-12)
    c = rng.random((5, 3)) + 1j
    numpy.testing.assert_allclose(xpshim.asnumpy(xpshim.dot(xpshim.asarray(c), [1.0, 2.0, 3.0])),
                                  c @ [1.0, 2.0, 3.0], rtol=1e-12)


def test_seed_grayscale_end_to_end_counts(real_gpu):
    rng = numpy.random.default_rng(1)
    img = Image.fromarray(rng.integers(0, 256, (1080, 1920, 3), dtype=numpy.uint8))
    ref = numpy.dot(numpy.array(img)[..., :3], [0.2989, 0.5870, 0.1140]).astype(numpy.uint8)
    xpshim.reset_stats()
    a = xpshim.array(img)
    g = Image.fromarray(xpshim.dot(a[..., :3], [0.2989, 0.5870, 0.1140]).astype(xpshim.uint8))
    got = numpy.asarray(g)
    d = numpy.abs(got.astype(int) - ref.astype(int))
    assert d.max() <= 1 and (d > 0).mean() < 1e-3
    st = xpshim.stats()["transfers"]
    assert st["host_to_device"]["count"] == 1 and st["device_to_host"]["count"] == 1
    assert st["device_to_host"]["bytes"] == ref.nbytes


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("nbytes", [0, 8, 1 << 20, (40 << 20) + 8])
def test_pinned_host_data_goes_over_directly(real_gpu, order, nbytes):
    """Arrays of empty_pinned/zeros_pinned live in pinned memory and go over as they are; the
    device copy does not follow later writes to the host array."""
    h = _host(nbytes, "float64").reshape(-1, 1)
    p = xpshim.empty_pinned(h.shape, h.dtype, order=order)
    assert type(p) is numpy.ndarray and p.shape == h.shape and p.flags[order + "_CONTIGUOUS"]
    assert _pinned.is_pinned(xpshim._backend.xp, p)
    p[...] = h
    d = xpshim.asarray(p)
    p[...] = -1.0  # written as soon as asarray returns: the copy has already been made
    assert numpy.array_equal(xpshim.asnumpy(d), h)
    z = xpshim.zeros_pinned((3, 5), "int32")
    assert numpy.array_equal(z, numpy.zeros((3, 5), "int32")) and _pinned.is_pinned(xpshim._backend.xp, z)


def test_a_result_in_pinned_memory_goes_back_directly(real_gpu, monkeypatch):
    """A result that came back into pinned memory is sent again without staging."""
    h = _host(24 << 20, "int16")
    back = xpshim.asnumpy(xpshim.asarray(h))
    assert _pinned.is_pinned(xpshim._backend.xp, back) and not _pinned.is_pinned(xpshim._backend.xp, h)
    staged = []
    monkeypatch.setattr(_pinned, "to_device_runs", lambda *a: staged.append(a) or pytest.fail("staged"))
    d = xpshim.asarray(back[1:])  # a view of the pinned result: still pinned memory
    assert not staged and numpy.array_equal(xpshim.asnumpy(d), h[1:])


@pytest.mark.parametrize("nbytes", [(16 << 20) + 1024, (130 << 20) + 24])  # (h[7:] still 16 MiB or more)
def test_an_array_sent_again_goes_from_its_own_memory(real_gpu, monkeypatch, nbytes):
    """The second upload of a host array registers its memory with CUDA (``_register``); that
    upload and later ones are direct copies from it, each with the array's bytes at the time
    (writes between uploads are seen); freeing the array ends the registration."""
    import gc

    from xpshim import _register

    cp = real_gpu
    rt = cp.cuda.runtime
    h = _host(nbytes, "float64", seed=3)
    ptr = h.ctypes.data
    assert numpy.array_equal(xpshim.asnumpy(xpshim.asarray(h)), h)  # staged, remembered
    assert rt.pointerGetAttributes(ptr).type == 0  # cudaMemoryTypeUnregistered
    staged = []
    real_runs = _pinned.to_device_runs
    monkeypatch.setattr(_pinned, "to_device_runs", lambda *a: staged.append(a) or real_runs(*a))
    for k in range(3):
        h[k] = -k - 0.5  # written between uploads
        assert numpy.array_equal(xpshim.asnumpy(xpshim.asarray(h)), h)
        assert numpy.array_equal(xpshim.asnumpy(xpshim.asarray(h[7:])), h[7:])  # a view of it
    assert not staged
    assert rt.pointerGetAttributes(ptr).type == 1  # cudaMemoryTypeHost: registered
    assert xpshim.stats()["transfers"]["host_to_device"]["count"] == 7
    gc.collect()  # (earlier tests' garbage freed first: its registrations end now, not below)
    held, key = _register._total[0], id(h)
    assert key in _register._held and held >= h.nbytes
    del h
    gc.collect()
    assert key not in _register._held and _register._total[0] <= held - nbytes // 8 * 8


def test_registering_does_not_outlive_the_cap(real_gpu, monkeypatch):
    """Past ``XPSHIM_REGISTERED_MAX`` the oldest registration ends; every upload still has the
    right bytes."""
    from xpshim import _register

    monkeypatch.setattr(_register, "CAP", 48 << 20)
    a, b = _host(32 << 20, "float32", seed=4), _host(32 << 20, "int16", seed=5)
    for x in (a, a, b, b, a, b):
        assert numpy.array_equal(xpshim.asnumpy(xpshim.asarray(x)), x)
    assert _register._total[0] <= 48 << 20
    _register.release_all(real_gpu)
    assert _register._total[0] == 0


def _npy(path, a, version=None):
    with open(path, "wb") as f:
        numpy.lib.format.write_array(f, a, version=version)
    return path


@pytest.mark.parametrize("dtype", DTYPES + ["float16"])
@pytest.mark.parametrize("nbytes", [(16 << 10) - 8, 16 << 10, (5 << 20) + 8, (130 << 20) + 24])
def test_load_reads_an_npy_file_into_pinned_memory(real_gpu, tmp_path, monkeypatch, dtype, nbytes):
    """np.load of a .npy file by path, on the GPU: NumPy's array, read into the pinned staging
    buffers (across their 64 MiB boundaries too) and counted once; below the staging size it is
    NumPy's load and one plain copy."""
    h = _host(nbytes, dtype, seed=3)
    h = h.reshape(2, -1) if h.size % 2 == 0 else h
    path = _npy(tmp_path / "a.npy", h)
    read = []
    real = _pinned.file_to_device
    monkeypatch.setattr(_pinned, "file_to_device", lambda *a: read.append(a) or real(*a))
    with xpshim.device("gpu"):
        xpshim.reset_stats()
        d = xpshim.load(path)
        t = xpshim.stats()["transfers"]["host_to_device"]
    assert type(d) is xpshim.ndarray and d.dtype == h.dtype and d.shape == h.shape
    assert numpy.array_equal(xpshim.asnumpy(d), numpy.load(path))
    assert t["count"] == 1 and t["bytes"] == h.nbytes
    assert bool(read) == (h.nbytes >= _pinned.MIN_BYTES)


@pytest.mark.parametrize("case", ["version 2.0", "fortran", "object", "npz", "file object", "auto, small", "auto, large"])
def test_load_outside_the_direct_path_is_numpys(real_gpu, tmp_path, case):
    h = numpy.random.default_rng(4).random((512, 300))
    path = tmp_path / "a.npy"
    if case == "version 2.0":
        _npy(path, h, version=(2, 0))
    elif case == "fortran":
        _npy(path, numpy.asfortranarray(h))
    elif case == "object":
        numpy.save(path, numpy.array([{"a": 1}, None], dtype=object))
    elif case == "npz":
        path = tmp_path / "a.npz"
        numpy.savez(path, h=h)
    else:
        numpy.save(path, h if case != "auto, small" else h[:10])
    want = numpy.load(path, allow_pickle=True)
    with xpshim.device("auto" if case.startswith("auto") else "gpu"):
        if case == "file object":
            with open(path, "rb") as f:
                got = xpshim.load(f)
        else:
            got = xpshim.load(path, allow_pickle=True)
        if case == "npz":
            got, want = got["h"], want["h"]
    if case in ("object", "auto, small"):
        assert type(got) is numpy.ndarray
    else:
        assert type(got) is xpshim.ndarray and xpshim.get_device(got) == "gpu"
    if case == "object":
        assert list(got) == list(want)
    else:
        assert numpy.array_equal(xpshim.asnumpy(got), want)


def test_staging_buffers_are_made_when_needed_and_small_for_small_copies(real_gpu, monkeypatch):
    """A process that copies only small arrays pins 1 MiB of staging, not three 64 MiB buffers;
    a large copy then grows the buffers it uses, and every copy stays NumPy's data."""
    monkeypatch.setattr(_pinned, "_state", {})
    try:
        small, large = _host(256 << 10, "float64", 1), _host((70 << 20) + 8, "float32", 2)
        d = xpshim.asarray(small)
        sizes = [b if b is None else b[1].size for b in _pinned._state["bufs"]]
        assert sizes == [_pinned.SMALL, None, None]
        D = xpshim.asarray(large)
        sizes = [b if b is None else b[1].size for b in _pinned._state["bufs"]]
        assert sizes == [_pinned.CHUNK, _pinned.CHUNK, None]
        d2 = xpshim.asarray(small[::-1])  # (into a large buffer now: no new one)
        assert [b if b is None else b[1].size for b in _pinned._state["bufs"]] == sizes
        assert numpy.array_equal(xpshim.asnumpy(d), small) and numpy.array_equal(xpshim.asnumpy(D), large)
        assert numpy.array_equal(xpshim.asnumpy(d2), small[::-1])
    finally:
        pool = _pinned._state.get("pool")
        if pool is not None:
            pool.shutdown()
