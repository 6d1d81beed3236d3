"""``%load_ext xpshim``: ``import numpy`` in later IPython/Jupyter cells gives xpshim.

The scope is the shell's user namespace (the cells, and functions defined in them); modules the
cells import, and every library, keep NumPy. ``%unload_ext xpshim`` ends it for later imports
(names already bound stay what they are). ``%xpshim info`` and ``%xpshim stats`` print
``python -m xpshim info`` and ``xpshim.stats()``.
"""

from . import _scope

_loaded = {}  # id(shell) -> its scope


def _magic(line):
    """%xpshim info | stats: what xpshim chose and why, or what it has counted (xpshim.stats())."""
    what = line.strip()
    if what == "info":
        from ._info import report

        print(report())
    elif what == "stats":
        import pprint

        from . import _namespace

        xpshim = _namespace.package()

        pprint.pprint(xpshim.stats(), sort_dicts=False)
    else:
        print("usage: %xpshim info | stats")


def where_arrays_go():
    """Where new arrays will go, as far as is known without starting the GPU: in auto mode with
    CuPy's import still under way, the choice is the first call's (``_backend.pending``)."""
    from . import _backend, _config

    dev = _config.requested_device
    if _backend.forced is None and dev in ("cpu", "gpu", "dask"):
        return {"cpu": "on the CPU (XPSHIM_DEVICE=cpu)", "gpu": "on the GPU (XPSHIM_DEVICE=gpu)",
                "dask": "Dask arrays (XPSHIM_DEVICE=dask)"}[dev]
    st = _backend.probed()
    if st is None:
        return ("on the GPU from the crossover size (auto mode), smaller ones on the CPU, if a GPU is usable: "
                "the first call decides (CuPy is loading)")
    if not st.usable:
        return f"on the CPU: no usable GPU ({st.reason})"
    from . import _device

    return (f"on the GPU ({st.reason}) from {_device.crossover()[0]} elements, smaller ones on the CPU (auto mode)"
            if _device.placing() else f"on the GPU ({st.reason})")


def load(shell):
    """Scope ``import numpy`` in ``shell``'s cells to xpshim and add the ``%xpshim`` magic; say so
    in one line."""
    if id(shell) not in _loaded:
        _loaded[id(shell)] = _scope.add(_scope.Namespace(lambda: shell.user_ns))
    shell.register_magic_function(_magic, "line", "xpshim")
    from . import _namespace

    print(f"xpshim {_namespace.package().__xpshim_version__}: `import numpy` in later cells gives xpshim (modules they "
          f"import keep NumPy); new arrays: {where_arrays_go()}. `%xpshim info` says more.")


def unload(shell):
    """Give later ``import numpy`` in ``shell``'s cells NumPy again."""
    scope = _loaded.pop(id(shell), None)
    if scope is not None:
        _scope.remove(scope)
