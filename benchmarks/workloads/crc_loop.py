"""CRC-32 of many equal-length byte messages at once, bit by bit over the byte positions, with array ops."""

from . import _data

KIND = "loop"
SIZES = {"quick": 64, "full": 8000}
LENGTH = 256  # bytes per message
POLY = 0xEDB88320  # CRC-32 (IEEE 802.3), reflected
# integer arithmetic: exact.
TOLERANCE = (0.0, 0.0)


def run(np, n):
    msgs = _data.integers(np, 0, 256, (n, LENGTH), seed=52).astype(np.uint32)
    crc = np.full(n, 0xFFFFFFFF, dtype=np.uint32)
    poly = np.uint32(POLY)
    one = np.uint32(1)
    for k in range(LENGTH):
        crc ^= msgs[:, k]
        for _ in range(8):
            low = crc & one
            crc >>= one
            crc ^= poly * low
    return crc ^ np.uint32(0xFFFFFFFF)
