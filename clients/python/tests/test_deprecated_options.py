"""0.1.0's constructor forms (``base_url`` and ``experiments`` positionally, durations in
milliseconds under ``…_ms`` names) keep working for one release, each with a DeprecationWarning
that points at the caller's line and names its replacement."""

import warnings
from typing import Any, Dict, Iterator, List

import pytest

from arbiter import Arbiter
from conftest import FAST
from support.fake_arbiter import EXPERIMENT_NAME, FakeArbiter
from support.wait import wait_until


def fast_except(*names: str) -> Dict[str, Any]:
    """conftest's FAST options without those a test passes in their old form."""
    return {k: v for k, v in FAST.items() if k not in names}


@pytest.fixture
def made() -> Iterator[List[Arbiter]]:
    clients: List[Arbiter] = []
    yield clients
    for c in clients:
        c.close(timeout=5)


def deprecations(caught: List[warnings.WarningMessage]) -> List[str]:
    """The messages of the DeprecationWarnings raised at this file's lines (stacklevel=2)."""
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, DeprecationWarning))
    return [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]


def test_positional_base_url_and_experiments_still_work_with_a_warning(fake: FakeArbiter, made: List[Arbiter]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = Arbiter("k", fake.url, [EXPERIMENT_NAME, "missing"], **FAST)  # type: ignore[misc]
    made.append(client)
    assert deprecations(caught) == [
        "Arbiter(): passing base_url positionally is deprecated: pass base_url=...;"
        " the next minor release of arbiter-client removes it.",
        "Arbiter(): passing experiments positionally is deprecated: pass experiments=...;"
        " the next minor release of arbiter-client removes it.",
    ]
    # The server is the positional one, and ready() waits for the positional experiments.
    assert client.ready(timeout=30) is False  # "missing" is not in the config
    assert fake.api_keys[0] == "k"
    assert client.assign(EXPERIMENT_NAME, "u-1") is not None


def test_millisecond_intervals_still_work_in_milliseconds(fake: FakeArbiter, made: List[Arbiter]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = Arbiter(
            api_key="k",
            base_url=fake.url,
            track_exposures=False,
            poll_interval_ms=20,  # type: ignore[call-arg]
            flush_interval_ms=20,
            **fast_except("poll_interval", "flush_interval"),
        )
    made.append(client)
    assert deprecations(caught) == [
        "Arbiter(poll_interval_ms=...) is deprecated: pass poll_interval=... in seconds;"
        " the next minor release of arbiter-client removes it.",
        "Arbiter(flush_interval_ms=...) is deprecated: pass flush_interval=... in seconds;"
        " the next minor release of arbiter-client removes it.",
    ]
    # 20 ms, not 20 s: the config is polled again and an event leaves without flush().
    wait_until(lambda: fake.config_statuses.count(304) >= 2, "the config is polled every 20 ms")
    client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="u", business_metric="m", value=1)
    wait_until(lambda: client.stats()["sent"] == 1, "the background flush runs every 20 ms")


def test_millisecond_retry_options_still_work_in_milliseconds(fake: FakeArbiter, made: List[Arbiter]) -> None:
    fake.plan(("status", 500), ("status", 429, {"Retry-After": "120"}))
    waits: List[float] = []
    with pytest.warns(DeprecationWarning) as caught:
        client = Arbiter(
            api_key="k",
            base_url=fake.url,
            sleep=waits.append,
            retry_base_delay_ms=500,  # type: ignore[call-arg]
            retry_max_delay_ms=800,
            retry_after_cap_ms=40,
            **fast_except("retry_base_delay", "retry_max_delay", "retry_after_cap"),
        )
    made.append(client)
    assert sorted(str(w.message).split("=")[0] for w in caught) == [
        "Arbiter(retry_after_cap_ms",
        "Arbiter(retry_base_delay_ms",
        "Arbiter(retry_max_delay_ms",
    ]
    client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="u", business_metric="m", value=1)
    client.flush()
    # 500 ms less up to 25 % jitter, then a Retry-After of 120 s capped at 40 ms.
    assert len(waits) == 2 and 0.375 <= waits[0] <= 0.5 and waits[1] == 0.04
    assert client.stats()["sent"] == 1


def test_a_millisecond_request_timeout_still_works_in_milliseconds(
    fake: FakeArbiter, made: List[Arbiter], warnings_log: Any
) -> None:
    fake.plan(("hang", 1.0))
    with pytest.warns(DeprecationWarning, match="pass request_timeout=... in seconds"):
        client = Arbiter(
            api_key="k",
            base_url=fake.url,
            request_timeout_ms=100,  # type: ignore[call-arg]
            max_attempts=1,
            **fast_except("request_timeout"),
        )
    made.append(client)
    client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="u", business_metric="m", value=1)
    client.flush()
    lines = [r.getMessage() for r in warnings_log.records if "dropped" in r.getMessage()]
    assert lines == ["dropped 1 events, API unreachable and no offline store: timed out after 100 ms"]


def test_mixing_an_old_and_a_new_form_of_one_option_is_an_error() -> None:
    with pytest.raises(TypeError, match="both poll_interval_ms and poll_interval"):
        Arbiter(api_key="k", poll_interval=1.0, poll_interval_ms=1000)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for argument 'base_url'"):
        Arbiter("k", "http://a", base_url="http://b")  # type: ignore[misc]
    with pytest.raises(TypeError, match="at most 3 positional arguments"):
        Arbiter("k", "http://a", [], "/tmp/events.ndjson")  # type: ignore[misc]


def test_an_unknown_option_is_still_an_error() -> None:
    with pytest.raises(TypeError, match="poll_intervall"):
        Arbiter(api_key="k", poll_intervall=1.0)  # type: ignore[call-arg]
