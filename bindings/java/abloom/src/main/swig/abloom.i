/*
 * abloom.i - the SWIG 4.1 interface of the Java binding (its main file).
 *
 * SWIG runs at build time (src/main/native/build-native.sh, called by Maven in generate-sources)
 * and writes two package-private Java classes, AbloomNative (module class) and AbloomNativeJNI
 * (the JNI class), plus abloom_wrap.c, which is compiled against the installed abloom.h and linked
 * with -labloom into libabloom_jni.so.
 *
 * Design of the native layer:
 *  - A filter handle crosses JNI as a plain Java long (abloom_typemaps.i), never as a SWIG proxy
 *    object: BloomFilter owns it and guards it against use after close.
 *  - Functions that create a filter return the handle (> 0) or a negative ABLOOM_ERR_* code in
 *    one long, so no output array is needed (and no JNI call happens inside a critical region).
 *  - Java arrays are pinned with GetPrimitiveArrayCritical: inputs are released with JNI_ABORT
 *    (nothing copied back), outputs with mode 0. No typemap returns early, so a pinned array is
 *    always released; a failed pin leaves NULL, and the helper then returns ABLOOM_ERR_NOMEM
 *    with the JVM's OutOfMemoryError pending. Array lengths are passed from Java (array.length)
 *    because no other JNI function may be called while an array is pinned. The JNI class is
 *    package-private and only BloomFilter calls it, after checking every index and length.
 *  - Nothing in a critical region blocks: file I/O (open, save) takes its path as a copied
 *    byte[] (GetByteArrayElements), never a pinned one.
 *
 * The interface is split by job; this file holds the module, its C includes, the generated
 * classes' modifiers and the functions of abloom.h wrapped as they are, and includes the rest in
 * this order (the order of the generated C):
 *  - abloom_typemaps.i  how each parameter type crosses JNI (handles, pinned arrays, paths);
 *  - abloom_helpers.i   C helpers that are not wrapped (options, chunked batches);
 *  - abloom_filters.i   create, plan, info, stages, estimates: a filter as a whole;
 *  - abloom_batches.i   the batch calls;
 *  - abloom_io.i        serialization, views and files;
 *  - abloom_memory.i    the filter's own memory for the single-key calls in Java.
 */
%module AbloomNative

/* madvise (jab_release_pages) under the strict C standard the layer is compiled with: the
 * feature macro must precede every system header, which SWIG's own code includes first. */
%begin %{
#define _DEFAULT_SOURCE 1
%}

%{
#include <abloom.h>
#include <errno.h>
#if defined(__linux__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
%}

/* Both generated classes are package-private: the public API is io.abloom.BloomFilter. */
%pragma(java) jniclassclassmodifiers = "final class"
%pragma(java) moduleclassmodifiers = "final class"
%pragma(java) jniclasscode = %{
  static {
    NativeLoader.load();
  }

  private AbloomNativeJNI() {}
%}
%pragma(java) modulecode = %{
  private AbloomNative() {}
%}

%include "abloom_typemaps.i"

/* ---- functions of abloom.h wrapped as they are -------------------------------------------- */

const char *abloom_strerror(int code);
const char *abloom_version_string(void);
/* uint32_t is unsigned int on every platform the binding builds for (SWIG maps it to long). */
unsigned int abloom_isa_supported(void);
unsigned int abloom_get_isa(void);
int abloom_set_isa(unsigned int isa);
const char *abloom_isa_name(unsigned int isa);
int abloom_set_writer_mode(abloom_filter *filter, unsigned int mode);
int abloom_get_writer_mode(const abloom_filter *filter);
int abloom_set_threads(abloom_filter *filter, unsigned int threads);
int abloom_get_threads(const abloom_filter *filter);
void abloom_free(abloom_filter *filter);
int abloom_union(abloom_filter *dst, const abloom_filter *src);
int abloom_intersect(abloom_filter *dst, const abloom_filter *src);
int abloom_clear(abloom_filter *filter);
int abloom_equal(const abloom_filter *a, const abloom_filter *b);
int abloom_sync(abloom_filter *filter);

%include "abloom_helpers.i"
%include "abloom_filters.i"
%include "abloom_batches.i"
%include "abloom_io.i"
%include "abloom_memory.i"
