"""CuPy's ``ElementwiseKernel`` for the simulated GPU: the kernel's C++ compiled by the host's
compiler (``c++``) and run over NumPy arrays through ctypes.

It covers what xpshim's kernels use: parameters all of one type placeholder ``T``
(set from the first argument), inputs that broadcast, outputs given or allocated. The
source is the kernel's own (``preamble`` and ``operation``), with a prelude that gives the
names CUDA's device code has (``__device__``, ``float16``, ``complex<F>``, the math
functions). FMA contraction is off, as xpshim asks of CuPy's compiler.
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy

PRELUDE = r"""
#include <cmath>
#include <complex>
#define __device__
typedef _Float16 float16;
using std::complex;
using std::fmod; using std::floor; using std::copysign; using std::fabs; using std::isnan;
using std::isinf; using std::isfinite; using std::log1p; using std::exp; using std::exp2;
using std::log; using std::atan2; using std::hypot; using std::sqrt;
"""
CTYPES = {"e": "float16", "f": "float", "d": "double", "F": "complex<float>", "D": "complex<double>",
          "?": "bool", "b": "signed char", "B": "unsigned char", "h": "short", "H": "unsigned short",
          "i": "int", "I": "unsigned int", "l": "long", "L": "unsigned long", "q": "long long",
          "Q": "unsigned long long"}
_DIR = os.path.join(tempfile.gettempdir(), "xpshim-hostkernels")
_libs = {}


def compiler():
    """The host C++ compiler, or None."""
    return shutil.which(os.environ.get("CXX", "c++"))


def _params(spec):
    """The parameters' names, each ``"raw " + name`` for a raw array (indexed by the kernel itself)."""
    out = []
    for p in spec.split(","):
        words = p.split()
        if words[:-1] not in (["T"], ["raw", "T"]):
            raise NotImplementedError(f"the simulated ElementwiseKernel takes T and raw T parameters only, not {p!r}")
        out.append(" ".join(words[:-2] + words[-1:]))
    return out


def _library(source):
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    lib = _libs.get(key)
    if lib is None:
        os.makedirs(_DIR, exist_ok=True)
        so = os.path.join(_DIR, key + ".so")
        if not os.path.exists(so):
            cxx = compiler()
            if cxx is None:
                raise RuntimeError("no C++ compiler (c++) to build the elementwise kernels")
            src = os.path.join(_DIR, key + ".cpp")
            with open(src, "w") as f:
                f.write(source)
            tmp = f"{so}.{os.getpid()}"
            subprocess.run([cxx, "-std=c++17", "-O2", "-ffp-contract=off", "-fPIC", "-shared", src, "-o", tmp],
                           check=True, capture_output=True, text=True)
            os.replace(tmp, so)
        lib = _libs[key] = ctypes.CDLL(so)
    return lib


class ElementwiseKernel:
    """CuPy's ``ElementwiseKernel`` over the simulated arrays. The array module subclasses it
    with its ``ndarray`` type and ``wrap`` function (this module sits below it)."""

    ndarray = None
    wrap = None

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True, preamble="",
                 no_return=False, return_tuple=False, loop_prep="", after_loop="", options=()):
        self.ins, self.outs = _params(in_params), _params(out_params)
        self.operation, self.preamble, self.name = operation, preamble, name

    def _source(self, ctype):
        lines = [PRELUDE, self.preamble, f"typedef {ctype} T;",
                 "extern \"C\" void run(long n, void** in, void** out) {",
                 "  for (long i = 0; i < n; i++) {"]
        lines += [f"    const T* {v[4:]} = (const T*)in[{k}];" if v.startswith("raw ") else
                  f"    const T {v} = ((const T*)in[{k}])[i];" for k, v in enumerate(self.ins)]
        lines += [f"    T& {v} = ((T*)out[{k}])[i];" for k, v in enumerate(self.outs)]
        lines += [f"    {self.operation};", "  }", "}"]
        return "\n".join(lines)

    def __call__(self, *args):
        nin = len(self.ins)
        ins, outs = args[:nin], args[nin:]
        first = next(a for a in ins if type(a) is self.ndarray or isinstance(a, numpy.generic))
        dt = first.dtype
        hs = [numpy.asarray(a._h if type(a) is self.ndarray else a) for a in ins]
        if any(h.dtype != dt for h in hs):
            raise TypeError(f"{self.name}: arguments of T differ in dtype")
        raw = [v.startswith("raw ") for v in self.ins]  # (a raw array: given whole, not broadcast)
        shape = numpy.broadcast_shapes(*[h.shape for h, r in zip(hs, raw) if not r], *[o.shape for o in outs])
        flat = [numpy.ascontiguousarray(h if r else numpy.broadcast_to(h, shape)) for h, r in zip(hs, raw)]
        res = [numpy.empty(shape, dt) for _ in self.outs]
        lib = _library(self._source(CTYPES[dt.char]))
        ptrs = lambda arrs: (ctypes.c_void_p * len(arrs))(*[a.ctypes.data for a in arrs])  # noqa: E731
        lib.run(ctypes.c_long(int(numpy.prod(shape))), ptrs(flat), ptrs(res))
        if outs:
            for o, r in zip(outs, res):
                o._h[...] = r
            got = list(outs)
        else:
            got = [self.wrap(r) for r in res]
        return got[0] if len(got) == 1 else tuple(got)
