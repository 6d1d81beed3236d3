"""Multiprocessing children (start methods from argv) report which NumPy they see."""

import json
import multiprocessing
import sys

import numpy as np


def work(_):
    import numpy

    return [np.__name__, numpy.__name__, sys.modules["numpy"].__name__]


if __name__ == "__main__":
    seen = {}
    for method in sys.argv[1:]:
        with multiprocessing.get_context(method).Pool(1) as pool:
            seen[method] = pool.map(work, [0])[0]
    print(json.dumps(seen))
