// A filter as the blocked kind's kernels see it (every call of kernel_table.hpp takes one): the
// few fields they read, not the whole Filter (filter/filter.hpp).
#pragma once

#include <cstdint>

#include "layout/layout.hpp"

namespace abloom {

// What the blocked kind's hot paths need of a filter: where its shards are and how a hash picks a
// block. Filter keeps one up to date; it is passed by reference so a call reads only these fields.
struct BlockedView {
  uint64_t* const* shards = nullptr;  // shard base pointers
  uint64_t blocks_per_shard = 0;
  uint64_t seed = 0;
  uint32_t shard_shift = 63;  // 63 - shard_bits (Shape::shard_of, precomputed)
  uint32_t shard_bits = 0;
  uint32_t k = 0;

  BlockedView() = default;
  BlockedView(const Shape& shape, uint64_t* const* shard_ptrs) noexcept
      : shards(shard_ptrs),
        blocks_per_shard(shape.blocks_per_shard),
        seed(shape.seed),
        shard_shift(63 - shape.shard_bits),
        shard_bits(shape.shard_bits),
        k(shape.k) {}

  // The first word of h's block (Shape::shard_of and Shape::block_word_offset).
  uint64_t* block_of(uint64_t h) const noexcept {
    return shards[abloom_spec_shard(h, shard_shift)] +
           abloom_spec_block_index(h, shard_bits, blocks_per_shard) * kBlockWords;
  }
};

}  // namespace abloom
