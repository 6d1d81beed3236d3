"""NumPy's own API tests with `import xpshim as np` (CPU path): only the listed ones may fail."""

import os
import sys

import numpy
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy_suite  # noqa: E402
from divergences import NUMPY_SUITE_CPU  # noqa: E402


@pytest.mark.skipif(not os.path.exists(os.path.join(os.path.dirname(numpy.__file__), "lib", "tests")),
                    reason="this NumPy was installed without its tests")
def test_numpy_own_tests_on_the_cpu_path(tmp_path, capsys):
    numpy_suite.main(["--device", "cpu", "--out", str(tmp_path)])
    import json

    rep = json.load(open(tmp_path / "numpy-suite-cpu.json"))["results"]
    only_xpshim = {t for r in rep.values() for t in r["fail_only_under_xpshim"]}
    passed = sum(r["xpshim"].get("passed", 0) for r in rep.values())
    assert passed > 5000, capsys.readouterr().out  # the files really ran
    assert only_xpshim - set(NUMPY_SUITE_CPU) == set(), "new failures under xpshim"
    assert set(NUMPY_SUITE_CPU) - only_xpshim == set(), "listed failures that now pass: remove them"
