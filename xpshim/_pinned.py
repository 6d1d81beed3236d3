"""Fast host<->device copies: pinned staging, chunked and pipelined.

A copy from pageable (ordinary) host memory runs at a fraction of the bus
speed (on an H200 host: 6-8 GB/s up, 3 GB/s down, against 54 GB/s pinned),
because the driver stages it through its own small pinned buffer, one piece
at a time. Here the staging is ours and large:

* host to device: the source is copied into reusable pinned buffers by several
  threads at once (with non-temporal stores, ``_ntcopy``; NumPy's copy where that
  is unavailable; both let go of the GIL), a buffer in pieces, each piece
  sent with an asynchronous copy on the current stream as soon as it is filled,
  while the other pieces and the next buffer fill;
* device to host: results of 64 KiB and more land straight in pinned memory
  (CuPy's pinned pool, returned to it when the array is freed), up to a cap on
  the pinned bytes held by live results; past the cap they go through the
  staging buffers into ordinary memory.

Only ``_transfer`` calls this module (it counts every copy); below
``MIN_BYTES`` (up) or ``MIN_BYTES_DOWN`` (down) the plain CuPy copy is used, its latency being lower.
"""

import math
import os
import threading
import weakref

import numpy

from . import _config, _ntcopy, _register

# From 16 KiB up, our staging (one host copy into a pinned buffer, then an asynchronous send) is
# faster than CuPy's pageable copy on the H200 host: 14.8 / 32.8 / 111 us at 16 KiB / 256 KiB /
# 1 MiB against 21.4 / 36.8 / 128 (benchmarks/results/h200-copies-small-probe-v2.md); threads
# join in only from 2 * _PIECE
MIN_BYTES = 16 << 10
# Results of this many bytes and more land straight in pinned memory (no threads: one pool
# allocation and one DMA): on the H200 host 11 / 28 GB/s at 256 KiB / 1 MiB, against 7 / 9.5
# for CuPy's pageable copy (benchmarks/results/h200-v7.md)
MIN_BYTES_DOWN = 64 << 10
# 64 MiB buffers filled by up to 16 threads: on an H200 host the best of the strategies measured
# side by side (benchmarks/HISTORY.md, copies probe: 33.9 GB/s up from pageable memory, against
# 19.9 with 16 MiB and 8 threads; the host copy alone peaks at 38.7 with 16 threads).
CHUNK = 64 << 20  # bytes per staging buffer
NBUF = 3  # staging buffers: one filling, one in flight, one spare
SMALL = 1 << 20  # a staging buffer for copies up to this size is this size
THREADS = max(1, min(16, (os.cpu_count() or 1)))
_PIECE = 2 << 20  # bytes per thread within a chunk, at least
SEND_PIECE = 4 << 20  # from 2 * this, a chunk is filled in pieces of this, each sent once filled


RESULT_CAP = _config.pinned_results_max  # (XPSHIM_PINNED_RESULTS_MAX) pinned bytes that live
# results of device-to-host copies may hold

_lock = threading.Lock()
_state = {}  # staging buffers, events, pool; made on first use
_held = [0]  # pinned bytes held by live results


def _setup(cp):
    if "bufs" not in _state:  # (buffers are allocated when first needed: _buffer)
        _state["bufs"] = [None] * NBUF
        _state["events"] = [None] * NBUF
        from concurrent.futures import ThreadPoolExecutor  # (only once copies to a GPU are made)

        _state["pool"] = ThreadPoolExecutor(THREADS, thread_name_prefix="xpshim-copy") if THREADS > 1 else None
    return _state


def _buffer(cp, st, j, m):
    """Staging buffer ``j`` as (memory, uint8 view), of at least ``m`` bytes; its previous copy must
    be done. Allocated on first need, small for small copies: pinning costs about 0.5 ms per MiB
    (96 ms for three 64 MiB buffers at a process's first copy on the H200 host)."""
    b = st["bufs"][j]
    if b is None or b[1].size < m:
        size = SMALL if m <= SMALL else CHUNK
        mem = cp.cuda.alloc_pinned_memory(size)
        b = st["bufs"][j] = (mem, numpy.frombuffer(mem, numpy.uint8, size))
    return b


def _parallel(n, part):
    """``part(a, b)`` over the byte range [0, n), split over the threads for large ranges (NumPy's
    copy and ``os.preadv`` let go of the GIL)."""
    pool = _state.get("pool")
    if pool is None or n < 2 * _PIECE:
        part(0, n)
        return
    k = min(THREADS, (n + _PIECE - 1) // _PIECE)
    step = (n + k - 1) // k
    futs = [pool.submit(part, i * step, min(n, (i + 1) * step)) for i in range(k)]
    from concurrent.futures import wait  # (loaded with the pool: _setup)

    wait(futs)  # all of them, even after an error: none may still write once the caller lets go
    for f in futs:
        f.result()


def _copy(dst, src):
    """dst[...] = src (1-d byte views), split over threads for large pieces."""
    _parallel(src.size, lambda a, b: numpy.copyto(dst[a:b], src[a:b]))


def _bytes_of(host):
    """A 1-d uint8 view of a C-contiguous host array."""
    return host.reshape(-1).view(numpy.uint8)


def is_pinned(cp, host):
    """True when ``host``'s memory is CuPy pinned memory: a result that came back through
    ``to_host`` below, or an array of ``empty_pinned``."""
    b = host
    while isinstance(b, numpy.ndarray):
        b = b.base
    if isinstance(b, memoryview):  # (numpy.frombuffer keeps a memoryview of the exporter)
        b = b.obj
    return isinstance(b, cp.cuda.PinnedMemoryPointer)


def empty_pinned(cp, shape, dtype, order):
    """A NumPy array in CuPy pinned memory (returned to CuPy's pinned pool when it is freed)."""
    dtype = numpy.dtype(dtype)
    n = math.prod(shape) * dtype.itemsize
    mem = cp.cuda.alloc_pinned_memory(max(n, 1))
    return numpy.ndarray(shape, dtype, buffer=numpy.frombuffer(mem, numpy.uint8, max(n, 1))[:n], order=order)


def to_device(cp, host):
    """A new CuPy array with ``host``'s data (any strides): from pinned memory by one direct
    copy at the bus's speed, from ordinary memory through pinned staging, or by one direct copy
    too once it is registered in place (``_register``: arrays sent more than once)."""
    if not host.flags.c_contiguous:
        host = numpy.ascontiguousarray(host)
    elif is_pinned(cp, host):
        return direct(cp, host)
    else:
        out = _register.upload(cp, host, direct)
        if out is not None:
            return out
    return to_device_runs(cp, [_bytes_of(host)], host.shape, host.dtype)


def direct(cp, host):
    """A new CuPy array with the data of ``host`` (C-contiguous, in pinned or registered memory)
    by one copy, done when this returns (the caller may write its array as soon as it does)."""
    out = cp.empty(host.shape, host.dtype)
    stream = cp.cuda.get_current_stream()
    cp.cuda.runtime.memcpyAsync(out.data.ptr, host.ctypes.data, host.nbytes, 1, stream.ptr)  # 1: up
    stream.synchronize()
    return out


def to_device_runs(cp, runs, shape, dtype):
    """A new CuPy array of ``shape`` and ``dtype`` whose bytes are the 1-d uint8
    arrays ``runs``, one after another."""
    out = cp.empty(shape, dtype)
    if out.nbytes:
        _send(cp, out.data.ptr, ((min(CHUNK, src.size - off),
                                  lambda a, b, v, src=src, off=off: _ntcopy.copy(v, src[off + a:off + b]))
                                 for src in runs for off in range(0, src.size, CHUNK)))
    return out


def _send(cp, dptr, chunks):
    """The staging pipeline: for each ``(m, part)`` of ``chunks``, ``part(a, b, view)`` writes bytes
    [a, b) of the chunk's ``m`` into ``view`` (a pinned staging buffer's bytes a to b); the buffer's
    bytes are then sent to the device at ``dptr`` onwards, while the next buffer fills. No wait at
    the end: later work on the stream is ordered after the copies, and the sources have already
    been read into our buffers."""
    with _lock:  # one pipeline at a time: the staging buffers are shared
        st = _setup(cp)
        stream = cp.cuda.get_current_stream()
        events, pool = st["events"], st["pool"]
        for i, (m, part) in enumerate(chunks):
            j = i % NBUF
            if events[j] is not None:
                events[j].synchronize()  # that buffer's previous copy has left it
            mem, view = _buffer(cp, st, j, m)

            def send(a, b, src=mem.ptr, dst=dptr):
                cp.cuda.runtime.memcpyAsync(dst + a, src + a, b - a, 1, stream.ptr)  # 1: host to device

            if pool is None or m < 2 * SEND_PIECE:
                _parallel(m, lambda a, b: part(a, b, view[a:b]))
                send(0, m)
            else:
                # the non-temporal fill pays from here on: compiled on a thread of its own from the
                # first such copy (started at the first small copy, the compile ran during copies
                # v16's 256 KiB rows, which came out three to four times slower than v15's)
                _ntcopy.start()
                in_order(pool, m, lambda a, b: part(a, b, view[a:b]), send)
            ev = cp.cuda.Event(block=False, disable_timing=True)
            ev.record(stream)
            events[j] = ev
            dptr += m


def in_order(pool, m, part, send, piece=None):
    """``part(a, b)`` for pieces [a, b) of [0, m) on the ``pool``'s threads at once, and
    ``send(a, b)`` for each piece in order as soon as it is filled: the bus starts on a buffer
    before its last piece is in (4 MiB pieces: 26.8 GB/s at 64 MiB on the H200 host against 18.6
    for filling the whole buffer first: copies probe v3 in benchmarks/HISTORY.md). If a piece
    fails, no later piece is sent, and every piece has ended before the error is raised (no
    thread still writes into the buffer once the caller lets go of it)."""
    piece = piece or SEND_PIECE
    futs = [(a, min(m, a + piece), pool.submit(part, a, min(m, a + piece))) for a in range(0, m, piece)]
    try:
        for a, b, f in futs:
            f.result()
            send(a, b)
    finally:
        for _, _, f in futs:
            f.cancel() or f.exception()  # (waits for those already running)


def _read_range(dst, fd, pos):
    """dst[...] = the bytes of file ``fd`` from offset ``pos`` (``dst`` a 1-d uint8 view);
    ``os.preadv`` may return short reads: loops until ``dst`` is full."""
    view, a, b = memoryview(dst), 0, dst.size
    while a < b:
        k = os.preadv(fd, [view], pos + a)
        if k <= 0:
            raise EOFError(f"the file ended {b - a} bytes before the array's data did")
        a, view = a + k, view[k:]


def file_to_device(cp, fd, pos, shape, dtype):
    """A new CuPy array of ``shape`` and ``dtype`` whose bytes are those of file ``fd`` from offset
    ``pos``: read straight into the pinned staging buffers, each piece sent as soon as it is
    read, so the data never passes through ordinary memory."""
    out = cp.empty(shape, dtype)
    n = out.nbytes
    if n:
        _send(cp, out.data.ptr, ((min(CHUNK, n - off), lambda a, b, v, off=off: _read_range(v, fd, pos + off + a))
                                 for off in range(0, n, CHUNK)))
    return out


def _release(nbytes):
    with _lock:
        _held[0] -= nbytes


def to_host(cp, dev):
    """A new NumPy array with ``dev``'s data."""
    if not dev.flags.c_contiguous:
        dev = cp.ascontiguousarray(dev)
    n = dev.nbytes
    if n == 0:
        return numpy.empty(dev.shape, dev.dtype)
    stream = cp.cuda.get_current_stream()
    with _lock:
        direct = _held[0] + n <= RESULT_CAP
        if direct:
            _held[0] += n
    if direct:
        try:
            mem = cp.cuda.alloc_pinned_memory(n)
        except cp.cuda.runtime.CUDARuntimeError:  # pinned memory exhausted: the staged path below works
            _release(n)
        else:
            base = numpy.frombuffer(mem, numpy.uint8, n)  # holds mem; its views hold it
            weakref.finalize(base, _release, n)
            cp.cuda.runtime.memcpyAsync(base.ctypes.data, dev.data.ptr, n, 2, stream.ptr)  # 2: device to host
            stream.synchronize()
            return base.view(dev.dtype).reshape(dev.shape)
    out = numpy.empty(dev.shape, dev.dtype)
    dst = _bytes_of(out)
    with _lock:
        st = _setup(cp)
        bufs = st["bufs"]
        for ev in st["events"]:
            if ev is not None:
                ev.synchronize()  # host-to-device copies still reading the buffers
        pending = None  # (buffer, offset, length) copied to the device but not yet out of the buffer
        for i, off in enumerate(range(0, n, CHUNK)):
            j = i % NBUF
            m = min(CHUNK, n - off)
            mem, view = _buffer(cp, st, j, m)
            cp.cuda.runtime.memcpyAsync(mem.ptr, dev.data.ptr + off, m, 2, stream.ptr)
            ev = cp.cuda.Event(block=False, disable_timing=True)
            ev.record(stream)
            if pending is not None:
                pj, poff, pm, pev = pending
                pev.synchronize()
                _copy(dst[poff:poff + pm], bufs[pj][1][:pm])
            pending = (j, off, m, ev)
        pj, poff, pm, pev = pending
        pev.synchronize()
        _copy(dst[poff:poff + pm], bufs[pj][1][:pm])
        st["events"] = [None] * NBUF  # all staging buffers are free again
    return out
