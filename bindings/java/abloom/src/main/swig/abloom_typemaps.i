/*
 * abloom_typemaps.i - the typemaps of the Java binding's SWIG interface (abloom.i includes it):
 * how each C parameter type crosses JNI. A filter handle is a Java long; Java arrays are pinned
 * (GetPrimitiveArrayCritical) and released on every path; paths are copied byte[]s; a direct
 * ByteBuffer passes its address. The parameter names (IN_BYTES, OUT_BOOLS, PATH, ...) select them.
 */

/* ---- Filter handles: a Java long ------------------------------------------------------------ */

%typemap(jni) abloom_filter *, const abloom_filter * "jlong"
%typemap(jtype) abloom_filter *, const abloom_filter * "long"
%typemap(jstype) abloom_filter *, const abloom_filter * "long"
%typemap(javain) abloom_filter *, const abloom_filter * "$javainput"
%typemap(in) abloom_filter *, const abloom_filter * %{ $1 = ($1_ltype)(intptr_t)$input; %}

/* ---- byte[] input: pinned, released with JNI_ABORT (no copy, no write-back) ---------------- */

%typemap(jni) const signed char *IN_BYTES "jbyteArray"
%typemap(jtype) const signed char *IN_BYTES "byte[]"
%typemap(jstype) const signed char *IN_BYTES "byte[]"
%typemap(javain) const signed char *IN_BYTES "$javainput"
%typemap(in) const signed char *IN_BYTES
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const signed char *IN_BYTES
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, JNI_ABORT); %}

/* ---- byte[] output: pinned, released with mode 0 (written back if the JVM made a copy) ------ */

%typemap(jni) signed char *OUT_BYTES "jbyteArray"
%typemap(jtype) signed char *OUT_BYTES "byte[]"
%typemap(jstype) signed char *OUT_BYTES "byte[]"
%typemap(javain) signed char *OUT_BYTES "$javainput"
%typemap(in) signed char *OUT_BYTES
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) signed char *OUT_BYTES
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, 0); %}

/* ---- long[] offsets (or keys): pinned, JNI_ABORT ------------------------------------------- */

%typemap(jni) const long long *IN_LONGS "jlongArray"
%typemap(jtype) const long long *IN_LONGS "long[]"
%typemap(jstype) const long long *IN_LONGS "long[]"
%typemap(javain) const long long *IN_LONGS "$javainput"
%typemap(in) const long long *IN_LONGS
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const long long *IN_LONGS
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, JNI_ABORT); %}

/* ---- int[] offsets: pinned, JNI_ABORT -------------------------------------------------------- */

%typemap(jni) const int *IN_INTS "jintArray"
%typemap(jtype) const int *IN_INTS "int[]"
%typemap(jstype) const int *IN_INTS "int[]"
%typemap(javain) const int *IN_INTS "$javainput"
%typemap(in) const int *IN_INTS
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const int *IN_INTS
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, JNI_ABORT); %}

/* ---- boolean[] results: pinned, mode 0 (jboolean is an unsigned 8-bit 0/1, like uint8_t) ---- */

%typemap(jni) unsigned char *OUT_BOOLS "jbooleanArray"
%typemap(jtype) unsigned char *OUT_BOOLS "boolean[]"
%typemap(jstype) unsigned char *OUT_BOOLS "boolean[]"
%typemap(javain) unsigned char *OUT_BOOLS "$javainput"
%typemap(in) unsigned char *OUT_BOOLS
%{ $1 = $input ? ($1_ltype)(*jenv)->GetPrimitiveArrayCritical(jenv, $input, NULL) : NULL; %}
%typemap(freearg) unsigned char *OUT_BOOLS
%{ if ($1) (*jenv)->ReleasePrimitiveArrayCritical(jenv, $input, (void *)$1, 0); %}

/* ---- long[] output of a few values (not pinned: copied back with mode 0) -------------------- */

%typemap(jni) long long *OUT_INFO "jlongArray"
%typemap(jtype) long long *OUT_INFO "long[]"
%typemap(jstype) long long *OUT_INFO "long[]"
%typemap(javain) long long *OUT_INFO "$javainput"
%typemap(in) long long *OUT_INFO
%{ $1 = $input ? ($1_ltype)(*jenv)->GetLongArrayElements(jenv, $input, NULL) : NULL; %}
%typemap(freearg) long long *OUT_INFO
%{ if ($1) (*jenv)->ReleaseLongArrayElements(jenv, $input, (jlong *)$1, 0); %}

/* ---- direct ByteBuffer: its address (NULL for a heap buffer) -------------------------------- */
/* A function taking a DIRECT buffer takes it before any pinned array, so GetDirectBufferAddress
 * runs before a critical region opens. */

%typemap(jni) void *DIRECT "jobject"
%typemap(jtype) void *DIRECT "java.nio.ByteBuffer"
%typemap(jstype) void *DIRECT "java.nio.ByteBuffer"
%typemap(javain) void *DIRECT "$javainput"
%typemap(in) void *DIRECT %{ $1 = $input ? (*jenv)->GetDirectBufferAddress(jenv, $input) : NULL; %}

/* ---- file paths: a NUL-terminated byte[] in the platform's file name encoding, copied -------- */

%typemap(jni) const char *PATH "jbyteArray"
%typemap(jtype) const char *PATH "byte[]"
%typemap(jstype) const char *PATH "byte[]"
%typemap(javain) const char *PATH "$javainput"
%typemap(in) const char *PATH
%{ $1 = $input ? ($1_ltype)(*jenv)->GetByteArrayElements(jenv, $input, NULL) : NULL; %}
%typemap(freearg) const char *PATH
%{ if ($1) (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT); %}

/* ---- the JNIEnv (no Java argument) -------------------------------------------------------- */

%typemap(in, numinputs=0) JNIEnv *JENV %{ $1 = jenv; %}

/* ---- a direct ByteBuffer made here, returned to Java (null on error) ------------------------ */

%typemap(jni) jab_buffer "jobject"
%typemap(jtype) jab_buffer "java.nio.ByteBuffer"
%typemap(jstype) jab_buffer "java.nio.ByteBuffer"
%typemap(javaout) jab_buffer { return $jnicall; }
%typemap(out) jab_buffer %{ $result = $1; %}
