"""``python -m xpshim COMMAND``: xpshim's command line, with argparse's conventions (``-h``/``--help``
for it and each command, ``--version``).

    info                 what xpshim chose, and why (also where the settings stop xpshim: exit status 2)
    gaps                 what runs on the GPU
    calibrate [--no-save] measure auto mode's CPU/GPU crossover here
    explain NAME | --all one NumPy name's route on each device (exit status 1 for a name NumPy lacks)
    run [options] script.py [args...]   a NumPy program on xpshim, unedited (xpshim/_run.py)

The package ``__init__`` runs before this module. A setting xpshim cannot start with (a bad
``XPSHIM_*`` value, ``XPSHIM_DEVICE=gpu`` without a GPU) does not stop that import here: it is
kept in ``_config.problems`` (``_config.started_by_cli``). ``info`` then shows it, with what was
detected and the fix; every other command says it in one line. Both exit with status 2, as a
command line that cannot run does.

Output to a reader that stops early (``python -m xpshim gaps | head -1``) ends quietly, with the
status of a program stopped by SIGPIPE (141), as ``cat`` and ``ls`` do.
"""

import argparse
import os
import sys

from . import _config

COMMANDS = ("info", "gaps", "calibrate", "explain", "run")


def parser():
    """The command line, for ``-h``/``--help`` and the checks (``run`` reads its own: ``_run.USAGE``)."""
    from ._info import versions

    p = argparse.ArgumentParser(
        prog="python -m xpshim", description="xpshim: NumPy code on an NVIDIA GPU by changing one line.",
        epilog="`python -m xpshim COMMAND --help` tells more of each command.")
    p.add_argument("--version", action="version", version=versions())
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    sub.add_parser("info", help="which device was chosen and why, the versions, and any problem found",
                   description="Which device xpshim chose and why, the settings (XPSHIM_*), the versions, the GPU, "
                               "and any problem found. Where the settings stop xpshim it names them and the fix, "
                               "and exits with status 2.")
    sub.add_parser("gaps", help="every NumPy callable, with where it runs on GPU arrays",
                   description="Every NumPy callable, with where it runs on GPU arrays, read from the installed "
                               "CuPy (else the simulated GPU's snapshot of CuPy's API).")
    c = sub.add_parser("calibrate", help="measure auto mode's CPU/GPU crossover on this machine",
                       description="Measure the array size from which the GPU is faster than NumPy here, and save "
                                   "it for auto mode (XPSHIM_CROSSOVER overrides it). Needs a usable GPU.")
    c.add_argument("--no-save", action="store_true", help="print the measurement without saving it")
    e = sub.add_parser("explain", help="where one NumPy name runs on each device, and why",
                       description="Where one NumPy name runs on each device and why: CuPy's function, xpshim's "
                                   "gap implementation, edge cases, host fallbacks, auto mode and Dask mode. "
                                   "A name NumPy lacks exits with status 1, naming the close ones.")
    which = e.add_mutually_exclusive_group(required=True)
    which.add_argument("name", nargs="?", metavar="NAME", help="median, linalg.norm, add.reduce, random.Generator.normal")
    which.add_argument("--all", action="store_true", help="every routed callable, one after another")
    sub.add_parser("run", add_help=False, help="run a NumPy program on xpshim, unedited (run --help)",
                   usage="python -m xpshim run [options] script.py|-m module|- [args...]")
    return p


def _stopped_reading():
    """The reader of our output stopped (``| head``): no traceback, nothing more written (Python's
    advice for BrokenPipeError), and the status of a program stopped by SIGPIPE."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # (the interpreter's last flush goes nowhere)
    except (OSError, ValueError):
        pass
    return 128 + 13


def _write(text):
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def _problem_line(command):
    """The one line a command other than ``info`` says where the settings stop xpshim."""
    first, more = _config.problems[0], len(_config.problems) - 1
    also = f" ({more} more: `python -m xpshim info` lists them)" if more else ""
    return f"python -m xpshim {command}: {first}{also}"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        # run's options, then the script's own arguments (its --help too): xpshim/_run.py reads them
        from ._run import run

        return run(argv[1:])
    args = parser().parse_args(argv)  # -h, --help, --version and mistakes end here (status 0 or 2)
    if _config.problems and args.command != "info":
        print(_problem_line(args.command), file=sys.stderr)
        return 2
    try:
        if args.command == "info":
            from ._info import report

            _write(report())
            return 2 if _config.problems else 0
        if args.command == "gaps":
            from ._coverage import report as gaps

            _write(gaps())
            return 0
        if args.command == "calibrate":
            from ._calibrate import main as calibrate

            return calibrate(["--no-save"] if args.no_save else [])
        from ._explain import explain, explain_all, known

        if args.all:
            _write(explain_all())
            return 0
        if not known(args.name):
            print(f"python -m xpshim explain: {explain(args.name)}", file=sys.stderr)
            return 1
        _write(explain(args.name))
        return 0
    except BrokenPipeError:
        return _stopped_reading()


if __name__ == "__main__":
    sys.exit(main())
