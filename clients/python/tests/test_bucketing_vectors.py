"""Every case of both vector files in testdata/, through the reference path and the fast one."""

import json
import os
import random
import subprocess
import sys
from typing import Any, Dict, List, Optional

import mmh3
import pytest

from arbiter._core.bucketing.bucketing import Hash32, bucket_of, make_assigner
from arbiter._core.bucketing.murmur3 import murmur3_x86_32
from arbiter._core.bucketing.utf8 import encode_utf8
from arbiter._core.evaluation.conditions import compile_condition
from arbiter._fast.condition_source import generated_targeting
from arbiter._fast.speedups import ACCELERATED_HASH
from conftest import REPO_ROOT


def cases(name: str) -> List[Dict[str, Any]]:
    with open(os.path.join(REPO_ROOT, "testdata", name), encoding="utf-8") as f:
        doc = json.load(f)
    assert doc["specVersion"] == "1"
    return doc["cases"]  # type: ignore[no-any-return]


MURMUR = cases("murmur3_x86_32.json")
BUCKETING = cases("bucketing.json")


def test_the_files_hold_what_they_promise() -> None:
    assert len(MURMUR) == 59 and len(BUCKETING) == 392


@pytest.mark.parametrize("case", MURMUR, ids=lambda c: "%s-%d" % (c["input_hex"][:16] or "empty", c["seed"]))
def test_murmur3_vector(case: Dict[str, Any]) -> None:
    assert murmur3_x86_32(bytes.fromhex(case["input_hex"]), case["seed"]) == case["hash"]


#: Both hashes of the per-experiment path: the pure-Python one and mmh3's C extension (the
#: ``speedups`` extra). The tests install mmh3, so both always run here.
PATHS: List[Optional[Hash32]] = [None, mmh3.hash]
PATH_IDS = ["pure", "mmh3"]


@pytest.mark.parametrize("hash32", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("case", BUCKETING, ids=lambda c: "%d" % BUCKETING.index(c))
def test_bucketing_vector(case: Dict[str, Any], hash32: Optional[Hash32]) -> None:
    salt, user, count = case["salt"], case["user_id"], case["bucket_count"]
    assert murmur3_x86_32(encode_utf8(salt + ":" + user)) == case["hash"]
    assert mmh3.hash(encode_utf8(salt + ":" + user), 0, False) == case["hash"]
    assert bucket_of(salt, user, count) == case["bucket"]
    # The per-experiment path, with the salt's blocks pre-hashed, lands in the same bucket:
    # a one-bucket range there is the only way to be enrolled.
    bucket = case["bucket"]
    assert make_assigner(salt, count, [("in", bucket, bucket + 1)], hash32)(user) == "in"
    if count > 1:
        out = [("out", (bucket + 1) % count, (bucket + 1) % count + 1)]
        assert make_assigner(salt, count, out, hash32)(user) is None


def random_text(rng: random.Random) -> str:
    """Up to 12 code points from every plane, lone and paired surrogates included."""
    pools = [(0x20, 0x7E), (0x80, 0x7FF), (0x800, 0xFFFF), (0xD800, 0xDFFF), (0x10000, 0x10FFFF)]
    return "".join(chr(rng.randint(*rng.choice(pools))) for _ in range(rng.randint(0, 12)))


def test_both_hash_paths_agree_on_random_unicode() -> None:
    """mmh3 and the pure path give the same variant for 20,000 random ids and salts, lone
    surrogates included: those must never reach mmh3 as a str (it crashes the interpreter on
    one), so a wrong routing would kill this test's process, not just fail it."""
    rng = random.Random(32)
    surrogates = 0
    for _ in range(400):
        salt = random_text(rng).replace(":", "") or "s"
        count = rng.choice([1, 2, 7, 100, 10_000, 1_000_000])
        ranges = [("a", 0, count // 3), ("b", count // 3, count // 2), ("c", count - count // 4, count)]
        pure, fast = make_assigner(salt, count, ranges, None), make_assigner(salt, count, ranges, mmh3.hash)
        for _ in range(50):
            user = random_text(rng)
            surrogates += any(0xD800 <= ord(c) <= 0xDFFF for c in user)
            assert fast(user) == pure(user), (salt, user, count)
            assert mmh3.hash(encode_utf8(salt + ":" + user), 0, False) == murmur3_x86_32(encode_utf8(salt + ":" + user))
    assert surrogates > 1000


def test_a_targeted_experiments_variant_function_buckets_as_the_pure_path() -> None:
    """The variant function of a targeted experiment writes the mmh3 assigner's ASCII case out
    (arbiter._fast.condition_source); every other id goes to the assigner. Both give the pure path's
    variant, for every attributes that pass the targeting."""
    rng = random.Random(29)
    for _ in range(200):
        salt = random_text(rng).replace(":", "") or "s"
        count = rng.choice([1, 2, 7, 100, 10_000, 1_000_000])
        ranges = [("a", 0, count // 3), ("b", count // 3, count // 2), ("c", count - count // 4, count)]
        pure, fast = make_assigner(salt, count, ranges, None), make_assigner(salt, count, ranges, mmh3.hash)
        targeted = generated_targeting({"plan": "pro"}, compile_condition({"plan": "pro"}).matches, None, fast)
        assert targeted is not None
        for _ in range(50):
            user = random_text(rng) if rng.random() < 0.5 else "user-%d" % rng.randrange(10**9)
            assert targeted(user, {"plan": "pro"}) == pure(user), (salt, user, count)
            assert targeted(user, {"plan": "free"}) is None


def test_the_client_uses_mmh3_when_it_imports_and_the_pure_hash_otherwise() -> None:
    assert ACCELERATED_HASH is mmh3.hash
    # A process where mmh3 cannot be imported (the plain install) still assigns, identically.
    script = (
        "import sys; sys.modules['mmh3'] = None\n"
        "from arbiter._core.bucketing.bucketing import make_assigner\n"
        "from arbiter._fast.speedups import ACCELERATED_HASH\n"
        "assign = make_assigner('salt-1', 1000, [('v', 0, 500), ('w', 500, 1000)], ACCELERATED_HASH)\n"
        "print(ACCELERATED_HASH, ','.join(str(assign('user-%d' % i)) for i in range(50)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    fast = make_assigner("salt-1", 1000, [("v", 0, 500), ("w", 500, 1000)], ACCELERATED_HASH)
    assert out == ["None", ",".join(str(fast("user-%d" % i)) for i in range(50))]


def test_lone_surrogates_become_u_fffd_as_javascripts_textencoder_does() -> None:
    assert encode_utf8("a\ud800b") == b"a\xef\xbf\xbdb"
    assert encode_utf8("\udc00\ud800") == b"\xef\xbf\xbd" * 2
    # A high surrogate followed by a low one is the astral character they spell (UTF-16 pair).
    assert encode_utf8("\ud83d\ude00") == "\U0001f600".encode("utf-8")
    assert encode_utf8("\ud800\ud83d\ude00") == b"\xef\xbf\xbd" + "\U0001f600".encode("utf-8")
    for salt in ("s", "salt-1", "abc", "实验-42"):
        fast = make_assigner(salt, 1000, [("v%d" % i, i, i + 1) for i in range(1000)], ACCELERATED_HASH)
        for user in ("x\ud800", "\udfff", "a\ud83d\ude00b", "\ud83d"):
            replaced = user.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
            assert fast(user) == "v%d" % bucket_of(salt, replaced, 1000)
