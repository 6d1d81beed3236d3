"""The seed's grayscale conversion in plain NumPy, as its author wrote it (no xpshim here).

    python grayscale.py input.png output.png
"""

import sys

import numpy as np
from PIL import Image

image = Image.open(sys.argv[1])
image_array = np.array(image)
gray_image_array = np.dot(image_array[..., :3], [0.2989, 0.5870, 0.1140])
gray_image = Image.fromarray(gray_image_array.astype(np.uint8))
gray_image.save(sys.argv[2])
