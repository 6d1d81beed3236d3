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


def report():
    import numpy

    from . import _namespace

    xpshim = _namespace.package()
    from . import _backend, _config, _device, _numba

    lines = ["xpshim " + xpshim.__xpshim_version__]
    lines.append(f"  device        {_device.current_device()}  ({_device.why_device()})")
    lines.append(f"  XPSHIM_DEVICE={_config.requested_device}  XPSHIM_FALLBACK={_config.fallback_policy}  "
                 f"XPSHIM_TRANSFERS={_config.transfer_policy}  XPSHIM_REPORT={_config.report_path or '-'}  "
                 f"XPSHIM_CROSSOVER={_config.crossover_env if _config.crossover_env is not None else '-'}  "
                 f"XPSHIM_SEEDS={_config.seeds}")
    n, source = _device.crossover()
    if _device.placing():
        use = (f"in use: arrays under {n} elements stay on the CPU, larger ones go to the GPU; a GPU array "
               "that a Python loop indexes element by element moves to the CPU, and the line that made it "
               "then makes its arrays on the CPU")
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
    lines.append(f"  numba         {_version('numba') or 'not installed'}; numba-cuda {_version('numba-cuda') or '-'}")
    st = _backend.gpu_status()
    problems = []
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
            problems.append(f"Numba's CUDA target is unusable ({prob}); xpshim's Numba kernels are off "
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
    lines.append("  known problems: " + ("none detected" if not problems else ""))
    lines += [f"    - {p}" for p in problems]
    return "\n".join(lines)
