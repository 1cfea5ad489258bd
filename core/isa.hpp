// Which instruction set the blocked kind's hot loops use. Chosen at run time, never at compile
// time, so one shared library runs on any x86-64: the best set the CPU (and the OS, for the wider
// registers) supports, unless the ABLOOM_ISA environment variable (read once, at first use) or
// isa_force() (abloom_set_isa in the C API) asks for less. Every set computes the identical bits:
// the layout (layout.hpp) is the definition and the scalar kernel its reference implementation.
#pragma once

#include <cstdint>

#include "errc.hpp"

namespace abloom {

enum class Isa : uint32_t { scalar = 0, avx2 = 1, avx512 = 2 };
inline constexpr Isa kIsaMax = Isa::avx512;

// The best set this CPU supports among those abloom has kernels for.
Isa isa_supported() noexcept;
// The set in use now.
Isa isa_active() noexcept;
// Uses `isa` from now on, process-wide (calls already running finish on the old one). Errc::invalid
// for an unknown value, Errc::unsupported when the CPU lacks it (nothing changes then).
Errc isa_force(Isa isa) noexcept;
// "scalar", "avx2", "avx512".
const char* isa_name(Isa isa) noexcept;
// Parses an ABLOOM_ISA value ("scalar", "avx2", "avx512", "auto"/"native"/empty = best);
// false for anything else.
bool isa_parse(const char* text, Isa best, Isa* out) noexcept;

}  // namespace abloom
