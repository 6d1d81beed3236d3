"""argv, __name__, __file__, sys.path[0], and the ways a script ends: `exits.py WHAT [args...]`."""

import json
import sys


def fail():
    raise ValueError("failed on purpose")  # the line a traceback names


print(json.dumps({"argv": sys.argv, "name": __name__, "file": __file__, "path0": sys.path[0]}))
if __name__ == "__main__":
    what = sys.argv[1]
    if what == "exit3":
        sys.exit(3)
    if what == "message":
        raise SystemExit("stopped with a message")
    if what == "raise":
        fail()
