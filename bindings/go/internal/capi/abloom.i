/*
 * SWIG interface for the low-level Go layer of abloom (package capi, internal).
 *
 * Regenerate with bindings/go/internal/capi/generate.sh (SWIG 4.1); ci.sh checks that the
 * committed abloom.go and abloom_wrap.c match what this file generates.
 *
 * Mapping rules (all of them make the generated functions safe to call with Go memory: no Go
 * pointer is ever stored in C memory, and C never keeps a pointer after returning):
 *  - abloom_filter pointers are plain uintptr handles (C memory, never Go memory);
 *  - `abloom_filter **out` is a []uintptr of at least one element that receives the handle;
 *  - (pointer, length) byte ranges are []byte;
 *  - scalar out-parameters (uint64_t*, double*, size_t*) are one-element slices, SWIG's usual
 *    OUTPUT convention for Go;
 *  - arrays (offsets, hashes, results) are slices whose lengths the caller checks.
 * abloom_add_many / abloom_test_many are left out: they take arrays of pointers, which Go cannot
 * pass to C; the packed forms do the same job. abloom_strerror and abloom_version_string (static
 * strings) are in fast.go instead: SWIG's string-return helper converts a uintptr to an
 * unsafe.Pointer, which `go vet` rejects, and C.GoString does the job without it.
 */
%module capi

%{
#include <abloom.h>
#include <stdint.h>
%}

/* The fixed-width types stay names in the generated C: SWIG writes the typedef a type resolves to
 * into its casts (stdint.i says uint64_t is unsigned long, true on Linux but not on macOS, where
 * it is unsigned long long, and clang rejects the casts). Without a typedef, SWIG keeps uint64_t
 * as written, and %apply gives each name the typemaps of a type of its width. */
%apply unsigned long long { uint64_t };
%apply unsigned int { uint32_t };
%apply unsigned char { uint8_t };

/* ---- handles ------------------------------------------------------------------------------ */

%typemap(gotype) abloom_filter *, const abloom_filter * "uintptr"
%typemap(imtype) abloom_filter *, const abloom_filter * "uintptr"
%typemap(in) abloom_filter *, const abloom_filter * %{ $1 = ($1_ltype)$input; %}

%typemap(gotype) abloom_filter **out "[]uintptr"
%typemap(in) abloom_filter **out (abloom_filter *temp = NULL) {
  if ($input.len < 1) {
    _swig_gopanic("capi: out must have at least one element");
  }
  $1 = &temp;
}
%typemap(argout) abloom_filter **out %{
  ((uintptr_t *)$input.array)[0] = (uintptr_t)temp$argnum;
%}

/* ---- byte ranges --------------------------------------------------------------------------- */

%typemap(gotype) (const void *key, size_t len), (const void *buf, size_t len),
                 (void *buf, size_t capacity), (const void *buf, size_t buf_len) "[]byte"
%typemap(in) (const void *key, size_t len), (const void *buf, size_t len),
             (void *buf, size_t capacity), (const void *buf, size_t buf_len) %{
  $1 = ($1_ltype)$input.array;
  $2 = ($2_ltype)$input.len;
%}

/* ---- arrays -------------------------------------------------------------------------------- */

%typemap(gotype) const uint64_t *offsets, const uint64_t *hashes "[]uint64"
%typemap(in) const uint64_t *offsets, const uint64_t *hashes %{ $1 = ($1_ltype)$input.array; %}
%typemap(gotype) uint8_t *results "[]byte"
%typemap(in) uint8_t *results %{ $1 = ($1_ltype)$input.array; %}

/* ---- scalar out-parameters ----------------------------------------------------------------- */

%define ABLOOM_OUT(CTYPE, GOTYPE, NAMES...)
%typemap(gotype) NAMES "[]" #GOTYPE
%typemap(in) NAMES %{
  $1 = $input.len > 0 ? ($1_ltype)$input.array : NULL;
%}
%enddef
ABLOOM_OUT(uint64_t, uint64, uint64_t *out, uint64_t *added, uint64_t *found, uint64_t *bytes)
ABLOOM_OUT(double, float64, double *out, double *fpr_bound)
/* abloom_growth_footprint's stage count: a []uint32, so that C writes exactly its 4 bytes. */
ABLOOM_OUT(uint32_t, uint32, uint32_t *stages)
ABLOOM_OUT(size_t, uint64, size_t *written)

%ignore abloom_add_many;
%ignore abloom_test_many;
%ignore abloom_strerror;
%ignore abloom_version_string;
%ignore abloom_isa_name; // a const char *, like the two above: the Go side names the kernels itself
// Direct access to the bits: fast.go calls these by hand (the Go side keeps the pointers).
%ignore abloom_memory;
%ignore abloom_memory_init;
%ignore abloom_get_memory;
%ignore abloom_get_stage_memory;
%ignore abloom_get_writable_shards;
// abloom.h's deprecated names: the Go side calls the new ones (abloom_get_isa, abloom_set_isa, ...).
%ignore abloom_isa_active;
%ignore abloom_isa_force;
%ignore abloom_writer_mode;
%ignore abloom_threads;

#define ABLOOM_API
%include <abloom.h>

/* The sizes abloom_get_info and abloom_plan_compute expect in struct_size. */
%constant size_t SIZEOF_INFO = sizeof(abloom_info);
%constant size_t SIZEOF_PLAN = sizeof(abloom_plan);
