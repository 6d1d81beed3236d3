"""The text of ``python -m xpshim info``."""

import importlib.metadata as md
import platform
import sys


def _version(dist):
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def _cupy_dist():
    for d in ("cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x", "cupy"):
        v = _version(d)
        if v:
            return f"{v} ({d})"
    return "not installed"


def versions():
    """``xpshim X, NumPy Y, CuPy Z``: read from the installed packages (CuPy is not imported)."""
    import numpy

    from . import _namespace

    return f"xpshim {_namespace.package().__xpshim_version__}, NumPy {numpy.__version__}, CuPy {_cupy_dist()}"


def _settings_lines(problems):
    """Each setting xpshim cannot start with, its fix, and what the rest of the report shows."""
    from ._errors import INFO_HINT

    lines = ["  SETTINGS      xpshim does not start with these settings: `import xpshim` raises the first error below"]
    for p in problems:
        text = str(p).replace(" " + INFO_HINT, "").replace(INFO_HINT, "").rstrip("; ")
        lines.append(f"    - {type(p).__name__}: {text}")
    lines.append("                (below: what was detected; a value that is not valid reads as its default there)")
    return lines


def _settings(config, problems):
    """The XPSHIM_* line: each variable's value, a bad one as it is set, marked."""
    import os

    bad = {getattr(p, "variable", None) for p in problems}

    def show(var, value):
        return f"{var}={os.environ.get(var, '')!r} (invalid)" if var in bad else f"{var}={value}"

    crossover = config.crossover_env if config.crossover_env is not None else "-"
    return "  " + "  ".join([show("XPSHIM_DEVICE", config.requested_device), show("XPSHIM_FALLBACK", config.fallback_policy),
                             show("XPSHIM_TRANSFERS", config.transfer_policy), show("XPSHIM_REPORT", config.report_path or "-"),
                             show("XPSHIM_CROSSOVER", crossover), show("XPSHIM_SEEDS", config.seeds),
                             show("XPSHIM_FAST_EXIT", int(config.fast_exit))])


def report():
    """The text of ``python -m xpshim info``. Where the settings stop xpshim (``_config.problems``:
    a bad value, ``XPSHIM_DEVICE=gpu`` without a GPU), it names them and their fixes first, and
    shows what was detected without choosing a device."""
    import numpy

    from . import _namespace

    xpshim = _namespace.package()
    from . import _backend, _config, _device, _numba

    problems = list(_config.problems)
    lines = ["xpshim " + xpshim.__xpshim_version__]
    if problems:
        lines += _settings_lines(problems)
        lines.append("  device        none chosen: the settings above stop xpshim")
    else:
        lines.append(f"  device        {_device.current_device()}  ({_device.why_device()})")
    lines.append(_settings(_config, problems))
    n, source = _device.crossover()
    if problems:
        use = "not in use until the settings above are fixed"
    elif _device.placing():
        use = (f"in use: arrays under {n} elements stay on the CPU, larger ones go to the GPU; a GPU array "
               "that a Python loop indexes element by element moves to the CPU, and the line that made it "
               "then makes its arrays on the CPU")
        if _config.seeds == "learn":
            from . import _hotwork

            use += ("; a function seen running one NumPy operation for 20 ms or more on the CPU (sampled every "
                    f"{_hotwork.INTERVAL_S * 1e3:.0f} ms) makes its small arrays on the GPU from its next call"
                    + ("" if _hotwork.running() else " (the sampler starts with the GPU)"))
        from . import _pcg64

        use += ("; random numbers are NumPy's, and a large default_rng().random(size) is drawn on the GPU "
                "by NumPy's own PCG64 formula" + (f" (not now: its kernel did not build: {_pcg64.failed[0]})"
                                                    if _pcg64.failed[0] else ""))
    elif _device.current_device() == "gpu":
        use = "not in use: every array goes to the GPU (auto mode places by size)"
    else:
        use = "not in use: no GPU (auto mode on a GPU places by size)"
    lines.append(f"  placement     crossover {n} elements, from {source}; {use}")
    from . import _pinned

    lines.append(f"  copies        to the GPU through pinned staging from {_pinned.MIN_BYTES >> 10} KiB "
                 f"(up to {_pinned.NBUF} buffers of {_pinned.CHUNK >> 20} MiB, {_pinned.SMALL >> 20} MiB while copies are "
                 f"small, made on first need; up to {_pinned.THREADS} threads), direct "
                 f"from pinned host memory (np.empty_pinned); back into pinned memory from "
                 f"{_pinned.MIN_BYTES_DOWN >> 10} KiB, at most {_pinned.RESULT_CAP / 2**30:g} GiB held by live "
                 "results (XPSHIM_PINNED_RESULTS_MAX); smaller copies are CuPy's own")
    from . import _ntcopy

    lines.append(f"  staging fill  {_ntcopy.status()}")
    from . import _register

    lines.append(f"  in place      {_register.status()}")
    lines.append(f"  python        {platform.python_version()} ({sys.executable})")
    lines.append(f"  numpy         {numpy.__version__}")
    simulated = " (not used: XPSHIM_SIMULATE_GPU=1)" if _config.simulate_gpu else ""
    lines.append(f"  cupy          {_cupy_dist()}{simulated}")
    from . import _preload

    lines.append(f"  cupy import   {_preload.describe()}")
    lines.append(f"  GPU start     {_backend.describe_start()}")
    lines.append(f"  numba         {_version('numba') or 'not installed'}; numba-cuda {_version('numba-cuda') or '-'}")
    st = _backend.gpu_status()
    found = []
    if _config.simulate_gpu:
        from . import _kernels, _simgpu

        lines.append(f"  GPU 0         {_simgpu.describe()}")
        prob = _kernels.problem()
        lines.append("  numba cuda    " + (f"unusable ({prob}): those functions run on the host" if prob else
                                          "kernels run in Numba's CUDA simulator"))
    elif st.usable:
        cp = _backend.xp
        rt = cp.cuda.runtime
        drv, rtv = rt.driverGetVersion(), rt.runtimeGetVersion()
        lines.append(f"  CUDA          driver {drv // 1000}.{drv % 1000 // 10}, runtime {rtv // 1000}.{rtv % 1000 // 10}")
        for i in range(st.device_count):
            p = rt.getDeviceProperties(i)
            name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
            free, total = cp.cuda.Device(i).mem_info if i == 0 else (None, p["totalGlobalMem"])
            mem = f"{total / 2**30:.1f} GiB" + (f", {free / 2**30:.1f} GiB free" if free is not None else "")
            lines.append(f"  GPU {i}         {name}, {mem}, compute capability {p['major']}.{p['minor']}")
        from . import _kernels

        prob = _kernels.problem()
        if prob:
            found.append(f"Numba's CUDA target is unusable ({prob}); xpshim's Numba kernels are off "
                            "and the functions they serve run on the host (counted, warned)")
        else:
            lent = " (numpy.row_stack lent while it loaded: numba-cuda needs it, NumPy 2.5 removed it)" \
                if not hasattr(numpy, "row_stack") else ""
            lines.append(f"  numba cuda    kernels ready{lent}")
    else:
        lines.append(f"  GPU           none usable: {st.reason}")
    lines.append(f"  numba @jit    {_numba.status()}")
    from ._coverage import share

    native, total = share()
    if total:
        lines.append(f"  GPU coverage  {native} of {total} NumPy callables run on the GPU ({100.0 * native / total:.1f}%); "
                     "`python -m xpshim gaps` lists the rest")
    lines.append("  known problems: " + ("none detected" if not problems and not found else ""))
    lines += [f"    - {p}" for p in found]
    if problems:
        lines.append("    - the settings named at the top: xpshim does not start until they are fixed")
    return "\n".join(lines)
