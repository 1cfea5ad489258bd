package io.abloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Both ways the JNI library loads: java.library.path (this JVM) and extraction from the jar. */
class NativeLoaderTest {

  /** Run in a child JVM: prints where the library came from and a working answer. */
  public static void main(String[] args) {
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      f.put("x");
      System.out.println(NativeLoader.source() + " " + f.mightContain("x") + " " + f.mightContain("y"));
    }
  }

  @Test
  void loadsFromJavaLibraryPath() {
    assertEquals(0.01, BloomFilter.create(100, 0.01).targetFpp());
    assertEquals("java.library.path", NativeLoader.source());
    assertEquals("linux-x86_64", NativeLoader.platform());
  }

  private static String child(String... props) throws Exception {
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
    return TestSupport.run(cmd).trim();
  }

  @Test
  void theGeneratedJniClassesArePackagePrivate() {
    for (Class<?> c : new Class<?>[] {AbloomNative.class, AbloomNativeJNI.class}) {
      assertTrue(!java.lang.reflect.Modifier.isPublic(c.getModifiers()), c + " is public");
    }
  }

  @Test
  void extractsFromTheJarWhenNotOnTheLibraryPath() throws Exception {
    String out = child("-Djava.library.path=/nonexistent", "-Dabloom.jni.extract=false");
    assertTrue(out.endsWith("jar:/native/linux-x86_64/libabloom_jni.so true false"), out);
    out = child("-Dabloom.jni.extract=true");
    assertTrue(out.endsWith("jar:/native/linux-x86_64/libabloom_jni.so true false"), out);
  }

  @Test
  void extractsIntoTheGivenFolderAndCleansUp(@org.junit.jupiter.api.io.TempDir Path tmp)
      throws Exception {
    String out = child("-Dabloom.jni.extract=true", "-Dabloom.jni.tmpdir=" + tmp);
    assertTrue(out.endsWith("jar:/native/linux-x86_64/libabloom_jni.so true false"), out);
    try (java.util.stream.Stream<Path> left = java.nio.file.Files.list(tmp)) {
      assertEquals(0, left.count(), "the extracted library is deleted once loaded");
    }
  }

  @Test
  void loadsAnExplicitFile() throws Exception {
    String lib = Path.of("target", "native", "libabloom_jni.so").toAbsolutePath().toString();
    String out = child("-Dabloom.jni.path=" + lib, "-Djava.library.path=/nonexistent");
    assertTrue(out.endsWith("abloom.jni.path:" + lib + " true false"), out);
  }
}
