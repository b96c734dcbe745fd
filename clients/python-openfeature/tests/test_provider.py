"""The provider through the real OpenFeature SDK (``openfeature-sdk``) against the real server:
10,000 users resolve to the client's ``assign``; every resolution type; ``track`` stored as a
business event; CONFIGURATION_CHANGED after a PUT; STALE and READY as the server goes and
comes back; every error code in its case."""

import datetime
import json
import threading
import urllib.request
from typing import Any, Callable, Dict, List

import pytest
from arbiter import Arbiter
from arbiter_openfeature import ArbiterProvider
from openfeature import api
from openfeature.evaluation_context import EvaluationContext
from openfeature.event import EventDetails, ProviderEvent
from openfeature.exception import ErrorCode
from openfeature.flag_evaluation import Reason
from openfeature.track import TrackingEventDetails
from support.arbiter_server import ArbiterServer, Org, create_experiment, experiment_config, new_org
from support.wait import wait_until

VARIANTS = [
    {"key": "control", "variables": {"tone": "plain", "max_tokens": 200, "ratio": 0.5, "bold": False}},
    {"key": "concise", "variables": {"tone": "short", "max_tokens": 80, "ratio": 0.25, "bold": True}},
    {
        "key": "formal",
        "variables": {"tone": "formal", "max_tokens": 300, "ratio": 1.5, "bold": False, "style": {"a": 1}},
    },
]
ALLOCATION = [{"variant": v["key"], "weight": 30} for v in VARIANTS]


def quiet_client(org: Org, server: ArbiterServer, **options: Any) -> Arbiter:
    settings: Dict[str, Any] = dict(poll_interval=0.2, flush_interval=3600.0, max_attempts=1)
    settings.update(options)
    return Arbiter(api_key=org.publishable, base_url=server.url, **settings)


@pytest.fixture(autouse=True)
def clean_sdk() -> Any:
    yield
    api.shutdown()
    api.clear_providers()


def test_10000_users_resolve_to_the_clients_assign_with_every_type(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(org, name="copy", bucket_count=10_000, allocation=ALLOCATION, variants=VARIANTS)
    reference = quiet_client(org, server, track_exposures=False)
    api.set_provider_and_wait(ArbiterProvider(quiet_client(org, server, track_exposures=False)), "parity")
    flags = api.get_client("parity")
    try:
        assert reference.ready(timeout=60)
        users = ["of-user-%d" % i for i in range(10_000)]
        mismatches = []
        for user in users:
            want = reference.assign("copy", user)
            details = flags.get_string_details("copy", "none", EvaluationContext(user))
            got = details.value if details.reason == Reason.SPLIT else None
            if got != want or details.variant != want:
                mismatches.append(user)
        assert mismatches == []

        formal = next(u for u in users if reference.assign("copy", u) == "formal")
        excluded = next(u for u in users if reference.assign("copy", u) is None)
        ctx = EvaluationContext(formal, {"plan": "pro"})
        obj = flags.get_object_details("copy", {}, ctx)
        assert obj.value == VARIANTS[2]["variables"]
        assert (obj.variant, obj.reason) == ("formal", Reason.SPLIT)
        assert obj.flag_metadata["experimentId"] == experiment["id"]
        assert isinstance(obj.flag_metadata["configVersion"], int)
        assert flags.get_integer_value("copy:max_tokens", 1, ctx) == 300
        assert flags.get_float_value("copy:ratio", 0.0, ctx) == 1.5
        assert flags.get_boolean_value("copy:bold", True, ctx) is False
        assert flags.get_string_value("%s:tone" % experiment["id"], "x", ctx) == "formal"
        assert flags.get_object_value("copy:style", {}, ctx) == {"a": 1}
        absent = flags.get_integer_details("copy:missing", 7, ctx)
        assert (absent.value, absent.variant, absent.reason, absent.error_code) == (7, "formal", Reason.DEFAULT, None)
        out = flags.get_string_details("copy", "none", EvaluationContext(excluded))
        assert (out.value, out.variant, out.reason) == ("none", None, Reason.DEFAULT)

        # Every error code in its case.
        assert flags.get_string_details("nope", "d", ctx).error_code == ErrorCode.FLAG_NOT_FOUND
        assert flags.get_string_details("copy", "d", EvaluationContext()).error_code == ErrorCode.TARGETING_KEY_MISSING
        assert flags.get_boolean_details("copy", False, ctx).error_code == ErrorCode.TYPE_MISMATCH
        assert flags.get_integer_details("copy", 0, ctx).error_code == ErrorCode.TYPE_MISMATCH
        typed = flags.get_boolean_details("copy:tone", False, ctx)
        assert (typed.value, typed.error_code) == (False, ErrorCode.TYPE_MISMATCH)
    finally:
        reference.close()


def test_provider_not_ready_and_error_when_the_server_cannot_be_reached() -> None:
    unreachable = Arbiter(api_key="svc_pk_unreachable", base_url="http://127.0.0.1:9", max_attempts=1)
    provider = ArbiterProvider(unreachable, ready_timeout=30)
    # Called directly, the provider says the config is not loaded.
    direct = provider.resolve_string_details("copy", "d", EvaluationContext("u"))
    assert direct.error_code == ErrorCode.PROVIDER_NOT_READY
    errors: List[EventDetails] = []
    api.add_handler(ProviderEvent.PROVIDER_ERROR, errors.append)
    try:
        api.set_provider(provider, "down")
        wait_until(lambda: len(errors) > 0, "PROVIDER_ERROR")
        details = api.get_client("down").get_string_details("copy", "d", EvaluationContext("u"))
        assert (details.value, details.reason) == ("d", Reason.ERROR)
    finally:
        api.remove_handler(ProviderEvent.PROVIDER_ERROR, errors.append)


def stored_events(server: ArbiterServer, org: Org, experiment: str) -> List[Dict[str, Any]]:
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    req = urllib.request.Request(
        "%s/v1/events/export?experiment=%s&day=%s" % (server.url, experiment, day), headers={"X-API-Key": org.secret}
    )
    with urllib.request.urlopen(req, timeout=30) as res:
        return [json.loads(line) for line in res.read().decode().splitlines() if line]


def test_track_is_a_business_event_and_shutdown_flushes_it_with_one_exposure(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(org, name="tracked", bucket_count=10_000)
    api.set_provider_and_wait(ArbiterProvider(quiet_client(org, server)), "tracked")
    flags = api.get_client("tracked")
    user = next(
        u
        for u in ("t-%d" % i for i in range(1000))
        if flags.get_string_details("tracked", "none", EvaluationContext(u)).reason == Reason.SPLIT
    )
    flags.get_string_value("tracked", "none", EvaluationContext(user))
    flags.get_object_value(experiment["id"], {}, EvaluationContext(user))
    flags.track(
        "checkout", EvaluationContext(user), TrackingEventDetails(42.5, {"experiment": "tracked", "plan": "pro"})
    )
    # Nothing sent yet (the flush interval is an hour): the SDK's shutdown flushes.
    api.shutdown()
    events = stored_events(server, org, "tracked")
    assert len([e for e in events if e["type"] == "exposure" and e["user_id"] == user]) == 1
    business = [e for e in events if e["type"] == "business_event"]
    assert len(business) == 1
    assert {k: business[0][k] for k in ("user_id", "business_metric", "value", "experiment_id", "metadata")} == {
        "user_id": user,
        "business_metric": "checkout",
        "value": 42.5,
        "experiment_id": experiment["id"],
        "metadata": {"plan": "pro"},
    }


def test_configuration_changed_after_a_put_then_stale_and_ready(tmp_path: Any) -> None:
    # A server of its own: this test stops it and starts it again on the same port.
    from conftest import REPO_ROOT

    own = ArbiterServer(REPO_ROOT).start()
    try:
        org = new_org(own)
        experiment = create_experiment(org, name="moving", bucket_count=10_000)
        seen: List[str] = []
        lock = threading.Lock()

        def record(kind: str) -> Callable[[EventDetails], None]:
            def handler(_: EventDetails) -> None:
                with lock:
                    seen.append(kind)

            return handler

        api.set_provider_and_wait(ArbiterProvider(quiet_client(org, own)), "moving")
        flags = api.get_client("moving")
        for event in (
            ProviderEvent.PROVIDER_CONFIGURATION_CHANGED,
            ProviderEvent.PROVIDER_STALE,
            ProviderEvent.PROVIDER_READY,
        ):
            flags.add_handler(event, record(event.value))
        before = flags.get_string_details("moving", "none", EvaluationContext("m-1"))
        status, _ = org.session.call(
            "PUT",
            "/v1/experiments/%s" % experiment["id"],
            experiment_config(
                name="moving",
                bucket_count=10_000,
                allocation=[{"variant": "control", "weight": 40}, {"variant": "treatment", "weight": 40}],
            ),
        )
        assert status == 200
        wait_until(lambda: ProviderEvent.PROVIDER_CONFIGURATION_CHANGED.value in seen, "CONFIGURATION_CHANGED")
        after = flags.get_string_details("moving", "none", EvaluationContext("m-1"))
        assert after.flag_metadata["configVersion"] != before.flag_metadata["configVersion"]

        ready_before = seen.count(ProviderEvent.PROVIDER_READY.value)
        port = own.url.rsplit(":", 1)[1]
        own.stop_process()
        wait_until(lambda: ProviderEvent.PROVIDER_STALE.value in seen, "STALE")
        assert flags.get_string_value("moving", "none", EvaluationContext("m-1")) == after.value
        own.env["ARBITER_PORT"] = port
        own.start()
        wait_until(lambda: seen.count(ProviderEvent.PROVIDER_READY.value) > ready_before, "READY again")
    finally:
        own.stop()


def test_stopped_is_static_draft_is_disabled_and_archived_is_not_found(server: ArbiterServer) -> None:
    org = new_org(server)
    shipped = create_experiment(org, name="shipped", bucket_count=10_000)
    create_experiment(org, name="not-yet", status="draft")
    status, _ = org.session.call(
        "POST", "/v1/experiments/%s/stop" % shipped["id"], {"conclusion": "ship", "variant": "treatment"}
    )
    assert status == 200
    api.set_provider_and_wait(ArbiterProvider(quiet_client(org, server)), "lifecycle")
    flags = api.get_client("lifecycle")
    ctx = EvaluationContext("anyone")
    static = flags.get_string_details("shipped", "none", ctx)
    assert (static.value, static.variant, static.reason) == ("treatment", "treatment", Reason.STATIC)
    assert flags.get_float_value("shipped:temperature", 0.0, ctx) == 0.2
    disabled = flags.get_string_details("not-yet", "none", ctx)
    assert (disabled.value, disabled.reason) == ("none", Reason.DISABLED)
    # Archived: absent from the config, so not found, as OFREP answers it.
    changed = threading.Event()
    flags.add_handler(ProviderEvent.PROVIDER_CONFIGURATION_CHANGED, lambda details: changed.set())
    status, _ = org.session.call("POST", "/v1/experiments/%s/archive" % shipped["id"])
    assert status == 200
    wait_until(changed.is_set, "CONFIGURATION_CHANGED after the archive")
    archived = flags.get_string_details("shipped", "none", ctx)
    assert (archived.value, archived.reason, archived.error_code) == ("none", Reason.ERROR, ErrorCode.FLAG_NOT_FOUND)


def test_context_attributes_are_what_targeting_reads(server: ArbiterServer) -> None:
    org = new_org(server)
    create_experiment(org, name="pro-only", bucket_count=10_000, targeting={"plan": "pro"})
    api.set_provider_and_wait(ArbiterProvider(quiet_client(org, server, track_exposures=False)), "targeted")
    flags = api.get_client("targeted")
    users = ["p-%d" % i for i in range(200)]
    pro = [flags.get_string_details("pro-only", "none", EvaluationContext(u, {"plan": "pro"})).reason for u in users]
    free = [flags.get_string_details("pro-only", "none", EvaluationContext(u, {"plan": "free"})).reason for u in users]
    assert set(pro) == {Reason.SPLIT}
    assert set(free) == {Reason.DEFAULT}
