package dev.arbiter.client;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Distinct users per experiment and UTC day whose check reached the experiment's targeting
 * (past its holdouts and layer): {@code matched} entered, {@code excluded} got null and sent no
 * exposure, so the server would never learn of them
 * (docs/decisions/targeting.md#the-share-of-users-targeting-excluded). A user is remembered in the
 * experiment's {@link ExposureTable} under a fingerprint of its own (no variant has the tally's
 * key), so a tally never suppresses an exposure; the first check of the day counts, and a table
 * full for the day forgets everyone, so a user may then count twice.
 *
 * <p>Any thread counts; the background thread takes the counts to send them. The table decides
 * which caller counts a user, so the monitor here is taken once per user and day, not per call.
 */
final class TargetingTallies {
  /**
   * (experiment, day) pairs kept unsent, the API unreachable: a few days of a hundred targeted
   * experiments many times over. Past it a new pair is not counted, rather than memory grow.
   */
  static final int MAX_PENDING = 10_000;
  /** {@code POST /v1/targeting-tallies} takes the secret key only. */
  static final String SECRET_KEY_PREFIX = "svc_sk_";

  /**
   * Whether a client tallies: as {@code asked} (null: as {@code exposing}), and only with the
   * secret key, the one key the route takes: with any other, no tally is counted or sent, and an
   * explicit {@code true} gets one warning here rather than a refusal at every flush.
   */
  static boolean wanted(Boolean asked, boolean exposing, String apiKey, ArbiterLogger logger) {
    if (!(asked != null ? asked : exposing)) return false;
    if (apiKey.startsWith(SECRET_KEY_PREFIX)) return true;
    if (asked != null) {
      logger.warn("trackTargetingTallies: targeting tallies need the secret key (svc_sk_...); "
          + "with this key they are off");
    }
    return false;
  }

  /** One experiment's users who reached its targeting on one UTC day. */
  static final class Tally {
    final String experimentId;
    /** Days since 1970-01-01, UTC. */
    final long epochDay;
    long matched;
    long excluded;

    Tally(String experimentId, long epochDay, long matched, long excluded) {
      this.experimentId = experimentId;
      this.epochDay = epochDay;
      this.matched = matched;
      this.excluded = excluded;
    }

    /** The tally as {@code POST /v1/targeting-tallies} takes it. */
    Map<String, Object> wire() {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("experiment_id", experimentId);
      out.put("day", LocalDate.ofEpochDay(epochDay).toString());
      out.put("matched", matched);
      out.put("excluded", excluded);
      return out;
    }
  }

  /** Keyed by experiment id and day; guarded by the monitor. */
  private Map<String, Tally> pending = new HashMap<>();

  /**
   * Counts a user's check of {@code experiment}'s targeting on the UTC day of {@code nowMs},
   * once a day. {@code hash}: the user's bucket hash in the experiment.
   */
  void reached(CompiledExperiment experiment, int hash, String user, boolean matched,
      long nowMs) {
    if (experiment.exposed.firstToday(experiment.tallyFingerprint(hash, user), nowMs)) {
      count(experiment.id, Math.floorDiv(nowMs, ExposureTable.DAY_MS), matched);
    }
  }

  /** Counts a user whose check the caller found first of the day in the exposure table. */
  synchronized void count(String experimentId, long epochDay, boolean matched) {
    Tally tally = slot(experimentId, epochDay);
    if (tally == null) return;
    if (matched) {
      tally.matched++;
    } else {
      tally.excluded++;
    }
  }

  synchronized int size() {
    return pending.size();
  }

  /** Everything counted so far, taken out: sent now or {@link #restore}d. */
  synchronized List<Tally> take() {
    List<Tally> taken = new ArrayList<>(pending.values());
    pending = new HashMap<>();
    return taken;
  }

  /** Puts back tallies that could not be sent, added to what was counted since. */
  synchronized void restore(List<Tally> tallies) {
    for (Tally t : tallies) {
      Tally kept = slot(t.experimentId, t.epochDay);
      if (kept == null) continue;
      kept.matched += t.matched;
      kept.excluded += t.excluded;
    }
  }

  private Tally slot(String experimentId, long epochDay) {
    String key = experimentId + ' ' + epochDay;
    Tally found = pending.get(key);
    if (found != null || pending.size() >= MAX_PENDING) return found;
    Tally tally = new Tally(experimentId, epochDay, 0, 0);
    pending.put(key, tally);
    return tally;
  }
}
