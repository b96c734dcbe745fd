"""Against the real server (``arbiter serve``): users with random attributes reach a targeted
experiment behind a holdout and a layer; the targeting tallies the client reports add up, on the
results page, to the users that reached the targeting as the server decides it, and no excluded
user sent an exposure."""

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Tuple

from arbiter import Arbiter
from support.arbiter_server import Api, ArbiterServer, AssignCaller, Org, create_experiment, new_org
from support.wait import wait_until

#: Enough for 200 exposures in each arm (about an eighth of the users each), the least a run
#: computes results from (``ARBITER_MIN_EVENTS_PER_ARM``).
USERS = 2_400
TARGETING = {"$and": [{"plan": {"$in": ["pro", "team"]}}, {"locale": {"$regexi": "^en"}}]}
#: A tenth of the buckets in no arm: some matched users are not enrolled.
ALLOCATION = [{"variant": "control", "weight": 45}, {"variant": "treatment", "weight": 45}]


def _created(org: Org, path: str, body: Dict[str, Any]) -> Dict[str, Any]:
    status, made = org.session.call("POST", path, body)
    assert status == 201, made
    return made  # type: ignore[no-any-return]


def _twins(org: Org) -> Tuple[str, str]:
    """``tallied`` (the client's) and ``oracle``, which decides every user as ``tallied`` does:
    the same salt, targeting and arms, the same holdout, and a layer of its own with the same
    salt, where it owns the same buckets. ``POST /v1/assign`` tallies its own checks, so the
    server is asked about the twin and ``tallied``'s counts are the client's alone."""
    ids = []
    for name in ("tallied", "oracle"):
        layer = _created(org, "/v1/layers", {"name": name + "-layer", "salt": "tally-layer-salt", "bucket_count": 100})
        made = create_experiment(
            org,
            name=name,
            salt="tallied-salt",
            targeting=TARGETING,
            layer=layer["name"],
            layer_weight=70,
            allocation=ALLOCATION,
        )
        ids.append(made["id"])
    _created(
        org,
        "/v1/holdouts",
        {
            "name": "tally-holdout",
            "salt": "tally-holdout-salt",
            "bucket_count": 100,
            "percent": 10,
            "experiments": ["tallied", "oracle"],
        },
    )
    return ids[0], ids[1]


def _random_attributes(rng: random.Random) -> Dict[str, Any]:
    """About a third of the users match TARGETING."""
    return {"plan": rng.choice(["free", "pro", "team"]), "locale": rng.choice(["en-US", "EN-gb", "de-DE"])}


def test_tallies_add_up_to_the_users_that_reached_the_targeting(server: ArbiterServer) -> None:
    org = new_org(server)
    tallied_id, oracle_id = _twins(org)
    status, config = Api(server.url, key=org.secret).call("GET", "/v1/config")
    assert status == 200, config
    twins = {e["id"]: e for e in config["experiments"] if e["id"] in (tallied_id, oracle_id)}
    same = ("salt", "bucket_count", "ranges", "targeting", "holdouts", "layer_ranges")
    assert [twins[tallied_id][k] for k in same] == [twins[oracle_id][k] for k in same]

    rng = random.Random(29)
    users: List[Tuple[str, Dict[str, Any]]] = [("tally-user-%d" % i, _random_attributes(rng)) for i in range(USERS)]
    caller = AssignCaller(server.url, org.secret)

    def reason(user: Tuple[str, Dict[str, Any]]) -> Tuple[str, str]:
        status, body = caller.assign("oracle", user[0], user[1])
        assert status == 200, body
        return user[0], body.get("reason", "enrolled")

    with ThreadPoolExecutor(4) as pool:
        reasons = dict(pool.map(reason, users))
    # Every branch is in the sample.
    assert set(reasons.values()) == {"held_out", "not_in_layer", "not_targeted", "not_enrolled", "enrolled"}
    reached = [u for u, r in reasons.items() if r not in ("held_out", "not_in_layer")]
    excluded = {u for u, r in reasons.items() if r == "not_targeted"}
    enrolled = {u for u, r in reasons.items() if r == "enrolled"}

    client = Arbiter(api_key=org.secret, base_url=server.url, flush_interval=3600.0, queue_capacity=100_000)
    try:
        assert client.ready(timeout=60) is True
        # Twice: a user counts once a day.
        for user, attributes in users + users:
            client.assign("tallied", user, attributes)
    finally:
        client.close()

    # The results page's share comes with a run: a preliminary one, over a window ending now.
    status, run = org.session.call("POST", "/v1/experiments/%s/analyze" % tallied_id, {})
    assert status == 200, run
    assert run["status"] == "computed", run
    status, results = org.session.call("GET", "/v1/experiments/%s/results" % tallied_id)
    assert status == 200, results
    share = results["targeting"]
    assert (share["matched"], share["excluded"]) == (len(reached) - len(excluded), len(excluded))
    assert share["days"] == 1

    # One exposure per enrolled user, none for an excluded one (the live view counts them).
    def exposures() -> int:
        status, live = org.session.call("GET", "/v1/experiments/%s/live" % tallied_id)
        assert status == 200, live
        return sum(arm["exposures"] for arm in live["arms"].values())

    wait_until(lambda: exposures() == len(enrolled), "the live view counts one exposure per enrolled user")
