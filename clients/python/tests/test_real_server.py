"""Against the real server (``arbiter serve``, started once per session): local assign equal to
``POST /v1/assign`` for 10,000 users, tracked events stored exactly once, and a PUT seen through
polling and through an ingest ack."""

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

from arbiter import Arbiter
from arbiter._core.bucketing.bucketing import bucket_of
from support.arbiter_server import ArbiterServer, AssignCaller, Org, create_experiment, new_org
from support.wait import wait_until


def user_ids() -> List[str]:
    """10,000 ids: ASCII, CJK, astral (emoji), NFC and NFD accents, spaces and tabs."""
    shapes = ["user-%d", "用户-%d", "\U0001f600-%d-\U0001f680", "caf\u00e9-%d", "cafe\u0301-%d", " Ünï cödé\t%d "]
    return [shapes[i % len(shapes)] % i for i in range(10_000)]


def server_assign(caller: AssignCaller, experiment: str, users: List[str]) -> Dict[str, Optional[str]]:
    def one(user: str) -> Tuple[str, Optional[str]]:
        status, body = caller.assign(experiment, user)
        assert status == 200, (user, body)
        return user, body["variant"]

    with ThreadPoolExecutor(4) as pool:
        return dict(pool.map(one, users))


def rule_variant(experiment: Dict[str, Any], user: str) -> Optional[str]:
    """docs/decisions/experiments.md#bucketing written out: the whole key hashed, the range of the
    server's bucket map."""
    bucket = bucket_of(experiment["salt"], user, experiment["bucket_count"])
    for run in experiment["bucket_ranges"]:
        if run["start"] <= bucket < run["end"]:
            return str(run["variant"])
    return None


def test_assign_equals_the_server_for_10000_users_by_name_and_by_id(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(
        org,
        name="parity",
        salt="parity-salt",
        bucket_count=10_000,
        allocation=[
            {"variant": "control", "weight": 30},
            {"variant": "concise", "weight": 30},
            {"variant": "formal", "weight": 30},
        ],
        variants=[
            {"key": "control", "prompt": "P-control"},
            {"key": "concise", "prompt": "P-concise"},
            {"key": "formal", "prompt": "P-formal", "variables": {"style": {"register": "formal"}}},
        ],
    )
    client = Arbiter(api_key=org.publishable, base_url=server.url, experiments=["parity"], track_exposures=False)
    try:
        assert client.ready(timeout=60) is True
        users = user_ids()
        caller = AssignCaller(server.url, org.secret)
        by_name = server_assign(caller, "parity", users)
        by_id = server_assign(caller, experiment["id"], users)
        mismatches = [
            u
            for u in users
            if not by_name[u] == by_id[u] == client.assign("parity", u) == client.assign(experiment["id"], u)
        ]
        assert mismatches == []
        counts = {v: sum(1 for u in users if by_name[u] == v) for v in ("control", "concise", "formal", None)}
        assert all(2_700 < counts[v] < 3_300 for v in ("control", "concise", "formal")), counts
        assert 850 < counts[None] < 1_150, counts

        # Prompts and variables are the variant's; the rule written out agrees with the server.
        for user in users[:300]:
            assert rule_variant(experiment, user) == by_name[user]
            variant = by_name[user]
            prompt = client.get_prompt("parity", user, "DEFAULT")
            assert prompt == (variant, "P-" + variant, False) if variant else prompt == (None, "DEFAULT", True)
        formal = next(u for u in users if by_name[u] == "formal")
        assert client.get_variables("parity", formal, {"t": 1}) == {"t": 1, "style": {"register": "formal"}}

        # Ids the server refuses are checked against the vectors' rule: a lone surrogate is
        # U+FFFD; an id over 256 characters buckets like any other.
        for user in (
            "x\ud800y",
            "\udc00",
            "a\ud83d",
            "\ud83d\ude00".encode("utf-16-le", "surrogatepass").decode("utf-16-le"),
        ):
            replaced = user.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
            assert client.assign("parity", user) == server_assign(caller, "parity", [replaced])[replaced]
        long_ids = ["L%d-" % i + "\u00e9" * 300 for i in range(50)]
        assert [client.assign("parity", u) for u in long_ids] == [rule_variant(experiment, u) for u in long_ids]
        status, _ = caller.assign("parity", long_ids[0])
        assert status == 400
    finally:
        client.close()


def random_attributes(rng: random.Random) -> Dict[str, Any]:
    """Attributes of the shapes targeting reads: strings, numbers, versions, nested, missing."""
    out: Dict[str, Any] = {}
    for field, choices in (
        ("plan", ["free", "pro", "team", "PRO"]),
        ("locale", ["en-US", "EN-gb", "fr-FR", ""]),
        ("country", ["US", "CU", "FR", 7]),
        ("age", [12, 18, 40.5, "30"]),
        ("id", ["u-1", "u-2", "u-3"]),
    ):
        if rng.random() < 0.85:
            out[field] = rng.choice(choices)
    if rng.random() < 0.85:
        out["app"] = {"version": rng.choice(["2.3.9", "2.4.0", "2.10.1", "v3.0.0-beta"])}
    return out


LAYERED = {
    # The layer's experiments: their weights fill the layer, so each layer bucket has one owner.
    "layered-targeted": {"layer_weight": 50, "targeting": {"locale": {"$regexi": "^en"}}},
    "layered-open": {"layer_weight": 40},
    "layered-held": {"layer_weight": 10},
}
HELD = ["held-open", "layered-held"]


def live_arms(org: Org, experiment_id: str) -> Dict[str, int]:
    """Stored exposures per arm, from the live view (``GET /v1/experiments/{id}/live``)."""
    status, live = org.session.call("GET", "/v1/experiments/%s/live" % experiment_id)
    assert status == 200, live
    return {arm: v["exposures"] for arm, v in live["arms"].items() if v["exposures"]}


def test_targeted_assign_equals_the_server_for_10000_users_with_random_attributes(server: ArbiterServer) -> None:
    """A targeted experiment, three experiments sharing one layer (one of them targeted), and a
    holdout over one experiment outside the layer and one inside it: the client answers as
    ``POST /v1/assign`` for every user and experiment, and sends exactly the exposures it should."""
    org = new_org(server)
    status, body = org.session.call("POST", "/v1/saved-groups", {"key": "beta", "values": ["u-1", 7]})
    assert status == 201, body
    targeting = {
        "$or": [
            {"id": {"$inGroup": "beta"}},
            {
                "plan": {"$ini": ["pro", "team"]},
                "locale": {"$regexi": "^en"},
                "app.version": {"$vgte": "2.4.0"},
                "country": {"$notInGroup": "beta", "$nin": ["CU"]},
                "age": {"$gte": 18},
            },
        ]
    }
    allocation = [{"variant": "control", "weight": 45}, {"variant": "treatment", "weight": 45}]
    ids = {
        "targeted-parity": create_experiment(org, name="targeted-parity", targeting=targeting, allocation=allocation)[
            "id"
        ]
    }
    status, body = org.session.call(
        "POST", "/v1/layers", {"name": "py-layer", "salt": "py-layer-salt", "bucket_count": 1000}
    )
    assert status == 201, body
    for name, joins in LAYERED.items():
        made = create_experiment(org, name=name, salt="salt-" + name, layer="py-layer", allocation=allocation, **joins)
        ids[name] = made["id"]
    ids["held-open"] = create_experiment(org, name="held-open", salt="salt-held-open", allocation=allocation)["id"]
    status, holdout = org.session.call(
        "POST",
        "/v1/holdouts",
        {"name": "py-holdout", "salt": "py-holdout-salt", "bucket_count": 1000, "percent": 10, "experiments": HELD},
    )
    assert status == 201, holdout
    client = Arbiter(
        api_key=org.publishable,
        base_url=server.url,
        experiments=list(ids),
        flush_interval=3600.0,
        batch_size=1000,
        queue_capacity=100_000,  # every exposure of the run (about 25,000) before the one flush
    )
    try:
        assert client.ready(timeout=60) is True
        rng = random.Random(29)
        users = ["user-%d" % i for i in range(10_000)]
        attributes = {u: random_attributes(rng) for u in users}
        caller = AssignCaller(server.url, org.secret)

        def answers(experiment: str) -> Dict[str, Dict[str, Any]]:
            def one(user: str) -> Tuple[str, Dict[str, Any]]:
                status, body = caller.assign(experiment, user, attributes[user])
                assert status == 200, (user, body)
                return user, body

            with ThreadPoolExecutor(4) as pool:
                return dict(pool.map(one, users))

        expected = {name: answers(name) for name in ids}
        mismatches = [
            (name, u)
            for name in ids
            for u in users
            if client.assign(name, u, attributes[u]) != expected[name][u]["variant"]
        ]
        assert mismatches == []

        def where(name: str, test: Any) -> List[str]:
            return [u for u in users if test(expected[name][u])]

        admitted = len(where("targeted-parity", lambda a: a["variant"] is not None))
        # both sides of the targeting, and both arms, are in the sample
        assert 500 < admitted < 9_000, admitted
        assert {expected["targeted-parity"][u]["variant"] for u in users} == {"control", "treatment", None}

        # The layer: no user has a variant in two of its experiments; each of them enrols users.
        shared = [u for u in users if sum(expected[n][u]["variant"] is not None for n in LAYERED) > 1]
        assert shared == []
        for name in LAYERED:
            assert len(where(name, lambda a: a["variant"] is not None)) > 200, name
            assert len(where(name, lambda a: a.get("reason") == "not_in_layer")) > 3_000, name
        excluded = where("layered-targeted", lambda a: a.get("reason") == "not_targeted")
        assert len(excluded) > 500

        # The holdout: the same users are held out of both its experiments, null in the client.
        held_out = where("held-open", lambda a: a.get("reason") == "held_out")
        assert where("layered-held", lambda a: a.get("reason") == "held_out") == held_out
        assert 500 < len(held_out) < 2_000, len(held_out)
        assert [(n, u) for n in HELD for u in held_out if client.assign(n, u, attributes[u]) is not None] == []
        for name in ("targeted-parity", "layered-targeted", "layered-open"):
            assert where(name, lambda a: a.get("reason") == "held_out") == [], name

        client.flush()
        enrolled = {name: where(name, lambda a: a["variant"] is not None) for name in ids}
        # One exposure per enrolled user and experiment, and one holdout exposure per user (every
        # user reaches the holdout, which comes first): nothing for users the targeting turned away.
        sent = sum(len(v) for v in enrolled.values()) + len(users)
        stats = client.stats()
        assert (stats["sent"], stats["dropped"]) == (sent, 0), stats
        want = {
            name: {
                arm: n
                for arm in ("control", "treatment")
                for n in [sum(1 for u in enrolled[name] if expected[name][u]["variant"] == arm)]
                if n
            }
            for name in ids
        }
        wait_until(
            lambda: all(live_arms(org, ids[name]) == arms for name, arms in want.items()),
            "the live view counts each experiment's exposures",
        )
        # A holdout has no live view (GET /v1/experiments/{id}/live is for experiments): the usage
        # meter, once per stored event, shows the server took the rest, one holdout exposure per user.
        status, usage = org.session.call("GET", "/v1/usage")
        assert status == 200 and usage["events"]["used"] == sent, usage
    finally:
        client.close()


def test_tracked_events_are_stored_exactly_once(server: ArbiterServer, caplog: Any) -> None:
    org = new_org(server)
    experiment = create_experiment(org, name="once")
    client = Arbiter(
        api_key=org.publishable, base_url=server.url, experiments=["once"], flush_interval=3600.0, batch_size=50
    )
    try:
        assert client.ready(timeout=60) is True
        users = ["person-%d" % i for i in range(400)]
        variants = {u: client.assign("once", u) for u in users}
        for u in users:  # repeat assignments send no further exposure
            client.assign(experiment["id"], u)
        enrolled = [u for u in users if variants[u] is not None]
        for u in enrolled[:30]:
            client.track("business_event", experiment_id="once", user_id=u, business_metric="checkout", value=1)
        for u in enrolled[30:40]:
            client.track(
                "model_call",
                {
                    "experiment_id": experiment["id"],
                    "user_id": u,
                    "latency_ms": 12.5,
                    "input_tokens": 10,
                    "output_tokens": 3,
                    "model": "gpt-4o-mini",
                    "error": None,
                },
            )
        # Events the server would refuse are never queued: one log line each instead.
        client.track("business_event", experiment_id="once", user_id="nul\x00", business_metric="checkout", value=1)
        client.track("business_event", experiment_id="once", user_id="x" * 257, business_metric="checkout", value=1)
        client.track("business_event", experiment_id="once", user_id=enrolled[0], business_metric="lone\udc00", value=1)
        long_user = "y" * 300
        client.assign("once", long_user)  # buckets, but sends no exposure the server would refuse
        client.flush()
        stats = client.stats()
        expected = len(enrolled) + 40
        assert stats == {"queued": 0, "sent": expected, "dropped": 0, "spilled": 0, "replayed": 0, "expired": 0}
        assert sum("event dropped" in r.getMessage() for r in caplog.records) == 3

        status, usage = org.session.call("GET", "/v1/usage")
        assert status == 200 and usage["events"]["used"] == expected

        def live_exposures() -> Dict[str, int]:
            status, live = org.session.call("GET", "/v1/experiments/%s/live" % experiment["id"])
            assert status == 200
            return {arm: v["exposures"] for arm, v in live["arms"].items() if v["exposures"]}

        want = {v: sum(1 for u in enrolled if variants[u] == v) for v in ("control", "treatment")}
        wait_until(lambda: live_exposures() == want, "the live view counts each exposure once")
    finally:
        client.close()


def test_a_put_is_seen_through_polling_and_through_an_ingest_ack(server: ArbiterServer) -> None:
    org = new_org(server)
    allocation = [{"variant": "control", "weight": 45}, {"variant": "treatment", "weight": 45}]
    experiment = create_experiment(org, name="moving", allocation=allocation)
    watcher = Arbiter(
        api_key=org.publishable,
        base_url=server.url,
        experiments=["moving"],
        track_exposures=False,
        poll_interval=0.1,
    )
    sender = Arbiter(
        api_key=org.publishable,
        base_url=server.url,
        experiments=["moving"],
        track_exposures=False,
        poll_interval=3600.0,
        flush_interval=3600.0,
    )
    try:
        assert watcher.ready(timeout=60) and sender.ready(timeout=60)
        users = ["p-%d" % i for i in range(2_000)]
        before = {u: watcher.assign("moving", u) for u in users}
        status, _ = org.session.call(
            "PUT",
            "/v1/experiments/%s" % experiment["id"],
            {
                "allocation": [*allocation, {"variant": "playful", "weight": 10}],
                "variants": [*experiment["variants"], {"key": "playful", "prompt": "Joke first."}],
            },
        )
        assert status == 200
        caller = AssignCaller(server.url, org.secret)
        after = server_assign(caller, "moving", users)
        newcomers = [u for u in users if after[u] == "playful"]
        assert newcomers and all(before[u] is None for u in newcomers)
        probe = newcomers[0]

        wait_until(lambda: watcher.assign("moving", probe) == "playful", "polling brings the new version")
        assert [u for u in users if watcher.assign("moving", u) != after[u]] == []
        assert watcher.get_prompt("moving", probe, "d") == ("playful", "Joke first.", False)

        # The sender polls hourly: only the ack of its next batch tells it the config moved.
        assert sender.assign("moving", probe) is None
        sender.track("business_event", experiment_id="moving", user_id=probe, business_metric="checkout", value=0)
        sender.flush()
        wait_until(lambda: sender.assign("moving", probe) == "playful", "the ack's config_version triggers a refresh")
    finally:
        watcher.close()
        sender.close()
