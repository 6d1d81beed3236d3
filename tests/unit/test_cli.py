"""``python -m xpshim ...`` as a user runs it, each case in a fresh process: argparse's conventions
(``-h``/``--help``, ``--version``), output to a reader that stops early, settings xpshim cannot
start with (``info`` shows them and exits 2, the other commands say one line and exit 2, a user's
own script keeps the exception with one frame of xpshim), ``explain`` of a name NumPy lacks, and
``run`` of a program from standard input."""

import json
import os
import subprocess
import sys

import numpy
import pytest

import xpshim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMANDS = ("info", "gaps", "calibrate", "explain", "run")
# No GPU wherever the tests run: the driver (if any) shows no device, so XPSHIM_DEVICE=gpu cannot start
NO_GPU = {"XPSHIM_DEVICE": "gpu", "CUDA_VISIBLE_DEVICES": ""}
BAD_VALUE = {"XPSHIM_DEVICE": "tpu"}


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPSHIM_", "NUMBA_ENABLE_CUDASIM"))}
    env["PYTHONPATH"] = ROOT
    env.update(extra)
    return env


def run(*args, cwd=ROOT, input=None, **env):
    """``python args...`` in a fresh process."""
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(**env), capture_output=True, text=True,
                          input=input, timeout=300)


def xpshim_cli(*args, **kw):
    return run("-m", "xpshim", *args, **kw)


# ---- argparse's conventions -----------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_the_commands_and_exits_0(flag):
    r = xpshim_cli(flag)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith("usage: python -m xpshim")
    assert all(f"    {c}" in r.stdout for c in COMMANDS), r.stdout


def test_version_names_xpshim_numpy_and_cupy():
    r = xpshim_cli("--version")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith(f"xpshim {xpshim.__xpshim_version__}, NumPy {numpy.__version__}, CuPy ")


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_its_help(command):
    r = xpshim_cli(command, "--help")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith(f"usage: python -m xpshim {command}"), r.stdout
    assert "known problems" not in r.stdout  # (info --help does not run info)


@pytest.mark.parametrize("args,says", [([], "required: COMMAND"), (["infoo"], "invalid choice: 'infoo'"),
                                       (["explain"], "one of the arguments NAME --all is required"),
                                       (["gaps", "--frobnicate"], "unrecognized arguments")])
def test_a_wrong_command_line_exits_2_with_the_usage(args, says):
    r = xpshim_cli(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("usage: python -m xpshim") and says in r.stderr, r.stderr


# ---- a reader that stops early (| head) -------------------------------------------------------------

@pytest.mark.skipif(sys.platform == "win32", reason="SIGPIPE is POSIX's")
@pytest.mark.parametrize("args", [["info"], ["gaps"], ["explain", "median"]])
def test_output_to_a_closed_pipe_ends_quietly(args):
    p = subprocess.Popen([sys.executable, "-m", "xpshim", *args], env=_env(), cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before anything is written
    err = p.stderr.read().decode()
    assert p.wait(timeout=300) == 141 and err == ""  # SIGPIPE's status, as `cat` ends; no traceback


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell")
@pytest.mark.parametrize("command", ["info", "gaps"])
def test_piped_into_head(command):
    r = subprocess.run(f"{sys.executable} -m xpshim {command} | head -1", shell=True, cwd=ROOT, env=_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.stderr == "" and len(r.stdout.splitlines()) == 1
    assert r.stdout.startswith("xpshim " if command == "info" else f"NumPy {numpy.__version__}")


# ---- settings xpshim cannot start with ------------------------------------------------------------

def test_info_shows_a_bad_value_what_was_detected_and_the_fix():
    r = xpshim_cli("info", **BAD_VALUE, XPSHIM_CROSSOVER="lots")
    assert r.returncode == 2 and r.stderr == ""
    out = r.stdout
    assert "ConfigError: XPSHIM_DEVICE='tpu' is not a valid value; use one of auto, cpu, gpu, dask" in out
    assert "ConfigError: XPSHIM_CROSSOVER='lots' is not a number of elements" in out
    assert "XPSHIM_DEVICE='tpu' (invalid)" in out and "XPSHIM_CROSSOVER='lots' (invalid)" in out
    assert "device        none chosen" in out
    for detected in ("numpy         " + numpy.__version__, "cupy ", "GPU", "python "):
        assert detected in out, detected


def test_info_shows_a_forced_gpu_that_is_not_there():
    r = xpshim_cli("info", **NO_GPU)
    assert r.returncode == 2 and r.stderr == ""
    out = r.stdout
    line = next(ln for ln in out.splitlines() if "DeviceError" in ln)
    assert "XPSHIM_DEVICE=gpu asks for the GPU, but none is usable: " in line
    assert "set XPSHIM_DEVICE=cpu (or unset it)" in line  # the fix
    assert "python -m xpshim info" not in out  # (no advice to run what is running)
    assert "GPU           none usable: " in out  # what was detected


def _one_line(r, command):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and r.stdout == "" and len(lines) == 1, r.stderr
    assert lines[0].startswith(f"python -m xpshim {command}: ")
    return lines[0]


@pytest.mark.parametrize("args", [["gaps"], ["explain", "median"], ["calibrate", "--no-save"]])
@pytest.mark.parametrize("env,says", [(BAD_VALUE, "XPSHIM_DEVICE='tpu' is not a valid value"),
                                      (NO_GPU, "XPSHIM_DEVICE=gpu asks for the GPU, but none is usable")])
def test_other_commands_say_the_one_line_and_exit_2(args, env, says):
    line = _one_line(xpshim_cli(*args, **env), args[0])
    assert says in line and "Traceback" not in line


@pytest.mark.parametrize("env,says", [(BAD_VALUE, "XPSHIM_DEVICE='tpu'"), (NO_GPU, "asks for the GPU")])
def test_run_says_the_one_line_and_runs_nothing(tmp_path, env, says):
    marker = tmp_path / "ran"
    (tmp_path / "s.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    assert says in _one_line(xpshim_cli("run", str(tmp_path / "s.py"), **env), "run")
    assert not marker.exists()
    r = xpshim_cli("run", "--device", "cpu", str(tmp_path / "s.py"), **NO_GPU)  # the option mends it
    assert r.returncode == 0 and marker.exists(), r.stderr


def test_two_bad_values_are_both_told():
    assert "(1 more: `python -m xpshim info` lists them)" in _one_line(
        xpshim_cli("gaps", **BAD_VALUE, XPSHIM_FALLBACK="loud"), "gaps")


def _frames(stderr):
    return [ln.strip() for ln in stderr.splitlines() if ln.strip().startswith('File "')]


@pytest.mark.parametrize("env,last", [
    (BAD_VALUE, "xpshim.ConfigError: XPSHIM_DEVICE='tpu' is not a valid value"),
    (NO_GPU, "xpshim.DeviceError: XPSHIM_DEVICE=gpu asks for the GPU, but none is usable"),
])
def test_a_users_script_keeps_the_exception_with_one_frame_of_xpshim(tmp_path, env, last):
    script = tmp_path / "job.py"
    script.write_text("import os\nimport xpshim as np\nprint('imported')\n")
    r = run(str(script), cwd=tmp_path, **env)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines()[-1].startswith(last), r.stderr
    frames = _frames(r.stderr)
    assert len(frames) == 2, r.stderr
    assert frames[0].startswith(f'File "{script}", line 2')
    assert frames[1].startswith(f'File "{os.path.join(ROOT, "xpshim", "__init__.py")}"')
    assert "raise _config.startup_error()" in r.stderr  # the line shown: the raise, not the readers inside


def test_a_users_script_hears_of_every_bad_value(tmp_path):
    r = run("-c", "import xpshim", **BAD_VALUE, XPSHIM_FALLBACK="loud")
    lines = r.stderr.strip().splitlines()
    assert lines[-2].startswith("xpshim.ConfigError: XPSHIM_DEVICE='tpu'")
    assert lines[-1].startswith("also: XPSHIM_FALLBACK='loud' is not a valid value")


# ---- explain ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,close", [("mediam", "median"), ("linalg.nrom", "linalg.norm"),
                                        ("lnalg.norm", "linalg.norm"), ("add.reduc", "add.reduce"),
                                        ("random.Generator.nrmal", "random.Generator.normal"),
                                        ("testing.assert_equa", "testing.assert_equal")])
def test_explain_of_a_name_numpy_lacks_exits_1_naming_the_close_ones(name, close):
    r = xpshim_cli("explain", name)
    assert r.returncode == 1 and r.stdout == ""
    assert "NumPy has no such name" in r.stderr and f"close names: {close}" in r.stderr, r.stderr


@pytest.mark.parametrize("name", ["median", "linalg.norm", "add.reduce", "random.Generator.normal", "stats"])
def test_explain_of_a_name_exits_0(name):
    r = xpshim_cli("explain", name)
    assert r.returncode == 0 and r.stderr == "" and "NumPy has no such name" not in r.stdout


# ---- run: the program read once, `-` for standard input ---------------------------------------------

PROBE = ("import json, sys\nimport numpy as np\n"
         "def inner():\n    import numpy\n    return numpy.__name__\n"
         "print(json.dumps({'argv': sys.argv, 'file': __file__, 'path0': sys.path[0], 'name': __name__,"
         " 'np': np.__name__, 'inner': inner()}))\n")


@pytest.mark.parametrize("path", ["-", "/dev/stdin"])
def test_run_reads_standard_input_once_as_python_does(tmp_path, path):
    if path != "-" and not os.path.exists(path):
        pytest.skip(f"no {path} here")
    want = run(path, "a", "--help", cwd=tmp_path, input=PROBE)
    got = xpshim_cli("run", path, "a", "--help", cwd=tmp_path, input=PROBE, XPSHIM_DEVICE="cpu")
    assert want.returncode == got.returncode == 0, got.stderr
    w, g = json.loads(want.stdout), json.loads(got.stdout)
    assert (w.pop("np"), w.pop("inner")) == ("numpy", "numpy")
    assert (g.pop("np"), g.pop("inner")) == ("xpshim", "xpshim")  # the program and its functions get xpshim
    assert g == w  # argv (the program's --help is its own), __file__, sys.path[0], __name__


def test_run_from_standard_input_tells_an_error_as_python_does(tmp_path):
    program = "x = 1\nraise ValueError('from stdin')\n"
    want = run("-", cwd=tmp_path, input=program)
    got = xpshim_cli("run", "-", cwd=tmp_path, input=program, XPSHIM_DEVICE="cpu")
    assert got.returncode == want.returncode == 1 and got.stderr == want.stderr
    broken = "def (\n"
    want, got = run("-", input=broken), xpshim_cli("run", "-", input=broken, XPSHIM_DEVICE="cpu")
    assert got.returncode == want.returncode == 1 and got.stderr == want.stderr


def test_the_scripts_own_options_are_its_own(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys, json\nprint(json.dumps(sys.argv))\n")
    want = run(str(script), "--help", "--device", "gpu", "-m", "x")
    got = xpshim_cli("run", str(script), "--help", "--device", "gpu", "-m", "x", XPSHIM_DEVICE="cpu")
    assert got.returncode == 0 and got.stdout == want.stdout, got.stderr
    assert json.loads(got.stdout)[1:] == ["--help", "--device", "gpu", "-m", "x"]


def test_run_takes_a_folder_and_a_zip_application_as_python_does(tmp_path):
    import zipapp

    app = tmp_path / "app"
    app.mkdir()
    (app / "__main__.py").write_text("import json, sys, numpy as np\nprint(json.dumps([np.__name__, sys.argv[1:]]))\n")
    zipapp.create_archive(app, tmp_path / "app.pyz", interpreter="/usr/bin/env python3")  # (a shebang first)
    for target in (app, tmp_path / "app.pyz"):
        r = xpshim_cli("run", str(target), "x", XPSHIM_DEVICE="cpu")
        assert r.returncode == 0 and json.loads(r.stdout) == ["xpshim", ["x"]], r.stderr
