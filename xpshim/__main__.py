"""``python -m xpshim info``: what xpshim chose, and why."""

import sys

from ._info import report


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("info",):
        print("usage: python -m xpshim info", file=sys.stderr)
        return 2
    print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
