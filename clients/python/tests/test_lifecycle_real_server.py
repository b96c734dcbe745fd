"""Experiment lifecycle against the real server (``arbiter serve``): once an experiment is stopped
the next poll serves its shipped variant to everyone and the client sends no exposure of it; a
draft serves no one and sends nothing."""

from typing import Any, Dict, List

from arbiter import Arbiter
from support.arbiter_server import ArbiterServer, Org, create_experiment, new_org
from support.wait import wait_until

#: Polls often enough that "the next poll" comes within the test.
POLL = dict(poll_interval=0.2, flush_interval=3600.0)


def users(prefix: str, count: int = 10_000) -> List[str]:
    return ["%s-%d" % (prefix, i) for i in range(count)]


def transition(org: Org, experiment_id: str, action: str, body: Any = None) -> Dict[str, Any]:
    status, answer = org.session.call("POST", "/v1/experiments/%s/%s" % (experiment_id, action), body)
    assert status == 200, answer
    return answer  # type: ignore[no-any-return]


def exposures_of(org: Org, experiment_id: str) -> int:
    """Stored exposures of the experiment, every arm, from the live view."""
    status, live = org.session.call("GET", "/v1/experiments/%s/live" % experiment_id)
    assert status == 200, live
    return sum(arm["exposures"] for arm in live["arms"].values())


def test_a_stopped_experiment_serves_the_shipped_variant_and_sends_no_exposure(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(org, name="ship-me", bucket_count=10_000)
    client = Arbiter(api_key=org.publishable, base_url=server.url, experiments=["ship-me"], **POLL)
    try:
        assert client.ready(timeout=60) is True
        running = users("before")
        assert {client.assign("ship-me", u) for u in running} == {"control", "treatment"}
        client.flush(timeout=60)
        sent_while_running = client.stats()["sent"]
        assert sent_while_running == len(running)
        wait_until(lambda: exposures_of(org, experiment["id"]) == len(running), "the running exposures are stored")

        probe = next(u for u in running if client.assign("ship-me", u) == "control")
        stopped = transition(org, experiment["id"], "stop", {"conclusion": "ship", "variant": "treatment"})
        assert stopped["status"] == "stopped"
        wait_until(lambda: client.assign("ship-me", probe) == "treatment", "the next poll brings the stop")
        after = users("after")
        assert [client.assign("ship-me", u) for u in after] == ["treatment"] * len(after)
        assert [client.assign("ship-me", u) for u in running] == ["treatment"] * len(running)
        prompt = client.get_prompt("ship-me", after[0], "default")
        assert prompt == ("treatment", "Be concise.", False)
        assert client.get_variables("ship-me", after[1], {}) == {"temperature": 0.2}
        client.flush(timeout=60)
        stats = client.stats()
        assert (stats["sent"], stats["queued"], stats["dropped"]) == (sent_while_running, 0, 0)
        assert exposures_of(org, experiment["id"]) == len(running)
    finally:
        client.close(timeout=30)


def test_a_rolled_back_experiment_serves_the_control(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(org, name="roll-back", bucket_count=10_000)
    rolled_back = transition(org, experiment["id"], "stop", {"conclusion": "rollback", "reason": "worse"})
    assert rolled_back["stop"]["served_variant"] == "control"
    client = Arbiter(api_key=org.publishable, base_url=server.url, experiments=["roll-back"], **POLL)
    try:
        assert client.ready(timeout=60) is True
        assert {client.assign("roll-back", u) for u in users("rb", 2_000)} == {"control"}
        client.flush(timeout=60)
        assert client.stats()["sent"] == 0
    finally:
        client.close(timeout=30)


def test_a_draft_serves_no_one_and_sends_nothing_until_it_starts(server: ArbiterServer) -> None:
    org = new_org(server)
    draft = create_experiment(org, name="not-yet", bucket_count=10_000, status="draft")
    assert draft["status"] == "draft"
    client = Arbiter(api_key=org.publishable, base_url=server.url, experiments=["not-yet"], **POLL)
    try:
        assert client.ready(timeout=60) is True
        waiting = users("draft")
        assert [client.assign("not-yet", u) for u in waiting] == [None] * len(waiting)
        assert client.get_prompt("not-yet", waiting[0], "default") == (None, "default", True)
        client.flush(timeout=60)
        assert client.stats()["sent"] == 0
        assert exposures_of(org, draft["id"]) == 0

        transition(org, draft["id"], "start")
        wait_until(lambda: client.assign("not-yet", "probe") is not None, "the next poll brings the start")
        assert {client.assign("not-yet", u) for u in waiting[:1_000]} == {"control", "treatment"}
        client.flush(timeout=60)
        assert client.stats()["sent"] == 1_001
    finally:
        client.close(timeout=30)
