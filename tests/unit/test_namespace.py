"""The namespace: every public NumPy name, resolved once, NumPy's own objects where they should be."""

import importlib
import inspect
import pickle
import types

import numpy
import pytest

import xpshim
from xpshim import _registry


def _public(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_"))


def test_no_numpy_name_is_missing():
    missing = [n for n in _public(numpy) if not hasattr(xpshim, n)]
    assert missing == []


@pytest.mark.parametrize("sub", ["linalg", "fft", "random", "lib", "lib.stride_tricks", "emath", "polynomial"])
def test_routed_submodules_have_every_name(sub):
    npmod = importlib.import_module("numpy." + sub) if sub != "emath" else numpy.emath
    xpmod = importlib.import_module("xpshim." + sub)
    assert [n for n in _public(npmod) if not hasattr(xpmod, n)] == []


@pytest.mark.parametrize("sub", ["exceptions", "dtypes", "typing", "ctypeslib", "ma"])
def test_numpy_own_submodules_are_importable(sub):
    assert importlib.import_module("xpshim." + sub) is importlib.import_module("numpy." + sub)


def test_testing_module_has_numpys_names():
    import xpshim.testing

    assert [n for n in _public(numpy.testing) if not hasattr(xpshim.testing, n)] == []
    assert xpshim.testing.assert_allclose.__wrapped__ is numpy.testing.assert_allclose
    # NumPy's own underneath (numpy.testing's is made GPU-aware in place only once the GPU is in
    # use: test_interop; left alone on the CPU: test_import)
    assert inspect.unwrap(xpshim.testing.assert_equal) is inspect.unwrap(numpy.testing.assert_equal)
    from xpshim.testing import assert_allclose  # noqa: F401


def test_from_import_of_submodule_names():
    from xpshim.lib.stride_tricks import as_strided, sliding_window_view
    from xpshim.linalg import norm

    assert callable(as_strided) and callable(sliding_window_view) and callable(norm)


@pytest.mark.parametrize("name", ["float32", "float64", "int8", "dtype", "pi", "e", "inf", "newaxis",
                                  "generic", "finfo", "iinfo", "errstate", "bool_", "complex128"])
def test_types_and_constants_are_numpys(name):
    assert getattr(xpshim, name) is getattr(numpy, name)


def test_every_table_entry_resolves():
    for sub in _registry.ROUTED_MODULES:
        assert isinstance(importlib.import_module("xpshim." + sub), types.ModuleType)
    for name in _registry.NUMPY_OWN:
        if hasattr(numpy, name):
            assert getattr(xpshim, name) is getattr(numpy, name)
    for name in _registry.UFUNC_REDUCE:
        assert isinstance(getattr(numpy, name), numpy.ufunc)


@pytest.mark.parametrize("name", ["sum", "dot", "add", "concatenate", "zeros", "array", "where"])
def test_resolved_once_and_picklable(name):
    obj = getattr(xpshim, name)
    assert getattr(xpshim, name) is obj
    assert pickle.loads(pickle.dumps(obj)) is obj


def test_submodule_functions_pickle():
    assert pickle.loads(pickle.dumps(xpshim.linalg.norm)) is xpshim.linalg.norm
    assert pickle.loads(pickle.dumps(xpshim.fft.fft)) is xpshim.fft.fft


def test_wrappers_carry_numpys_docs_and_signature():
    assert xpshim.sum.__wrapped__ is numpy.sum
    assert "Sum of array elements" in xpshim.sum.__doc__
    assert inspect.signature(xpshim.sum) == inspect.signature(numpy.sum)
    assert xpshim.sum.__module__ == "xpshim" and xpshim.sum.__name__ == "sum"
    assert "cupy.sum" in xpshim.sum.__doc__.splitlines()[0]


def test_ufunc_attributes_are_numpys():
    for attr in ("nin", "nout", "nargs", "types", "identity", "ntypes"):
        assert getattr(xpshim.add, attr) == getattr(numpy.add, attr)
    assert xpshim.add == numpy.add


def test_dir_lists_numpy_names():
    assert set(_public(numpy)) <= set(dir(xpshim))
    assert {"device", "stats", "asnumpy", "to_device"} <= set(dir(xpshim))


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="nor has numpy"):
        xpshim.no_such_function
