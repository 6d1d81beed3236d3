"""The workloads Dask mode is checked on, shared by tests/unit/test_dask.py and
benchmarks/dask_gpu.py: each takes a NumPy-like module and three arrays made by it."""

import numpy

HOST = numpy.random.default_rng(0)
A = HOST.standard_normal((120, 90))
B = HOST.standard_normal((90, 70))
V = HOST.integers(-50, 50, 500).astype(numpy.int32)

WORKLOADS = {
    "elementwise chain": lambda np, a, b, v: np.sqrt(np.abs(a)) * 2 + np.exp(-a) - a ** 2,
    "where": lambda np, a, b, v: np.where(a > 0, a, 0.0),
    "ufunc with out": lambda np, a, b, v: np.multiply(a, 2.0, out=np.empty_like(a)),
    "integer ops": lambda np, a, b, v: (v * 3 - 7) // 4 % 5,
    "sum axis 0": lambda np, a, b, v: a.sum(axis=0),
    "max axis 1": lambda np, a, b, v: np.max(a, axis=1),
    "argmax axis 0": lambda np, a, b, v: np.argmax(a, axis=0),
    "prod keepdims": lambda np, a, b, v: np.prod(a[:, :5], axis=1, keepdims=True),
    "add.reduce": lambda np, a, b, v: np.add.reduce(a, axis=1),
    "cumsum": lambda np, a, b, v: np.cumsum(v),
    "mean": lambda np, a, b, v: np.mean(a, axis=0),
    "std": lambda np, a, b, v: a.std(axis=1),
    "var ddof": lambda np, a, b, v: np.var(a, axis=0, ddof=1),
    "integer mean": lambda np, a, b, v: np.mean(v),
    "matmul": lambda np, a, b, v: a @ b,
    "dot": lambda np, a, b, v: np.dot(a, b),
    "dot with a list": lambda np, a, b, v: np.dot(a[:, :3], [0.2989, 0.5870, 0.1140]),
    "einsum": lambda np, a, b, v: np.einsum("ij,jk->ik", a, b),
    "slices": lambda np, a, b, v: a[10:50, ::3],
    "negative step": lambda np, a, b, v: a[::-2, 5],
    "integer index list": lambda np, a, b, v: a[[1, 5, 7, 100]],
    "boolean mask": lambda np, a, b, v: a[a > 0.5],
    "ellipsis": lambda np, a, b, v: a[..., 2],
    "transpose row": lambda np, a, b, v: a.T[3],
    "concatenate": lambda np, a, b, v: np.concatenate([a[:, :70], b], axis=0),
    "stack": lambda np, a, b, v: np.stack([a, a * 2]),
    "hstack": lambda np, a, b, v: np.hstack([a, a]),
    "reshape astype": lambda np, a, b, v: a.reshape(90, 120).astype(np.float32),
    "clip round": lambda np, a, b, v: np.round(np.clip(a, -1, 1), 2),
    "median axis": lambda np, a, b, v: np.median(a, axis=0),
    "fft along a chunked axis": lambda np, a, b, v: np.fft.fft(a, axis=0),
    "linalg.norm": lambda np, a, b, v: np.linalg.norm(a, axis=1),
    "isclose": lambda np, a, b, v: np.isclose(a, a + 1e-12),
}
