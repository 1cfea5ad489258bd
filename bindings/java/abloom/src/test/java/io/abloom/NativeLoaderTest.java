package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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
 * jar has nothing for the platform, and the error when nothing is found. Run on Linux x86-64 (by
 * Maven) and on Windows x86-64 (under wine: scripts/platform-builds.sh x86_64-windows-java),
 * where the extracted library is shared and reused instead of deleted (NativeLoader).
 */
class NativeLoaderTest {
  static final boolean WINDOWS = NativeLoader.onWindows();
  static final String OS = WINDOWS ? "windows" : "linux";
  static final String PLATFORM = OS + "-x86_64";
  static final String FILE = WINDOWS ? "abloom_jni.dll" : "libabloom_jni.so";
  static final String BUNDLED = "jar:/natives/" + PLATFORM + "/" + FILE;

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
    Process p = TestSupport.start(new ProcessBuilder(childCommand(props)).redirectErrorStream(true));
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertNotEquals(0, p.exitValue(), out);
    return out;
  }

  /** A JNI library file outside any jar, named as System.mapLibraryName names it here. */
  private static String jniFile() {
    return Path.of(System.getProperty("abloom.test.jni", "target/native/libabloom_jni.so"))
        .toAbsolutePath()
        .toString();
  }

  @Test
  void loadsTheBundledNative() {
    assertEquals(0.01, BloomFilter.create(100, 0.01).targetFpp());
    assertEquals(BUNDLED, NativeLoader.source());
    assertEquals(PLATFORM, NativeLoader.platform());
    assertEquals("/natives/" + PLATFORM + "/" + FILE, NativeLoader.resource(PLATFORM));
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
    assertEquals("windows-aarch64", NativeLoader.platform("Windows 11", "aarch64"));
    assertEquals("windows-x86_64", NativeLoader.platform("Windows Server 2022", "amd64"));
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
    if (WINDOWS) { // no /proc: never musl (and platform() asks only on Linux)
      assertEquals(false, NativeLoader.runsOnMusl());
    } else { // This JVM: glibc, so its live map shows libc.so.6 and is not taken for musl.
      String own = Files.readString(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1);
      assertTrue(own.contains("/libc.so.6"), "this test expects a glibc JVM");
      assertEquals(false, NativeLoader.muslIn(own));
      assertEquals(false, NativeLoader.runsOnMusl());
    }
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
    if (WINDOWS) {
      assertEquals(List.of(sharedFolder() + "/abloom_jni.dll"), tree(tmp), "one shared copy");
      return;
    }
    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(0, left.count(), "the extracted library is deleted once loaded");
    }
  }

  /** The folder the Windows loader keeps this jar's library in: abloom-jni-HASH. */
  private static String sharedFolder() throws Exception {
    try (InputStream in = NativeLoader.class.getResourceAsStream(NativeLoader.resource(PLATFORM))) {
      return NativeLoader.sharedFolderName(in.readAllBytes());
    }
  }

  private static List<String> sorted(String... names) {
    return Stream.of(names).sorted().collect(Collectors.toList());
  }

  /** Every file under dir, as sorted "folder/name" paths relative to it ('/' between parts). */
  private static List<String> tree(Path dir) throws Exception {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .map(f -> dir.relativize(f).toString().replace('\\', '/'))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /**
   * Windows cannot delete a loaded DLL: the library is extracted once per content and shared,
   * the next JVM reuses it (a damaged copy is replaced), and what no process has loaded any
   * more goes: other versions' folders and the private folders of older loaders, and the extra
   * copies made for second class loaders, but only once they are a minute old.
   */
  @Test
  void onWindowsTheExtractedLibraryIsSharedReusedAndSwept(@TempDir Path tmp) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(WINDOWS, "Windows only: POSIX deletes its copy at once");
    String shared = sharedFolder();
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
    Path otherVersion = Files.createDirectories(tmp.resolve("abloom-jni-0123456789abcdef"));
    Files.write(otherVersion.resolve("abloom_jni.dll"), new byte[] {1});
    Path legacy = Files.createDirectories(tmp.resolve("abloom-jni4242"));
    Files.write(legacy.resolve("abloom_jni.dll"), new byte[] {2});
    Path young = Files.createDirectories(tmp.resolve("abloom-jni-fedcba9876543210"));
    Files.write(young.resolve("abloom_jni.dll"), new byte[] {3});
    Path own = Files.createDirectories(tmp.resolve(shared));
    Files.write(own.resolve("abloom_jni.dll"), new byte[] {4}); // damaged: replaced
    Files.write(own.resolve("abloom_jni-1.dll"), new byte[] {5}); // an old copy: swept
    Files.write(own.resolve("abloom_jni-2.dll"), new byte[] {6}); // a young one: kept
    for (Path p : List.of(otherVersion.resolve("abloom_jni.dll"), otherVersion,
        legacy.resolve("abloom_jni.dll"), legacy, own.resolve("abloom_jni-1.dll"))) {
      Files.setLastModifiedTime(p, old);
    }
    assertTrue(child("-Dabloom.jni.tmpdir=" + tmp).endsWith(BUNDLED + " true false"));
    assertEquals(sorted("abloom-jni-fedcba9876543210/abloom_jni.dll", shared + "/abloom_jni-2.dll",
        shared + "/abloom_jni.dll"), tree(tmp));
    byte[] jar;
    try (InputStream in = NativeLoader.class.getResourceAsStream(NativeLoader.resource(PLATFORM))) {
      jar = in.readAllBytes();
    }
    assertTrue(java.util.Arrays.equals(jar, Files.readAllBytes(own.resolve("abloom_jni.dll"))),
        "the damaged copy was replaced by the jar's");
    // Run after run, nothing grows.
    for (int i = 0; i < 3; i++) {
      assertTrue(child("-Dabloom.jni.tmpdir=" + tmp).endsWith(BUNDLED + " true false"));
    }
    assertEquals(sorted("abloom-jni-fedcba9876543210/abloom_jni.dll", shared + "/abloom_jni-2.dll",
        shared + "/abloom_jni.dll"), tree(tmp));
  }

  /**
   * A second class loader of the same JVM (an application server's second webapp) loads the
   * library too: on POSIX a private copy of its own, deleted at once; on Windows, where the JVM
   * refuses to load the shared file for a second class loader, a copy beside it (swept by a
   * later load once no process has it loaded).
   */
  @Test
  void aSecondClassLoaderLoadsItsOwnCopy() throws Exception {
    BloomFilter.create(100, 0.01).close();
    assertEquals(BUNDLED, NativeLoader.source()); // this class loader's
    Path shared = NativeLoader.tmpRoot().resolve(sharedFolder());
    long before = WINDOWS ? copies(shared) : 0;
    java.net.URL code = NativeLoader.class.getProtectionDomain().getCodeSource().getLocation();
    try (java.net.URLClassLoader other =
        new java.net.URLClassLoader(new java.net.URL[] {code}, ClassLoader.getPlatformClassLoader())) {
      Class<?> jni = Class.forName("io.abloom.AbloomNativeJNI", true, other);
      assertTrue(jni != AbloomNativeJNI.class, "a class of the other loader");
      java.lang.reflect.Method source =
          Class.forName("io.abloom.NativeLoader", true, other).getDeclaredMethod("source");
      source.setAccessible(true);
      assertEquals(BUNDLED, source.invoke(null));
      java.lang.reflect.Method strerror = jni.getDeclaredMethod("abloom_strerror", int.class);
      strerror.setAccessible(true);
      assertEquals(AbloomNativeJNI.abloom_strerror(0), strerror.invoke(null, 0), "its JNI calls work");
    }
    if (WINDOWS) {
      assertEquals(before + 1, copies(shared), "a copy for the second class loader");
    }
  }

  /** The number of abloom_jni-*.dll copies in the shared folder. */
  private static long copies(Path shared) throws Exception {
    try (Stream<Path> files = Files.list(shared)) {
      return files.filter(f -> f.getFileName().toString().matches("abloom_jni-[0-9]+\\.dll")).count();
    }
  }

  @Test
  void concurrentJvmsEachLoadTheirOwnCopy(@TempDir Path tmp) throws Exception {
    List<Process> jvms = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      jvms.add(
          TestSupport.start(
              new ProcessBuilder(childCommand("-Dabloom.jni.tmpdir=" + tmp))
                  .redirectErrorStream(true)));
    }
    for (Process p : jvms) {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      assertTrue(p.waitFor(120, TimeUnit.SECONDS));
      assertEquals(0, p.exitValue(), out);
      assertTrue(out.endsWith(BUNDLED + " true false"), out);
    }
    if (WINDOWS) {
      assertEquals(List.of(sharedFolder() + "/abloom_jni.dll"), tree(tmp), "one copy, shared");
      return;
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
    out = failingChild("-Dabloom.jni.path=/nonexistent/" + FILE);
    assertTrue(out.contains("abloom: cannot load -Dabloom.jni.path=/nonexistent/" + FILE), out);
  }

  @Test
  void javaLibraryPathWhenTheJarHasNoNativeForThePlatform() throws Exception {
    // os.arch riscv64: the jar (target/classes, or the release jar) has no natives/<os>-riscv64/.
    String dir = Path.of(jniFile()).getParent().toString();
    String out = child("-Dos.arch=riscv64", "-Djava.library.path=" + dir);
    assertTrue(out.endsWith("java.library.path true false"), out);
  }

  @Test
  void aClearErrorWhenNothingLoads() throws Exception {
    String out = failingChild("-Dos.arch=riscv64", "-Djava.library.path=/nonexistent");
    assertTrue(out.contains("UnsatisfiedLinkError"), out);
    assertTrue(out.contains("abloom: this jar has no native library for " + OS + "-riscv64"), out);
    assertTrue(out.contains("natives/" + OS + "-riscv64/" + FILE), out);
    assertTrue(out.contains("-Dabloom.jni.path="), out);
    // ... and names what the jar has, from its index (the release jar: all four platforms).
    List<String> has = NativeLoader.bundledPlatforms();
    assertTrue(has.contains(NativeLoader.platform()), has.toString());
    assertTrue(out.contains("the jar has natives for " + String.join(", ", has) + " only"), out);
  }

  @Test
  void theIndexListsExactlyTheBundledNatives() throws Exception {
    // platforms.txt, written by build-native.sh, against what target/classes/natives (or the
    // release jar's natives/, through a zip file system) holds.
    java.net.URI uri = NativeLoader.class.getResource(NativeLoader.INDEX).toURI();
    List<String> files;
    try (java.nio.file.FileSystem zip = uri.getScheme().equals("jar")
        ? java.nio.file.FileSystems.newFileSystem(uri, java.util.Map.of()) : null) {
      Path natives = (zip != null ? zip.provider().getPath(uri) : Path.of(uri)).getParent();
      try (Stream<Path> walk = Files.walk(natives, 2)) {
        files = walk.filter(f -> f.getNameCount() - natives.getNameCount() == 2)
            .map(f -> natives.relativize(f).toString()).sorted().collect(Collectors.toList());
      }
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
