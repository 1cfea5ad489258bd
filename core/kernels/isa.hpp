// Which instruction set the blocked kind's hot loops use. Chosen at run time, never at compile
// time, so one shared library runs on any x86-64 (scalar, AVX2 or AVX-512) or any aarch64 (scalar
// or NEON, which every aarch64 CPU has): the best set the CPU (and the OS, for the wider x86
// registers) supports, unless the ABLOOM_ISA environment variable (read once, at first use) or
// isa_force() (abloom_set_isa in the C API) asks for less. Every set computes the identical bits:
// the layout (layout.hpp) is the definition and the scalar kernel its reference implementation.
//
// This file knows the CPU only; which kernel table runs, and isa_active() and isa_force(), are
// the kernels' dispatch (kernel_table.hpp, kernel_dispatch.cpp).
#pragma once

#include <cstdint>

namespace abloom {

// The values are the C API's ABLOOM_ISA_*. They are not one order: avx2 < avx512 are x86-64's,
// neon aarch64's, and scalar runs everywhere; isa_runs() says which a CPU can use.
enum class Isa : uint32_t { scalar = 0, avx2 = 1, avx512 = 2, neon = 3 };
inline constexpr Isa kIsaMax = Isa::neon;

// Whether a CPU whose best set is `best` runs `isa`: scalar always, a set of best's own
// architecture at or below it (an AVX-512 CPU has AVX2), nothing of another architecture.
constexpr bool isa_runs(Isa isa, Isa best) noexcept {
  return isa == Isa::scalar || isa == best || (isa == Isa::avx2 && best == Isa::avx512);
}
// The set used when `asked` is asked for (ABLOOM_ISA) on a CPU whose best is `best`: asking can
// only lower the choice; a set the CPU cannot run (a wider x86 one, or another architecture's)
// gives the best.
constexpr Isa isa_capped(Isa asked, Isa best) noexcept {
  return isa_runs(asked, best) ? asked : best;
}

// The best set this CPU supports among those abloom has kernels for.
Isa isa_supported() noexcept;
// Whether the CPU's vendor is Intel (GenuineIntel), which decides the AVX-512 kernel's variant
// (kernel_dispatch.cpp). False off x86-64.
bool cpu_is_intel() noexcept;
// "scalar", "avx2", "avx512", "neon".
const char* isa_name(Isa isa) noexcept;
// Parses an ABLOOM_ISA value ("scalar", "avx2", "avx512", "neon", "auto"/"native"/empty =
// best); false for anything else.
bool isa_parse(const char* text, Isa best, Isa* out) noexcept;

}  // namespace abloom
