package dev.arbiter.client;

import java.nio.charset.StandardCharsets;

/**
 * The bucket function of one experiment (bucketing version 1):
 * {@code murmur3_x86_32(UTF-8(salt + ":" + user), seed 0) mod bucketCount}, unsigned.
 *
 * <p>The whole 4-byte blocks of {@code salt + ":"} are mixed once, here; each call continues
 * from that state and encodes the user id to UTF-8 on the fly straight into the hash, so a call
 * allocates nothing. A lone UTF-16 surrogate is hashed as U+FFFD (EF BF BD), exactly what
 * JavaScript's TextEncoder does; {@code String.getBytes} would write {@code ?} and put the user
 * in another bucket than the server does.
 */
final class Bucketer {
  private final int prefixState;
  private final int prefixTail;
  private final int prefixTailLength;
  private final int prefixLength;
  private final long bucketCount;
  /** Lemire's fastmod constant: ceil(2^64 / bucketCount), so that the modulo needs no division. */
  private final long modMagic;

  Bucketer(String salt, long bucketCount) {
    if (bucketCount < 1 || bucketCount > 0xffff_ffffL) {
      throw new IllegalArgumentException("bucket_count out of range: " + bucketCount);
    }
    this.bucketCount = bucketCount;
    this.modMagic = Long.divideUnsigned(-1L, bucketCount) + 1;
    byte[] prefix = utf8(salt + ":");
    int whole = prefix.length & ~3;
    int h = 0;
    for (int i = 0; i < whole; i += 4) {
      h = Murmur3.mixBlock(h, (prefix[i] & 0xff) | (prefix[i + 1] & 0xff) << 8
          | (prefix[i + 2] & 0xff) << 16 | (prefix[i + 3] & 0xff) << 24);
    }
    int tail = 0;
    for (int i = whole; i < prefix.length; i++) tail |= (prefix[i] & 0xff) << (8 * (i - whole));
    this.prefixState = h;
    this.prefixTail = tail;
    this.prefixTailLength = prefix.length - whole;
    this.prefixLength = prefix.length;
  }

  long bucketCount() {
    return bucketCount;
  }

  /** The user's bucket, {@code 0 <= bucket < bucketCount}. */
  long bucketOf(String user) {
    return mod(Integer.toUnsignedLong(hashOf(user)));
  }

  /**
   * {@code n % bucketCount} for {@code n < 2^32} without a division (D. Lemire, "Faster
   * remainder by direct computation", 2019): the high 64 bits of {@code (modMagic * n) *
   * bucketCount}. Checked against {@code %} by the tests.
   */
  long mod(long n) {
    long low = modMagic * n;
    long high = (low >>> 32) * bucketCount;
    long mid = (low & 0xffff_ffffL) * bucketCount;
    return (high + (mid >>> 32)) >>> 32;
  }

  /**
   * The hash of {@code salt:user}. A user id that is all ASCII (one UTF-8 byte per char, the
   * usual case) is hashed four chars to a block with no per-char branch; whether it was ASCII
   * is checked once at the end, and any other id is hashed again by {@link #hashEncoding}.
   */
  int hashOf(String user) {
    int n = user.length();
    // Chars that complete the prefix's partial block; the rest of the id runs in whole blocks.
    int lead = (4 - prefixTailLength) & 3;
    if (n < lead) return hashEncoding(user);
    int h = prefixState;
    int seen = 0;
    int i = 0;
    if (lead > 0) {
      int k = prefixTail;
      for (; i < lead; i++) {
        int c = user.charAt(i);
        seen |= c;
        k |= c << (8 * (prefixTailLength + i));
      }
      h = Murmur3.mixBlock(h, k);
    }
    int blocksEnd = n - ((n - lead) & 3);
    for (; i < blocksEnd; i += 4) {
      int c0 = user.charAt(i);
      int c1 = user.charAt(i + 1);
      int c2 = user.charAt(i + 2);
      int c3 = user.charAt(i + 3);
      seen |= c0 | c1 | c2 | c3;
      h = Murmur3.mixBlock(h, c0 | c1 << 8 | c2 << 16 | c3 << 24);
    }
    int tail = 0;
    int shift = 0;
    for (; i < n; i++, shift += 8) {
      int c = user.charAt(i);
      seen |= c;
      tail |= c << shift;
    }
    if (seen >= 0x80) return hashEncoding(user);
    return Murmur3.finish(Murmur3.mixTail(h, tail, shift), prefixLength + n);
  }

  /**
   * The hash of {@code salt:user} for any id, UTF-8-encoding it on the fly. Bytes collect
   * little-endian in {@code tail}, a long so that a whole character (up to four bytes) fits
   * beside up to three pending ones; each time 32 bits are there, they are mixed as one block.
   */
  private int hashEncoding(String user) {
    int h = prefixState;
    long tail = prefixTail & 0xffff_ffffL;
    int shift = prefixTailLength * 8;
    int bytes = prefixLength;
    int n = user.length();
    for (int i = 0; i < n; i++) {
      int c = user.charAt(i);
      long encoded;
      int count;
      if (c < 0x80) {
        encoded = c;
        count = 1;
      } else if (c < 0x800) {
        encoded = (0xc0 | c >>> 6) | (0x80 | (c & 0x3f)) << 8;
        count = 2;
      } else if (!Character.isSurrogate((char) c)) {
        encoded = (0xe0 | c >>> 12) | (0x80 | (c >>> 6 & 0x3f)) << 8 | (0x80 | (c & 0x3f)) << 16;
        count = 3;
      } else if (Character.isHighSurrogate((char) c) && i + 1 < n
          && Character.isLowSurrogate(user.charAt(i + 1))) {
        int cp = Character.toCodePoint((char) c, user.charAt(++i));
        encoded = (0xf0 | cp >>> 18) | (0x80 | (cp >>> 12 & 0x3f)) << 8
            | (0x80 | (cp >>> 6 & 0x3f)) << 16 | (long) (0x80 | (cp & 0x3f)) << 24;
        count = 4;
      } else {
        encoded = 0xef | 0xbf << 8 | 0xbd << 16;
        count = 3;
      }
      tail |= encoded << shift;
      shift += count * 8;
      bytes += count;
      if (shift >= 32) {
        h = Murmur3.mixBlock(h, (int) tail);
        tail >>>= 32;
        shift -= 32;
      }
    }
    h = Murmur3.mixTail(h, (int) tail, shift);
    return Murmur3.finish(h, bytes);
  }

  static byte[] utf8(String text) {
    StringBuilder clean = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean lone = Character.isHighSurrogate(c)
          ? !(i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)))
          : Character.isLowSurrogate(c)
              && !(i > 0 && Character.isHighSurrogate(text.charAt(i - 1)));
      if (lone) {
        if (clean == null) clean = new StringBuilder(text.substring(0, i));
        clean.append('\ufffd');
      } else if (clean != null) {
        clean.append(c);
      }
    }
    return (clean == null ? text : clean.toString()).getBytes(StandardCharsets.UTF_8);
  }
}
