"""Sends the targeting tallies the core counted, after each drain of the event queue."""

import json
import logging
from typing import Optional

from arbiter._core.events.targeting_tallies import MAX_TALLIES_PER_REQUEST, TargetingTallies
from arbiter._transport.transport import Transport


def send_tallies(
    tallies: TargetingTallies, transport: Transport, logger: logging.Logger, deadline: Optional[float]
) -> None:
    """Sends what ``tallies`` counted, a request per thousand, with the transport's retries. Best
    effort: refused tallies are dropped with a warning (a 400 would refuse them again),
    unreachable ones are put back for the next flush. Never raises."""
    try:
        taken = tallies.take()
        for i in range(0, len(taken), MAX_TALLIES_PER_REQUEST):
            chunk = taken[i : i + MAX_TALLIES_PER_REQUEST]
            body = json.dumps({"tallies": chunk}).encode("utf-8")
            result = transport.request("POST", "/v1/targeting-tallies", body=body, deadline=deadline)
            if result.kind == "unreachable":
                tallies.restore(taken[i:])
                return
            if result.kind == "refused":
                logger.warning("dropped %d targeting tallies: the API refused them (%s)", len(chunk), result.detail)
    except Exception as err:  # a bug must not reach the host
        logger.error("sending targeting tallies failed: %r", err)
