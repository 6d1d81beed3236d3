"""A NumPy script using a local module, SciPy and pandas; prints which `np` each module got."""

import json
import sys

import numpy as np
import pandas
import scipy.ndimage

import helper

a = np.arange(16.0).reshape(4, 4)
unit, la_name = helper.scaled(a)
smooth = scipy.ndimage.uniform_filter(a, size=3)
frame = pandas.DataFrame({"x": a[:, 0]}).to_numpy()
# Every loaded module holding a NumPy-like module as `np` or `numpy`, with that module's name.
held = {}
for name, mod in list(sys.modules.items()):
    for attr in ("np", "numpy"):
        value = getattr(mod, attr, None) if mod is not None else None
        if getattr(value, "__name__", None) in ("numpy", "xpshim"):
            held.setdefault(value.__name__, set()).add(name)
print(json.dumps({
    "array": f"{type(a).__module__}.{type(a).__name__}",
    "scipy": f"{type(smooth).__module__}.{type(smooth).__name__}",
    "pandas": f"{type(frame).__module__}.{type(frame).__name__}",
    "linalg": la_name,
    "sys.modules": sys.modules["numpy"].__name__,
    "xpshim_holders": sorted(held.get("xpshim", ())),
    "smooth_sum": float(smooth.sum()),
    "unit_sum": float(unit.sum()),
}))
