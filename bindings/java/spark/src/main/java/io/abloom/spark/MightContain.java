package io.abloom.spark;

import io.abloom.BloomFilter;
import org.apache.spark.sql.api.java.UDF1;

/**
 * The SQL function: whether a key might be in the filter shipped under a name. Keys are encoded
 * as the build encodes them (string: UTF-8; binary: as is; bigint and int: 8 bytes
 * little-endian), so a key added from a column of one of those types tests true from a column of
 * the same type. A null key gives null (which a WHERE clause treats as false, as a join never
 * matches a null key).
 */
final class MightContain implements UDF1<Object, Boolean> {

  private static final long serialVersionUID = 1L;

  private final String shippedName;
  private final String source;

  /** This task's copy's filter, looked up once (the map is per JVM; the field saves the lookup). */
  private transient BloomFilter filter;

  MightContain(String shippedName, String source) {
    this.shippedName = shippedName;
    this.source = source;
  }

  @Override
  public Boolean call(Object key) {
    if (key == null) {
      return null;
    }
    BloomFilter f = filter;
    if (f == null) {
      f = LoadedFilters.get(shippedName, source);
      filter = f;
    }
    if (key instanceof Long l) {
      return f.mightContain(l.longValue());
    }
    if (key instanceof String s) {
      return f.mightContain(s);
    }
    if (key instanceof byte[] b) {
      return f.mightContain(b);
    }
    if (key instanceof Integer i) {
      return f.mightContain(i.longValue());
    }
    throw new IllegalArgumentException(
        "abloom_might_contain: unsupported key type "
            + key.getClass().getName()
            + "; supported key types are string, binary, bigint and int (cast the column first)");
  }
}
