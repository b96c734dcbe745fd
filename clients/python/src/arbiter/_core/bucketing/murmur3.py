"""MurmurHash3_x86_32 (aappleby/smhasher), frozen as bucketing hash version 1.

Split in two steps, like the TypeScript package, so that a fixed prefix (an experiment's
``salt:``) is mixed once and each user continues from that state. Written out by hand, every
step inline: in CPython a function call per block would cost more than the block's arithmetic.
"""

import struct
import sys
from typing import Dict, Sequence

_MASK = 0xFFFFFFFF
_C1 = 0xCC9E2D51
_C2 = 0x1B873593
_LITTLE_ENDIAN = sys.byteorder == "little"
_STRUCTS: Dict[int, struct.Struct] = {}


def _words(data: bytes, end: int) -> Sequence[int]:
    """The 4-byte blocks of ``data[:end]`` as little-endian unsigned integers."""
    if _LITTLE_ENDIAN:
        # A memoryview cast reads the blocks in C without copying them.
        return memoryview(data)[:end].cast("I")
    unpacker = _STRUCTS.get(end)
    if unpacker is None:  # pragma: no cover - big-endian machines
        unpacker = _STRUCTS[end] = struct.Struct("<%dI" % (end >> 2))
    return unpacker.unpack_from(data)


def mix_blocks(h: int, data: bytes) -> int:
    """Mixes the whole 4-byte blocks of ``data`` into state ``h``; a tail of 1-3 bytes is ignored."""
    for k in _words(data, len(data) & ~3):
        k = (k * _C1) & _MASK
        h ^= ((k << 15) | (k >> 17)) * _C2 & _MASK
        h = (((h << 13) | (h >> 19)) * 5 + 0xE6546B64) & _MASK
    return h


def finish(h: int, data: bytes, total_length: int) -> int:
    """Continues from state ``h`` over ``data`` and finalises.

    ``total_length`` counts every byte hashed, those mixed into ``h`` before included.
    A rotation's bits above 32 only reach bits above 32 of the product that follows, which the
    next mask drops: one mask per multiply is enough.
    """
    n = len(data)
    whole = n & ~3
    for k in _words(data, whole):
        k = (k * _C1) & _MASK
        h ^= ((k << 15) | (k >> 17)) * _C2 & _MASK
        h = (((h << 13) | (h >> 19)) * 5 + 0xE6546B64) & _MASK
    if n != whole:
        k = data[whole]
        if n - whole > 1:
            k |= data[whole + 1] << 8
            if n - whole > 2:
                k |= data[whole + 2] << 16
        k = (k * _C1) & _MASK
        h ^= ((k << 15) | (k >> 17)) * _C2 & _MASK
    h ^= total_length
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    return h ^ (h >> 16)


def murmur3_x86_32(data: bytes, seed: int = 0) -> int:
    """The unsigned 32-bit hash of ``data``."""
    return finish(seed & _MASK, data, len(data))
