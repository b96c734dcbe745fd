"""The server's per-event limits (docs/wire-format.md), enforced before an event is queued: the
text rule, the fields' lengths, the numeric domains and the free-form JSON limit of ``metadata``.
Each refused event costs one log line and nothing else; the values on the limits are accepted."""

import logging
from typing import Any, Dict, List, Tuple

import pytest

from arbiter import Arbiter
from arbiter._core import constants as C
from support.fake_arbiter import EXPERIMENT_ID, EXPERIMENT_NAME, FakeArbiter


def nested(levels: int) -> Dict[str, Any]:
    """An object ``levels`` deep: ``{"a": {"a": ... {"leaf": 1}}}``."""
    node: Dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        node = {"a": node}
    return node


def outcome(**fields: Any) -> Dict[str, Any]:
    return dict(dict(experiment_id=EXPERIMENT_NAME, user_id="user-1", business_metric="revenue", value=1), **fields)


def model_call(**fields: Any) -> Dict[str, Any]:
    return dict(dict(experiment_id=EXPERIMENT_NAME, user_id="user-1"), **fields)


# The padding string of 65,536 bytes as JSON is 65,536 - len('{"p":""}') characters long.
PAD = C.METADATA_MAX_BYTES - len('{"p":""}')

REFUSED: List[Tuple[str, str, Dict[str, Any]]] = [
    ("value over 1e12", "business_event", outcome(value=1e155)),
    ("value under -1e12", "business_event", outcome(value=-(10**12) - 1)),
    ("value an int too large for a double", "business_event", outcome(value=10**400)),
    ("value a bool", "business_event", outcome(value=True)),
    ("NUL in user_id", "business_event", outcome(user_id="a\x00b")),
    ("unpaired surrogate in user_id", "business_event", outcome(user_id="a\ud800b")),
    ("unpaired surrogate in business_metric", "business_event", outcome(business_metric="rev\ud800")),
    ("NUL in experiment_id", "business_event", outcome(experiment_id="checkout\x00")),
    ("business_metric over 128", "business_event", outcome(business_metric="m" * 129)),
    ("empty variant", "business_event", outcome(variant="")),
    ("variant over 64", "business_event", outcome(variant="v" * 65)),
    ("NUL in a metadata string", "business_event", outcome(metadata={"note": "x\x00"})),
    ("surrogate in a metadata key", "business_event", outcome(metadata={"k\udc00": 1})),
    ("NUL in a string inside a metadata list", "business_event", outcome(metadata={"l": [1, ["\x00"]]})),
    ("metadata 33 levels deep", "business_event", outcome(metadata=nested(33))),
    ("metadata 5,000 levels deep", "business_event", outcome(metadata=nested(5_000))),
    ("metadata one byte over 64 KiB", "business_event", outcome(metadata={"p": "x" * (PAD + 1)})),
    ("metadata a list", "business_event", outcome(metadata=[1])),
    ("metadata holding NaN", "business_event", outcome(metadata={"n": float("nan")})),
    ("latency_ms over a day", "model_call", model_call(latency_ms=C.MAX_LATENCY_MS + 1)),
    ("latency_ms negative", "model_call", model_call(latency_ms=-0.5)),
    ("latency_ms None", "model_call", model_call(latency_ms=None)),
    ("input_tokens fractional", "model_call", model_call(input_tokens=1.5)),
    ("output_tokens over a billion", "model_call", model_call(output_tokens=C.MAX_TOKENS + 1)),
    ("cost_usd over a million", "model_call", model_call(cost_usd=1_000_000.01)),
    ("cost_usd infinite", "model_call", model_call(cost_usd=float("inf"))),
    ("model over 200", "model_call", model_call(model="m" * 201)),
    ("NUL in error", "model_call", model_call(error="bad\x00byte")),
    ("error over 4,000", "model_call", model_call(error="e" * 4_001)),
    ("unpaired surrogate in prompt", "model_call", model_call(prompt="\udfff")),
    ("response over 200,000 UTF-16 units", "model_call", model_call(response="\U0001f600" * 100_001)),
]


@pytest.fixture
def client(fake: FakeArbiter, make_client: Any) -> Arbiter:
    made: Arbiter = make_client(
        base_url=fake.url, experiments=[EXPERIMENT_NAME], track_exposures=False, flush_interval=3600.0
    )
    assert made.ready(timeout=30)
    return made


@pytest.mark.parametrize("event, payload", [(e, p) for _, e, p in REFUSED], ids=[name for name, _, _ in REFUSED])
def test_an_event_the_api_would_refuse_is_dropped_with_one_log_line(
    client: Arbiter, caplog: pytest.LogCaptureFixture, event: str, payload: Dict[str, Any]
) -> None:
    caplog.set_level(logging.INFO, logger="arbiter")
    client.track(event, payload)  # raising here fails the test
    assert client.stats()["queued"] == 0
    lines = [r for r in caplog.records if r.name == "arbiter"]
    assert len(lines) == 1 and "event dropped" in lines[0].getMessage(), [r.getMessage() for r in lines]


def test_values_on_the_limits_are_queued_and_sent(client: Arbiter, fake: FakeArbiter, warnings_log: Any) -> None:
    limit = -C.MAX_ABS_BUSINESS_VALUE
    client.track("business_event", outcome(user_id="low", value=limit, metadata=nested(C.METADATA_MAX_DEPTH)))
    client.track(
        "business_event",
        outcome(
            user_id="high", value=float(C.MAX_ABS_BUSINESS_VALUE), business_metric="m" * 128, metadata={"p": "x" * PAD}
        ),
    )
    client.track(
        "business_event",
        outcome(
            user_id="u" * C.MAX_USER_ID_LENGTH,
            variant="v" * 64,
            metadata={"emoji": "ok \U0001f600", "deep": [[["fine"]]]},
        ),
    )
    client.track(
        "model_call",
        model_call(
            latency_ms=C.MAX_LATENCY_MS,
            input_tokens=C.MAX_TOKENS,
            output_tokens=2.0,
            cost_usd=C.MAX_COST_USD,
            model="m" * 200,
            error="e" * 4_000,
            response="\U0001f600" * 100_000,
        ),
    )
    client.track(
        "model_call",
        model_call(
            user_id="zero", latency_ms=0, input_tokens=0, output_tokens=0, cost_usd=0.0, model="", error=None, prompt=""
        ),
    )
    assert client.stats()["queued"] == 5
    client.flush()
    assert warnings_log.records == []
    stored = {e["user_id"]: e for e in fake.stored.values()}
    assert stored["low"]["value"] == limit and stored["low"]["metadata"] == nested(C.METADATA_MAX_DEPTH)
    assert len(stored["high"]["metadata"]["p"]) == PAD
    assert stored["user-1"]["input_tokens"] == C.MAX_TOKENS and stored["zero"]["error"] is None
    assert all(e["experiment_id"] == EXPERIMENT_ID for e in stored.values())


def test_a_model_call_the_api_would_refuse_is_not_recorded_and_the_exposure_goes(
    client: Arbiter, fake: FakeArbiter, warnings_log: Any
) -> None:
    def failing(variant: Any) -> Any:
        raise RuntimeError("bad\x00byte")

    with pytest.raises(RuntimeError, match="bad"):
        client.intercept_model_call(EXPERIMENT_NAME, "i-5", failing)
    client.flush()
    kinds = [e["type"] for e in fake.stored.values() if e["user_id"] == "i-5"]
    assert kinds == ["exposure"]
    assert [r.getMessage() for r in warnings_log.records] == [
        "model_call not recorded: error holds a NUL character or an unpaired surrogate"
    ]
