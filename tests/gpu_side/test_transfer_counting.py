"""Every copy a gap implementation makes goes through _transfer and is counted."""

import numpy

import xpshim


def test_quantile_with_a_gpu_q_counts_the_copy_of_q(gpu):
    a = xpshim.asarray(numpy.arange(20.0))
    q = xpshim.asarray(numpy.array([0.25, 0.5]))
    xpshim.reset_stats()
    r = xpshim.nanquantile(a, q)
    numpy.testing.assert_allclose(xpshim.asnumpy(r), numpy.nanquantile(numpy.arange(20.0), [0.25, 0.5]))
    down = xpshim.stats()["transfers"]["device_to_host"]
    assert any("q of a quantile" in site for site in down["sites"]), down
