package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Every error path: the right exception, with a message, and the JVM never crashes. */
class ExceptionsTest {

  private static byte[] sample() {
    try (BloomFilter f = BloomFilter.builder().expectedInsertions(450).seed(5).build()) {
      for (int i = 0; i < 400; i++) {
        f.put(TestSupport.key16(i));
      }
      return f.toByteArray();
    }
  }

  private static void formatError(AbloomError expected, byte[] bytes) {
    AbloomFormatException e =
        assertThrows(AbloomFormatException.class, () -> BloomFilter.fromByteArray(bytes));
    assertEquals(expected, e.error());
    assertEquals(expected.code(), e.errorCode());
    assertTrue(e.getMessage().contains("fromByteArray"), e.getMessage());
    AbloomFormatException s =
        assertThrows(
            AbloomFormatException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(bytes)));
    // a stream stops where the header says the filter ends, so trailing bytes are not an error
    // there, but every other defect is the same
    assertEquals(expected, s.error());
  }

  @Test
  void badSizesAndOptions() {
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(0, 0.01));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(-5, 0.01));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(100, 0.0));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(100, 1.0));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(100, -0.5));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(100, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().shards(3));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().shards(-1));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().shards(131072));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().hashFunctions(65));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().hashFunctions(-1));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().threads(257));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().bits(-1));
    assertThrows(NullPointerException.class, () -> BloomFilter.builder().kind(null));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().build());
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.builder().plan());
    // too large: the C library says ABLOOM_ERR_RANGE
    IllegalArgumentException big =
        assertThrows(
            IllegalArgumentException.class, () -> BloomFilter.create(Long.MAX_VALUE, 1e-9));
    assertTrue(big.getMessage().contains("RANGE"), big.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> BloomFilter.builder().expectedInsertions(Long.MAX_VALUE).fpp(1e-9).plan());
  }

  @Test
  void badArguments() {
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      assertThrows(NullPointerException.class, () -> f.put((byte[]) null));
      assertThrows(NullPointerException.class, () -> f.put((String) null));
      assertThrows(NullPointerException.class, () -> f.put((ByteBuffer) null));
      assertThrows(NullPointerException.class, () -> f.mightContain((byte[]) null));
      assertThrows(NullPointerException.class, () -> f.mightContain((String) null));
      assertThrows(NullPointerException.class, () -> f.putIfAbsent((String) null));
      assertThrows(NullPointerException.class, () -> f.putAll((List<byte[]>) null));
      assertThrows(NullPointerException.class, () -> f.putAll(Arrays.asList(new byte[1], null)));
      assertThrows(NullPointerException.class, () -> f.putAll((byte[]) null, new long[] {0}));
      assertThrows(NullPointerException.class, () -> f.putAll(new byte[1], (long[]) null));
      assertThrows(NullPointerException.class, () -> f.putAll((BloomFilter) null));
      assertThrows(NullPointerException.class, () -> f.putAllIfAbsent((List<byte[]>) null));
      assertThrows(
          NullPointerException.class, () -> f.putAllIfAbsent(Arrays.asList(new byte[1], null)));
      assertThrows(
          NullPointerException.class, () -> f.putAllIfAbsent((byte[]) null, new long[] {0}));
      assertThrows(NullPointerException.class, () -> f.putAllIfAbsent(new byte[1], null));
      assertThrows(NullPointerException.class, () -> f.putAllIfAbsent((long[]) null));
      assertThrows(IndexOutOfBoundsException.class, () -> f.put(new byte[4], 2, 3));
      assertThrows(IndexOutOfBoundsException.class, () -> f.put(new byte[4], -1, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContain(new byte[4], 0, 5));
      assertThrows(IndexOutOfBoundsException.class, () -> f.mightContain(new byte[4], 3, -1));
      byte[] buf = new byte[10];
      // offsets: none, decreasing, past the end, negative (int)
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new long[0]));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new long[] {0, 5, 3}));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new long[] {0, 11}));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new long[] {-1, 2}));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new int[] {0, 5, 3}));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new int[] {0, 11}));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new int[] {-1, 2}));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(buf, new int[0]));
      assertThrows(IllegalArgumentException.class, () -> f.mightContainAll(buf, new long[] {0, 11}));
      assertThrows(IllegalArgumentException.class, () -> f.mightContainAll(buf, new int[] {0, 11}));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.mightContainAll(buf, new long[] {0, 1, 2}, new boolean[1]));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.mightContainAll(buf, new int[] {0, 1, 2}, new boolean[1]));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.putAll(ByteBuffer.allocate(4), new long[] {0, 1}));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.mightContainAll(ByteBuffer.allocate(4), new long[] {0, 1}, new boolean[1]));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.putAll(ByteBuffer.allocateDirect(4), new long[] {0, 5}));
      // a bad batch changes nothing: the bad offset is checked before any key is added
      byte[] two = TestSupport.utf8("aaaabbbb");
      assertThrows(IllegalArgumentException.class, () -> f.putAll(two, new int[] {0, 4, 9}));
      assertThrows(IllegalArgumentException.class, () -> f.putAll(two, new long[] {0, 4, 9}));
      assertEquals(0, f.approximateElementCount());
      // many-chunk int[] batch with the bad offset at the very end
      int n = 10_000;
      byte[] keys = new byte[n];
      int[] offs = new int[n + 1];
      for (int i = 0; i <= n; i++) {
        offs[i] = i;
      }
      offs[n] = n + 1;
      assertThrows(IllegalArgumentException.class, () -> f.putAll(keys, offs));
      assertEquals(0, f.approximateElementCount());
      // a view needs a direct, 64-byte aligned buffer
      assertThrows(
          IllegalArgumentException.class, () -> BloomFilter.wrap(ByteBuffer.wrap(sample()), false));
      ByteBuffer misaligned = ByteBuffer.allocateDirect(sample().length + 128).alignedSlice(64);
      misaligned.position(1);
      misaligned = misaligned.slice();
      misaligned.put(sample()).flip();
      ByteBuffer m = misaligned;
      IllegalArgumentException al =
          assertThrows(IllegalArgumentException.class, () -> BloomFilter.wrap(m, false));
      assertTrue(al.getMessage().contains("ALIGNMENT"), al.getMessage());
    }
  }

  @Test
  void mismatchedFilters() {
    try (BloomFilter a = BloomFilter.builder().expectedInsertions(1000).seed(1).build();
        BloomFilter seed = BloomFilter.builder().expectedInsertions(1000).seed(2).build();
        BloomFilter size = BloomFilter.builder().expectedInsertions(100000).seed(1).build();
        BloomFilter kind =
            BloomFilter.builder().expectedInsertions(1000).seed(1).kind(BloomFilter.Kind.CLASSIC).build()) {
      for (BloomFilter other : List.of(seed, size, kind)) {
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> a.putAll(other));
        assertTrue(e.getMessage().contains("shape"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.intersect(other));
      }
    }
  }

  @Test
  void corruptData() {
    byte[] good = sample();
    // bad magic
    byte[] b = good.clone();
    b[0] ^= 1;
    formatError(AbloomError.BAD_MAGIC, b);
    // version
    b = good.clone();
    b[8] = 2;
    formatError(AbloomError.VERSION, b);
    // any other header bit: the header checksum catches it
    for (int off : new int[] {16, 28, 40, 64, 100, 120}) {
      b = good.clone();
      b[off] ^= 0x10;
      formatError(AbloomError.CORRUPT, b);
    }
    // truncated header, truncated body
    formatError(AbloomError.TRUNCATED, Arrays.copyOf(good, 100));
    formatError(AbloomError.TRUNCATED, Arrays.copyOf(good, good.length - 1));
    formatError(AbloomError.TRUNCATED, new byte[0]);
    // a flipped body bit: the full checksum
    b = good.clone();
    b[good.length - 3] ^= 4;
    formatError(AbloomError.CHECKSUM, b);
    // trailing bytes: corrupt for a byte array (a stream just stops before them)
    byte[] longer = Arrays.copyOf(good, good.length + 1);
    AbloomFormatException t =
        assertThrows(AbloomFormatException.class, () -> BloomFilter.fromByteArray(longer));
    assertEquals(AbloomError.CORRUPT, t.error());
    // not a filter at all
    formatError(AbloomError.BAD_MAGIC, TestSupport.utf8("x".repeat(500)));
    // views check the header always, the body only when asked
    ByteBuffer buf = ByteBuffer.allocateDirect(good.length + 64).alignedSlice(64);
    byte[] flipped = good.clone();
    flipped[good.length - 3] ^= 4;
    buf.put(flipped).flip();
    try (BloomFilter v = BloomFilter.wrap(buf, false)) {
      assertTrue(v.isReadOnly());
    } catch (AbloomFormatException e) {
      throw new AssertionError(e);
    }
    AbloomFormatException c =
        assertThrows(AbloomFormatException.class, () -> BloomFilter.wrap(buf, true));
    assertEquals(AbloomError.CHECKSUM, c.error());
    buf.put(0, (byte) 0);
    assertEquals(
        AbloomError.BAD_MAGIC,
        assertThrows(AbloomFormatException.class, () -> BloomFilter.wrap(buf, false)).error());
    // out-of-range slice
    assertThrows(IndexOutOfBoundsException.class, () -> BloomFilter.fromByteArray(good, 10, good.length));
    assertEquals(AbloomError.UNKNOWN, AbloomError.of(-999));
    assertTrue(AbloomError.CHECKSUM.description().toLowerCase().contains("checksum"));
  }

  @Test
  void files(@TempDir Path tmp) throws IOException {
    byte[] good = sample();
    Path missing = tmp.resolve("no-such.abloom");
    NoSuchFileException nf =
        assertThrows(NoSuchFileException.class, () -> BloomFilter.open(missing));
    assertEquals(missing.toString(), nf.getFile());
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      assertThrows(NoSuchFileException.class, () -> f.save(tmp.resolve("no/such/dir/f.abloom")));
      // a directory in the way: the rename fails
      Path dir = tmp.resolve("adir");
      Files.createDirectory(dir);
      Files.writeString(dir.resolve("x"), "x");
      assertThrows(IOException.class, () -> f.save(dir));
      assertThrows(IOException.class, () -> BloomFilter.open(dir));
    }
    // corrupt files: AbloomFormatException from open, with the code
    Path p = tmp.resolve("bad.abloom");
    byte[] b = good.clone();
    b[0] = 'X';
    Files.write(p, b);
    assertEquals(
        AbloomError.BAD_MAGIC,
        assertThrows(AbloomFormatException.class, () -> BloomFilter.open(p)).error());
    Files.write(p, Arrays.copyOf(good, good.length - 64));
    assertEquals(
        AbloomError.TRUNCATED,
        assertThrows(AbloomFormatException.class, () -> BloomFilter.open(p)).error());
    Files.write(p, new byte[0]);
    assertEquals(
        AbloomError.TRUNCATED,
        assertThrows(AbloomFormatException.class, () -> BloomFilter.open(p)).error());
    b = good.clone();
    b[b.length - 1] ^= 1;
    Files.write(p, b);
    try (BloomFilter lazy = BloomFilter.open(p)) { // O(1) open: the body is not checked
      assertTrue(lazy.isReadOnly());
    }
    assertEquals(
        AbloomError.CHECKSUM,
        assertThrows(
                AbloomFormatException.class,
                () -> BloomFilter.open(p, BloomFilter.OpenMode.READ_ONLY, true))
            .error());
    // permissions (root ignores file modes, so only check when they bite)
    Path locked = tmp.resolve("locked.abloom");
    Files.write(locked, good);
    locked.toFile().setReadable(false, false);
    if (!Files.isReadable(locked)) {
      assertThrows(AccessDeniedException.class, () -> BloomFilter.open(locked));
    }
    // streams: failures propagate as the stream's IOException
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      OutputStream broken =
          new OutputStream() {
            @Override
            public void write(int x) throws IOException {
              throw new IOException("disk full");
            }
          };
      assertEquals("disk full", assertThrows(IOException.class, () -> f.writeTo(broken)).getMessage());
    }
    InputStream failing =
        new InputStream() {
          int left = 200;

          @Override
          public int read() throws IOException {
            if (left-- > 0) {
              return 0;
            }
            throw new IOException("network down");
          }
        };
    // zero bytes are not the magic: the header is refused before more is read
    assertEquals(
        AbloomError.BAD_MAGIC,
        assertThrows(AbloomFormatException.class, () -> BloomFilter.readFrom(failing)).error());
    InputStream failsInBody =
        new InputStream() {
          final ByteArrayInputStream head = new ByteArrayInputStream(good, 0, 200);

          @Override
          public int read() throws IOException {
            int c = head.read();
            if (c < 0) {
              throw new IOException("network down");
            }
            return c;
          }
        };
    assertEquals(
        "network down",
        assertThrows(IOException.class, () -> BloomFilter.readFrom(failsInBody)).getMessage());
    assertThrows(NullPointerException.class, () -> BloomFilter.readFrom(null));
  }

  /** The public methods that never throw after close (BloomFilter's "Lifecycle" javadoc). */
  private static final Set<String> NEVER_THROW =
      Set.of("close()", "isClosed()", "equals(Object)", "hashCode()", "toString()");

  private static String signature(Method m) {
    StringJoiner params = new StringJoiner(",", m.getName() + "(", ")");
    for (Class<?> p : m.getParameterTypes()) {
      params.add(p.getSimpleName());
    }
    return params.toString();
  }

  /**
   * Every public method of a closed filter {@code f}, keyed by signature, with valid arguments
   * ({@code other} is open and compatible).
   */
  private static Map<String, Executable> callsAfterClose(BloomFilter f, BloomFilter other, Path tmp) {
    Map<String, Executable> calls = new LinkedHashMap<>();
    calls.put("put(byte[])", () -> f.put(new byte[1]));
    calls.put("put(byte[],int,int)", () -> f.put(new byte[4], 1, 2));
    calls.put("put(String)", () -> f.put("k"));
    calls.put("put(long)", () -> f.put(1L));
    calls.put("put(ByteBuffer)", () -> f.put(ByteBuffer.allocateDirect(4)));
    calls.put("putIfAbsent(byte[])", () -> f.putIfAbsent(new byte[1]));
    calls.put("putIfAbsent(String)", () -> f.putIfAbsent("k"));
    calls.put("putIfAbsent(long)", () -> f.putIfAbsent(1L));
    calls.put("mightContain(byte[])", () -> f.mightContain(new byte[1]));
    calls.put("mightContain(byte[],int,int)", () -> f.mightContain(new byte[1], 0, 1));
    calls.put("mightContain(String)", () -> f.mightContain("k"));
    calls.put("mightContain(long)", () -> f.mightContain(7L));
    calls.put("mightContain(ByteBuffer)", () -> f.mightContain(ByteBuffer.allocateDirect(4)));
    calls.put("putAll(byte[],long[])", () -> f.putAll(new byte[2], new long[] {0, 1, 2}));
    calls.put("putAll(byte[],int[])", () -> f.putAll(new byte[2], new int[] {0, 1, 2}));
    calls.put(
        "putAll(ByteBuffer,long[])", () -> f.putAll(ByteBuffer.allocateDirect(2), new long[] {0, 1}));
    calls.put("putAll(List)", () -> f.putAll(List.of(new byte[1])));
    calls.put("putAll(long[])", () -> f.putAll(new long[] {1, 2}));
    calls.put("putAll(BloomFilter)", () -> f.putAll(other));
    calls.put(
        "putAllIfAbsent(byte[],long[])", () -> f.putAllIfAbsent(new byte[2], new long[] {0, 1, 2}));
    calls.put(
        "putAllIfAbsent(byte[],long[],boolean[])",
        () -> f.putAllIfAbsent(new byte[2], new long[] {0, 1, 2}, new boolean[2]));
    calls.put("putAllIfAbsent(List)", () -> f.putAllIfAbsent(List.of(new byte[1])));
    calls.put("putAllIfAbsent(long[])", () -> f.putAllIfAbsent(new long[] {1, 2}));
    calls.put(
        "mightContainAll(byte[],long[])", () -> f.mightContainAll(new byte[2], new long[] {0, 1, 2}));
    calls.put(
        "mightContainAll(byte[],long[],boolean[])",
        () -> f.mightContainAll(new byte[2], new long[] {0, 1, 2}, new boolean[2]));
    calls.put(
        "mightContainAll(byte[],int[])", () -> f.mightContainAll(new byte[2], new int[] {0, 1, 2}));
    calls.put(
        "mightContainAll(byte[],int[],boolean[])",
        () -> f.mightContainAll(new byte[2], new int[] {0, 1, 2}, new boolean[2]));
    calls.put(
        "mightContainAll(ByteBuffer,long[],boolean[])",
        () -> f.mightContainAll(ByteBuffer.allocateDirect(2), new long[] {0, 1}, new boolean[1]));
    calls.put("mightContainAll(List)", () -> f.mightContainAll(List.of(new byte[1])));
    calls.put("mightContainAll(long[])", () -> f.mightContainAll(new long[] {1}));
    calls.put("isCompatible(BloomFilter)", () -> f.isCompatible(other));
    calls.put("intersect(BloomFilter)", () -> f.intersect(other));
    calls.put("setWriterMode(WriterMode)", () -> f.setWriterMode(WriterMode.EXCLUSIVE));
    calls.put("writerMode()", f::writerMode);
    calls.put("setThreads(int)", () -> f.setThreads(4));
    calls.put("threads()", f::threads);
    calls.put("clear()", f::clear);
    calls.put("copy()", f::copy);
    calls.put("approximateElementCount()", f::approximateElementCount);
    calls.put("expectedFpp()", f::expectedFpp);
    calls.put("targetFpp()", f::targetFpp);
    calls.put("modelFpp()", f::modelFpp);
    calls.put("bitSize()", f::bitSize);
    calls.put("expectedInsertions()", f::expectedInsertions);
    calls.put("hashFunctions()", f::hashFunctions);
    calls.put("kind()", f::kind);
    calls.put("layout()", f::layout);
    calls.put("shards()", f::shards);
    calls.put("seed()", f::seed);
    calls.put("storage()", f::storage);
    calls.put("isReadOnly()", f::isReadOnly);
    calls.put("isStale()", f::isStale);
    calls.put("serializedSize()", f::serializedSize);
    calls.put("toByteArray()", f::toByteArray);
    calls.put("writeTo(OutputStream)", () -> f.writeTo(OutputStream.nullOutputStream()));
    calls.put("save(Path)", () -> f.save(tmp.resolve("x.abloom")));
    calls.put("sync()", f::sync);
    calls.put("isGrowing()", f::isGrowing);
    calls.put("growth()", f::growth);
    calls.put("stageCount()", f::stageCount);
    calls.put("growthFailed()", f::growthFailed);
    calls.put("keyCount()", f::keyCount);
    calls.put("stage(int)", () -> f.stage(0));
    calls.put("stages()", f::stages);
    return calls;
  }

  @Test
  void useAfterClose(@TempDir Path tmp) throws IOException {
    BloomFilter f = BloomFilter.create(1000, 0.01);
    f.put("k");
    BloomFilter other = BloomFilter.create(1000, 0.01);
    other.put("k");
    assertEquals(f, other); // same shape, same bits
    int hash = f.hashCode();
    String open = f.toString();
    Set<BloomFilter> set = new HashSet<>(Set.of(f));
    f.close();

    // Every public instance method is called below, or is one of the five that never throw.
    Map<String, Executable> calls = callsAfterClose(f, other, tmp);
    Set<String> methods = new TreeSet<>();
    for (Method m : BloomFilter.class.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())) {
        methods.add(signature(m));
      }
    }
    Set<String> covered = new TreeSet<>(calls.keySet());
    covered.addAll(NEVER_THROW);
    assertEquals(methods, covered);

    for (Map.Entry<String, Executable> call : calls.entrySet()) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, call.getValue(), call.getKey());
      assertEquals("abloom: the BloomFilter is closed", e.getMessage(), call.getKey());
    }
    assertTrue(Files.notExists(tmp.resolve("x.abloom")));
    // Key forms that take other paths (heap and read-only heap buffers).
    assertThrows(IllegalStateException.class, () -> f.put(ByteBuffer.allocate(4)));
    assertThrows(IllegalStateException.class, () -> f.mightContain(ByteBuffer.allocate(4)));
    assertThrows(
        IllegalStateException.class, () -> f.put(ByteBuffer.allocate(4).asReadOnlyBuffer()));
    assertThrows(
        IllegalStateException.class,
        () -> f.mightContain(ByteBuffer.allocate(4).asReadOnlyBuffer()));

    // A closed filter as the argument of an open one's method.
    List<Executable> asArgument = new ArrayList<>();
    asArgument.add(() -> other.putAll(f));
    asArgument.add(() -> other.intersect(f));
    asArgument.add(() -> other.isCompatible(f));
    for (Executable call : asArgument) {
      IllegalStateException e = assertThrows(IllegalStateException.class, call);
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
    // Closed is told before an incompatible shape.
    try (BloomFilter small = BloomFilter.create(10, 0.5)) {
      assertThrows(IllegalStateException.class, () -> f.putAll(small));
      assertThrows(IllegalStateException.class, () -> small.intersect(f));
      assertThrows(IllegalStateException.class, () -> small.isCompatible(f));
    }

    // The five that never throw.
    f.close(); // idempotent
    assertTrue(f.isClosed());
    assertEquals(open.substring(0, open.length() - 1) + ", closed}", f.toString());
    assertEquals(hash, f.hashCode()); // unchanged by close
    assertTrue(f.equals(f));
    assertTrue(!f.equals(other) && !other.equals(f)); // equal before close, not after
    assertTrue(set.contains(f) && set.remove(f) && set.isEmpty());
    assertTrue(other.mightContain("k")); // the failed calls left other alone
    other.close();
  }

  @Test
  void cleanerFreesUnclosedFilters() throws InterruptedException {
    // Filters dropped without close are freed by the Cleaner; this must neither crash nor leak
    // without bound (16 MiB each, 64 of them = 1 GiB if never freed).
    for (int i = 0; i < 64; i++) {
      BloomFilter f = BloomFilter.builder().expectedInsertions(1).bits(128L * 1024 * 1024).build();
      f.put(i);
      if (i % 8 == 7) {
        System.gc();
        Thread.sleep(20);
      }
    }
  }
}
