package io.abloom.spark;

import io.abloom.BloomFilter;
import java.io.IOException;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Writes a filter to any Hadoop {@code FileSystem} path, crash-safe where the file system
 * allows: the bytes go to a temporary file beside the target ({@code .NAME.abloom-tmp-UUID}),
 * are synced, and the temporary file is renamed over the target, so a reader (or a service that
 * mmaps the file) sees the old file or the new one, whole, never a torn one. On any failure the
 * temporary file is deleted.
 */
final class HadoopFiles {

  /** The prefix of the temporary files' names, after the leading dot (tests look for it). */
  static final String TMP_MARK = ".abloom-tmp-";

  private HadoopFiles() {}

  static void save(BloomFilter filter, String path, Configuration conf) throws IOException {
    Path dst = new Path(path);
    FileSystem fs = dst.getFileSystem(conf);
    if (fs instanceof LocalFileSystem local) {
      // The checksummed local file system would leave a .NAME.crc file beside the filter, which
      // no other reader of the file wants; the raw one writes only the file.
      fs = local.getRawFileSystem();
    }
    dst = fs.makeQualified(dst);
    Path dir = dst.getParent();
    if (dir == null) {
      throw new IOException("abloom: save: " + dst + " names no file");
    }
    if (fs.exists(dst) && fs.getFileStatus(dst).isDirectory()) {
      throw new IOException("abloom: save: " + dst + " is a directory");
    }
    if (!fs.mkdirs(dir) || !fs.getFileStatus(dir).isDirectory()) {
      throw new IOException("abloom: save: cannot create the directory " + dir);
    }
    Path tmp = new Path(dir, "." + dst.getName() + TMP_MARK + UUID.randomUUID());
    boolean renamed = false;
    try {
      try (FSDataOutputStream out = fs.create(tmp, false)) {
        filter.writeTo(out);
        out.hsync(); // durable before the rename makes it visible (a flush where not supported)
      }
      renamed = replace(fs, tmp, dst);
    } finally {
      if (!renamed) {
        deleteQuietly(fs, tmp);
      }
    }
  }

  /**
   * Renames {@code tmp} to {@code dst}, replacing it. POSIX (the local file system) replaces
   * atomically; HDFS's plain rename refuses an existing target, so there the old file is deleted
   * first, and a reader may briefly find no file (never a partial one).
   */
  private static boolean replace(FileSystem fs, Path tmp, Path dst) throws IOException {
    if (fs.rename(tmp, dst)) {
      return true;
    }
    if (fs.exists(dst) && fs.delete(dst, false) && fs.rename(tmp, dst)) {
      return true;
    }
    throw new IOException("abloom: save: cannot rename " + tmp + " to " + dst);
  }

  private static void deleteQuietly(FileSystem fs, Path tmp) {
    try {
      fs.delete(tmp, false);
    } catch (IOException | RuntimeException e) {
      // Already failing: the first error is the one to report. The name marks it as debris.
    }
  }
}
