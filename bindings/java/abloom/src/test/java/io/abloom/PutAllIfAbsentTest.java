package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * putAllIfAbsent (abloom_test_and_add_packed): the answers, the count and the bits of one
 * putIfAbsent per key, in order, on fixed and growing filters.
 */
class PutAllIfAbsentTest {

  /**
   * Keys of 0 to 16 bytes with repeats of earlier keys of the batch (every 7th), of the key just
   * before (every 11th) and of {@code old} (every 13th).
   */
  private static List<byte[]> dedupeKeys(int n, List<byte[]> old) {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] k;
      if (i % 7 == 3) {
        k = out.get(i / 2);
      } else if (i % 11 == 5) {
        k = out.get(i - 1);
      } else if (i % 13 == 0) {
        k = old.get(i % old.size());
      } else {
        k = Arrays.copyOf(TestSupport.key16(i + 1_000_000L), i % 17);
      }
      out.add(k);
    }
    return out;
  }

  private static byte[] pack(List<byte[]> keys, long[] offsets) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < keys.size(); i++) {
      offsets[i] = out.size();
      out.writeBytes(keys.get(i));
    }
    offsets[keys.size()] = out.size();
    return out.toByteArray();
  }

  private static BloomFilter filter(boolean growing, List<byte[]> old) {
    BloomFilter.Builder b = BloomFilter.builder().fpp(0.01).seed(21);
    BloomFilter f =
        growing
            ? b.growth(2.0).initialCapacity(1000).build()
            : b.expectedInsertions(20_000).build();
    f.putAll(old);
    return f;
  }

  @Test
  void answersAsOnePutIfAbsentPerKey() {
    List<byte[]> old = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      old.add(TestSupport.key16(i));
    }
    List<byte[]> keys = dedupeKeys(20_000, old);
    long[] offsets = new long[keys.size() + 1];
    byte[] packed = pack(keys, offsets);
    for (boolean growing : new boolean[] {false, true}) {
      try (BloomFilter single = filter(growing, old);
          BloomFilter batch = filter(growing, old);
          BloomFilter list = filter(growing, old)) {
        int stages = batch.stageCount();
        boolean[] want = new boolean[keys.size()];
        long fresh = 0;
        for (int i = 0; i < keys.size(); i++) {
          want[i] = single.putIfAbsent(keys.get(i));
          fresh += want[i] ? 1 : 0;
        }
        assertTrue(fresh > 0 && fresh < keys.size(), "fresh " + fresh);

        boolean[] got = new boolean[keys.size() + 2];
        got[keys.size()] = true;
        assertEquals(fresh, batch.putAllIfAbsent(packed, offsets, got));
        for (int i = 0; i < keys.size(); i++) {
          assertEquals(want[i], got[i], "key " + i + ", growing " + growing);
        }
        assertTrue(got[keys.size()] && !got[keys.size() + 1], "answers past n left alone");
        assertArrayEquals(want, list.putAllIfAbsent(keys), "list form, growing " + growing);
        assertEquals(single, batch, "the same bits, growing " + growing);
        assertEquals(single, list);
        assertEquals(single.keyCount(), batch.keyCount());
        if (growing) {
          assertTrue(batch.stageCount() >= stages + 2, "stages " + batch.stageCount());
        }
        // Every key is present now: Java's own lookups see the stages the batch appended.
        for (byte[] k : keys) {
          assertTrue(batch.mightContain(k));
        }
        boolean[] again = batch.putAllIfAbsent(packed, offsets);
        for (boolean a : again) {
          assertFalse(a, "a repeat is not new");
        }
      }
    }
  }

  @Test
  void longKeys() {
    long[] keys = new long[50_000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = TestSupport.mix(i % 30_000); // repeats within the batch
    }
    for (boolean growing : new boolean[] {false, true}) {
      try (BloomFilter single = filter(growing, List.of());
          BloomFilter batch = filter(growing, List.of())) {
        boolean[] want = new boolean[keys.length];
        for (int i = 0; i < keys.length; i++) {
          want[i] = single.putIfAbsent(keys[i]);
        }
        assertArrayEquals(want, batch.putAllIfAbsent(keys), "growing " + growing);
        assertEquals(single, batch);
      }
    }
  }

  @Test
  void errorsAddNothing(@TempDir Path dir) throws Exception {
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      assertEquals(0, f.putAllIfAbsent(new byte[0], new long[] {0}).length);
      assertEquals(0, f.putAllIfAbsent(new long[0]).length);
      byte[] buf = {1, 2, 3};
      boolean[] out = {true, true};
      assertThrows(IllegalArgumentException.class, () -> f.putAllIfAbsent(buf, new long[0]));
      assertThrows(
          IllegalArgumentException.class, () -> f.putAllIfAbsent(buf, new long[] {0, 2, 1}, out));
      assertThrows(
          IllegalArgumentException.class, () -> f.putAllIfAbsent(buf, new long[] {0, 2, 4}, out));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.putAllIfAbsent(buf, new long[] {0, 1, 2}, new boolean[1]));
      assertTrue(out[0] && out[1], "results left alone");
      assertEquals(0, f.approximateElementCount());
      assertFalse(f.mightContain(new byte[] {1}));

      f.put("key");
      Path path = dir.resolve("ro.abloom");
      f.save(path);
      BloomFilter ro = BloomFilter.open(path);
      try {
        assertThrows(
            UnsupportedOperationException.class,
            () -> ro.putAllIfAbsent(List.of(TestSupport.utf8("x"), TestSupport.utf8("key"))));
        assertThrows(UnsupportedOperationException.class, () -> ro.putAllIfAbsent(new long[] {7}));
        assertFalse(ro.mightContain("x"));
        assertFalse(ro.mightContain(7L));
      } finally {
        ro.close();
      }
      assertThrows(IllegalStateException.class, () -> ro.putAllIfAbsent(new long[] {7}));
    }
  }
}
