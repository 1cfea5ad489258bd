/**
 * abloom for Java: {@link io.abloom.BloomFilter}, a thread-safe, Guava-style Bloom filter backed
 * by the abloom C library through JNI, with batch calls, memory-mapped files and a serialized
 * form shared with the C library and the Go and Rust bindings. Bad serialized data is reported
 * as {@link io.abloom.AbloomFormatException}, whose {@link io.abloom.AbloomError} names the C
 * library's error code.
 */
package io.abloom;
