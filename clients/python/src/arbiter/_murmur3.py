"""MurmurHash3_x86_32 (aappleby/smhasher), frozen as bucketing hash version 1.

Split in two steps, like the TypeScript package, so that a fixed prefix (an experiment's
``salt:``) is mixed once and each user continues from that state. Written out by hand and
inlined: a call per block would cost more than the block's arithmetic.
"""

import struct
import sys
from typing import Dict, Sequence

_MASK = 0xFFFFFFFF
_C1 = 0xCC9E2D51
_C2 = 0x1B873593
_LITTLE_ENDIAN = sys.byteorder == "little"
_STRUCTS: Dict[int, struct.Struct] = {}


def _words(data: bytes, blocks: int) -> Sequence[int]:
    """The whole 4-byte blocks of ``data`` as little-endian unsigned integers."""
    if _LITTLE_ENDIAN:
        # A memoryview cast reads the blocks in C without copying them.
        return memoryview(data)[: blocks << 2].cast("I")
    unpacker = _STRUCTS.get(blocks)
    if unpacker is None:
        unpacker = _STRUCTS[blocks] = struct.Struct("<%dI" % blocks)
    return unpacker.unpack_from(data)


def mix_blocks(h: int, data: bytes) -> int:
    """Mixes the whole 4-byte blocks of ``data`` into state ``h``; a tail of 1-3 bytes is ignored."""
    for k in _words(data, len(data) >> 2):
        k = (k * _C1) & _MASK
        k = ((k << 15) | (k >> 17)) & _MASK
        k = (k * _C2) & _MASK
        h ^= k
        h = ((h << 13) | (h >> 19)) & _MASK
        h = (h * 5 + 0xE6546B64) & _MASK
    return h


def finish(h: int, data: bytes, total_length: int) -> int:
    """Continues from state ``h`` over ``data`` and finalises.

    ``total_length`` counts every byte hashed, those mixed into ``h`` before included.
    """
    length = len(data)
    blocks = length >> 2
    for k in _words(data, blocks):
        k = (k * _C1) & _MASK
        k = ((k << 15) | (k >> 17)) & _MASK
        k = (k * _C2) & _MASK
        h ^= k
        h = ((h << 13) | (h >> 19)) & _MASK
        h = (h * 5 + 0xE6546B64) & _MASK
    tail = length & 3
    if tail:
        i = blocks << 2
        k = data[i]
        if tail > 1:
            k |= data[i + 1] << 8
            if tail > 2:
                k |= data[i + 2] << 16
        k = (k * _C1) & _MASK
        k = ((k << 15) | (k >> 17)) & _MASK
        h ^= (k * _C2) & _MASK
    h ^= total_length
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    return h ^ (h >> 16)


def murmur3_x86_32(data: bytes, seed: int = 0) -> int:
    """The unsigned 32-bit hash of ``data``."""
    return finish(seed & _MASK, data, len(data))
