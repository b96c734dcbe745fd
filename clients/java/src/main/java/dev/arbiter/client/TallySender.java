package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sends what {@link TargetingTallies} counted to {@code POST /v1/targeting-tallies}, a request
 * per thousand, with the transport's retries, after the events of each drain. Best effort:
 * refused tallies are dropped with a warning (a 400 would refuse them again), unreachable ones
 * are put back for the next drain. Runs on the background thread; never throws.
 */
final class TallySender implements Runnable {
  /** {@code POST /v1/targeting-tallies} takes at most this many tallies a request. */
  static final int MAX_PER_REQUEST = 1_000;

  private final TargetingTallies tallies;
  private final Transport transport;
  private final ArbiterLogger logger;

  TallySender(TargetingTallies tallies, Transport transport, ArbiterLogger logger) {
    this.tallies = tallies;
    this.transport = transport;
    this.logger = logger;
  }

  @Override
  public void run() {
    try {
      send(tallies.take());
    } catch (RuntimeException e) {
      logger.warn("targeting tallies not sent: " + e);
    }
  }

  private void send(List<TargetingTallies.Tally> taken) {
    for (int i = 0; i < taken.size(); i += MAX_PER_REQUEST) {
      List<TargetingTallies.Tally> chunk =
          taken.subList(i, Math.min(taken.size(), i + MAX_PER_REQUEST));
      List<Map<String, Object>> wire = new ArrayList<>(chunk.size());
      for (TargetingTallies.Tally t : chunk) wire.add(t.wire());
      Transport.Result result = transport.request("POST", "/v1/targeting-tallies", Map.of(),
          JsonWriter.write(Map.of("tallies", wire)));
      if (result.kind == Transport.Kind.UNREACHABLE) {
        tallies.restore(taken.subList(i, taken.size()));
        return;
      }
      if (result.kind != Transport.Kind.OK) {
        String detail = result.kind == Transport.Kind.REFUSED ? result.detail : "unexpected 304";
        logger.warn("dropped " + chunk.size() + " targeting tallies: the API refused them ("
            + detail + ")");
      }
    }
  }
}
