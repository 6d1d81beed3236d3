"""The seed's grayscale conversion, with only the import changed.

    python examples/grayscale.py [input.jpg] [--out gray_example.jpg]

Without an input it first makes a 1920x1080 test photo (example.jpg).
Runs on the GPU when one is usable, else on the CPU (XPSHIM_DEVICE=cpu|gpu forces it).
"""

import argparse
import os
import time

import xpshim as np
from PIL import Image


def make_example(path, width=1920, height=1080, seed=0):
    """Write a synthetic RGB photo (gradients plus noise) to ``path``."""
    import numpy

    rng = numpy.random.default_rng(seed)
    y, x = numpy.mgrid[0:height, 0:width]
    rgb = numpy.stack([x * 255 // max(width - 1, 1), y * 255 // max(height - 1, 1),
                       (x + y) * 255 // max(width + height - 2, 1)], axis=-1)
    rgb = numpy.clip(rgb + rng.integers(-20, 21, rgb.shape), 0, 255).astype(numpy.uint8)
    Image.fromarray(rgb).save(path, quality=95)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", nargs="?", default="example.jpg")
    ap.add_argument("--out", default="gray_example.jpg")
    args = ap.parse_args(argv)
    if not os.path.exists(args.input):
        make_example(args.input)
        print(f"made a test image: {args.input}")

    t0 = time.perf_counter()
    # --- the seed's code, unchanged ---------------------------------------
    image = Image.open(args.input)
    image_array = np.array(image)
    gray_image_array = np.dot(image_array[..., :3], [0.2989, 0.5870, 0.1140])
    gray_image = Image.fromarray(gray_image_array.astype(np.uint8))
    gray_image.save(args.out)
    # ----------------------------------------------------------------------
    dt = time.perf_counter() - t0
    print(f"device: {np.get_device(image_array)}  image: {image.size[0]}x{image.size[1]}  "
          f"time: {dt * 1e3:.1f} ms (read, convert, write)  -> {args.out}")
    print(f"why: {np.why_device()}")
    return gray_image


if __name__ == "__main__":
    main()
