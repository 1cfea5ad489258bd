package io.abloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.abloom.BloomFilter.OpenMode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stale files: a writer that opened a file READ_WRITE and did not sync it (killed, or still
 * running) leaves it marked stale. Checked reads throw AbloomStaleException (not a plain format
 * error: the bits are valid), O(1) opens work and say isStale(), and seal() makes the file
 * current again, or refuses a corrupt one without writing it.
 */
class StaleTest {
  private static final int KEYS = 600;
  /** docs/FORMAT.md: the header's flags word; bit 0 is the stale mark. */
  private static final int FLAGS_OFFSET = 52;

  /**
   * The bytes a killed writer leaves: a copy of the file taken while a READ_WRITE filter has adds
   * it has not synced (its own close then syncs the original, not the copy).
   */
  private static Path makeStale(Path dir) throws IOException {
    Path intact = dir.resolve("intact.abloom");
    try (BloomFilter f = BloomFilter.create(2000, 0.01)) {
      for (int i = 0; i < KEYS / 2; i++) {
        f.put(TestSupport.key16(i));
      }
      f.save(intact);
    }
    Path stale = dir.resolve("stale.abloom");
    try (BloomFilter rw = BloomFilter.open(intact, OpenMode.READ_WRITE, false)) {
      assertFalse(rw.isStale());
      for (int i = KEYS / 2; i < KEYS; i++) {
        rw.put(TestSupport.key16(i));
      }
      Files.copy(intact, stale);
    }
    assertTrue(staleMark(stale), "the copy taken under the writer carries the stale mark");
    assertFalse(staleMark(intact), "the writer's close sealed its own file");
    return stale;
  }

  /**
   * Run in a child JVM by {@link #aKilledWritersFileIsStaleAndSeals}: opens args[0] READ_WRITE,
   * adds the second half of the keys, says so, and waits to be killed, never syncing.
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    BloomFilter rw = BloomFilter.open(Path.of(args[0]), OpenMode.READ_WRITE, false);
    for (int i = KEYS / 2; i < KEYS; i++) {
      rw.put(TestSupport.key16(i));
    }
    System.out.println("added");
    System.out.flush();
    Thread.sleep(120_000); // killed long before; the handle stays reachable, so never synced
    rw.close();
  }

  private static boolean staleMark(Path p) throws IOException {
    return (Files.readAllBytes(p)[FLAGS_OFFSET] & 1) != 0;
  }

  private static void assertAllKeys(BloomFilter f) {
    for (int i = 0; i < KEYS; i++) {
      assertTrue(f.mightContain(TestSupport.key16(i)), "key " + i);
    }
  }

  private static void assertStale(AbloomStaleException e, String what) {
    assertEquals(AbloomError.STALE, e.error());
    assertEquals(-17, e.errorCode());
    String m = e.getMessage();
    assertTrue(m.contains(what) && m.contains("stale") && m.contains("BloomFilter.seal"), m);
  }

  @Test
  void checkedReadsOfAStaleFileThrowTheStaleException(@TempDir Path tmp) throws IOException {
    Path stale = makeStale(tmp);
    AbloomStaleException e =
        assertThrows(
            AbloomStaleException.class, () -> BloomFilter.open(stale, OpenMode.READ_ONLY, true));
    assertStale(e, "open");
    assertTrue(e.getMessage().contains(stale.toString()), e.getMessage());
    // The subclass of the format exception that checked reads declare: code that catches
    // AbloomFormatException still refuses the file, as it did when this was a CHECKSUM error.
    assertInstanceOf(AbloomFormatException.class, e);

    byte[] bytes = Files.readAllBytes(stale);
    assertStale(
        assertThrows(AbloomStaleException.class, () -> BloomFilter.fromByteArray(bytes)),
        "fromByteArray");
    assertStale(
        assertThrows(
            AbloomStaleException.class,
            () -> BloomFilter.readFrom(new ByteArrayInputStream(bytes))),
        "readFrom");
    ByteBuffer buf = ByteBuffer.allocateDirect(bytes.length + 64).alignedSlice(64);
    buf.put(bytes).flip();
    assertStale(assertThrows(AbloomStaleException.class, () -> BloomFilter.wrap(buf, true)), "wrap");
    try (BloomFilter view = BloomFilter.wrap(buf, false)) {
      assertTrue(view.isStale());
      assertAllKeys(view);
    }
  }

  /** The real thing: a writer JVM killed (SIGKILL) between its adds and any sync. */
  @Test
  void aKilledWritersFileIsStaleAndSeals(@TempDir Path tmp) throws Exception {
    Path file = tmp.resolve("killed.abloom");
    try (BloomFilter f = BloomFilter.create(2000, 0.01)) {
      for (int i = 0; i < KEYS / 2; i++) {
        f.put(TestSupport.key16(i));
      }
      f.save(file);
    }
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            StaleTest.class.getName(),
            file.toString());
    Process child = TestSupport.start(new ProcessBuilder(cmd).redirectErrorStream(true));
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      // The child's first line of its own; a JVM may print warnings first (Temurin under wine:
      // "Attempt to get process group affinity failed").
      String line;
      do {
        line = out.readLine();
      } while (line != null && !line.equals("added"));
      assertEquals("added", line);
      child.destroyForcibly(); // SIGKILL: no close, no sync, no shutdown hook
      assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    } finally {
      child.destroyForcibly();
    }
    assertTrue(staleMark(file));
    assertThrows(
        AbloomStaleException.class, () -> BloomFilter.open(file, OpenMode.READ_ONLY, true));
    try (BloomFilter f = BloomFilter.open(file)) {
      assertTrue(f.isStale());
      assertAllKeys(f); // the killed writer's adds reached the file through the shared mapping
    }
    BloomFilter.seal(file);
    try (BloomFilter f = BloomFilter.open(file, OpenMode.READ_ONLY, true)) {
      assertFalse(f.isStale());
      assertAllKeys(f);
    }
  }

  @Test
  void anUncheckedOpenReadsAStaleFile(@TempDir Path tmp) throws IOException {
    Path stale = makeStale(tmp);
    for (OpenMode mode : new OpenMode[] {OpenMode.READ_ONLY, OpenMode.COPY_ON_WRITE}) {
      try (BloomFilter f = BloomFilter.open(stale, mode, false)) {
        assertTrue(f.isStale(), mode.toString());
        assertAllKeys(f);
      }
    }
    try (BloomFilter f = BloomFilter.open(stale)) {
      assertTrue(f.isStale());
    }
    assertTrue(staleMark(stale), "reading a stale file does not write it");
    // A READ_WRITE open finds it stale; its close syncs, which seals it.
    try (BloomFilter rw = BloomFilter.open(stale, OpenMode.READ_WRITE, false)) {
      assertTrue(rw.isStale());
    }
    try (BloomFilter f = BloomFilter.open(stale, OpenMode.READ_ONLY, true)) {
      assertFalse(f.isStale());
      assertAllKeys(f);
    }
    try (BloomFilter f = BloomFilter.create(10, 0.01);
        BloomFilter g = BloomFilter.fromByteArray(Files.readAllBytes(stale))) {
      assertFalse(f.isStale());
      assertFalse(g.isStale());
    }
  }

  @Test
  void sealMakesAStaleFileCurrent(@TempDir Path tmp) throws IOException {
    Path stale = makeStale(tmp);
    BloomFilter.seal(stale);
    assertFalse(staleMark(stale));
    try (BloomFilter f = BloomFilter.open(stale, OpenMode.READ_ONLY, true)) {
      assertFalse(f.isStale());
      assertAllKeys(f);
    }
    try (BloomFilter f = BloomFilter.fromByteArray(Files.readAllBytes(stale))) {
      assertAllKeys(f);
    }
  }

  @Test
  void sealOfAnIntactFileWritesNothing(@TempDir Path tmp) throws IOException {
    Path stale = makeStale(tmp);
    Path intact = tmp.resolve("intact.abloom");
    byte[] before = Files.readAllBytes(intact);
    BloomFilter.seal(intact);
    assertArrayEquals(before, Files.readAllBytes(intact));
    BloomFilter.seal(stale);
    byte[] sealed = Files.readAllBytes(stale);
    BloomFilter.seal(stale); // sealed already: nothing to do
    assertArrayEquals(sealed, Files.readAllBytes(stale));
  }

  @Test
  void sealRefusesACorruptFileAndLeavesItUnchanged(@TempDir Path tmp) throws IOException {
    Path stale = makeStale(tmp);
    // Not stale, a body bit flipped: sealing never papers over corruption.
    Path intact = tmp.resolve("intact.abloom");
    byte[] flipped = Files.readAllBytes(intact);
    flipped[200] ^= 0x08;
    Files.write(intact, flipped);
    AbloomFormatException c =
        assertThrows(AbloomFormatException.class, () -> BloomFilter.seal(intact));
    assertFalse(c instanceof AbloomStaleException);
    assertEquals(AbloomError.CHECKSUM, c.error());
    assertTrue(c.getMessage().contains("seal"), c.getMessage());
    assertArrayEquals(flipped, Files.readAllBytes(intact));

    // Stale, and its bits cleared (adds only set bits): fewer keys than the stored estimate.
    byte[] cleared = Files.readAllBytes(stale);
    Arrays.fill(cleared, 128, cleared.length, (byte) 0);
    Files.write(stale, cleared);
    AbloomFormatException z = assertThrows(AbloomFormatException.class, () -> BloomFilter.seal(stale));
    assertEquals(AbloomError.CORRUPT, z.error());
    assertArrayEquals(cleared, Files.readAllBytes(stale));

    Path text = tmp.resolve("text.abloom");
    Files.write(text, TestSupport.utf8("x".repeat(200)));
    assertEquals(
        AbloomError.BAD_MAGIC,
        assertThrows(AbloomFormatException.class, () -> BloomFilter.seal(text)).error());
  }

  @Test
  void sealOfAMissingFileIsAnIoError(@TempDir Path tmp) {
    Path missing = tmp.resolve("missing.abloom");
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> BloomFilter.seal(missing));
    assertEquals(missing.toString(), e.getFile());
    assertTrue(e.getMessage().contains("seal"), e.getMessage());
    assertTrue(Files.notExists(missing));
    assertThrows(NullPointerException.class, () -> BloomFilter.seal(null));
  }

  @Test
  void theErrorCode() {
    assertEquals(AbloomError.STALE, AbloomError.of(-17));
    assertEquals(-17, AbloomError.STALE.code());
    assertTrue(AbloomError.STALE.description().contains("stale"));
    assertEquals(AbloomError.UNKNOWN, AbloomError.of(-18));
  }
}
