package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The one shared copy of the vectors (testdata/), never copied into this folder. */
class BucketingVectorsTest {
  private static final Map<String, Object> MURMUR = RepoFiles.json("testdata/murmur3_x86_32.json");
  private static final Map<String, Object> BUCKETING = RepoFiles.json("testdata/bucketing.json");

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> cases(Map<String, Object> doc) {
    return (List<Map<String, Object>>) doc.get("cases");
  }

  @Test
  void vectorFilesHaveCases() {
    assertEquals("1", BUCKETING.get("specVersion"));
    assertTrue(cases(MURMUR).size() > 50);
    assertTrue(cases(BUCKETING).size() > 300);
  }

  @TestFactory
  Stream<DynamicTest> murmur3RawVectors() {
    return cases(MURMUR).stream().map(c -> DynamicTest.dynamicTest(
        "len " + ((String) c.get("input_hex")).length() / 2 + ", seed " + c.get("seed"), () -> {
          byte[] input = hex((String) c.get("input_hex"));
          int seed = (int) (long) (Long) c.get("seed");
          assertEquals((long) (Long) c.get("hash"),
              Integer.toUnsignedLong(Murmur3.hash(input, seed)));
        }));
  }

  /** Each case through the per-experiment bucketer: pre-hashed salt, UTF-8 encoded on the fly. */
  @TestFactory
  Stream<DynamicTest> bucketingVectors() {
    List<Map<String, Object>> all = cases(BUCKETING);
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      Map<String, Object> c = all.get(i);
      long count = (Long) c.get("bucket_count");
      tests.add(DynamicTest.dynamicTest("case " + i + ": bucket_count " + count, () -> {
        Bucketer bucketer = new Bucketer((String) c.get("salt"), count);
        assertEquals((long) (Long) c.get("bucket"), bucketer.bucketOf((String) c.get("user_id")));
        if (c.get("hash") instanceof Long) {
          assertEquals((long) (Long) c.get("hash"),
              Integer.toUnsignedLong(bucketer.hashOf((String) c.get("user_id"))));
        }
      }));
    }
    return tests.stream();
  }

  /**
   * The streaming encoder against the plain one on random text: every UTF-8 length, pairs and
   * lone surrogates at every offset of the 4-byte blocks, salts of every tail length.
   */
  @Test
  void streamingHashEqualsHashOfTheEncodedBytes() {
    Random random = new Random(13);
    char[] alphabet = {'a', 'Z', '0', ':', 'é', 'ß', 'ж', '€', '中', '\ud83d', '\ude00', '\ud800',
        '\udfff', '\u0000', '\u007f', '\u0080', '\u07ff', '\u0800', '\uffff'};
    for (int n = 0; n < 20_000; n++) {
      String salt = randomText(random, alphabet, random.nextInt(9));
      String user = randomText(random, alphabet, random.nextInt(40));
      byte[] key = Bucketer.utf8(salt + ":" + user);
      assertEquals(Murmur3.hash(key, 0), new Bucketer(salt, 1000).hashOf(user),
          () -> "salt " + escape(salt) + " user " + escape(user));
    }
  }

  /**
   * The ASCII path (four chars to a block) against the plain hash: ids of every length mod 4
   * after salts of every tail length, and the same ids with one non-ASCII char at any offset,
   * which must fall back to the encoder.
   */
  @Test
  void asciiPathHashEqualsHashOfTheEncodedBytes() {
    Random random = new Random(17);
    char[] nonAscii = {'\u0080', 'é', '\u07ff', '€', '\uffff', '\ud800', '\udfff'};
    for (int n = 0; n < 20_000; n++) {
      String salt = randomAscii(random, random.nextInt(9));
      String ascii = randomAscii(random, random.nextInt(40));
      int at = random.nextInt(ascii.length() + 1);
      String mixed = ascii.substring(0, at) + nonAscii[random.nextInt(nonAscii.length)]
          + ascii.substring(at);
      Bucketer bucketer = new Bucketer(salt, 1000);
      for (String user : new String[] {ascii, mixed}) {
        byte[] key = Bucketer.utf8(salt + ":" + user);
        assertEquals(Murmur3.hash(key, 0), bucketer.hashOf(user),
            () -> "salt " + escape(salt) + " user " + escape(user));
      }
    }
  }

  private static String randomAscii(Random random, int length) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) s.append((char) random.nextInt(0x80));
    return s.toString();
  }

  @Test
  void divisionFreeModuloEqualsTheRemainder() {
    Random random = new Random(7);
    long[] counts = {1, 2, 3, 7, 100, 1000, 10_000, 65_536, 1_000_000, 0x7fff_ffffL,
        0x8000_0000L, 0x8000_0001L, 0xffff_fffeL, 0xffff_ffffL};
    for (long count : counts) {
      Bucketer b = new Bucketer("s", count);
      for (long n : new long[] {0, 1, count - 1, count, count + 1, 0xffff_ffffL, 0x8000_0000L}) {
        if (n >= 0 && n <= 0xffff_ffffL) assertEquals(n % count, b.mod(n), count + " " + n);
      }
      for (int k = 0; k < 20_000; k++) {
        long n = random.nextInt() & 0xffff_ffffL;
        assertEquals(n % count, b.mod(n), () -> count + " " + n);
      }
    }
    for (int k = 0; k < 2_000; k++) {
      long count = 1 + (random.nextLong() & 0xffff_ffffL) % 0xffff_ffffL;
      Bucketer b = new Bucketer("s", count);
      for (int j = 0; j < 100; j++) {
        long n = random.nextInt() & 0xffff_ffffL;
        assertEquals(n % count, b.mod(n), () -> count + " " + n);
      }
    }
  }

  @Test
  void loneSurrogatesHashAsReplacementCharacterNeverQuestionMark() {
    Bucketer b = new Bucketer("s", 0xffff_ffffL);
    int replacement = Murmur3.hash("s:a\ufffdb".getBytes(StandardCharsets.UTF_8), 0);
    assertEquals(replacement, b.hashOf("a\ud800b"));
    assertEquals(replacement, b.hashOf("a\udc00b"));
    assertTrue(replacement != Murmur3.hash("s:a?b".getBytes(StandardCharsets.UTF_8), 0));
  }

  @Test
  void hashIsUnsignedAndBucketCountIsLong() {
    // A bucket_count above Integer.MAX_VALUE keeps buckets above it: no sign, no int overflow.
    Bucketer b = new Bucketer("s", 0xffff_ffffL);
    long max = 0;
    for (int i = 0; i < 1000; i++) max = Math.max(max, b.bucketOf("u" + i));
    assertTrue(max > Integer.MAX_VALUE, "some bucket above 2^31 among 1,000 users");
  }

  private static String randomText(Random random, char[] alphabet, int length) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) s.append(alphabet[random.nextInt(alphabet.length)]);
    return s.toString();
  }

  private static String escape(String s) {
    StringBuilder out = new StringBuilder();
    for (char c : s.toCharArray()) out.append(String.format("\\u%04x", (int) c));
    return out.toString();
  }

  private static byte[] hex(String hex) {
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }
}
