"""The simulated GPU's ``cupy`` (``xpshim._simgpu.cupy``) under the name tests import."""

import sys

from xpshim._simgpu import cupy

sys.modules[__name__] = cupy
