package io.abloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Loads {@code libabloom_jni} once per JVM, in this order (the convention of zstd-jni):
 *
 * <ol>
 *   <li>{@code -Dabloom.jni.path=/abs/libabloom_jni.so} when set: that file, and nothing else;
 *   <li>the copy this jar carries for the platform, {@code /natives/<os>-<arch>/<library>} (for
 *       example {@code natives/linux-x86_64/libabloom_jni.so}), extracted to a fresh private
 *       folder (mode 0700, a new one per load, so concurrent JVMs and class loaders never share
 *       or overwrite a file) under {@code -Dabloom.jni.tmpdir} if set (for hosts whose {@code
 *       java.io.tmpdir} is mounted noexec), else {@code java.io.tmpdir}; loaded, then deleted at
 *       once (the mapping outlives the file on POSIX). On Windows, which cannot delete a loaded
 *       DLL, a copy per JVM would stay behind after every run: there the library goes to one
 *       folder per library content, {@code abloom-jni-<16 hex digits of its SHA-256>\abloom_jni.dll},
 *       which every JVM shares and reuses (see {@link #extractAndLoadShared});
 *   <li>only when the jar has no native for this platform: {@link System#loadLibrary} from
 *       {@code java.library.path}, for builds that ship their own library.
 * </ol>
 *
 * The jar's copy comes before {@code java.library.path} so that a stale {@code libabloom_jni} on
 * the library path can never be paired with these classes. When nothing loads, the {@link
 * UnsatisfiedLinkError} says which platform was looked for, which platforms the jar has (its
 * index, {@code natives/platforms.txt}, written by build-native.sh) and how to supply a library.
 */
final class NativeLoader {
  static final String LIBRARY = "abloom_jni";
  /** The jar's index of its natives: one {@code <os>-<arch>/<library>} per line. */
  static final String INDEX = "/natives/platforms.txt";

  private static String source;

  private NativeLoader() {}

  /** Loads the library if it is not loaded yet; called by the JNI class's static initializer. */
  static synchronized void load() {
    if (source != null) {
      return;
    }
    String explicit = System.getProperty("abloom.jni.path");
    if (explicit != null && !explicit.isEmpty()) {
      try {
        System.load(explicit);
      } catch (UnsatisfiedLinkError e) {
        throw withCause("abloom: cannot load -Dabloom.jni.path=" + explicit + ": " + e.getMessage(), e);
      }
      source = "abloom.jni.path:" + explicit;
      return;
    }
    String platform = platform();
    String resource = resource(platform);
    if (NativeLoader.class.getResource(resource) != null) {
      try {
        extractAndLoad(resource);
      } catch (IOException | UnsatisfiedLinkError e) {
        throw withCause(
            "abloom: cannot load the library bundled at "
                + resource
                + " ("
                + e
                + "). If the temporary folder ("
                + tmpRoot()
                + ") is mounted noexec, set -Dabloom.jni.tmpdir to a folder that allows"
                + " executables. The release jar's Linux libraries need glibc 2.17 or newer"
                + " (natives/linux-*) or musl 1.2.3 or newer (natives/linux-musl-*); a jar built"
                + " with `mvn install` carries one for its build machine's libc alone",
            e);
      }
      source = "jar:" + resource;
      return;
    }
    try {
      System.loadLibrary(LIBRARY);
    } catch (UnsatisfiedLinkError e) {
      throw withCause(
          "abloom: this jar has no native library for "
              + platform
              + " (os.name="
              + System.getProperty("os.name")
              + ", os.arch="
              + System.getProperty("os.arch")
              + "; it looked for "
              + resource.substring(1)
              + "; "
              + describe(bundledPlatforms())
              + ") and none was found on java.library.path ("
              + System.getProperty("java.library.path")
              + "). Build libabloom_jni for this platform (bindings/java/README.md, 'Other"
              + " platforms') and add it to the jar at "
              + resource.substring(1)
              + ", or load it with -Dabloom.jni.path=/abs/path/"
              + System.mapLibraryName(LIBRARY)
              + " or from -Djava.library.path",
          e);
    }
    source = "java.library.path";
  }

  /** Where the library came from: "jar:/natives/...", "java.library.path" or "abloom.jni.path:...". */
  static synchronized String source() {
    return source;
  }

  /** The jar resource of this platform's library, e.g. "/natives/linux-x86_64/libabloom_jni.so". */
  static String resource(String platform) {
    return "/natives/" + platform + "/" + System.mapLibraryName(LIBRARY);
  }

  /** The platforms this jar has natives for, from its index; empty when it has none (or no index). */
  static List<String> bundledPlatforms() {
    try (InputStream in = NativeLoader.class.getResourceAsStream(INDEX)) {
      return in == null ? List.of() : platformsOf(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return List.of(); // only for the error message: the load has failed already
    }
  }

  /** The distinct, sorted {@code <os>-<arch>} folders of an index's lines ("linux-x86_64/libabloom_jni.so"). */
  static List<String> platformsOf(String index) {
    TreeSet<String> platforms = new TreeSet<>();
    for (String line : index.split("\n")) {
      int slash = line.indexOf('/');
      if (slash > 0) {
        platforms.add(line.substring(0, slash).trim());
      }
    }
    return List.copyOf(platforms);
  }

  /** The message's part that names what the jar has. */
  static String describe(List<String> platforms) {
    return platforms.isEmpty()
        ? "the jar carries no native library at all"
        : "the jar has natives for " + String.join(", ", platforms) + " only";
  }

  private static UnsatisfiedLinkError withCause(String message, Throwable cause) {
    UnsatisfiedLinkError error = new UnsatisfiedLinkError(message);
    error.initCause(cause);
    return error;
  }

  static Path tmpRoot() {
    String tmp = System.getProperty("abloom.jni.tmpdir");
    return Path.of(tmp != null && !tmp.isEmpty() ? tmp : System.getProperty("java.io.tmpdir"));
  }

  private static void extractAndLoad(String resource) throws IOException {
    if (onWindows()) {
      extractAndLoadShared(resource);
      return;
    }
    // createTempDirectory: a new folder with a random name, owner-only (0700) on POSIX, so no
    // other user can swap the file between the write and the load, and no other JVM shares it.
    Path dir = Files.createTempDirectory(tmpRoot(), "abloom-jni");
    Path file = dir.resolve(System.mapLibraryName(LIBRARY));
    try {
      try (InputStream in = NativeLoader.class.getResourceAsStream(resource);
          OutputStream os = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW)) {
        if (in == null) {
          throw new IOException("no resource " + resource);
        }
        in.transferTo(os);
      }
      System.load(file.toAbsolutePath().toString());
    } finally {
      // Once loaded, the mapping stays valid after the file is deleted (POSIX); should the delete
      // fail, the file and folder go at exit.
      try {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        dir.toFile().deleteOnExit();
        file.toFile().deleteOnExit(); // registered last, deleted first
      }
    }
  }

  /** Whether this JVM runs on Windows (os.name "Windows 11", "Windows Server 2022", ...). */
  static boolean onWindows() {
    return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
  }

  /** Files younger than this are never swept: a JVM may be writing them, or about to load them. */
  static final long SWEEP_AFTER_MILLIS = 60_000;

  /**
   * Windows: a loaded DLL cannot be deleted, nor replaced, while any process has it loaded, so
   * the POSIX way (a private copy, deleted once loaded) would leave a copy behind per JVM run.
   * Instead the library is kept at {@code <tmp>\abloom-jni-<hash>\abloom_jni.dll}, where hash is
   * the first 16 hex digits of its SHA-256: written once, under a temporary name in that folder
   * and renamed into place (so no JVM ever loads a half-written file), then shared by every JVM
   * that runs this library, concurrently or later. Before each load its bytes are compared with
   * the jar's (and a file that differs is replaced). A second class loader of the same JVM cannot
   * load a file the JVM has loaded already: it gets a copy of its own in that folder, {@code
   * abloom_jni-<random>.dll}. Nothing grows with the number of runs: each load deletes what no
   * process has loaded any more (Windows refuses the delete of a loaded DLL): the other {@code
   * abloom-jni*} folders (other versions of the library, and the private folders of a loader
   * before this one) and the copies, leaving alone anything modified in the last minute. The
   * folder is shared by the user's JVMs: {@code -Dabloom.jni.tmpdir}, when set, should name a
   * folder of the user's own, as {@code %TEMP%} is.
   */
  static Path extractAndLoadShared(String resource) throws IOException {
    byte[] bytes;
    try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("no resource " + resource);
      }
      bytes = in.readAllBytes();
    }
    Path root = tmpRoot();
    Path dir = root.resolve(sharedFolderName(bytes));
    Path file = dir.resolve(System.mapLibraryName(LIBRARY));
    Files.createDirectories(dir);
    try { // young: another version's sweep leaves the folder alone while this JVM loads from it
      Files.setLastModifiedTime(dir, FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException e) {
      // best effort
    }
    if (!sameBytes(file, bytes)) {
      Path tmp = write(dir, bytes);
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        // Another JVM renamed its copy into place first and has it loaded (Windows refuses to
        // replace it): that copy is whole, as every file under this name is. Should it differ
        // (damaged, and loaded by a process), this JVM loads a copy of its own.
        if (!sameBytes(file, bytes)) {
          file = tmp;
          tmp = null;
        }
      } finally {
        if (tmp != null) {
          Files.deleteIfExists(tmp);
        }
      }
    }
    try {
      System.load(file.toAbsolutePath().toString());
    } catch (UnsatisfiedLinkError e) {
      if (e.getMessage() == null || !e.getMessage().contains("another classloader")) {
        throw e;
      }
      // The JVM has this file loaded for another class loader: this one gets a copy of its own.
      file = write(dir, bytes);
      System.load(file.toAbsolutePath().toString());
    }
    sweep(root, dir);
    return file;
  }

  /** "abloom-jni-" and the first 16 hex digits of the library's SHA-256. */
  static String sharedFolderName(byte[] library) {
    try {
      byte[] sha = MessageDigest.getInstance("SHA-256").digest(library);
      return "abloom-jni-" + HexFormat.of().formatHex(sha, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256 in this JVM", e);
    }
  }

  /**
   * Whether file holds exactly these bytes; its modification time is set to now first, so that
   * a sweep in another JVM leaves it alone while this one loads it.
   */
  private static boolean sameBytes(Path file, byte[] bytes) {
    try {
      Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException e) {
      // best effort (the file may not exist yet): the comparison below decides
    }
    try {
      return Files.size(file) == bytes.length && Arrays.equals(Files.readAllBytes(file), bytes);
    } catch (IOException e) {
      return false;
    }
  }

  /** A new file abloom_jni-<random>.dll in dir holding bytes. */
  private static Path write(Path dir, byte[] bytes) throws IOException {
    Path tmp = Files.createTempFile(dir, LIBRARY + "-", ".dll");
    try (OutputStream os = Files.newOutputStream(tmp, StandardOpenOption.TRUNCATE_EXISTING)) {
      os.write(bytes);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    return tmp;
  }

  /**
   * Deletes, under root, the {@code abloom-jni*} folders other than current and the copies
   * ({@code abloom_jni-*.dll}) in current, where nothing has them loaded (Windows refuses to
   * delete a loaded DLL) and nothing modified them in the last minute. Best effort: errors are
   * ignored.
   */
  static void sweep(Path root, Path current) {
    long before = System.currentTimeMillis() - SWEEP_AFTER_MILLIS;
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "abloom-jni*")) {
      for (Path d : dirs) {
        try {
          sweepFolder(d, d.getFileName().equals(current.getFileName()), before);
        } catch (IOException | RuntimeException e) {
          // best effort: the next load tries again
        }
      }
    } catch (IOException | RuntimeException e) {
      // best effort: the next load tries again
    }
  }

  private static void sweepFolder(Path d, boolean own, long before) throws IOException {
    // (A young folder may be one another JVM has just made and is about to write into.)
    if (!Files.isDirectory(d) || (!own && Files.getLastModifiedTime(d).toMillis() > before)) {
      return;
    }
    boolean emptied = true;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(d)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (own && !(name.startsWith(LIBRARY + "-") && name.endsWith(".dll"))) {
          emptied = false; // this library's own file
          continue;
        }
        try {
          if (Files.getLastModifiedTime(f).toMillis() > before) {
            emptied = false;
          } else {
            Files.delete(f);
          }
        } catch (IOException e) {
          emptied = false; // loaded by a running process
        }
      }
    }
    if (!own && emptied) {
      Files.deleteIfExists(d);
    }
  }

  /**
   * The natives folder for this platform, {@code <os>-<arch>}: os is {@code linux}, {@code
   * darwin} (macOS), {@code windows}, else os.name lower-cased without blanks; arch is {@code
   * x86_64} (amd64), {@code aarch64} (arm64), {@code x86} (i386..i686), else os.arch lower-cased.
   * On Linux with musl as the C library (Alpine), {@code linux-musl-<arch>}: a glibc library
   * cannot load there.
   */
  static String platform() {
    String platform =
        platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    return platform.startsWith("linux-") && runsOnMusl() ? muslPlatform(platform) : platform;
  }

  /** "linux-x86_64" -> "linux-musl-x86_64". */
  static String muslPlatform(String linuxPlatform) {
    return "linux-musl-" + linuxPlatform.substring("linux-".length());
  }

  /**
   * Whether this JVM runs on musl: its own memory map ({@code /proc/self/maps}) holds musl's
   * dynamic loader, which is musl's libc too. os.name and os.arch are the same on glibc and musl,
   * and a file test (does /lib/ld-musl-*.so.1 exist?) would be fooled by a glibc system with
   * musl installed beside it; what the process has loaded cannot be. False when the map cannot
   * be read.
   */
  static boolean runsOnMusl() {
    try {
      return muslIn(Files.readString(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Whether a {@code /proc/<pid>/maps} text shows musl's libc mapped: a file named
   * {@code ld-musl-<arch>.so.1} (Alpine's, and the ABI's loader name) or {@code
   * libc.musl-<arch>.so.1}, or a {@code libc.so} in a {@code <arch>-linux-musl} folder (Debian's
   * musl package). glibc's libc is {@code libc.so.6}, which none of these match.
   */
  static boolean muslIn(String maps) {
    for (String line : maps.split("\n")) {
      int slash = line.indexOf('/');
      if (slash < 0) {
        continue; // anonymous mappings, [heap], [stack], [vdso]
      }
      String path = line.substring(slash).trim();
      String name = path.substring(path.lastIndexOf('/') + 1);
      if (name.startsWith("ld-musl-") || name.startsWith("libc.musl-")) {
        return true;
      }
      if (name.equals("libc.so") && path.matches(".*/[a-z0-9_]+-linux-musl/libc\\.so")) {
        return true;
      }
    }
    return false;
  }

  /** {@link #platform()} of the given os.name and os.arch. */
  static String platform(String osName, String osArch) {
    String os = osName.toLowerCase(Locale.ROOT);
    String arch = osArch.toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      os = "linux";
    } else if (os.startsWith("mac") || os.startsWith("darwin")) {
      os = "darwin";
    } else if (os.startsWith("windows")) {
      os = "windows";
    } else {
      os = os.replaceAll("[^a-z0-9]", "");
    }
    if (arch.equals("amd64") || arch.equals("x86_64")) {
      arch = "x86_64";
    } else if (arch.equals("arm64") || arch.equals("aarch64")) {
      arch = "aarch64";
    } else if (arch.matches("i[3-6]86|x86")) {
      arch = "x86";
    } else {
      arch = arch.replaceAll("[^a-z0-9_]", "");
    }
    return os + "-" + arch;
  }
}
