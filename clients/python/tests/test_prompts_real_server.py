"""Stored prompts against the real server (``arbiter serve``): with no experiment 10,000 users get
the production version and no exposure is sent; with a running experiment on the prompt each user
gets their variant's version and one exposure a day; after a stop with ship every user gets the
shipped version from the next poll on."""

from typing import Any, Dict, List

from arbiter import Arbiter
from support.arbiter_server import ArbiterServer, Org, create_experiment, new_org
from support.wait import wait_until

POLL = dict(poll_interval=0.2, flush_interval=3600.0, queue_capacity=100_000)
PROMPT = "support-reply"
USERS: List[str] = ["user-%d" % i for i in range(10_000)]


def call(org: Org, method: str, path: str, body: Any = None) -> Dict[str, Any]:
    status, answer = org.session.call(method, path, body)
    assert 200 <= status < 300, answer
    return answer  # type: ignore[no-any-return]


def exposures_of(org: Org, experiment_id: str) -> int:
    live = call(org, "GET", "/v1/experiments/%s/live" % experiment_id)
    return sum(arm["exposures"] for arm in live["arms"].values())


def test_production_then_the_variants_version_then_the_shipped_one(server: ArbiterServer) -> None:
    org = new_org(server)
    call(org, "POST", "/v1/prompts", {"name": PROMPT})
    for text in ("Hello {{customer}}.", "Hi {{customer}}, briefly:"):
        call(org, "POST", "/v1/prompts/%s/versions" % PROMPT, {"text": text, "variables": ["customer"]})
    call(org, "PUT", "/v1/prompts/%s/labels/production" % PROMPT, {"version": 1})
    client = Arbiter(api_key=org.publishable, base_url=server.url, **POLL)
    try:
        assert client.ready(timeout=60) is True

        def get(user: str) -> Any:
            return client.prompts.get(PROMPT, user, "DEFAULT", variables={"customer": user})

        first = [get(u) for u in USERS]
        assert {(p.source, p.version) for p in first} == {("label", 1)}
        assert first[42].text == "Hello user-42."
        client.flush(timeout=60)
        assert client.stats()["sent"] == 0

        experiment = create_experiment(
            org,
            name="reply-test",
            variants=[
                {"key": "control", "prompt": {"name": PROMPT, "version": 1}},
                {"key": "treatment", "prompt": {"name": PROMPT, "version": 2}},
            ],
        )
        wait_until(lambda: get("user-0").source == "experiment", "the next poll brings the experiment")
        running = [get(u) for u in USERS]
        assert [get(u) for u in USERS] == running
        for user, p in zip(USERS, running):
            variant = client.assign("reply-test", user)
            assert (p.source, p.variant, p.version) == ("experiment", variant, 2 if variant == "treatment" else 1)
        client.flush(timeout=60)
        assert client.stats()["sent"] == len(USERS)
        wait_until(lambda: exposures_of(org, experiment["id"]) == len(USERS), "one exposure per user is stored")

        call(org, "POST", "/v1/experiments/%s/stop" % experiment["id"], {"conclusion": "ship", "variant": "treatment"})
        wait_until(lambda: get("user-0").source == "label", "the next poll brings the stop")
        shipped = [get(u) for u in USERS]
        assert {(p.source, p.version) for p in shipped} == {("label", 2)}
        assert shipped[3].text == "Hi user-3, briefly:"
        client.flush(timeout=60)
        assert client.stats()["sent"] == len(USERS)
    finally:
        client.close(timeout=30)
