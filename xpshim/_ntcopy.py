"""Host memory copies with non-temporal stores, for filling the pinned staging buffers.

glibc's memcpy writes with non-temporal stores only above a threshold of about half the L3
cache (151 MiB on the H200 host), so the 4 MiB pieces of the staging pipeline go through the
caches: each destination line is first read (a read for ownership), and those reads take
memory bandwidth from the DMA engine that is reading the buffers at the same time. With
non-temporal stores, uploads of 512 MiB from ordinary memory ran at 32-35 GB/s on the H200
hosts, against 27-31 with NumPy's copy; at 64 MiB both ran at 24-28 (benchmarks/results/
h200-fill-probe-v2*.md). 64-byte stores, a page at a time, did best or as well as the others.

The copy is a small LLVM function, compiled once per process by llvmlite (the compiler under
Numba, already a dependency) and called through ctypes, which lets go of the GIL: the copy
threads run at once. It compiles on a thread of its own (about 0.2 s, once per process) from the
first pipelined upload (8 MiB or more) on; copies until then, and copies where llvmlite cannot
compile it, are NumPy's, and ``status()`` (shown by ``python -m xpshim info``) says which is used and why.
"""

import ctypes
import threading

import numpy

MIN_BYTES = 1 << 20  # below this, NumPy's copy (the data may well be in cache, and read again soon)
_BLOCK = 256  # bytes per loop iteration: four 64-byte stores
_ALIGN = 64


def _moves(width, base, span, prefix):
    """IR for ``span`` bytes from offset ``base`` + k * width: loads, then non-temporal stores."""
    lanes, out = width // 8, []
    for k in range(span // width):
        t = f"{prefix}{k}"
        out.append(f"""  %o{t} = add i64 {base}, {width * k}
  %s{t} = getelementptr i8, ptr %src, i64 %o{t}
  %d{t} = getelementptr i8, ptr %dst, i64 %o{t}
  %v{t} = load <{lanes} x i64>, ptr %s{t}, align 1
  store <{lanes} x i64> %v{t}, ptr %d{t}, align {width}, !nontemporal !0
""")
    return "".join(out)


def _ir(width=64, pages=1):
    """The copy's LLVM IR: dst (64-byte aligned), src, n (a multiple of 256). With ``pages`` > 1,
    whole blocks of ``pages`` 4 KiB pages are copied 256 bytes of each page in turn (as glibc's
    large copy does: several DRAM pages open at once), the rest 256 bytes at a time. Loads and
    non-temporal stores of ``width`` bytes, then a full fence, so that the data is in memory
    before a DMA engine reads it."""
    blk = 4096 * pages
    if pages > 1:
        inner = "".join(_moves(width, f"%p{q}", _BLOCK, f"b{q}_") for q in range(pages))
        offsets = "".join(f"  %p{q} = add i64 %bj, {4096 * q}\n" for q in range(pages))
        blocks = f"""  %nb = and i64 %n, -{blk}
  %hasb = icmp ne i64 %nb, 0
  br i1 %hasb, label %outer, label %rest
outer:
  %b = phi i64 [ 0, %entry ], [ %bnext, %outer_end ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %jnext, %inner ]
  %bj = add i64 %b, %j
{offsets}{inner}  %jnext = add i64 %j, {_BLOCK}
  %jmore = icmp ult i64 %jnext, 4096
  br i1 %jmore, label %inner, label %outer_end
outer_end:
  %bnext = add i64 %b, {blk}
  %bmore = icmp ult i64 %bnext, %nb
  br i1 %bmore, label %outer, label %rest
rest:
  %start = phi i64 [ 0, %entry ], [ %nb, %outer_end ]
"""
    else:
        blocks = """  br label %rest
rest:
  %start = add i64 0, 0
"""
    return f"""define void @xpshim_nt_copy(ptr %dst, ptr %src, i64 %n) {{
entry:
{blocks}  %left = icmp ult i64 %start, %n
  br i1 %left, label %loop, label %done
loop:
  %i = phi i64 [ %start, %rest ], [ %next, %loop ]
{_moves(width, "%i", _BLOCK, "t")}  %next = add i64 %i, {_BLOCK}
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  fence seq_cst
  ret void
}}
!0 = !{{i32 1}}
"""


_lock = threading.Lock()
_state = {"fn": None, "why": None}  # the compiled function, or why there is none


def _compile(width=64, pages=1):
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    mod = llvm.parse_assembly(_ir(width, pages))
    mod.verify()
    target = llvm.Target.from_default_triple()
    tm = target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                                      opt=2)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    addr = engine.get_function_address("xpshim_nt_copy")
    if not addr:
        raise RuntimeError("the compiled copy has no address")
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64)(addr)
    return fn, engine  # (the engine owns the machine code: kept alive with the function)


def _function():
    st = _state
    if st["fn"] is None and st["why"] is None:
        with _lock:
            if st["fn"] is None and st["why"] is None:
                try:
                    import platform

                    if platform.machine().lower() not in ("x86_64", "amd64"):
                        raise RuntimeError(f"non-temporal stores are used on x86-64 only, not {platform.machine()}")
                    fn, st["engine"] = _compile()
                    st["fn"] = fn
                except Exception as exc:  # (llvmlite missing or broken: NumPy's copy is as correct)
                    st["why"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    return st["fn"]


def start():
    """Compile the copy on a thread of its own, if not done or under way (staging calls this
    at its first pipelined copy: the copies do not wait for the compiler)."""
    if _state["fn"] is None and _state["why"] is None and "thread" not in _state:
        with _lock:
            if "thread" not in _state:
                _state["thread"] = threading.Thread(target=_function, name="xpshim-nt-compile", daemon=True)
                _state["thread"].start()


def copy(dst, src):
    """``dst[...] = src`` for 1-d uint8 arrays of one size (``dst`` contiguous, ``src``
    contiguous): non-temporal stores for large copies once compiled, else NumPy's copy."""
    n = dst.size
    fn = _state["fn"] if n >= MIN_BYTES else None
    if fn is None:
        numpy.copyto(dst, src)
        return
    d = dst.ctypes.data
    head = (-d) % _ALIGN
    body = (n - head) // _BLOCK * _BLOCK
    if head:
        numpy.copyto(dst[:head], src[:head])
    fn(d + head, src.ctypes.data + head, body)
    if head + body < n:
        numpy.copyto(dst[head + body:], src[head + body:])


def status():
    """One line for ``python -m xpshim info``: how staging buffers are filled."""
    fn = _function()
    if fn is not None:
        return f"non-temporal stores (an LLVM function compiled by llvmlite) from {MIN_BYTES >> 20} MiB"
    return f"NumPy's copy (non-temporal copy unavailable: {_state['why']})"
