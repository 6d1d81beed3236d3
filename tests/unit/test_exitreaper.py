"""A process that used the GPU leaves the driver's release of its GPU memory to a child
(``xpshim/_exitreaper.py``): at the interpreter's end it starts a child that holds the GPU's device
files alone (every other file closed, its standard streams /dev/null), which ends once the
process has ended; the process's own end and status are as always. Checked here with a file of
the test's standing for the device files (no GPU needed)."""

import json
import os
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd (Linux)")

_PROG = r'''
import atexit, json, os, sys
from xpshim import _exitreaper
dev, other = sys.argv[1], sys.argv[2]
_exitreaper.DEVICE_FILES = dev
d = os.open(dev, os.O_RDWR)      # (stands for /dev/nvidia0)
o = os.open(other, os.O_RDWR)    # (a file of the program's: not the child's)

def report():  # registered first: runs after the reaper's atexit function
    pid = _exitreaper.forked
    links = {}
    if pid:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                links[fd] = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                pass
    print(json.dumps({"pid": pid, "links": links}), flush=True)

atexit.register(report)
_exitreaper.arm(lambda: sys.argv[3] == "default")
sys.exit(3)
'''


def _run(tmp_path, mode, **env):
    dev, other = tmp_path / "nvidia0", tmp_path / "results.txt"
    dev.write_bytes(b"")
    other.write_bytes(b"")
    r = subprocess.run([sys.executable, "-c", _PROG, str(dev), str(other), mode], capture_output=True, text=True,
                       timeout=60, env={**os.environ, **env})
    return r, json.loads(r.stdout.strip().splitlines()[-1]), str(dev), str(other)


def _gone(pid, within=10.0):
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True  # (ended; its reaper, the system's, has not collected it yet)
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_the_child_holds_the_device_files_alone_and_ends_after_the_process(tmp_path):
    r, got, dev, other = _run(tmp_path, "default")
    assert r.returncode == 3, r.stderr  # (the program's own status)
    assert got["pid"], got
    held = set(got["links"].values())
    assert dev in held, got  # the device file, held by the child while the process ran on
    assert other not in held, got  # the program's other files are not
    assert got["links"]["0"].startswith("pipe:"), got  # (its stdin: the pipe whose end is the process's)
    assert got["links"]["1"] == got["links"]["2"] == os.devnull, got  # (no stream of the caller's held)
    assert _gone(got["pid"]), f"the child {got['pid']} outlived its parent's end"


def test_no_child_where_the_gpu_is_exclusive_or_fast_exit_is_off(tmp_path):
    r, got, _, _ = _run(tmp_path, "exclusive")
    assert r.returncode == 3 and got["pid"] is None, (r.stderr, got)
    r, got, _, _ = _run(tmp_path, "default", XPSHIM_FAST_EXIT="0")
    assert r.returncode == 3 and got["pid"] is None, (r.stderr, got)


def test_a_forked_child_of_the_process_starts_no_child_at_its_end(tmp_path):
    # (its parent's CUDA is not its own: multiprocessing's fork children, os.fork then sys.exit)
    prog = _PROG.replace("sys.exit(3)", "pid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\n    os._exit(3)\nsys.exit(5)")
    dev, other = tmp_path / "nvidia0", tmp_path / "results.txt"
    dev.write_bytes(b"")
    other.write_bytes(b"")
    r = subprocess.run([sys.executable, "-c", prog, str(dev), str(other), "default"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 3, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])  # (the child's report: the parent ended by os._exit)
    assert got["pid"] is None, got
