// The scalar kernel's probes (blocked_scalar.cpp): the reference every vector kernel must match
// bit for bit, and the fallback the vector kernels take for rare keys (k > 32, or a repeat among
// the first k candidates).
#pragma once

#include <cstdint>

#include "layout/atomic_bits.hpp"

namespace abloom {

// The distinct layout's test.
bool blocked_test_scalar(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
// The same for the split layout.
bool split_test_scalar(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;
template <class Writer>
bool split_add_scalar(uint64_t* block, uint64_t hash, uint32_t k) noexcept;
extern template bool split_add_scalar<SharedWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
extern template bool split_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
// The half layout's (k is always kHalfK).
bool half_test_scalar(const uint64_t* block, uint64_t hash) noexcept;
template <class Writer>
bool half_add_scalar(uint64_t* block, uint64_t hash) noexcept;
extern template bool half_add_scalar<SharedWriter>(uint64_t*, uint64_t) noexcept;
extern template bool half_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t) noexcept;
template <class Writer>
bool blocked_add_scalar(uint64_t* block, uint64_t hash, uint32_t k) noexcept;
extern template bool blocked_add_scalar<SharedWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
extern template bool blocked_add_scalar<ExclusiveWriter>(uint64_t*, uint64_t, uint32_t) noexcept;
// test for a key known to repeat a candidate among its first k: walks its distinct candidates.
bool blocked_test_distinct(const uint64_t* block, uint64_t hash, uint32_t k) noexcept;

}  // namespace abloom
