"""``python -m xpshim info``: what xpshim chose, and why; ``python -m xpshim gaps``: what runs on the GPU;
``python -m xpshim calibrate [--no-save]``: measure auto mode's CPU/GPU crossover here;
``python -m xpshim explain NAME`` (or ``--all``): one NumPy name's route on each device;
``python -m xpshim run [options] script.py [args...]``: a NumPy program on xpshim, unedited (xpshim/_run.py)."""

import sys

from ._info import report

USAGE = ("usage: python -m xpshim info | gaps | calibrate [--no-save] | explain NAME|--all"
         " | run [options] script.py [args...]")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("info", "gaps", "calibrate", "explain", "run") or (
            argv[0] == "explain" and len(argv) != 2):
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0] == "run":
        from ._run import run

        return run(argv[1:])
    if argv[0] == "explain":
        from ._explain import explain, explain_all

        sys.stdout.write(explain_all() if argv[1] == "--all" else explain(argv[1]) + "\n")
        return 0
    if argv[0] == "calibrate":
        from ._calibrate import main as calibrate

        return calibrate(argv[1:])
    if argv[0] == "gaps":
        from ._coverage import report as gaps

        print(gaps())
        return 0
    print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
