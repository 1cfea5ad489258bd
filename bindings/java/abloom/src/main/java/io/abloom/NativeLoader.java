package io.abloom;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Loads {@code libabloom_jni} once per JVM: from {@code -Dabloom.jni.path=/abs/file.so} when set;
 * else by {@link System#loadLibrary} from {@code java.library.path}; else by extracting the copy
 * bundled in the jar ({@code /native/<os>-<arch>/libabloom_jni.so}) to a temporary file and
 * {@link System#load loading} that, from a folder under {@code -Dabloom.jni.tmpdir} if set (for
 * hosts whose {@code java.io.tmpdir} is mounted noexec), else {@code java.io.tmpdir}.
 * {@code -Dabloom.jni.extract=true} skips the second step (the tests use it to exercise the jar
 * path).
 */
final class NativeLoader {
  static final String LIBRARY = "abloom_jni";

  private static String source;

  private NativeLoader() {}

  /** Loads the library if it is not loaded yet; called by the JNI class's static initializer. */
  static synchronized void load() {
    if (source != null) {
      return;
    }
    String explicit = System.getProperty("abloom.jni.path");
    if (explicit != null && !explicit.isEmpty()) {
      System.load(explicit);
      source = "abloom.jni.path:" + explicit;
      return;
    }
    UnsatisfiedLinkError fromPath = null;
    if (!Boolean.getBoolean("abloom.jni.extract")) {
      try {
        System.loadLibrary(LIBRARY);
        source = "java.library.path";
        return;
      } catch (UnsatisfiedLinkError e) {
        fromPath = e;
      }
    }
    String resource = "/native/" + platform() + "/" + System.mapLibraryName(LIBRARY);
    try {
      source = "jar:" + extractAndLoad(resource);
    } catch (IOException | UnsatisfiedLinkError e) {
      UnsatisfiedLinkError error =
          new UnsatisfiedLinkError(
              "abloom: cannot load "
                  + System.mapLibraryName(LIBRARY)
                  + " from java.library.path ("
                  + System.getProperty("java.library.path")
                  + ") nor from the jar resource "
                  + resource
                  + ": "
                  + e.getMessage());
      if (fromPath != null) {
        error.addSuppressed(fromPath);
      }
      error.addSuppressed(e);
      throw error;
    }
  }

  /** Where the library came from: "java.library.path", "jar:/native/...", or "abloom.jni.path:...". */
  static synchronized String source() {
    return source;
  }

  private static String extractAndLoad(String resource) throws IOException {
    try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("no such resource in the jar");
      }
      String tmp = System.getProperty("abloom.jni.tmpdir");
      Path dir =
          tmp != null && !tmp.isEmpty()
              ? Files.createTempDirectory(Path.of(tmp), "abloom-jni")
              : Files.createTempDirectory("abloom-jni");
      Path file = dir.resolve(System.mapLibraryName(LIBRARY));
      try {
        Files.copy(in, file);
        System.load(file.toAbsolutePath().toString());
      } finally {
        // Once loaded, the mapping stays valid after the file is deleted (POSIX); elsewhere the
        // delete fails and the file goes at exit.
        try {
          Files.deleteIfExists(file);
          Files.deleteIfExists(dir);
        } catch (IOException e) {
          file.toFile().deleteOnExit();
          dir.toFile().deleteOnExit();
        }
      }
      return resource;
    }
  }

  /** The resource folder name for this platform, e.g. "linux-x86_64". */
  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      os = "linux";
    } else if (os.startsWith("mac")) {
      os = "darwin";
    } else if (os.startsWith("windows")) {
      os = "windows";
    }
    if (arch.equals("amd64") || arch.equals("x86_64")) {
      arch = "x86_64";
    } else if (arch.equals("arm64")) {
      arch = "aarch64";
    }
    return os + "-" + arch;
  }
}
