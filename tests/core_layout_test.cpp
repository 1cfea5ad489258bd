// The bit layout: one block per blocked key with exactly k distinct bits, positions in range,
// and a pinned bit pattern so the layout (frozen by the file format) cannot drift silently.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "filter/filter.hpp"
#include "test_keys.hpp"

namespace abloom {
namespace {

// An empty filter of this explicit shape (for 1000 keys).
Filter shaped_filter(Kind kind, uint32_t k, uint32_t shard_bits, uint64_t blocks,
                     uint64_t seed = 0) {
  Shape shape;
  shape.kind = kind;
  shape.k = k;
  shape.shard_bits = shard_bits;
  shape.blocks_per_shard = blocks;
  shape.seed = seed;
  FilterParams params;
  params.capacity = 1000;
  return Filter(shape, params);
}

// Number of words that differ from zero, and their total popcount, over all shards.
std::pair<uint64_t, uint64_t> footprint(const Filter& f, uint64_t* first_word = nullptr) {
  uint64_t words = 0, bits = 0;
  for (uint32_t s = 0; s < f.shard_count(); ++s) {
    for (uint64_t w = 0; w < f.shape().words_per_shard(); ++w) {
      const uint64_t v = f.shard_words(s)[w];
      if (v == 0) continue;
      if (words == 0 && first_word != nullptr) *first_word = w;
      ++words;
      bits += static_cast<uint64_t>(std::popcount(v));
    }
  }
  return {words, bits};
}

TEST(Layout, BlockMaskHasExactlyKDistinctBits) {
  testing::SplitMix rng(1);
  for (uint32_t k = 1; k <= kMaxK; ++k) {
    for (int i = 0; i < 2000; ++i) {
      const BlockMask m = block_mask(rng.next(), k);
      int bits = 0;
      for (uint64_t w : m.w) bits += std::popcount(w);
      ASSERT_EQ(bits, static_cast<int>(k)) << "k=" << k;
    }
  }
}

TEST(Layout, DegenerateHashesStillGiveKBits) {
  for (uint64_t h : {uint64_t{0}, uint64_t{1} << 31, ~uint64_t{0}, uint64_t{1} << 63}) {
    for (uint32_t k : {1u, 8u, 16u, 64u}) {
      const BlockMask m = block_mask(h, k);
      int bits = 0;
      for (uint64_t w : m.w) bits += std::popcount(w);
      EXPECT_EQ(bits, static_cast<int>(k)) << h << " k=" << k;
    }
  }
}

TEST(Layout, BlockedKeyTouchesOneAlignedBlock) {
  testing::SplitMix rng(2);
  for (uint32_t shard_bits : {0u, 3u}) {
    Filter f = shaped_filter(Kind::blocked, 7, shard_bits, 37);
    for (uint32_t s = 0; s < f.shard_count(); ++s) {
      ASSERT_EQ(reinterpret_cast<uintptr_t>(f.shard_words(s)) % 64, 0u);
    }
    for (int i = 0; i < 200; ++i) {
      f.clear();
      const uint64_t key = rng.next();
      f.add_hash(f.hash(&key, sizeof key));
      uint64_t first = 0;
      const auto [words, bits] = footprint(f, &first);
      EXPECT_EQ(bits, 7u);
      EXPECT_LE(words, 7u);
      // Every touched word is in the same 8-word block.
      uint64_t lo = UINT64_MAX, hi = 0;
      for (uint32_t s = 0; s < f.shard_count(); ++s) {
        for (uint64_t w = 0; w < f.shape().words_per_shard(); ++w) {
          if (f.shard_words(s)[w] != 0) {
            lo = std::min(lo, w / kBlockWords);
            hi = std::max(hi, w / kBlockWords);
          }
        }
      }
      EXPECT_EQ(lo, hi);
    }
  }
}

TEST(Layout, ClassicKeySetsAtMostKBitsAnywhere) {
  Filter f = shaped_filter(Kind::classic, 11, 2, 5);
  testing::SplitMix rng(3);
  uint64_t total = 0;
  for (int i = 0; i < 200; ++i) {
    f.clear();
    const uint64_t h = rng.next();
    f.add_hash(h);
    const auto [words, bits] = footprint(f);
    EXPECT_LE(bits, 11u);
    EXPECT_GE(bits, 9u);  // repeats among 11 probes over 2560 bits are rare
    total += bits;
    EXPECT_TRUE(f.test_hash(h));
  }
  EXPECT_GT(total, 200u * 10);
}

TEST(Layout, ShardsAndBlocksAreUniform) {
  // Chi-square-like check: 1<<20 hashes over 8 shards x 1000 blocks land evenly.
  Shape shape;
  shape.shard_bits = 3;
  shape.blocks_per_shard = 1000;
  std::vector<uint32_t> count(8 * 1000);
  testing::SplitMix rng(4);
  const int n = 1 << 20;
  for (int i = 0; i < n; ++i) {
    const uint64_t h = XXH3_64bits_withSeed(&i, sizeof i, 9);
    const uint32_t s = shape.shard_of(h);
    const uint64_t b = shape.block_word_offset(h) / kBlockWords;
    ASSERT_LT(s, 8u);
    ASSERT_LT(b, 1000u);
    ++count[s * 1000 + b];
  }
  const double mean = static_cast<double>(n) / count.size();
  double chi2 = 0;
  for (uint32_t c : count) chi2 += (c - mean) * (c - mean) / mean;
  // 7999 degrees of freedom: mean 7999, sd ~126; 6 sd either way.
  EXPECT_NEAR(chi2, 7999, 760);
}

TEST(Layout, BitPatternIsPinned) {
  // The exact bits of a few keys. If this fails, the layout changed: files written by earlier
  // versions would answer wrongly. Do not update these values; bump the format instead.
  Filter blocked = shaped_filter(Kind::blocked, 6, 1, 3, 42);
  Filter classic = shaped_filter(Kind::classic, 5, 1, 3, 42);
  for (int i = 0; i < 100; ++i) {
    const std::string key = "key-" + std::to_string(i);
    blocked.add_hash(blocked.hash(key.data(), key.size()));
    classic.add_hash(classic.hash(key.data(), key.size()));
  }
  auto digest = [](const Filter& f) {
    XXH64_hash_t d = 0;
    for (uint32_t s = 0; s < f.shard_count(); ++s) {
      d = XXH3_64bits_withSeed(f.shard_words(s), f.shape().words_per_shard() * 8, d);
    }
    return d;
  };
  EXPECT_EQ(blocked.hash("abloom", 6), 8979622354396264774u);
  EXPECT_EQ(digest(blocked), 6807778630517029584u);
  EXPECT_EQ(digest(classic), 573179318222868726u);
}

}  // namespace
}  // namespace abloom

namespace abloom {
namespace {

// test_hash takes shortcuts (reject on the first k candidates, exact repeat check only when
// two candidates may collide); its answer must equal the definition: all bits of block_mask
// set in the key's block. Checked at several fills, where both answers occur often.
TEST(Layout, TestHashMatchesTheMaskDefinition) {
  testing::SplitMix rng(77);
  for (uint32_t k : {1u, 2u, 3u, 6u, 9u, 12u, 16u, 33u, 64u}) {
    for (double fill : {0.3, 0.6, 0.85, 0.97}) {
      Filter f = shaped_filter(Kind::blocked, k, 1, 3);
      // Set a random fraction `fill` of every block's bits through keys, via add_hash.
      const uint64_t target = static_cast<uint64_t>(fill * f.shape().total_bits());
      while (footprint(f).second < target) f.add_hash(rng.next());
      size_t yes = 0, no = 0;
      for (int i = 0; i < 20000; ++i) {
        const uint64_t h = rng.next();
        const uint32_t s = f.shape().shard_of(h);
        const uint64_t* block = f.shard_words(s) + f.shape().block_word_offset(h);
        const BlockMask m = block_mask(h, k);
        bool expected = true;
        for (uint32_t w = 0; w < kBlockWords; ++w) expected &= (m.w[w] & ~block[w]) == 0;
        ASSERT_EQ(f.test_hash(h), expected) << "k=" << k << " fill=" << fill << " h=" << h;
        (expected ? yes : no) += 1;
      }
      if (fill >= 0.6 && k <= 12) {
        EXPECT_GT(yes, 0u) << k << " " << fill;
      }
      EXPECT_GT(no, 0u) << k << " " << fill;
    }
  }
}

// hash_key takes xxHash's short-key path by name (hash.hpp): it must be XXH3_64bits_withSeed for
// every length, on both sides of the inline/out-of-line split, at any seed and any alignment.
TEST(Hash, IsXxh3WithSeedForEveryLength) {
  testing::SplitMix rng(99);
  std::vector<unsigned char> buf(300 + 8);
  for (auto& b : buf) b = static_cast<unsigned char>(rng.next());
  for (size_t len = 0; len <= 300; ++len) {
    for (int trial = 0; trial < 8; ++trial) {
      const uint64_t seed = trial == 0 ? 0 : rng.next();
      const unsigned char* key = buf.data() + trial;  // every alignment from 0 to 7
      ASSERT_EQ(hash_key(seed, key, len), XXH3_64bits_withSeed(key, len, seed))
          << "len=" << len << " seed=" << seed;
    }
  }
  EXPECT_EQ(hash_key(5, nullptr, 0), XXH3_64bits_withSeed(nullptr, 0, 5)) << "the empty key";
}

}  // namespace
}  // namespace abloom

namespace abloom {
namespace {

// The split layout: exactly k bits, one in each of k consecutive 32-bit words (mod 16) from the
// start word, at the bit the definition gives.
TEST(SplitLayout, MaskIsOneBitInEachOfKConsecutiveWords) {
  testing::SplitMix rng(5);
  for (uint32_t k = 1; k <= kSplitMaxK; ++k) {
    for (int i = 0; i < 2000; ++i) {
      const uint64_t h =
          i < 4 ? std::array<uint64_t, 4>{0, 1, ~uint64_t{0}, 0xFFFFFFFFull}[i] : rng.next();
      const BlockMask m = split_mask(h, k);
      const uint32_t h2 = probe_seed(h), s = split_start(h2);
      uint32_t bits = 0;
      for (uint32_t w = 0; w < kSplitWords; ++w) {
        const auto word = static_cast<uint32_t>(m.w[w / 2] >> (32 * (w % 2)));
        const bool in_window = (w + kSplitWords - s) % kSplitWords < k;
        ASSERT_EQ(word, in_window ? uint32_t{1} << split_bit(h2, w) : 0u)
            << "k=" << k << " h=" << h << " word " << w;
        bits += static_cast<uint32_t>(std::popcount(word));
      }
      ASSERT_EQ(bits, k);
    }
  }
}

// The SIMD kernels' window lanes: for every start and k, lane w is all ones exactly when w is one
// of the k words from the start (mod 16), as split_mask places them.
TEST(SplitLayout, WindowLanesAreTheKWordsFromTheStart) {
  for (uint32_t k = 0; k <= kSplitMaxK; ++k) {
    for (uint32_t s = 0; s < kSplitWords; ++s) {
      const uint32_t* lanes = split_window(s, k);
      for (uint32_t w = 0; w < kSplitWords; ++w) {
        const bool in_window = (w + kSplitWords - s) % kSplitWords < k;
        ASSERT_EQ(lanes[w], in_window ? ~0u : 0u) << "k " << k << " start " << s << " word " << w;
      }
    }
  }
}

// Words and bits are used evenly: every start word and every bit position of a word comes up.
TEST(SplitLayout, StartsAndBitsAreUniform) {
  testing::SplitMix rng(6);
  std::array<int, kSplitWords> starts{};
  std::array<int, 32> bits{};
  constexpr int kKeys = 160'000;
  for (int i = 0; i < kKeys; ++i) {
    const uint32_t h2 = probe_seed(rng.next());
    ++starts[split_start(h2)];
    ++bits[split_bit(h2, static_cast<uint32_t>(i) % kSplitWords)];
  }
  for (int c : starts) EXPECT_NEAR(c, kKeys / 16, 6 * std::sqrt(kKeys / 16.0));
  for (int c : bits) EXPECT_NEAR(c, kKeys / 32, 6 * std::sqrt(kKeys / 32.0));
}

// The exact bits of a few keys in the split layout (format layout id 2). If this fails, the
// layout changed: do not update these values.
TEST(SplitLayout, BitPatternIsPinned) {
  Shape shape;
  shape.kind = Kind::blocked;
  shape.layout = Layout::split;
  shape.k = 7;
  shape.shard_bits = 1;
  shape.blocks_per_shard = 3;
  shape.seed = 42;
  FilterParams params;
  params.capacity = 1000;
  Filter f(shape, params);
  for (int i = 0; i < 100; ++i) {
    const std::string key = "key-" + std::to_string(i);
    f.add_hash(f.hash(key.data(), key.size()));
  }
  XXH64_hash_t d = 0;
  for (uint32_t s = 0; s < f.shard_count(); ++s) {
    d = XXH3_64bits_withSeed(f.shard_words(s), f.shape().words_per_shard() * 8, d);
  }
  EXPECT_EQ(d, 2188253886263377634u) << "digest";
}

}  // namespace
}  // namespace abloom
