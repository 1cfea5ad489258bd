package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way the JNI library loads: the natives bundled under natives/&lt;os&gt;-&lt;arch&gt;/
 * (this JVM and child JVMs, also several at once), an explicit file, java.library.path when the
 * jar has nothing for the platform, and the error when nothing is found.
 */
class NativeLoaderTest {
  static final String BUNDLED = "jar:/natives/linux-x86_64/libabloom_jni.so";

  /** Run in a child JVM: prints where the library came from and a working answer. */
  public static void main(String[] args) {
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      f.put("x");
      System.out.println(NativeLoader.source() + " " + f.mightContain("x") + " " + f.mightContain("y"));
    }
  }

  private static List<String> childCommand(String... props) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xcheck:jni");
    for (String p : props) {
      cmd.add(p);
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(NativeLoaderTest.class.getName());
    return cmd;
  }

  private static String child(String... props) throws Exception {
    return TestSupport.run(childCommand(props)).trim();
  }

  /** A child JVM expected to fail: its exit code must not be 0; returns its output. */
  private static String failingChild(String... props) throws Exception {
    Process p = new ProcessBuilder(childCommand(props)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertNotEquals(0, p.exitValue(), out);
    return out;
  }

  private static String jniFile() {
    return Path.of(System.getProperty("abloom.test.jni", "target/native/libabloom_jni.so"))
        .toAbsolutePath()
        .toString();
  }

  @Test
  void loadsTheBundledNative() {
    assertEquals(0.01, BloomFilter.create(100, 0.01).targetFpp());
    assertEquals(BUNDLED, NativeLoader.source());
    assertEquals("linux-x86_64", NativeLoader.platform());
    assertEquals("/natives/linux-x86_64/libabloom_jni.so", NativeLoader.resource("linux-x86_64"));
  }

  @Test
  void platformNames() {
    assertEquals("linux-x86_64", NativeLoader.platform("Linux", "amd64"));
    assertEquals("linux-aarch64", NativeLoader.platform("Linux", "aarch64"));
    assertEquals("linux-aarch64", NativeLoader.platform("Linux", "arm64"));
    assertEquals("linux-x86", NativeLoader.platform("Linux", "i386"));
    assertEquals("linux-ppc64le", NativeLoader.platform("Linux", "ppc64le"));
    assertEquals("darwin-aarch64", NativeLoader.platform("Mac OS X", "aarch64"));
    assertEquals("darwin-x86_64", NativeLoader.platform("Mac OS X", "x86_64"));
    assertEquals("windows-x86_64", NativeLoader.platform("Windows 11", "amd64"));
    assertEquals("freebsd-x86_64", NativeLoader.platform("FreeBSD", "amd64"));
  }

  /** Lines of real /proc/self/maps texts; scripts/release/check-java.sh also classifies the maps
   * of live musl processes (x86-64 and, under qemu, aarch64) with the same method. */
  @Test
  void muslIsToldFromGlibcByWhatTheProcessHasMapped() throws Exception {
    String alpine =
        "55d1c5a00000-55d1c5a01000 r--p 00000000 08:01 1234 /usr/lib/jvm/java-17-openjdk/bin/java\n"
            + "7f3b2c000000-7f3b2c021000 rw-p 00000000 00:00 0 \n"
            + "7f3b2e9d5000-7f3b2e9e9000 r--p 00000000 08:01 2311 /lib/ld-musl-x86_64.so.1\n"
            + "7ffd5b9e4000-7ffd5ba05000 rw-p 00000000 00:00 0                          [stack]\n";
    String debianMusl =
        "7faff3da9000-7faff3dbe000 r--p 00000000 fe:00 1035 /usr/lib/x86_64-linux-musl/libc.so\n";
    String alpineLink = "7f00-7f01 r-xp 00000000 08:01 77 /lib/libc.musl-aarch64.so.1\n";
    String glibc =
        "7f8e1c228000-7f8e1c24e000 r--p 00000000 fe:00 396101 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
            + "7f8e1c3f3000-7f8e1c3f5000 r--p 00000000 fe:00 396080"
            + " /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
            + "7f8e1c400000-7f8e1c401000 r--p 00000000 fe:00 1 /opt/musl-notes/libc.so (deleted)\n";
    assertTrue(NativeLoader.muslIn(alpine));
    assertTrue(NativeLoader.muslIn(debianMusl));
    assertTrue(NativeLoader.muslIn(alpineLink));
    assertEquals(false, NativeLoader.muslIn(glibc));
    assertEquals(false, NativeLoader.muslIn(""));
    // This JVM: glibc, so its live map shows libc.so.6 and is not taken for musl.
    String own = Files.readString(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1);
    assertTrue(own.contains("/libc.so.6"), "this test expects a glibc JVM");
    assertEquals(false, NativeLoader.muslIn(own));
    assertEquals(false, NativeLoader.runsOnMusl());
    assertEquals("linux-musl-x86_64", NativeLoader.muslPlatform("linux-x86_64"));
    assertEquals("linux-musl-aarch64", NativeLoader.muslPlatform("linux-aarch64"));
  }

  @Test
  void theGeneratedJniClassesArePackagePrivate() {
    for (Class<?> c : new Class<?>[] {AbloomNative.class, AbloomNativeJNI.class}) {
      assertTrue(!java.lang.reflect.Modifier.isPublic(c.getModifiers()), c + " is public");
    }
  }

  @Test
  void theBundledNativeComesBeforeJavaLibraryPath() throws Exception {
    assertTrue(child("-Djava.library.path=/nonexistent").endsWith(BUNDLED + " true false"));
    String dir = Path.of(jniFile()).getParent().toString();
    assertTrue(child("-Djava.library.path=" + dir).endsWith(BUNDLED + " true false"));
  }

  @Test
  void extractsIntoAPrivateFolderAndCleansUp(@TempDir Path tmp) throws Exception {
    String out = child("-Dabloom.jni.tmpdir=" + tmp);
    assertTrue(out.endsWith(BUNDLED + " true false"), out);
    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(0, left.count(), "the extracted library is deleted once loaded");
    }
  }

  @Test
  void concurrentJvmsEachLoadTheirOwnCopy(@TempDir Path tmp) throws Exception {
    List<Process> jvms = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      jvms.add(
          new ProcessBuilder(childCommand("-Dabloom.jni.tmpdir=" + tmp))
              .redirectErrorStream(true)
              .start());
    }
    for (Process p : jvms) {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      assertTrue(p.waitFor(120, TimeUnit.SECONDS));
      assertEquals(0, p.exitValue(), out);
      assertTrue(out.endsWith(BUNDLED + " true false"), out);
    }
    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(0, left.count(), "every JVM deleted its copy");
    }
  }

  @Test
  void loadsAnExplicitFile() throws Exception {
    String lib = jniFile();
    String out = child("-Dabloom.jni.path=" + lib, "-Djava.library.path=/nonexistent");
    assertTrue(out.endsWith("abloom.jni.path:" + lib + " true false"), out);
    out = failingChild("-Dabloom.jni.path=/nonexistent/libabloom_jni.so");
    assertTrue(out.contains("abloom: cannot load -Dabloom.jni.path=/nonexistent/libabloom_jni.so"), out);
  }

  @Test
  void javaLibraryPathWhenTheJarHasNoNativeForThePlatform() throws Exception {
    // os.arch riscv64: the jar (here target/classes) has no natives/linux-riscv64/.
    String dir = Path.of(jniFile()).getParent().toString();
    String out = child("-Dos.arch=riscv64", "-Djava.library.path=" + dir);
    assertTrue(out.endsWith("java.library.path true false"), out);
  }

  @Test
  void aClearErrorWhenNothingLoads() throws Exception {
    String out = failingChild("-Dos.arch=riscv64", "-Djava.library.path=/nonexistent");
    assertTrue(out.contains("UnsatisfiedLinkError"), out);
    assertTrue(out.contains("abloom: this jar has no native library for linux-riscv64"), out);
    assertTrue(out.contains("natives/linux-riscv64/libabloom_jni.so"), out);
    assertTrue(out.contains("-Dabloom.jni.path="), out);
    // ... and names what the jar has, from its index (the release jar: all four platforms).
    List<String> has = NativeLoader.bundledPlatforms();
    assertTrue(has.contains(NativeLoader.platform()), has.toString());
    assertTrue(out.contains("the jar has natives for " + String.join(", ", has) + " only"), out);
  }

  @Test
  void theIndexListsExactlyTheBundledNatives() throws Exception {
    // platforms.txt, written by build-native.sh, against what target/classes/natives holds.
    Path natives = Path.of(NativeLoader.class.getResource(NativeLoader.INDEX).toURI()).getParent();
    List<String> files;
    try (Stream<Path> walk = Files.walk(natives, 2)) {
      files = walk.filter(f -> f.getNameCount() - natives.getNameCount() == 2)
          .map(f -> natives.relativize(f).toString()).sorted().collect(Collectors.toList());
    }
    String index;
    try (InputStream in = NativeLoader.class.getResourceAsStream(NativeLoader.INDEX)) {
      index = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertEquals(String.join("\n", files) + "\n", index);
    assertEquals(files.stream().map(f -> f.substring(0, f.indexOf('/'))).distinct().sorted()
        .collect(Collectors.toList()), NativeLoader.bundledPlatforms());
  }

  @Test
  void theIndexParsesToSortedDistinctPlatforms() {
    assertEquals(List.of("darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64"),
        NativeLoader.platformsOf("linux-x86_64/libabloom_jni.so\nlinux-aarch64/libabloom_jni.so\n"
            + "darwin-x86_64/libabloom_jni.dylib\ndarwin-aarch64/libabloom_jni.dylib\n"
            + "linux-x86_64/other.txt\n\nno-slash-line\n"));
    assertEquals(List.of(), NativeLoader.platformsOf(""));
    assertEquals("the jar has natives for darwin-aarch64, linux-x86_64 only",
        NativeLoader.describe(List.of("darwin-aarch64", "linux-x86_64")));
    assertEquals("the jar carries no native library at all", NativeLoader.describe(List.of()));
  }
}
