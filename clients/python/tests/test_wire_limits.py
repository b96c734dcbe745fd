"""The client refuses exactly what the server refuses: every limit of testdata/wire-limits.json
(generated from packages/contract) is taken at its value and refused one step past it."""

import json
import os
import re
from typing import Any, Dict, Optional

import pytest

from arbiter._core import constants as C
from arbiter._core.events.event_validation import EVENT_TYPES, text_problem, wire_problem
from conftest import REPO_ROOT

with open(os.path.join(REPO_ROOT, "testdata", "wire-limits.json"), encoding="utf-8") as f:
    LIMITS: Dict[str, Any] = json.load(f)

TEXT = LIMITS["event"]["text"]
NUMBERS = LIMITS["event"]["numbers"]
#: Set by the client itself for every event, never by a caller's payload.
CLIENT_SET = set(LIMITS["event"]["clientSet"])
BASE: Dict[str, Any] = {"experiment_id": "checkout", "user_id": "user-1"}


#: A token part is counted inside its total: its domain is tested with the total at its maximum.
TOTAL_OF = {"cached_input_tokens": "input_tokens", "reasoning_tokens": "output_tokens"}


def problem(field: str, value: Any) -> Optional[str]:
    total = TOTAL_OF.get(field)
    whole = {} if total is None else {total: NUMBERS[total]["maximum"]}
    return wire_problem(dict(BASE, **whole, **{field: value}))


def test_a_token_part_needs_its_total_and_stays_within_it() -> None:
    assert "cached_input_tokens" in (wire_problem(dict(BASE, cached_input_tokens=1)) or "")
    assert wire_problem(dict(BASE, input_tokens=5, cached_input_tokens=5)) is None
    assert "cached_input_tokens" in (wire_problem(dict(BASE, input_tokens=5, cached_input_tokens=6)) or "")
    assert "reasoning_tokens" in (wire_problem(dict(BASE, output_tokens=2, reasoning_tokens=3)) or "")


def nested(levels: int) -> Dict[str, Any]:
    node: Dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        node = {"a": node}
    return node


@pytest.mark.parametrize("field", sorted(set(TEXT) - CLIENT_SET))
def test_a_text_field_takes_its_length_limits_and_refuses_one_past_them(field: str) -> None:
    limit = TEXT[field]
    assert problem(field, "x" * limit["maxLength"]) is None
    assert field in (problem(field, "x" * (limit["maxLength"] + 1)) or "")
    if limit["minLength"] > 0:
        assert field in (problem(field, "") or "")
    else:
        assert problem(field, "") is None


@pytest.mark.parametrize("field", sorted(NUMBERS))
def test_a_number_takes_its_domain_and_refuses_what_lies_outside(field: str) -> None:
    domain = NUMBERS[field]
    low, high = domain["minimum"], domain["maximum"]
    assert problem(field, low) is None
    assert problem(field, high) is None
    assert field in (problem(field, high + 1) or "")
    assert field in (problem(field, low - 1) or "")
    fraction = problem(field, high - 0.5)
    if domain["integer"]:
        assert field in (fraction or "")
    else:
        assert fraction is None


def test_metadata_takes_the_free_form_json_depth_and_size_and_refuses_one_past_them() -> None:
    depth, size = LIMITS["freeFormJson"]["maxDepth"], LIMITS["freeFormJson"]["maxBytes"]

    def padded(n: int) -> Dict[str, Any]:
        return {"p": "x" * (n - len('{"p":""}'))}

    assert problem("metadata", nested(depth)) is None
    assert "deeper" in (problem("metadata", nested(depth + 1)) or "")
    assert problem("metadata", padded(size)) is None
    assert "bytes" in (problem("metadata", padded(size + 1)) or "")


def test_storable_text_is_what_the_shared_pattern_matches() -> None:
    rule = re.compile(LIMITS["textRule"]["pattern"])
    for text in ["", "plain", "a\x00b", "a\ud800b", "\udfff", "\U0001f600", "\u00e9\u00a0\u00df"]:
        assert (text_problem(text) is None) == bool(rule.match(text)), repr(text)


def test_the_constants_that_carry_a_wire_limit_equal_it() -> None:
    assert TEXT["user_id"]["maxLength"] == C.MAX_USER_ID_LENGTH
    assert C.MAX_MODEL_TEXT_LENGTH == TEXT["prompt"]["maxLength"] == TEXT["response"]["maxLength"]
    # An error message is cut shorter than the server takes: a stack trace is not a metric.
    assert TEXT["error"]["maxLength"] >= C.MAX_ERROR_LENGTH
    assert LIMITS["batch"]["maxEvents"] == C.MAX_EVENT_BATCH_SIZE
    assert LIMITS["batch"]["maxBytes"] == C.MAX_EVENT_BATCH_BYTES
    assert LIMITS["freeFormJson"]["maxDepth"] == C.METADATA_MAX_DEPTH
    assert LIMITS["freeFormJson"]["maxBytes"] == C.METADATA_MAX_BYTES
    # A replayed event must still be young enough for POST /v1/events.
    assert LIMITS["timestamps"]["maxLiveAgeMs"] > C.OFFLINE_REPLAY_WINDOW_MS


def test_the_event_types_are_the_contracts() -> None:
    assert frozenset(LIMITS["event"]["types"]) == EVENT_TYPES
