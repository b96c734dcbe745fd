package dev.arbiter.client;

import java.util.Map;

/**
 * One experiment of the config, prepared for the hot path: the salt pre-hashed, the bucket
 * ranges as parallel sorted arrays, the variants by key. Immutable except {@code exposed},
 * which a refresh carries over so that a new config version does not resend exposures.
 */
final class CompiledExperiment {
  private static final long TALLY_KEY = keyHash("\u0000targeting");

  /** The lifecycle state of an entry and, once stopped, the variant it serves. */
  static final class Lifecycle {
    static final Lifecycle RUNNING = new Lifecycle(Status.RUNNING, null);
    static final Lifecycle DRAFT = new Lifecycle(Status.DRAFT, null);

    final Status status;
    final String served;

    Lifecycle(Status status, String served) {
      this.status = status;
      this.served = served;
    }

    /**
     * The entry's {@code status} and {@code served_variant}: absent (or null) reads as running,
     * as older configs and offline files have it; a stopped entry must name one of its variants.
     * Null when it cannot be read, an unknown state included: the entry is left out, which is
     * the control behaviour.
     */
    static Lifecycle of(Map<?, ?> entry, Map<String, ?> variants) {
      Object status = entry.get("status");
      if (status == null || "running".equals(status)) return RUNNING;
      if ("draft".equals(status)) return DRAFT;
      Object served = entry.get("served_variant");
      if (!"stopped".equals(status) || !(served instanceof String)
          || !variants.containsKey(served)) {
        return null;
      }
      return new Lifecycle(Status.STOPPED, (String) served);
    }
  }

  /** A variant's optional prompt and variables. */
  static final class Variant {
    final String prompt;
    final Map<String, Object> variables;

    Variant(String prompt, Map<String, Object> variables) {
      this.prompt = prompt;
      this.variables = variables;
    }
  }

  /** An experiment's lifecycle state as the config carries it (archived ones are absent). */
  enum Status { RUNNING, DRAFT, STOPPED }

  final String id;
  final String name;
  /** RUNNING unless the config says otherwise; only a running experiment sends its exposures. */
  final Status status;
  /** The variant a stopped experiment gives every eligible user; null unless stopped. */
  final String served;
  final Bucketer bucketer;
  /** Half-open {@code [starts[i], ends[i])} owned by {@code owners[i]}, sorted by start. */
  private final long[] starts;
  private final long[] ends;
  private final String[] owners;
  /** Per range, 64 bits of its variant key's hash: what a fingerprint takes of the variant. */
  private final long[] ownerKeys;
  final Map<String, Variant> variants;
  /** Fingerprints of (user, variant) sent an exposure today. */
  final ExposureTable exposed;
  /** Who may enter (docs/wire-format.md), checked readable once; null when everyone may. */
  private final CompiledCondition targeting;
  /** A targeting that cannot be read (a non-object included) lets no one in. */
  private final boolean nobody;
  /** The config's saved groups by key, which {@code $inGroup} looks values up in. */
  private final Map<String, ?> savedGroups;
  /** Its holdouts and layer, decided before the targeting; null when it names neither. */
  final ExperimentGate gate;
  /** Whether everyone may enter: no holdout, no layer, no targeting to decide. */
  final boolean open;
  /** Whether it has a targeting (readable or not): the checks that reach it are tallied. */
  final boolean targeted;
  /** XORed into a tally's fingerprint in place of a variant key's hash: no variant has it. */
  private final long tallyKey;
  /** The coverage hash's bucketer ({@code "coverage:" + salt}); null at full coverage. */
  private final Bucketer coverage;
  /** A user enters when the coverage hash is below this: coverage × 2^32, exact in a double. */
  private final double coverageBound;

  CompiledExperiment(String id, String name, Lifecycle lifecycle, Bucketer bucketer,
      long[] starts, long[] ends, String[] owners, Map<String, Variant> variants,
      ExposureTable exposed, Object targeting, Map<String, ?> savedGroups, ExperimentGate gate,
      FieldTable fields, String salt, double coverage) {
    this.id = id;
    this.name = name;
    this.status = lifecycle.status;
    this.served = lifecycle.served;
    this.bucketer = bucketer;
    this.starts = starts;
    this.ends = ends;
    this.owners = owners;
    this.ownerKeys = new long[owners.length];
    for (int i = 0; i < owners.length; i++) ownerKeys[i] = keyHash(owners[i]);
    this.variants = variants;
    this.exposed = exposed;
    boolean everyone = targeting == null
        || (targeting instanceof Map && ((Map<?, ?>) targeting).isEmpty());
    boolean readable = !everyone && ConditionCheck.isReadable(targeting);
    this.targeting = readable ? CompiledCondition.of((Map<?, ?>) targeting, fields) : null;
    this.nobody = !everyone && !readable;
    this.savedGroups = savedGroups;
    this.gate = gate;
    this.coverage = coverage >= 1 ? null : new Bucketer("coverage:" + salt, 1);
    this.coverageBound = coverage * 4_294_967_296.0;
    this.open = gate == null && everyone && this.coverage == null;
    this.targeted = !everyone;
    this.tallyKey = tallyKeyBeside(ownerKeys);
  }

  /** A fixed key, moved on should a variant's key hash to it: a tally never reads as an exposure. */
  private static long tallyKeyBeside(long[] ownerKeys) {
    long key = TALLY_KEY;
    while (contains(ownerKeys, key)) key++;
    return key;
  }

  private static boolean contains(long[] keys, long key) {
    for (long k : keys) {
      if (k == key) return true;
    }
    return false;
  }

  /**
   * The user's variant once past the {@link #gate}, or null when the targeting does not match
   * {@code attributes} (null reads as none) or the bucket is in no range. Targeting first, as
   * the server and every client order it; the caller has passed the gate already.
   */
  String variantOf(String user, Map<String, ?> attributes) {
    if (!admits(attributes) || !covers(user)) return null;
    int range = rangeOf(bucketer.hashOf(user));
    return range < 0 ? null : owners[range];
  }

  /**
   * Whether the targeting lets a user with {@code attributes} (null reads as none) in. A
   * {@link PreparedAttributes} is read through its resolved fields, with the same answer.
   */
  boolean admits(Map<String, ?> attributes) {
    if (nobody) return false;
    if (targeting == null) return true;
    if (attributes instanceof PreparedAttributes) {
      return targeting.matches((PreparedAttributes) attributes, savedGroups);
    }
    return targeting.matches(attributes == null ? Map.of() : attributes, savedGroups);
  }

  /**
   * Whether the coverage lets the user in (docs/wire-format.md#coverage): the coverage hash,
   * {@code murmur3_x86_32(UTF-8("coverage:" + salt + ":" + user))}, below coverage × 2^32.
   * Read after the targeting, before the bucket.
   */
  boolean covers(String user) {
    return coverage == null || Integer.toUnsignedLong(coverage.hashOf(user)) < coverageBound;
  }

  /**
   * The entry's {@code coverage}: absent (or null) is 1; NaN when it is not a number from 0 to
   * 1, which leaves the entry out (the control behaviour).
   */
  static double coverageOf(Map<?, ?> entry) {
    Object raw = entry.get("coverage");
    if (raw == null) return 1;
    if (!(raw instanceof Long) && !(raw instanceof Double)) return Double.NaN;
    double value = ((Number) raw).doubleValue();
    return value >= 0 && value <= 1 ? value : Double.NaN;
  }

  /** The range whose bucket interval holds the user's bucket ({@code hash} from the bucketer), or -1. */
  int rangeOf(int hash) {
    long bucket = bucketer.mod(Integer.toUnsignedLong(hash));
    int lo = 0;
    int hi = starts.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (bucket < starts[mid]) {
        hi = mid - 1;
      } else if (bucket >= ends[mid]) {
        lo = mid + 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  /** The variant key of a range from {@link #rangeOf}. */
  String owner(int range) {
    return owners[range];
  }

  /**
   * The fingerprint of (user, variant of {@code range}) for {@link ExposureTable}, from what
   * assign has at hand: the bucket hash of the user (32 bits, salted) beside the user id's
   * {@code String.hashCode} (32 more, cached in the string), the variant key's hash XORed in.
   * Two users collide only when both of their hashes do; a variant change always changes it.
   */
  long fingerprint(int hash, String user, int range) {
    return userBits(hash, user) ^ ownerKeys[range];
  }

  /**
   * The fingerprint of the user's targeting tally for {@link ExposureTable}: as
   * {@link #fingerprint}'s, with a key no variant has, so it sits in the same table as the
   * user's exposures and never suppresses one.
   */
  long tallyFingerprint(int hash, String user) {
    return userBits(hash, user) ^ tallyKey;
  }

  private static long userBits(int hash, String user) {
    return (long) hash << 32 | (user.hashCode() & 0xffff_ffffL);
  }

  /** 64 well-mixed bits of a variant key (two seeded MurmurHash3 runs), once per config. */
  static long keyHash(String key) {
    byte[] bytes = Bucketer.utf8(key);
    return (long) Murmur3.hash(bytes, 0x5bd1e995) << 32
        | Integer.toUnsignedLong(Murmur3.hash(bytes, 0x27d4eb2f));
  }
}
