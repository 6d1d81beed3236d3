"""Run as `python -m pkgdemo.main`: the package's modules, imported relatively, share one `np`."""

import json
import sys

import numpy as np

from . import part

print(json.dumps({"argv": sys.argv[1:], "name": __name__, "np": np.__name__, "part": part.np.__name__,
                  "total": float(np.sum(part.values()))}))
