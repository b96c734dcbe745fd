package dev.arbiter.client;

/**
 * MurmurHash3_x86_32 (aappleby/smhasher), frozen as bucketing hash version 1. Written by hand
 * because it must agree bit for bit with the server and the other clients; the shared vectors
 * in {@code testdata/} check it. Results are unsigned: read them with
 * {@link Integer#toUnsignedLong}.
 */
final class Murmur3 {
  static final int C1 = 0xcc9e2d51;
  static final int C2 = 0x1b873593;

  private Murmur3() {}

  // The tail falls through on purpose: MurmurHash3's reference form, which the vectors pin.
  @SuppressWarnings("fallthrough")
  static int hash(byte[] data, int seed) {
    int h = seed;
    int blocks = data.length & ~3;
    for (int i = 0; i < blocks; i += 4) {
      int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16
          | (data[i + 3] & 0xff) << 24;
      h = mixBlock(h, k);
    }
    int k = 0;
    switch (data.length & 3) {
      case 3:
        k ^= (data[blocks + 2] & 0xff) << 16;
        // fall through
      case 2:
        k ^= (data[blocks + 1] & 0xff) << 8;
        // fall through
      case 1:
        k ^= data[blocks] & 0xff;
        h ^= mixK(k);
        break;
      default:
        break;
    }
    return finish(h, data.length);
  }

  static int mixK(int k) {
    k *= C1;
    k = Integer.rotateLeft(k, 15);
    return k * C2;
  }

  /** One whole little-endian 4-byte block {@code k} into state {@code h}. */
  static int mixBlock(int h, int k) {
    h ^= mixK(k);
    h = Integer.rotateLeft(h, 13);
    return h * 5 + 0xe6546b64;
  }

  /** The last partial block (0 to 3 bytes packed little-endian in {@code tail}). */
  static int mixTail(int h, int tail, int tailLength) {
    return tailLength == 0 ? h : h ^ mixK(tail);
  }

  static int finish(int h, int totalLength) {
    h ^= totalLength;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }
}
