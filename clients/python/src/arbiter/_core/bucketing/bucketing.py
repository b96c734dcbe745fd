"""Bucketing version 1 (docs/decisions/experiments.md#bucketing):
murmur3_x86_32(UTF-8(salt + ":" + user_id)) mod bucket_count, then the variant whose
half-open range holds the bucket."""

from bisect import bisect_right
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple, Union

from arbiter._core.bucketing.murmur3 import finish, mix_blocks, murmur3_x86_32
from arbiter._core.bucketing.utf8 import encode_utf8

#: ``hash(key, seed, signed)``: MurmurHash3_x86_32 in C (``mmh3``, from the ``speedups`` extra),
#: which the fast engine hands in (``arbiter._fast``); without it the pure hash below is used
#: and nothing changes but the speed.
Hash32 = Callable[[Union[bytes, str], int, bool], int]

#: The bucketing algorithm version this build implements; a config of another is not used.
BUCKETING_VERSION = "1"

#: ``(variant, start, end)``: buckets ``start <= b < end`` belong to ``variant``.
Range = Tuple[str, int, int]


def bucket_of(salt: str, user_id: str, bucket_count: int) -> int:
    """The bucket of ``user_id``, hashing the whole key: the reference the fast path must equal."""
    return murmur3_x86_32(encode_utf8(salt + ":" + user_id)) % bucket_count


#: 2^32: every murmur3_x86_32 result is below it.
_HASH_SPACE = 4294967296


def in_coverage(salt: str, user_id: str, coverage: float) -> bool:
    """Coverage hash version 1 (docs/wire-format.md#coverage): a user enters an experiment of
    coverage ``c`` when murmur3_x86_32(UTF-8("coverage:" + salt + ":" + user_id)) < c * 2^32, a
    bound exact in binary floating point, so every language compares the same numbers."""
    return murmur3_x86_32(encode_utf8("coverage:" + salt + ":" + user_id)) < coverage * _HASH_SPACE


def covered(bucket: Callable[[str], Optional[str]], salt: str, coverage: float) -> Callable[[str], Optional[str]]:
    """``bucket`` for the users ``coverage`` admits, None for the others: the coverage check
    comes after targeting and before the experiment's own bucket."""
    if coverage >= 1:
        return bucket
    if not coverage > 0:
        return lambda user_id: None
    bound = coverage * _HASH_SPACE
    hash_of = salted_hash("coverage:" + salt)

    def assign(user_id: str) -> Optional[str]:
        if hash_of(user_id) >= bound:
            return None
        return bucket(user_id)

    return assign


def salted_hash(salt: str) -> Callable[[str], int]:
    """``user_id -> murmur3_x86_32(UTF-8(salt + ":" + user_id))``, the pure-Python hash of
    bucketing and coverage: the whole 4-byte blocks of ``salt:`` are mixed here, once, so a call
    hashes only the prefix's 0-3 leftover bytes and the user id. Everything the call needs is a
    local of the closure: attribute and global lookups would cost as much as the pre-hashing
    saves."""
    prefix = encode_utf8(salt + ":")
    mixed = len(prefix) & ~3
    state = mix_blocks(0, prefix[:mixed])
    tail = prefix[mixed:]
    hash_from, encode = finish, encode_utf8

    def hash_of(user_id: str) -> int:
        try:
            data = user_id.encode("utf-8")
        except UnicodeEncodeError:
            data = encode(user_id)
        if tail:
            data = tail + data
        return hash_from(state, data, mixed + len(data))

    return hash_of


def make_assigner(
    salt: str, bucket_count: int, ranges: Sequence[Range], hash32: Optional[Hash32] = None
) -> Callable[[str], Optional[str]]:
    """The variant function of one experiment: user id -> variant key, or None (not enrolled).

    With ``hash32`` (mmh3's, when the ``speedups`` extra is installed) a call hashes the whole
    key in C; without it, in Python by ``salted_hash``. Everything the call needs is a local of
    the closure: attribute and global lookups would cost as much as the pre-hashing saves.
    """
    pure = _pure_assigner(salt, bucket_count, ranges)
    prefix = salt + ":"
    if hash32 is None or not _strict_utf8(prefix):
        return pure
    starts, ends, variants = ordered_ranges(ranges)
    lookup = bisect_right

    def assign(user_id: str) -> Optional[str]:
        # mmh3 5.3 crashes the interpreter (SIGSEGV) on a str with a lone surrogate, so it gets
        # a str only when the id is ASCII (the usual id, and half the cost of encoding it here)
        # and otherwise strict UTF-8 bytes; an id with a lone surrogate fails that and takes the
        # pure path, which applies the frozen U+FFFD rule.
        if user_id.isascii():
            bucket = hash32(prefix + user_id, 0, False) % bucket_count
        else:
            try:
                data = (prefix + user_id).encode("utf-8")
            except UnicodeEncodeError:
                return pure(user_id)
            bucket = hash32(data, 0, False) % bucket_count
        i = lookup(starts, bucket) - 1
        if i >= 0 and bucket < ends[i]:
            return variants[i]
        return None

    # For a caller that writes the ASCII case into a function of its own (a targeted experiment's
    # variant function, arbiter._fast.condition_source), saving this call.
    assign.ascii_parts = AsciiParts(hash32, prefix, bucket_count, starts, ends, variants)  # type: ignore[attr-defined]
    return assign


class AsciiParts(NamedTuple):
    """What the accelerated assigner computes an ASCII id's variant from: ``hash32(prefix +
    user_id, 0, False) % bucket_count``, then the range of ``starts``/``ends`` holding it."""

    hash32: Hash32
    prefix: str
    bucket_count: int
    starts: List[int]
    ends: List[int]
    variants: List[str]


def _strict_utf8(text: str) -> bool:
    """Whether ``text`` has no lone surrogate (a salt from a JSON config may, in theory)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def ordered_ranges(ranges: Sequence[Range]) -> Tuple[List[int], List[int], List[str]]:
    """Starts, ends and variants of the ranges in start order, for a bisection per call."""
    ordered = sorted(ranges, key=lambda r: r[1])
    return [r[1] for r in ordered], [r[2] for r in ordered], [r[0] for r in ordered]


def _pure_assigner(salt: str, bucket_count: int, ranges: Sequence[Range]) -> Callable[[str], Optional[str]]:
    """The pure-Python variant function (the plain install's, and any id mmh3 must not see)."""
    hash_of = salted_hash(salt)
    starts, ends, variants = ordered_ranges(ranges)
    lookup = bisect_right

    def assign(user_id: str) -> Optional[str]:
        bucket = hash_of(user_id) % bucket_count
        i = lookup(starts, bucket) - 1
        if i >= 0 and bucket < ends[i]:
            return variants[i]
        return None

    return assign
