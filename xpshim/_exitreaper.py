"""The end of a process that used the GPU: the driver's teardown of its GPU state runs in a child
after the process has ended, not in the process's own end.

A process that has made a CUDA context ends about 150 ms later than one that has not, on an
H200 (one with 300 MB on the GPU: 155 ms from its last line to its end, against NumPy's 17),
and most of that is the driver's release of the context's memory when the process's last
reference to the GPU's device files (``/dev/nvidia*``) goes. Python's own end cannot shorten
it (``os._exit`` still took 108 ms). A forked child that holds those files and waits for its
parent's end takes that release over: the parent ended 6 ms after its last line, the release
then ran in the child (``benchmarks/HISTORY.md``, "ending a GPU process"). A short script's
whole run pays that release in full: the seed's 6000x4000 grayscale spends about 1.2 s in
all.

So at the interpreter's end (an ``atexit`` function, armed once CUDA's context is made: every
``atexit`` function registered after it, the user's, runs before), where the GPU's compute mode
lets another process's context be made while this one's is released (the default mode: not
exclusive-process, where the next program started would find the GPU busy), the process starts
a child (``/bin/sh`` reading a pipe from the process) that is given the GPU's device files and
no other file of the process's (they are close-on-exec, as Python opens them), and that ends at
the pipe's end, the process's end. The process goes on with Python's end and its C-level exit
as always, with its exit status.

The child is started by ``posix_spawn``: no Python runs in it (no fork hook, no lock another
thread may have held), and no copy of the process's memory is made.
``XPSHIM_FAST_EXIT=0`` ends the process as before (it waits for the release).
"""

import os

DEVICE_FILES = "/dev/nvidia"  # (the GPU's device files: the child holds those alone)
HELPER = ("/bin/sh", "-c", "read _")  # (the child: reads its stdin, a pipe from this process, to its end)
_armed = False
_kept = []  # the parent's end of the pipe, open until the process ends (the child waits for it)
forked = None  # the child's pid, once made (``python -m xpshim info``, the tests)


def arm(compute_mode_default):
    """Make the child at the interpreter's end, once (``compute_mode_default()``: whether the
    GPU takes contexts from several processes at once, asked then)."""
    global _armed
    from . import _config

    if _armed or not _config.fast_exit or not os.path.isdir("/proc/self/fd"):
        return
    import atexit

    _armed = True
    atexit.register(_at_exit, compute_mode_default, os.getpid())


def device_fds(prefix):
    """This process's open files whose path starts with ``prefix``, and all its others."""
    keep, other = [], []
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            (keep if os.readlink(f"/proc/self/fd/{name}").startswith(prefix) else other).append(fd)
        except (ValueError, OSError):  # (the listing's own descriptor, gone by now)
            continue
    return keep, other


def _at_exit(compute_mode_default, pid):
    global forked
    if os.getpid() != pid:  # (a forked child's end: its parent's CUDA is not its own to ask)
        return
    try:
        if not compute_mode_default():
            return
        keep, _ = device_fds(DEVICE_FILES)
        if not keep:
            return
        r, w = os.pipe()
    except Exception:  # (no /proc, no pipe, the attribute unreadable: the usual end)
        return
    was = []
    try:
        for fd in keep:  # (CUDA opens them close-on-exec: the child's copies must stay open)
            was.append((fd, os.get_inheritable(fd)))
            os.set_inheritable(fd, True)
        # (posix_spawn: no Python runs in the child, and no copy of this process's memory is made;
        # no environment: a shell reads none of the user's start-up files)
        forked = os.posix_spawn(HELPER[0], list(HELPER), {}, file_actions=[
            (os.POSIX_SPAWN_DUP2, r, 0), (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        _kept.append(w)  # (the child's stdin ends when this process's last copy of w goes: its end)
    except Exception:
        os.close(w)
    finally:
        for fd, inheritable in was:
            os.set_inheritable(fd, inheritable)
        os.close(r)
