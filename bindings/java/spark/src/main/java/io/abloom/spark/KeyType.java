package io.abloom.spark;

import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;

/**
 * The column types a filter can be built from, each encoded exactly as the Java binding encodes
 * the matching Java value, so a service that calls {@code BloomFilter.mightContain} with the same
 * value (or the same bytes in Go, Rust or C) gets the same answer.
 */
enum KeyType {
  /** {@code string}: its UTF-8 bytes, as {@code put(String)} (Spark stores strings as UTF-8). */
  STRING,
  /** {@code binary}: the bytes as they are, as {@code put(byte[])}. */
  BINARY,
  /** {@code bigint}: 8 bytes little-endian, as {@code put(long)}. */
  LONG,
  /**
   * {@code int}: widened to a long, as Java's {@code put(intValue)} resolves to {@code
   * put(long)}; so an int column and a bigint column of the same numbers give the same filter.
   */
  INT;

  /**
   * The key type of a column.
   *
   * @throws IllegalArgumentException naming the column, its type and the supported ones
   */
  static KeyType of(DataType type, String column) {
    if (type instanceof StringType) {
      return STRING;
    }
    if (type instanceof BinaryType) {
      return BINARY;
    }
    if (type instanceof LongType) {
      return LONG;
    }
    if (type instanceof IntegerType) {
      return INT;
    }
    throw new IllegalArgumentException(
        "abloom: column '"
            + column
            + "' has type "
            + type.simpleString()
            + "; supported key types are string, binary, bigint and int (cast the column first,"
            + " e.g. col(\""
            + column
            + "\").cast(\"string\"), to choose an encoding)");
  }
}
