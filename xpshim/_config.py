"""Environment variables, read and checked once at import (the device policy built on them is
``_device``).

Environment variables, read once at import:

XPSHIM_DEVICE    auto | cpu | gpu | dask   where new arrays are made (default auto;
                 dask: chunked Dask arrays, see xpshim/_dask and its XPSHIM_DASK_* variables)
XPSHIM_FALLBACK  warn | silent | raise   what a host fallback does (default warn)
XPSHIM_TRANSFERS count | warn        implicit copies and values read into Python are always
                                     counted; ``warn`` also warns of each
XPSHIM_REPORT    path                write ``xpshim.stats()`` there as JSON at exit
XPSHIM_CROSSOVER elements            in auto mode, arrays smaller than this stay on the CPU
                                     (default: the calibrated value, else 2**15; see _placement)
XPSHIM_SIMULATE_GPU 0 | 1            1: NumPy on the CPU acts as the GPU, with CuPy's API (xpshim/_simgpu)
XPSHIM_SIMULATE_IMPORT_MS ms         the simulated GPU's stand-in for CuPy's import on a thread, in
                                     auto mode (default 20; tests lengthen it)
XPSHIM_START_AFTER_MS ms             auto mode starts the GPU once the program has asked for the
                                     device this long (default 300; 0: at the first call that asks)
XPSHIM_PINNED_RESULTS_MAX bytes      pinned memory that live copies from the GPU may hold (_pinned)
XPSHIM_REGISTERED_MAX bytes          host memory registered in place for repeated uploads (_register)
XPSHIM_FAST_EXIT 1 | 0               1: a process that used the GPU ends without waiting for the driver's
                                     release of its GPU memory, which a child process does after it
                                     (default 1; _exitreaper)
XPSHIM_DASK_SCHEDULER, XPSHIM_DASK_CHUNK_TYPE, XPSHIM_DASK_CHUNK_BYTES   Dask mode (xpshim/_dask)

Every one is checked here, at import, so that a wrong value stops the program at its start with
a ConfigError naming the fix (not at exit, nor at the first array). The errors are collected in
``problems`` (a bad value reads as its default meanwhile), and the package ``__init__`` raises the
first: so ``python -m xpshim info``, whose import must go on, can show them all (``started_by_cli``).
"""

import os
import re
import sys

from ._errors import ConfigError

# The errors of the settings found at import, in order: ConfigErrors here, and the package
# __init__ adds what stops the start after them (XPSHIM_DEVICE=gpu without a GPU: a DeviceError).
problems = []


def _checked(read, var, default):
    """``read()``, or ``default`` with the ConfigError kept in ``problems`` (its ``variable``: ``var``)."""
    try:
        return read()
    except ConfigError as e:
        e.variable = var
        problems.append(e)
        return default


def startup_error():
    """The first of ``problems``, without the frames that found it (the package ``__init__`` raises
    it), the others added as notes."""
    first = problems[0].with_traceback(None)
    for other in problems[1:]:
        if f"also: {other}" not in getattr(first, "__notes__", ()):
            first.add_note(f"also: {other}")
    return first


def started_by_cli():
    """True while ``python -m xpshim ...`` imports the package: runpy imports it before running
    ``xpshim/__main__.py``, with ``sys.argv[0] == "-m"`` and the module's name in the command line
    (``python -m xpshim`` or ``python -Im xpshim``). Its settings problems are then told by the
    command (``info`` lists them), not raised by the import."""
    argv, orig = sys.argv, getattr(sys, "orig_argv", None)
    if not argv or argv[0] != "-m" or not orig or len(orig) < len(argv):
        return False
    token = orig[len(orig) - len(argv)]  # the word before the command's own arguments
    if token.startswith("-"):  # -mxpshim, -Imxpshim
        token = token.partition("m")[2]
    return token in ("xpshim", "xpshim.__main__")

DEVICES = ("auto", "cpu", "gpu", "dask")
FALLBACKS = ("warn", "silent", "raise")
TRANSFERS = ("count", "warn")


def _read(var, valid, default):
    raw = os.environ.get(var, "")
    value = raw.strip().lower() or default
    if value not in valid:
        raise ConfigError(
            f"{var}={raw!r} is not a valid value; use one of {', '.join(valid)} "
            f"(or unset {var} for the default, {default!r})"
        )
    return value


requested_device = _checked(lambda: _read("XPSHIM_DEVICE", DEVICES, "auto"), "XPSHIM_DEVICE", "auto")
fallback_policy = _checked(lambda: _read("XPSHIM_FALLBACK", FALLBACKS, "warn"), "XPSHIM_FALLBACK", "warn")
transfer_policy = _checked(lambda: _read("XPSHIM_TRANSFERS", TRANSFERS, "count"), "XPSHIM_TRANSFERS", "count")


def _read_report():
    """The report's absolute path (the program may change directory before exit), or None; a
    ConfigError now when the file could not be written at exit."""
    raw = os.environ.get("XPSHIM_REPORT", "").strip()
    if not raw:
        return None
    path = os.path.abspath(os.path.expanduser(raw))
    folder = os.path.dirname(path)
    if os.path.isdir(path):
        problem = "is a directory"
    elif not os.path.isdir(folder):
        problem = f"its directory {folder} does not exist"
    elif not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        problem = f"it cannot be written here ({folder} or the file is not writable)"
    else:
        return path
    raise ConfigError(
        f"XPSHIM_REPORT={raw!r}: {problem}, so the report could not be written at exit; point it at a "
        f"file in a writable directory (e.g. XPSHIM_REPORT=$PWD/xpshim-report.json; create a missing "
        f"directory with mkdir -p), or unset XPSHIM_REPORT"
    )


report_path = _checked(_read_report, "XPSHIM_REPORT", None)
# Auto mode's seeds (docs/placement.md): small arrays made on the GPU in functions that broadcast
# host data ("learn"), in every function until a line proves a loop's ("eager"), or never ("off").
SEEDS = ("learn", "eager", "off")
seeds = _checked(lambda: _read("XPSHIM_SEEDS", SEEDS, "learn"), "XPSHIM_SEEDS", "learn")
simulate_gpu = _checked(lambda: _read("XPSHIM_SIMULATE_GPU", ("0", "1"), "0"), "XPSHIM_SIMULATE_GPU", "0") == "1"


def _read_ms(var, default):
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 600_000:
        raise ConfigError(f"{var}={raw!r} is not a duration in milliseconds; use a number from 0 to "
                          f"600000 (e.g. {var}=500), or unset {var} for the default, {default}")
    return value


fast_exit = _checked(lambda: _read("XPSHIM_FAST_EXIT", ("0", "1"), "1"), "XPSHIM_FAST_EXIT", "1") == "1"
simulate_import_ms = _read_ms("XPSHIM_SIMULATE_IMPORT_MS", 20.0)
# Auto mode starts the GPU once the program has asked for the device this long (_backend.START_AFTER_S;
# 0: at the first call that asks)
start_after_ms = _read_ms("XPSHIM_START_AFTER_MS", 300.0)

# The size-aware placement of auto mode (xpshim/_placement.py). The default sits between the
# crossovers measured on an H200 (benchmarks/results/h200-v4.md, "crossover"): NumPy matches
# xpshim-gpu at about 2.2e4 float64 elements for an elementwise chain (0.82 ns an element
# against a flat 18.5 us a call) and at about 5.3e4 for a sum (0.30 ns against 16 us);
# 2**15 = 32768 lies between the two.
DEFAULT_CROSSOVER = 2**15


def _read_crossover():
    raw = os.environ.get("XPSHIM_CROSSOVER", "").strip()
    if not raw:
        return None
    try:
        number = float(raw.replace("_", ""))  # 32768, 32_768 and 3.2e4 all read
    except ValueError:
        number = -1.0
    if not (0 <= number < 2**63) or number != int(number):
        raise ConfigError(
            f"XPSHIM_CROSSOVER={raw!r} is not a number of elements; use a whole number >= 0 "
            "(e.g. XPSHIM_CROSSOVER=32768; 0 puts every array on the GPU), run "
            "`python -m xpshim calibrate` to measure it here, or unset XPSHIM_CROSSOVER for the default"
        )
    return int(number)


crossover_env = _checked(_read_crossover, "XPSHIM_CROSSOVER", None)


def read_bytes(var, default, example, least=None):
    """A number of bytes from ``var`` (``default`` when unset); a ConfigError naming the fix
    when it is not an integer (or is below ``least``)."""
    raw = os.environ.get(var, "")
    if not raw:
        return default
    try:
        n = int(raw)
    except ValueError:
        n = None
    if n is None or (least is not None and n < least):
        at_least = "" if least is None else f" >= {least}"
        raise ConfigError(f"{var}={raw!r} is not a number of bytes; give an integer{at_least} ({example}), "
                          f"or unset it for the default of {default / 2**30:g} GiB")
    return n


pinned_results_max = _checked(lambda: read_bytes("XPSHIM_PINNED_RESULTS_MAX", 4 << 30,
                                                "e.g. 4294967296; 0 keeps results in ordinary memory", least=0),
                              "XPSHIM_PINNED_RESULTS_MAX", 4 << 30)
registered_max = _checked(lambda: read_bytes("XPSHIM_REGISTERED_MAX", 4 << 30,
                                             "e.g. 4294967296; 0 turns registering off", least=0),
                          "XPSHIM_REGISTERED_MAX", 4 << 30)

# Dask mode's variables (used by xpshim/_dask, which imports Dask only when the mode is chosen).
DASK_CHUNK_TYPES = ("auto", "numpy", "cupy")
DASK_LOCAL = ("local", "threads", "synchronous")
# dask.utils.parse_bytes's units (its table, lower-cased), so that its sizes read the same here
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "p": 10**15, "pb": 10**15, "ki": 2**10, "kib": 2**10, "mi": 2**20,
          "mib": 2**20, "gi": 2**30, "gib": 2**30, "ti": 2**40, "tib": 2**40, "pi": 2**50, "pib": 2**50}


def parse_size(value, source):
    """Bytes from ``value`` (an int, or text as Dask writes sizes: ``134217728``, ``256MiB``,
    ``1e9``, ``2 GB``); None when empty; a ConfigError naming ``source`` when not a size > 0."""
    if value is None or value == "":
        return None
    n = 0
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        n = int(value)
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z]*)\s*", str(value).lower())
        if m and m.group(2) in _UNITS:
            n = int(float(m.group(1)) * _UNITS[m.group(2)])
    if n <= 0:
        raise ConfigError(f"{source}={value!r} is not a size in bytes; use e.g. 134217728, 256MiB or 1GB")
    return n


def check_chunk_type(value, source):
    """``value`` as one of DASK_CHUNK_TYPES (empty: "auto"), or a ConfigError naming them."""
    v = (value or "auto").strip().lower()
    if v not in DASK_CHUNK_TYPES:
        raise ConfigError(f"{source}={value!r} is not a valid value; use one of {', '.join(DASK_CHUNK_TYPES)}")
    return v


def _read_scheduler():
    raw = os.environ.get("XPSHIM_DASK_SCHEDULER", "").strip()
    if not raw or raw.lower() in DASK_LOCAL:
        return raw.lower() or None
    # an address as distributed.Client takes one: tcp://host:8786 (any protocol), or host:port
    if re.fullmatch(r"[a-z][a-z0-9+]*://\S+|[^\s:/]+:[0-9]+", raw):
        return raw
    raise ConfigError(
        f"XPSHIM_DASK_SCHEDULER={raw!r} is not a scheduler address (tcp://host:8786 or host:8786) nor "
        f"one of {', '.join(DASK_LOCAL)}; set it to your scheduler's address (dask scheduler prints "
        "it), or unset it (the current distributed client, else a local cluster)"
    )


dask_scheduler = _checked(_read_scheduler, "XPSHIM_DASK_SCHEDULER", None)
dask_chunk_type = _checked(lambda: check_chunk_type(os.environ.get("XPSHIM_DASK_CHUNK_TYPE"), "XPSHIM_DASK_CHUNK_TYPE"),
                           "XPSHIM_DASK_CHUNK_TYPE", "auto")
dask_chunk_bytes = _checked(lambda: parse_size(os.environ.get("XPSHIM_DASK_CHUNK_BYTES", "").strip(),
                                               "XPSHIM_DASK_CHUNK_BYTES"), "XPSHIM_DASK_CHUNK_BYTES", None)


def calibration_path():
    """Where ``python -m xpshim calibrate`` saves the crossover it measured."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "xpshim", "crossover.json")
