"""Bucketing version 1 (docs/decisions.md#bucketing): murmur3_x86_32(UTF-8(salt + ":" + user_id)) mod bucket_count,
then the variant whose half-open range holds the bucket."""

from bisect import bisect_right
from typing import Callable, Optional, Sequence, Tuple

from ._murmur3 import finish, mix_blocks, murmur3_x86_32
from ._utf8 import encode_utf8

#: The bucketing algorithm version this build implements; a config of another is not used.
BUCKETING_VERSION = "1"

#: ``(variant, start, end)``: buckets ``start <= b < end`` belong to ``variant``.
Range = Tuple[str, int, int]


def bucket_of(salt: str, user_id: str, bucket_count: int) -> int:
    """The bucket of ``user_id``, hashing the whole key: the reference the fast path must equal."""
    return murmur3_x86_32(encode_utf8(salt + ":" + user_id)) % bucket_count


def make_assigner(salt: str, bucket_count: int, ranges: Sequence[Range]) -> Callable[[str], Optional[str]]:
    """The variant function of one experiment: user id -> variant key, or None (not enrolled).

    The whole 4-byte blocks of ``salt:`` are mixed here, once, so a call hashes only the
    prefix's 0-3 leftover bytes and the user id. Everything the call needs is a local of the
    closure: attribute and global lookups would cost as much as the pre-hashing saves.
    """
    prefix = encode_utf8(salt + ":")
    mixed = len(prefix) & ~3
    state = mix_blocks(0, prefix[:mixed])
    tail = prefix[mixed:]
    ordered = sorted(ranges, key=lambda r: r[1])
    starts = [r[1] for r in ordered]
    ends = [r[2] for r in ordered]
    variants = [r[0] for r in ordered]
    hash_from, lookup, encode = finish, bisect_right, encode_utf8

    def assign(user_id: str) -> Optional[str]:
        try:
            data = user_id.encode("utf-8")
        except UnicodeEncodeError:
            data = encode(user_id)
        if tail:
            data = tail + data
        bucket = hash_from(state, data, mixed + len(data)) % bucket_count
        i = lookup(starts, bucket) - 1
        if i >= 0 and bucket < ends[i]:
            return variants[i]
        return None

    return assign
