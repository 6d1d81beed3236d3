"""Pillow images read in place, for ``xpshim.array(image)`` on the GPU.

``numpy.array(image)`` goes through Pillow's ``__array_interface__``, which
builds the pixels with ``Image.tobytes()``: about 90 ms for a 24-megapixel RGB
image on a fast host, ten times what the copy to the GPU then costs. Pillow
keeps the pixels in a few large blocks of rows (four bytes per pixel for
RGB), and hands out a pointer to its image structure (``Image.getim()``); this
module finds the rows from that structure and returns NumPy views of them, so
that the rows can be copied to the GPU directly (``_transfer``) and the pixel
layout fixed there.

Reading the structure relies on Pillow's C layout, so it is checked before
use: the sizes found must be the image's, and the first and last rows must
equal what Pillow's own ``tobytes`` gives for them. Anything unexpected
(another layout, another mode, a Pillow without ``getim``) returns None, and
the caller takes NumPy's path.
"""

import ctypes
import os
import sys

import numpy

# mode -> (bytes per pixel in Pillow's storage, what numpy.array(image) gives: bands or dtype)
MODES = {"L": (1, None), "P": (1, None), "RGB": (4, 3), "RGBA": (4, 4), "RGBX": (4, 4),
         "CMYK": (4, 4), "YCbCr": (4, 3), "I": (4, "<i4"), "F": (4, "<f4")}

# Offsets in ImagingMemoryInstance (64-bit) of bands, xsize, ysize, image (row pointers),
# pixelsize, linesize: Pillow >= 12 starts with an int mode id, older ones with char mode[7].
_LAYOUTS = ((12, 16, 20, 48, 72, 76), (16, 20, 24, 56, 80, 84))

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = (ctypes.py_object, ctypes.c_char_p)


def decode(image):
    """Decode a Pillow image opened from a file now (``Image.open`` reads only its header).

    Every route of ``xpshim.array(image)`` decodes it (NumPy's through ``tobytes``, ``rows``
    here), and fails with the same error where it cannot; the first call decodes it before the
    device is chosen, so that Pillow's decoder, which releases the GIL, runs while CuPy's
    import ends on its thread (``_preload``)."""
    image_cls = getattr(sys.modules.get("PIL.Image"), "Image", None)
    if image_cls is not None and isinstance(image, image_cls):
        _whole_reads(image)
        image.load()


# Pillow's decoder releases the GIL while it decodes a block of the file, and takes it back
# between blocks (ImageFile.load reads ``decodermaxblock`` bytes at a time: 64 KiB); while
# CuPy imports on its thread, each of those returns waits for the GIL. Read in one block (up to
# this much), a 6000x4000 JPEG's decode beside a busy thread took 330 ms instead of 490 (alone:
# the same 200 ms either way).
_WHOLE_READ_MAX = 1 << 26


def _whole_reads(image):
    """Let ``image.load()`` read its file in one block, where it is a file Pillow has not read."""
    fp = getattr(image, "fp", None)
    block = getattr(image, "decodermaxblock", None)
    if fp is None or type(block) is not int:
        return
    try:
        size = os.fstat(fp.fileno()).st_size
    except (AttributeError, OSError, ValueError):  # (a BytesIO, a closed file: Pillow's own reads)
        return
    if block < size:
        image.decodermaxblock = min(size, _WHOLE_READ_MAX)


def _int(addr):
    return ctypes.c_int.from_address(addr).value


def rows(image):
    """(runs, shape, dtype, keep) for a Pillow image, or None.

    ``runs``: 1-d uint8 views of Pillow's memory, in row order, whose
    concatenation is the image as stored (``shape`` = (h, w) or (h, w, 4) of
    ``dtype``); ``keep``: what to take from the last axis (None: all) to get
    ``numpy.array(image)``. The views are valid while ``image`` is alive and
    unchanged.
    """
    spec = MODES.get(getattr(image, "mode", None))
    getim = getattr(image, "getim", None)
    if spec is None or getim is None or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    image.load()
    w, h = image.size
    if w == 0 or h == 0:
        return None
    nbands = len(image.getbands())
    try:
        base = _get_pointer(getim(), b"Pillow Imaging")
    except (ValueError, TypeError):
        return None
    pixelsize, want = spec
    for ob, ox, oy, oim, ops, ols in _LAYOUTS:
        if (_int(base + ob), _int(base + ox), _int(base + oy), _int(base + ops), _int(base + ols)) == (
                nbands, w, h, pixelsize, w * pixelsize):
            break
    else:
        return None
    linesize = w * pixelsize
    table = ctypes.c_void_p.from_address(base + oim).value
    if not table:
        return None
    ptrs = numpy.frombuffer((ctypes.c_uint64 * h).from_address(table), numpy.uint64).astype(numpy.int64)
    breaks = numpy.flatnonzero(numpy.diff(ptrs) != linesize) + 1
    starts = numpy.concatenate(([0], breaks, [h]))
    runs = [numpy.ctypeslib.as_array((ctypes.c_uint8 * ((e - s) * linesize)).from_address(int(ptrs[s])))
            for s, e in zip(starts[:-1], starts[1:])]
    if want is None:
        shape, dtype, keep = (h, w), numpy.dtype(numpy.uint8), None
    elif isinstance(want, str):
        shape, dtype, keep = (h, w), numpy.dtype(want), None
    else:
        shape, dtype, keep = (h, w, 4), numpy.dtype(numpy.uint8), want
    # Check the first and last rows against Pillow's own bytes for them.
    for y, run, off in ((0, runs[0], 0), (h - 1, runs[-1], len(runs[-1]) - linesize)):
        mine = run[off:off + linesize].view(dtype).reshape(shape[1:])
        if keep is not None:
            mine = mine[:, :keep]
        theirs = numpy.frombuffer(image.crop((0, y, w, y + 1)).tobytes(), dtype).reshape(mine.shape)
        if not numpy.array_equal(mine, theirs):
            return None
    return runs, shape, dtype, keep
