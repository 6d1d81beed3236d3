"""``python -m xpshim run [options] script.py [args...]`` (or ``-m module``): a NumPy program on
xpshim with no edits, run as ``python script.py`` / ``python -m module`` would run it.

Options become the environment xpshim reads at import (``--device`` -> ``XPSHIM_DEVICE``,
``--fallback`` -> ``XPSHIM_FALLBACK``, ``--report`` -> ``XPSHIM_REPORT``). ``python -m xpshim``
has imported xpshim before this code runs, so when an option changes one of them the
interpreter is started again (``os.execve``, same process id) with the new environment.
``import numpy`` is redirected only inside the user's code (xpshim/_scope.py).
"""

import os
import runpy
import sys
import types

from . import _config, _scope

USAGE = """usage: python -m xpshim run [options] script.py [args...]
       python -m xpshim run [options] -m package.module [args...]
       python -m xpshim run [options] - [args...]        (the program from standard input)

Runs a NumPy program unchanged, with `import numpy` in the script and the modules under its
folder giving xpshim (libraries such as SciPy and pandas keep NumPy). The options come before
the script: what follows it is the script's own (`run script.py --help` is the script's --help).

options:
  --device auto|cpu|gpu|dask   where new arrays are made (XPSHIM_DEVICE; default auto)
  --fallback warn|silent|raise what a host fallback does (XPSHIM_FALLBACK; default warn)
  --report PATH                write xpshim.stats() there as JSON at exit (XPSHIM_REPORT)
  --include PKG                also give xpshim to package PKG's modules (repeatable, or a,b)
  -h, --help                   show this text"""

_VALUED = {"--device": "XPSHIM_DEVICE", "--fallback": "XPSHIM_FALLBACK", "--report": "XPSHIM_REPORT"}


class UsageError(Exception):
    """A command line that cannot run; the message says what to change."""


def parse(argv):
    """(environment changes, included packages, module or None, script or None, script args)."""
    env, include, i = {}, [], 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            raise UsageError("")
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        opt, eq, value = arg.partition("=")
        if opt == "-m" and not eq:
            if i + 1 >= len(argv):
                raise UsageError("-m needs a module name, e.g. `python -m xpshim run -m package.module`")
            return env, include, argv[i + 1], None, argv[i + 2:]
        if opt not in _VALUED and opt != "--include":
            raise UsageError(f"unknown option {arg!r}; options go before the script (see --help)")
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError(f"{opt} needs a value (see --help)")
            i += 1
            value = argv[i]
        if opt == "--include":
            include += [p.strip() for p in value.split(",") if p.strip()]
        else:
            env[_VALUED[opt]] = value
        i += 1
    if i >= len(argv):
        raise UsageError("name a script to run (or -m module)")
    return env, include, None, argv[i], argv[i + 1:]


def validate(env):
    """Check the options before anything runs; returns the environment values to set."""
    out = {}
    device = env.get("XPSHIM_DEVICE")
    if device is not None:
        device = device.strip().lower()
        if device not in _config.DEVICES:
            raise UsageError(f"--device {env['XPSHIM_DEVICE']!r} is not a device; use one of {', '.join(_config.DEVICES)}")
        if device == "gpu":
            from . import _backend

            st = _backend.gpu_status()
            if not st.usable:
                raise UsageError(f"--device gpu, but no GPU is usable here: {st.reason}. "
                                 "Use --device auto (the GPU when there is one) or --device cpu")
        out["XPSHIM_DEVICE"] = device
    fallback = env.get("XPSHIM_FALLBACK")
    if fallback is not None:
        if fallback.strip().lower() not in _config.FALLBACKS:
            raise UsageError(f"--fallback {fallback!r} is not a policy; use one of {', '.join(_config.FALLBACKS)}")
        out["XPSHIM_FALLBACK"] = fallback.strip().lower()
    report = env.get("XPSHIM_REPORT")
    if report is not None:
        out["XPSHIM_REPORT"] = _writable(report)
    return out


def _writable(path):
    """The report's absolute path (the script may change directory); a UsageError if it cannot be written."""
    full = os.path.abspath(os.path.expanduser(path))
    folder = os.path.dirname(full)
    if os.path.isdir(full):
        raise UsageError(f"--report {path!r} is a folder; give a file name, e.g. --report {os.path.join(path, 'xpshim-report.json')}")
    if not os.path.isdir(folder):
        raise UsageError(f"--report {path!r}: the folder {folder} does not exist; create it first (mkdir -p {folder})")
    if not os.access(full if os.path.exists(full) else folder, os.W_OK):
        raise UsageError(f"--report {path!r} cannot be written (no permission); choose a writable path")
    return full


def _restart(argv, env):
    """Start ``python -m xpshim run argv`` again with ``env`` set, so that xpshim's import reads it."""
    import subprocess

    new = {**os.environ, **env}
    # The interpreter's own flags (-X, -W, -O ...), as multiprocessing passes them to its children.
    cmd = [sys.executable, *subprocess._args_from_interpreter_flags(), "-m", "xpshim", "run", *argv]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execve(sys.executable, cmd, new)
    return subprocess.call(cmd, env=new)


def _clean_traceback(tb):
    """The traceback without the runner's frames (runpy, xpshim's runner and import scoping)."""
    skip = {"<frozen runpy>", os.path.abspath(runpy.__file__), os.path.abspath(__file__),
            os.path.abspath(_scope.__file__), os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py")}
    frames = []
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if fn not in skip and os.path.abspath(fn) not in skip:
            frames.append(tb)
        tb = tb.tb_next
    clean = None
    for t in reversed(frames):
        clean = types.TracebackType(clean, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return clean


def _scope_for_script(path):
    return os.path.dirname(os.path.realpath(path)), [path]


def _script_folder(path):
    """``sys.path[0]`` as ``python path`` sets it: the folder of the script's real path; where that
    does not resolve (/dev/stdin on a pipe), the folder its link names, read once, as CPython does."""
    try:
        return os.path.dirname(os.path.realpath(path, strict=True))
    except OSError:
        try:
            link = os.readlink(path)
        except OSError:
            link = None
        if link and os.sep in link:
            path = link if os.path.isabs(link) else os.path.join(os.path.dirname(path), link)
        return os.path.dirname(os.path.abspath(path))


def _scope_for_module(name):
    import importlib.util

    top = name.partition(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return None, []
    if spec.submodule_search_locations:
        return list(spec.submodule_search_locations)[0], []
    return os.path.dirname(spec.origin) if spec.origin else None, [spec.origin] if spec.origin else []


def _read(script):
    """(code, path) of the program ``script`` names, read once (a pipe such as /dev/stdin can be
    read only once), or (None, path) for a folder or zip file, which runpy runs as ``python`` does;
    ``-`` is standard input, as for ``python -``."""
    if script == "-":
        return compile(sys.stdin.buffer.read(), "<stdin>", "exec", dont_inherit=True), "<stdin>"
    path = os.path.abspath(script)
    if os.path.isdir(path):
        return None, path
    with open(path, "rb") as f:
        source = f.read()
    if os.path.isfile(path) and b"PK\x05\x06" in source[-65558:]:  # a zip file (app.pyz): runpy's
        import io
        import zipfile

        if zipfile.is_zipfile(io.BytesIO(source)):
            return None, path
    return compile(source, path, "exec", dont_inherit=True), path


def _run_main(code, path):
    """Run ``code`` as the module ``__main__``, as runpy.run_path does with a script: in a new
    module that stands in ``sys.modules["__main__"]`` while it runs (multiprocessing's children
    find the script there)."""
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __loader__=None, __package__=None, __spec__=None)
    if path == "<stdin>":  # no file names the program: its namespace is in scope (its functions' too)
        _scope.add(_scope.Namespace(lambda: main.__dict__))
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        sys.modules["__main__"] = saved
    return main.__dict__


def run(argv, restart=True):
    """Run the program ``argv`` names (see ``USAGE``); returns the exit status (a SystemExit
    from the program propagates, as under ``python``)."""
    try:
        env, include, module, script, args = parse(argv)
        env = validate(env)
    except UsageError as e:
        if not str(e):  # --help
            print(USAGE)
            return 0
        print(f"python -m xpshim run: {e}", file=sys.stderr)
        return 2
    if any(os.environ.get(k) != v for k, v in env.items()):
        if not restart:
            raise UsageError(f"options {env} differ from the environment this process imported xpshim with; "
                             "run them through `python -m xpshim run`")
        return _restart(argv, env)  # (the new process judges its settings itself)
    if _config.problems:  # a setting xpshim cannot start with (the package __init__ kept it)
        more = len(_config.problems) - 1
        print(f"python -m xpshim run: {_config.problems[0]}"
              + (f" ({more} more: `python -m xpshim info` lists them)" if more else ""), file=sys.stderr)
        return 2

    code = None
    if script is not None:
        if script != "-" and not os.path.exists(script):
            print(f"python -m xpshim run: can't open file {os.path.abspath(script)!r}: "
                  "No such file or directory", file=sys.stderr)
            return 2
        try:
            code, path = _read(script)
        except OSError as e:
            print(f"python -m xpshim run: can't open file {os.path.abspath(script)!r}: {e.strerror}", file=sys.stderr)
            return 2
        except (SyntaxError, ValueError) as e:  # as `python script.py` reports one: no frame of the runner
            sys.excepthook(type(e), e.with_traceback(None), None)
            return 1
        if script == "-":  # as `python -`: the current folder, and the program's own namespace
            root, files = os.getcwd(), []
            if not sys.flags.safe_path:
                sys.path[0] = ""
        else:
            root, files = _scope_for_script(script)
            if not sys.flags.safe_path:
                sys.path[0] = _script_folder(script)  # as `python script.py`: the script's folder, not the current one
    else:
        root, files = _scope_for_module(module)
    scope = _scope.add(_scope.Files([root] if root else [], include + ([module.partition(".")[0]] if module else []), files))
    _scope.pass_to_children(scope)
    sys.argv[:] = [script or module, *args]
    try:
        if code is not None:
            _run_main(code, path)
        elif script is not None:
            runpy.run_path(path, run_name="__main__")
        else:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        e = e.with_traceback(_clean_traceback(e.__traceback__))  # (printing reads e.__traceback__)
        sys.excepthook(type(e), e, e.__traceback__)
        return 1
    return 0
