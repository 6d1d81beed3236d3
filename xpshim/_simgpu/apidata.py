"""The committed snapshot of CuPy's API (``api.json``), read once."""

import json
import os

_api = None


def api():
    """The snapshot of CuPy's API: ``{"cupy": version, "modules": ..., "classes": ...}``."""
    global _api
    if _api is None:
        with open(os.path.join(os.path.dirname(__file__), "api.json")) as f:
            _api = json.load(f)
    return _api
