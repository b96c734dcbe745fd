"""Every case of both vector files in testdata/, through the reference path and the fast one."""

import json
import os
from typing import Any, Dict, List

import pytest

from arbiter._bucketing import bucket_of, make_assigner
from arbiter._murmur3 import murmur3_x86_32
from arbiter._utf8 import encode_utf8
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


@pytest.mark.parametrize("case", BUCKETING, ids=lambda c: "%d" % BUCKETING.index(c))
def test_bucketing_vector(case: Dict[str, Any]) -> None:
    salt, user, count = case["salt"], case["user_id"], case["bucket_count"]
    assert murmur3_x86_32(encode_utf8(salt + ":" + user)) == case["hash"]
    assert bucket_of(salt, user, count) == case["bucket"]
    # The per-experiment path, with the salt's blocks pre-hashed, lands in the same bucket:
    # a one-bucket range there is the only way to be enrolled.
    bucket = case["bucket"]
    assert make_assigner(salt, count, [("in", bucket, bucket + 1)])(user) == "in"
    if count > 1:
        assert make_assigner(salt, count, [("out", (bucket + 1) % count, (bucket + 1) % count + 1)])(user) is None


def test_lone_surrogates_become_u_fffd_as_javascripts_textencoder_does() -> None:
    assert encode_utf8("a\ud800b") == b"a\xef\xbf\xbdb"
    assert encode_utf8("\udc00\ud800") == b"\xef\xbf\xbd" * 2
    # A high surrogate followed by a low one is the astral character they spell (UTF-16 pair).
    assert encode_utf8("\ud83d\ude00") == "\U0001f600".encode("utf-8")
    assert encode_utf8("\ud800\ud83d\ude00") == b"\xef\xbf\xbd" + "\U0001f600".encode("utf-8")
    for salt in ("s", "salt-1", "abc", "实验-42"):
        fast = make_assigner(salt, 1000, [("v%d" % i, i, i + 1) for i in range(1000)])
        for user in ("x\ud800", "\udfff", "a\ud83d\ude00b", "\ud83d"):
            replaced = user.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
            assert fast(user) == "v%d" % bucket_of(salt, replaced, 1000)
