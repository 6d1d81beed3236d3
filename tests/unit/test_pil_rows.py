"""Pillow images read in place (xpshim._pil) give numpy.array(image), mode by mode.

Runs on any machine: only the host side (finding Pillow's rows) is exercised here;
the copy to the GPU is covered by the real-GPU tests in test_transfer_gpu.py.
"""

import numpy
import pytest
from PIL import Image

from xpshim import _pil


def _assemble(got):
    runs, shape, dtype, keep = got
    a = numpy.concatenate(runs).view(dtype).reshape(shape)
    return a if keep is None else a[..., :keep]


def _image(mode, w, h, seed=0):
    rng = numpy.random.default_rng(seed)
    rgba = Image.fromarray(rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8), "RGBA")
    if mode == "I":
        return Image.fromarray(rng.integers(-2**31, 2**31 - 1, (h, w), dtype=numpy.int32))
    if mode == "F":
        return Image.fromarray(rng.standard_normal((h, w)).astype(numpy.float32))
    return rgba.convert(mode)


@pytest.mark.parametrize("mode", ["L", "P", "RGB", "RGBA", "RGBX", "CMYK", "YCbCr", "I", "F"])
@pytest.mark.parametrize("size", [(7, 5), (640, 480), (3000, 2000)])  # the last spans several blocks
def test_rows_equal_numpy_array(mode, size):
    img = _image(mode, *size)
    got = _pil.rows(img)
    assert got is not None, f"mode {mode} should be read in place"
    ref = numpy.array(img)
    a = _assemble(got)
    assert a.dtype == ref.dtype and a.shape == ref.shape
    assert numpy.array_equal(a, ref)


def test_large_image_spans_blocks():
    img = _image("RGB", 6000, 1500)  # 36 MB as stored: more than one of Pillow's blocks
    runs = _pil.rows(img)[0]
    assert len(runs) >= 2
    assert numpy.array_equal(_assemble(_pil.rows(img)), numpy.array(img))


@pytest.mark.parametrize("mode", ["1", "LA", "I;16"])
def test_other_modes_take_numpys_path(mode):
    img = Image.new(mode, (4, 3))
    assert _pil.rows(img) is None


def test_empty_image_takes_numpys_path():
    assert _pil.rows(Image.new("RGB", (0, 3))) is None


def test_modified_image_is_read_as_modified():
    img = _image("RGB", 50, 40)
    img.putpixel((3, 39), (1, 2, 3))
    assert numpy.array_equal(_assemble(_pil.rows(img)), numpy.array(img))


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "TIFF"])
def test_decode_reads_a_file_in_one_block_and_gives_numpys_pixels(tmp_path, fmt):
    """``_pil.decode`` reads an image file in one block (Pillow's decoder then releases the GIL for
    the whole decode, while CuPy imports on its thread); the pixels are those of Pillow's own
    decode in 64 KiB blocks, and a file-less image keeps Pillow's reads."""
    import io

    path = tmp_path / f"p.{fmt.lower()}"
    _image("RGB", 700, 500).save(path, fmt)
    want = numpy.array(Image.open(path))
    im = Image.open(path)
    _pil.decode(im)
    assert im.decodermaxblock == path.stat().st_size
    numpy.testing.assert_array_equal(numpy.array(im), want)
    buf = io.BytesIO(path.read_bytes())
    im2 = Image.open(buf)
    default = im2.decodermaxblock
    _pil.decode(im2)
    assert im2.decodermaxblock == default
    numpy.testing.assert_array_equal(numpy.array(im2), want)
