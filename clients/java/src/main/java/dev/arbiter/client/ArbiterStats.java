package dev.arbiter.client;

/** Counters of the event pipeline since the client was built; a snapshot, see {@link Arbiter#stats()}. */
public final class ArbiterStats {
  private final long queued;
  private final long sent;
  private final long dropped;
  private final long spilled;
  private final long replayed;
  private final long expired;

  ArbiterStats(long queued, long sent, long dropped, long spilled, long replayed, long expired) {
    this.queued = queued;
    this.sent = sent;
    this.dropped = dropped;
    this.spilled = spilled;
    this.replayed = replayed;
    this.expired = expired;
  }

  /** Events waiting in memory. */
  public long queued() {
    return queued;
  }

  /** Events acknowledged by the server (replayed ones included). */
  public long sent() {
    return sent;
  }

  /** Events dropped: queue full, refused by the server, retries exhausted without a store, or after close. */
  public long dropped() {
    return dropped;
  }

  /** Events written to the offline store. */
  public long spilled() {
    return spilled;
  }

  /** Spilled events later acknowledged by the server. */
  public long replayed() {
    return replayed;
  }

  /** Spilled events discarded as older than the 24 h replay window. */
  public long expired() {
    return expired;
  }

  @Override
  public String toString() {
    return "ArbiterStats{queued=" + queued + ", sent=" + sent + ", dropped=" + dropped
        + ", spilled=" + spilled + ", replayed=" + replayed + ", expired=" + expired + "}";
  }
}
