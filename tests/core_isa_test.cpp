// Every instruction-set kernel of the blocked kind sets and tests exactly the bits of the scalar
// reference (which layout_test pins to the layout definition): per key on random blocks of every
// fill, on keys whose first k candidates repeat, and per filter (identical words after the same
// adds, identical answers). A kernel this CPU cannot run is skipped with a message naming it; the
// AVX-512 kernel also runs everywhere under SIMDe's emulation of its intrinsics.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "avx512_emulated.hpp"
#include "filter/filter.hpp"
#include "kernels/blocked_scalar.hpp"
#include "kernels/blocked_view.hpp"
#include "kernels/isa.hpp"
#include "kernels/kernel_table.hpp"
#include "kernels/key_source.hpp"
#include "layout/hash.hpp"
#include "layout/layout.hpp"
#include "storage/format.hpp"
#include "test_keys.hpp"

namespace abloom {
namespace {

// The vector kernels of this project; each test runs every one the CPU supports (x86-64's or
// aarch64's: the other architecture's are never runnable).
constexpr std::array<Isa, 3> kVectorIsas = {Isa::avx2, Isa::avx512, Isa::neon};

constexpr std::array<Layout, 3> kLayoutsTested = {Layout::distinct, Layout::split, Layout::half};

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::split:
      return "split";
    case Layout::half:
      return "half";
    case Layout::distinct:
      break;
  }
  return "distinct";
}

// How messages name a kernel's table: its instruction set (the emulated AVX-512 builds told apart
// from the native ones) and its layout.
std::string label(const BlockedKernels& kernel) {
  std::string name = kernel.name;
#if !defined(ABLOOM_TEST_NO_AVX512_EMULATION)
  for (const BlockedKernels* emulated :
       {testing::kBlockedAvx512Emulated, testing::kBlockedAvx512PackedEmulated}) {
    if (&kernel >= &emulated[0] && &kernel < &emulated[kLayouts]) name += " (SIMDe-emulated)";
  }
#endif
  return name + ", " + layout_name(kernel.layout);
}

// Whether a layout has k bits per key: up to kMaxProbeK (distinct), kSplitMaxK (split), exactly
// kHalfK (half).
bool layout_has_k(Layout layout, uint32_t k) {
  switch (layout) {
    case Layout::split:
      return k <= kSplitMaxK;
    case Layout::half:
      return k == kHalfK;
    case Layout::distinct:
      break;
  }
  return k <= kMaxProbeK;
}

// The scalar reference of a layout.
bool ref_test(Layout layout, const uint64_t* b, uint64_t h, uint32_t k) {
  switch (layout) {
    case Layout::split:
      return split_test_scalar(b, h, k);
    case Layout::half:
      return half_test_scalar(b, h);
    case Layout::distinct:
      break;
  }
  return blocked_test_scalar(b, h, k);
}
bool ref_add(Layout layout, uint64_t* b, uint64_t h, uint32_t k) {
  switch (layout) {
    case Layout::split:
      return split_add_scalar<SharedWriter>(b, h, k);
    case Layout::half:
      return half_add_scalar<SharedWriter>(b, h);
    case Layout::distinct:
      break;
  }
  return blocked_add_scalar<SharedWriter>(b, h, k);
}

// Makes `tables` (one per layout) the ones every filter uses until the next force (the emulated
// tables can only be installed this way: isa_force() knows the native ones only).
void use_kernels(const BlockedKernels* tables) {
  detail::active_kernels.store(tables, std::memory_order_release);
}

// Restores the process-wide kernel choice when a test ends.
class IsaGuard {
 public:
  IsaGuard() : saved_(isa_active()) {}
  ~IsaGuard() { (void)isa_force(saved_); }
  IsaGuard(const IsaGuard&) = delete;
  IsaGuard& operator=(const IsaGuard&) = delete;

 private:
  Isa saved_;
};

// The vector kernels this CPU can run (both AVX-512 variants where it has AVX-512), then the
// emulated AVX-512 ones (any CPU, so the list is never empty), each as its tables (one per
// layout, kernel[layout_index(layout)]); prints a skip message naming the native ones it cannot
// run.
std::vector<const BlockedKernels*> vector_kernels() {
  std::vector<const BlockedKernels*> out;
  for (const BlockedKernels* k : blocked_kernels_runnable()) {
    if (k->isa != Isa::scalar) out.push_back(k);
  }
  std::string skipped;
  for (Isa isa : kVectorIsas) {
    if (blocked_kernels_for(isa) == nullptr) {
      skipped += std::string(isa_name(isa)) + " (this CPU cannot run it) ";
    }
  }
  if (!skipped.empty()) std::cout << "[ SKIPPED  ] kernels: " << skipped << "\n";
#if !defined(ABLOOM_TEST_NO_AVX512_EMULATION)
  out.push_back(testing::kBlockedAvx512Emulated);
  out.push_back(testing::kBlockedAvx512PackedEmulated);
#else
  // Without the emulated kernels the list may be empty; a test over no kernel must not pass.
  if (out.empty()) ADD_FAILURE() << "no vector kernel to check against scalar on this CPU";
#endif
  return out;
}

struct alignas(64) RawBlock {
  uint64_t w[kBlockWords];
};

// A block with each bit set with probability about `fill`.
// A block whose bits are each set with probability `fill` in [0, 1]; 1 sets every bit. (fill
// times 2^64 does not fit in 64 bits at 1: that conversion is undefined, and it gave a half-full
// block with GCC on x86-64 and a miscompiled test with clang.)
RawBlock random_block(testing::SplitMix& rng, double fill) {
  RawBlock b{};
  const bool full = fill >= 1.0;
  const auto threshold = full ? 0 : static_cast<uint64_t>(fill * 0x1p64);
  for (uint32_t bit = 0; bit < kBlockBits; ++bit) {
    if (rng.next() < threshold || full) b.w[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
  return b;
}

// Hashes whose first k candidates repeat (the vector kernels' fallback path), found by search.
std::vector<uint64_t> hashes_with_repeats(uint32_t k, size_t want, uint64_t seed) {
  std::vector<uint64_t> out;
  testing::SplitMix rng(seed);
  while (out.size() < want) {
    const uint64_t h = rng.next();
    if (has_repeat(probe_seed(h), k)) out.push_back(h);
  }
  return out;
}

// Compares one kernel's table with the scalar reference of its layout for hash h on block b: test
// answer, add answer and the block words after the add, with either writer.
void expect_same(const BlockedKernels& kernel, const RawBlock& b, uint64_t h, uint32_t k) {
  const bool want_test = ref_test(kernel.layout, b.w, h, k);
  ASSERT_EQ(kernel.test(b.w, h, k), want_test) << label(kernel) << " test, k=" << k << " h=" << h;
  RawBlock ref = b, got = b, got_exclusive = b;
  const bool want_add = ref_add(kernel.layout, ref.w, h, k);
  const bool got_add = kernel.add(got.w, h, k);
  ASSERT_EQ(got_add, want_add) << label(kernel) << " add result, k=" << k << " h=" << h;
  ASSERT_EQ(std::memcmp(ref.w, got.w, sizeof ref.w), 0)
      << label(kernel) << " add bits, k=" << k << " h=" << h;
  ASSERT_EQ(kernel.add_exclusive(got_exclusive.w, h, k), want_add)
      << label(kernel) << " exclusive add result, k=" << k << " h=" << h;
  ASSERT_EQ(std::memcmp(ref.w, got_exclusive.w, sizeof ref.w), 0)
      << label(kernel) << " exclusive add bits, k=" << k << " h=" << h;
  ASSERT_EQ(want_add, want_test) << "add reports presence as test does, k=" << k;
}

const std::vector<uint32_t> kAllK = [] {
  std::vector<uint32_t> ks;
  for (uint32_t k = 1; k <= 20; ++k) ks.push_back(k);
  for (uint32_t k : {24u, 31u, 32u, 48u, 63u, 64u}) ks.push_back(k);
  return ks;
}();

TEST(IsaKernels, MatchScalarOnRandomBlocksAndKeys) {
  const auto kernels = vector_kernels();
  testing::SplitMix rng(42);
  for (const BlockedKernels* tables : kernels) {
    for (Layout layout : kLayoutsTested) {
      const BlockedKernels& kernel = tables[layout_index(layout)];
      ASSERT_EQ(kernel.layout, layout);
      for (uint32_t k : kAllK) {
        if (!layout_has_k(layout, k)) continue;
        for (double fill : {0.0, 0.2, 0.5, 0.8, 0.95, 0.99, 1.0}) {
          for (int blocks = 0; blocks < 8; ++blocks) {
            const RawBlock b = random_block(rng, fill);
            for (int i = 0; i < 400; ++i) expect_same(kernel, b, rng.next(), k);
          }
        }
      }
    }
  }
}

TEST(IsaKernels, MatchScalarWhenTheFirstKCandidatesRepeat) {
  const auto kernels = vector_kernels();
  testing::SplitMix rng(7);
  for (const BlockedKernels* kernel : kernels) {
    for (uint32_t k : kAllK) {
      if (k == 1) continue;  // one candidate cannot repeat
      const auto hashes = hashes_with_repeats(k, 300, 1000 + k);
      for (uint64_t h : hashes) {
        // The key's own bits set (present), all set, and random: every branch of the fallback.
        RawBlock own{};
        const BlockMask m = block_mask(h, k);
        std::memcpy(own.w, m.w, sizeof own.w);
        expect_same(*kernel, own, h, k);
        RawBlock all;
        std::fill(std::begin(all.w), std::end(all.w), ~uint64_t{0});
        expect_same(*kernel, all, h, k);
        expect_same(*kernel, random_block(rng, 0.9), h, k);
      }
    }
  }
}

TEST(IsaKernels, MatchScalarOnDegenerateHashes) {
  const auto kernels = vector_kernels();
  testing::SplitMix rng(3);
  const uint64_t edge[] = {0,
                           1,
                           0xFFFFFFFFull,
                           0x80000000ull,
                           0x7FFFFFFFull,
                           ~uint64_t{0},
                           uint64_t{1} << 63,
                           0x9E3779B9ull,
                           0xFFFFFFFF00000000ull};
  for (const BlockedKernels* tables : kernels) {
    for (Layout layout : kLayoutsTested) {
      for (uint32_t k : kAllK) {
        if (!layout_has_k(layout, k)) continue;
        for (uint64_t h : edge) {
          for (double fill : {0.0, 0.5, 1.0}) {
            expect_same(tables[layout_index(layout)], random_block(rng, fill), h, k);
          }
        }
      }
    }
  }
}

// A few random blocks as shards of a BlockedView, for the kernels' whole-key and bulk entries.
struct MiniFilter {
  std::vector<RawBlock> blocks;
  std::vector<uint64_t*> shards;
  BlockedView view;
  MiniFilter(testing::SplitMix& rng, uint32_t k, uint32_t shard_bits, uint64_t blocks_per_shard,
             double fill) {
    blocks.resize(blocks_per_shard << shard_bits);
    for (auto& b : blocks) b = random_block(rng, fill);
    for (uint32_t s = 0; s < (1u << shard_bits); ++s) {
      shards.push_back(blocks[s * blocks_per_shard].w);
    }
    Shape shape;
    shape.k = k;
    shape.shard_bits = shard_bits;
    shape.blocks_per_shard = blocks_per_shard;
    shape.seed = 0x5EED0000ull + k;
    view = BlockedView(shape, shards.data());
  }
  MiniFilter(const MiniFilter& o) : blocks(o.blocks), view(o.view) {
    for (const uint64_t* p : o.shards)
      shards.push_back(blocks.data()->w + (p - o.blocks.data()->w));
    view.shards = shards.data();
  }
  MiniFilter& operator=(const MiniFilter&) = delete;
  bool same_bits(const MiniFilter& o) const {
    return std::memcmp(blocks.data(), o.blocks.data(), blocks.size() * sizeof(RawBlock)) == 0;
  }
};

// Keys of every length from 0 to 40 bytes (XXH3's inline short path and the out-of-line one).
struct KeyBytes {
  std::vector<unsigned char> buf;
  std::vector<uint64_t> offsets{0};
  std::vector<const void*> ptrs;
  std::vector<size_t> lens;
  std::vector<uint64_t> hashes;
  // Keys of lengths 0-40 in turn, or all `fixed_len` bytes long (KeySource::of_fixed).
  static constexpr size_t kVarying = SIZE_MAX;
  KeyBytes(testing::SplitMix& rng, size_t n, uint64_t seed, size_t fixed_len = kVarying) {
    for (size_t i = 0; i < n; ++i) {
      const size_t len = fixed_len == kVarying ? i % 41 : fixed_len;
      for (size_t j = 0; j < len; ++j) buf.push_back(static_cast<unsigned char>(rng.next()));
      offsets.push_back(buf.size());
      lens.push_back(len);
    }
    for (size_t i = 0; i < n; ++i) {
      ptrs.push_back(buf.data() + offsets[i]);
      hashes.push_back(XXH3_64bits_withSeed(buf.data() + offsets[i], lens[i], seed));
    }
  }
  size_t size() const { return lens.size(); }
  const void* key(size_t i) const { return buf.data() + offsets[i]; }
};

// One kernel's whole-key and bulk entries over `keys` (every form in `forms`, both writers)
// against the scalar kernel's single-hash calls, in key order, on a copy of `start`.
void ExpectEntriesMatchReference(const BlockedKernels& kernel, const MiniFilter& start,
                                 const KeyBytes& keys, const std::vector<KeySource>& forms,
                                 const std::string& what) {
  const Layout layout = kernel.layout;
  const uint32_t k = start.view.k;
  const size_t n = keys.size();
  MiniFilter ref = start;
  std::vector<uint8_t> want_test(n), want_add(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = keys.hashes[i];
    want_test[i] = ref_test(layout, start.view.block_of(h), h, k) ? 1 : 0;
  }
  uint64_t want_added = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = keys.hashes[i];
    want_add[i] = ref_add(layout, ref.view.block_of(h), h, k) ? 1 : 0;
    want_added += want_add[i] == 0 ? 1 : 0;
  }
  const uint64_t want_found =
      static_cast<uint64_t>(std::count(want_test.begin(), want_test.end(), 1));

  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(kernel.test_key(start.view, keys.key(i), keys.lens[i]), want_test[i] == 1)
        << what << " test_key " << i;
  }
  for (auto add_key : {kernel.add_key, kernel.add_key_exclusive}) {
    MiniFilter got = start;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(add_key(got.view, keys.key(i), keys.lens[i]), want_add[i] == 1)
          << what << " add_key " << i;
    }
    ASSERT_TRUE(got.same_bits(ref)) << what << " add_key bits";
  }
  for (const KeySource& src : forms) {
    std::vector<uint8_t> have(n, 7);
    ASSERT_EQ(kernel.test_many(start.view, src, n, have.data()), want_found) << what;
    ASSERT_EQ(have, want_test) << what << " test_many, form " << int(src.form);
    for (WriterMode mode : {WriterMode::shared, WriterMode::exclusive}) {
      MiniFilter got = start;
      ASSERT_EQ(kernel.add_many(got.view, src, n, mode, NewKeys::counted), want_added)
          << what << " add_many, form " << int(src.form) << " mode " << int(mode);
      ASSERT_TRUE(got.same_bits(ref))
          << what << " add_many bits, form " << int(src.form) << " mode " << int(mode);
    }
    // Uncounted: the same bits (the exclusive writer's own loop; the shared writer counts).
    MiniFilter uncounted = start;
    const uint64_t said =
        kernel.add_many(uncounted.view, src, n, WriterMode::exclusive, NewKeys::uncounted);
    ASSERT_TRUE(said == 0 || said == want_added) << what << " uncounted add_many said " << said;
    ASSERT_TRUE(uncounted.same_bits(ref))
        << what << " uncounted add_many bits, form " << int(src.form);
  }
}

// Every whole-key and bulk entry of every kernel (every key form, both writers, batches
// shorter and longer than the prefetch distance) against the scalar kernel's single-hash calls.
TEST(IsaKernels, WholeKeyAndBulkEntriesMatchTheScalarReference) {
  auto kernels = vector_kernels();
  kernels.push_back(kBlockedScalar);
  testing::SplitMix rng(11);
  for (const BlockedKernels* tables : kernels) {
    for (Layout layout : kLayoutsTested) {
      const BlockedKernels* kernel = &tables[layout_index(layout)];
      for (uint32_t k : {1u, 6u, 7u, 8u, 9u, 16u, 17u, 24u, 25u, 32u, 33u}) {
        if (!layout_has_k(layout, k)) continue;
        for (uint32_t shard_bits : {0u, 2u}) {
          const MiniFilter start(rng, k, shard_bits, 5, 0.3);
          for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{33}, size_t{200}}) {
            const std::string what = label(*kernel) + " k=" + std::to_string(k) +
                                     " shards=" + std::to_string(1u << shard_bits) +
                                     " n=" + std::to_string(n);
            const KeyBytes varying(rng, n, start.view.seed);
            ASSERT_NO_FATAL_FAILURE(ExpectEntriesMatchReference(
                *kernel, start, varying,
                {KeySource::of_hashes(varying.hashes.data()),
                 KeySource::of_arrays(varying.ptrs.data(), varying.lens.data()),
                 KeySource::of_packed(varying.buf.data(), varying.offsets.data())},
                what));
            // Keys all of one length, also through the fixed form: 8 and 16 bytes (the lengths
            // with bulk loops of their own, key_source.hpp's FixedLengthHash), and in turn 0 or
            // 23 (either side of the inline hash's 16 bytes, through the generic loop).
            for (const size_t fixed_len : {size_t{8}, size_t{16}, size_t{n % 2 == 0 ? 0u : 23u}}) {
              const KeyBytes same_length(rng, n, start.view.seed, fixed_len);
              ASSERT_NO_FATAL_FAILURE(ExpectEntriesMatchReference(
                  *kernel, start, same_length,
                  {KeySource::of_hashes(same_length.hashes.data()),
                   KeySource::of_arrays(same_length.ptrs.data(), same_length.lens.data()),
                   KeySource::of_packed(same_length.buf.data(), same_length.offsets.data()),
                   KeySource::of_fixed(same_length.buf.data(), fixed_len)},
                  what + " fixed length " + std::to_string(fixed_len)));
            }
          }
        }
      }
    }
  }
}

// The filter's portable serialized form (docs/FORMAT.md: header and body).
std::vector<unsigned char> serialized(const Filter& f) {
  std::vector<unsigned char> bytes(serialized_size(f.shape()));
  serialize_into(f, bytes.data());
  return bytes;
}

// Whole filters: the same keys through every entry point under each kernel give the same words
// and the same serialized bytes, and the same answers for absent keys.
TEST(IsaKernels, FiltersBuiltUnderEveryKernelAreIdentical) {
  const auto kernels = vector_kernels();
  IsaGuard guard;
  for (Layout layout : kLayoutsTested) {
    for (uint32_t k : {3u, 7u, 8u, 10u, 16u, 23u}) {
      if (!layout_has_k(layout, k)) continue;
      Shape shape;
      shape.k = k;
      shape.layout = layout;
      shape.shard_bits = 2;
      shape.blocks_per_shard = 301;  // odd: not a power of two
      shape.seed = 0xABCDEF0123456789ull + k;
      FilterParams params;
      params.capacity = 20000;
      constexpr size_t kKeys = 20000, kQueries = 50000;
      std::vector<uint64_t> keys(kKeys), absent(kQueries);
      testing::SplitMix rng(k);
      for (auto& x : keys) x = rng.next();
      for (auto& x : absent) x = rng.next();
      const std::string what = std::string(layout_name(layout)) + " k=" + std::to_string(k);

      auto build = [&](const BlockedKernels* tables) {
        use_kernels(tables);
        auto f = std::make_unique<Filter>(shape, params);
        const size_t third = kKeys / 3;
        for (size_t i = 0; i < third; ++i) f->add_hash(keys[i]);
        f->add_many(keys.data() + third, third);
        for (size_t i = 2 * third; i < kKeys; ++i) (void)f->test_and_add_hash(keys[i]);
        return f;
      };
      auto answers = [&](const Filter& f) {
        std::vector<uint8_t> bulk(kQueries);
        f.test_many(absent.data(), kQueries, bulk.data());
        for (size_t i = 0; i < kQueries; i += 7) EXPECT_EQ(f.test_hash(absent[i]), bulk[i] == 1);
        return bulk;
      };
      const auto ref = build(kBlockedScalar);
      const auto ref_answers = answers(*ref);
      for (const BlockedKernels* tables : kernels) {
        const auto f = build(tables);
        const std::string who = label(tables[layout_index(layout)]) + " " + what;
        EXPECT_TRUE(f->equals(*ref)) << who;
        EXPECT_EQ(serialized(*f), serialized(*ref)) << who;
        for (uint32_t s = 0; s < f->shard_count(); ++s) {
          ASSERT_EQ(std::memcmp(f->shard_words(s), ref->shard_words(s),
                                shape.words_per_shard() * sizeof(uint64_t)),
                    0)
              << who << " shard " << s;
        }
        EXPECT_EQ(answers(*f), ref_answers) << who;
        std::vector<uint8_t> present(kKeys);
        EXPECT_EQ(f->test_many(keys.data(), kKeys, present.data()), kKeys) << "no false negative";
      }
    }
  }
}

// Until the first call, the active table is kBlockedFirstUse: each of its entries must choose the
// real table and then make the very call it stands for.
// The set-bit counts behind the estimates (and the file's inserted-key estimate), of every table,
// the scalar one and both layouts' included, against std::popcount word by word: blocks of every
// fill, empty and full ones, and call sizes that are not multiples of anything.
TEST(IsaKernels, BitCountsMatchPopcountInEveryTable) {
  std::vector<const BlockedKernels*> tables = vector_kernels();
  tables.push_back(blocked_kernels_for(Isa::scalar));
  testing::SplitMix rng(77);
  std::vector<RawBlock> blocks;
  for (double fill : {0.0, 1.0, 0.01, 0.3, 0.5, 0.7, 0.99}) {
    for (int i = 0; i < 9; ++i) blocks.push_back(random_block(rng, fill));
  }
  const uint64_t* words = blocks.front().w;
  for (const BlockedKernels* pair : tables) {
    for (size_t layout = 0; layout < kLayouts; ++layout) {
      const BlockedKernels& k = pair[layout];
      for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{5}, uint64_t{blocks.size()}}) {
        std::vector<uint16_t> got(n + 1, 0xFFFF);
        k.block_bits(words, n, got.data());
        for (uint64_t b = 0; b < n; ++b) {
          uint32_t want = 0;
          for (uint32_t w = 0; w < kBlockWords; ++w) want += std::popcount(blocks[b].w[w]);
          ASSERT_EQ(got[b], want) << label(k) << " block_bits, block " << b << " of " << n;
        }
        EXPECT_EQ(got[n], 0xFFFF) << label(k) << " block_bits wrote past " << n << " blocks";
      }
      for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{13}, blocks.size() * kBlockWords}) {
        std::vector<uint8_t> got(2 * n + 1, 0xFF);
        k.half_word_bits(words, n, got.data());
        for (uint64_t w = 0; w < n; ++w) {
          ASSERT_EQ(got[2 * w], std::popcount(static_cast<uint32_t>(words[w])))
              << label(k) << " half_word_bits, low half of word " << w;
          ASSERT_EQ(got[2 * w + 1], std::popcount(static_cast<uint32_t>(words[w] >> 32)))
              << label(k) << " half_word_bits, high half of word " << w;
        }
        EXPECT_EQ(got[2 * n], 0xFF) << label(k) << " half_word_bits wrote past " << n << " words";
      }
    }
  }
}

TEST(Isa, FirstUseEntriesChooseAndForward) {
  IsaGuard guard;
  testing::SplitMix rng(5);
  const MiniFilter start(rng, 7, 1, 3, 0.3);
  const KeyBytes keys(rng, 40, start.view.seed);
  const BlockedKernels& best = *blocked_kernels_for(isa_supported());
  auto fresh = [] { detail::active_kernels.store(detail::kBlockedFirstUse); };
  auto chosen = [] { return detail::active_kernels.load() != detail::kBlockedFirstUse; };
  const KeySource src = KeySource::of_arrays(keys.ptrs.data(), keys.lens.data());
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t h = keys.hashes[i];
    const uint64_t* b = start.view.block_of(h);
    fresh();
    EXPECT_EQ(blocked_kernels().test(b, h, 7), best.test(b, h, 7));
    EXPECT_TRUE(chosen());
    fresh();
    EXPECT_EQ(blocked_kernels().test_key(start.view, keys.key(i), keys.lens[i]),
              best.test_key(start.view, keys.key(i), keys.lens[i]));
    EXPECT_TRUE(chosen());
    for (int entry = 0; entry < 4; ++entry) {
      MiniFilter got = start, want = start;
      fresh();
      const BlockedKernels& k = blocked_kernels();
      switch (entry) {
        case 0:
          EXPECT_EQ(k.add(got.view.block_of(h), h, 7), best.add(want.view.block_of(h), h, 7));
          break;
        case 1:
          EXPECT_EQ(k.add_exclusive(got.view.block_of(h), h, 7),
                    best.add_exclusive(want.view.block_of(h), h, 7));
          break;
        case 2:
          EXPECT_EQ(k.add_key(got.view, keys.key(i), keys.lens[i]),
                    best.add_key(want.view, keys.key(i), keys.lens[i]));
          break;
        default:
          EXPECT_EQ(k.add_key_exclusive(got.view, keys.key(i), keys.lens[i]),
                    best.add_key_exclusive(want.view, keys.key(i), keys.lens[i]));
      }
      EXPECT_TRUE(chosen());
      EXPECT_TRUE(got.same_bits(want)) << "entry " << entry;
      EXPECT_FALSE(got.same_bits(start) && !want.same_bits(start)) << "entry " << entry;
    }
  }
  std::vector<uint8_t> have(keys.size()), want(keys.size());
  fresh();
  EXPECT_EQ(blocked_kernels().test_many(start.view, src, keys.size(), have.data()),
            best.test_many(start.view, src, keys.size(), want.data()));
  EXPECT_EQ(have, want);
  EXPECT_TRUE(chosen());
  for (WriterMode mode : {WriterMode::shared, WriterMode::exclusive}) {
    MiniFilter got = start, ref = start;
    fresh();
    EXPECT_EQ(blocked_kernels().add_many(got.view, src, keys.size(), mode, NewKeys::counted),
              best.add_many(ref.view, src, keys.size(), mode, NewKeys::counted));
    EXPECT_TRUE(chosen());
    EXPECT_TRUE(got.same_bits(ref));
    EXPECT_FALSE(got.same_bits(start)) << "40 keys into 6 blocks set some bit";
  }
  // The split layout's entries forward to the split tables.
  const BlockedKernels& best_split = blocked_kernels_for(isa_supported())[1];
  for (size_t i = 0; i < keys.size(); ++i) {
    fresh();
    EXPECT_EQ(blocked_kernels(Layout::split).test_key(start.view, keys.key(i), keys.lens[i]),
              best_split.test_key(start.view, keys.key(i), keys.lens[i]));
    EXPECT_TRUE(chosen());
    MiniFilter got = start, want = start;
    fresh();
    EXPECT_EQ(blocked_kernels(Layout::split).add_key(got.view, keys.key(i), keys.lens[i]),
              best_split.add_key(want.view, keys.key(i), keys.lens[i]));
    EXPECT_TRUE(got.same_bits(want));
  }
  EXPECT_EQ(blocked_kernels(Layout::split).layout, Layout::split);
  // The bit counts forward too.
  const uint64_t* words = start.view.shards[0];
  uint16_t got_blocks[3] = {}, want_blocks[3] = {};
  fresh();
  blocked_kernels().block_bits(words, 3, got_blocks);
  EXPECT_TRUE(chosen());
  best.block_bits(words, 3, want_blocks);
  EXPECT_TRUE(std::equal(got_blocks, got_blocks + 3, want_blocks));
  EXPECT_NE(want_blocks[0] + want_blocks[1] + want_blocks[2], 0) << "the blocks have bits set";
  uint8_t got_halves[2 * kBlockWords] = {}, want_halves[2 * kBlockWords] = {};
  fresh();
  blocked_kernels(Layout::split).half_word_bits(words, kBlockWords, got_halves);
  EXPECT_TRUE(chosen());
  best_split.half_word_bits(words, kBlockWords, want_halves);
  EXPECT_TRUE(std::equal(got_halves, got_halves + 2 * kBlockWords, want_halves));
  fresh();
  (void)isa_active();
  EXPECT_TRUE(chosen()) << "isa_active() chooses too";
}

TEST(Isa, ForceAndParse) {
  IsaGuard guard;
  EXPECT_EQ(isa_force(Isa::scalar), Errc::ok);
  EXPECT_EQ(isa_active(), Isa::scalar);
  EXPECT_EQ(blocked_kernels().isa, Isa::scalar);
  EXPECT_EQ(isa_force(static_cast<Isa>(99)), Errc::invalid);
  EXPECT_EQ(isa_active(), Isa::scalar) << "a refused force changes nothing";
  for (Isa isa : kVectorIsas) {
    ASSERT_EQ(isa_force(Isa::scalar), Errc::ok);
    if (blocked_kernels_for(isa) != nullptr) {
      EXPECT_EQ(isa_force(isa), Errc::ok) << isa_name(isa);
      EXPECT_EQ(blocked_kernels().isa, isa);
      EXPECT_EQ(isa_active(), isa);
    } else {
      EXPECT_EQ(isa_force(isa), Errc::unsupported) << isa_name(isa);
      EXPECT_EQ(blocked_kernels().isa, Isa::scalar) << "a refused force changes nothing";
      std::cout << "[ SKIPPED  ] forcing " << isa_name(isa) << ": this CPU cannot run it\n";
    }
  }

  Isa out = Isa::scalar;
  EXPECT_TRUE(isa_parse("avx2", Isa::avx2, &out));
  EXPECT_EQ(out, Isa::avx2);
  EXPECT_TRUE(isa_parse("avx512", Isa::avx2, &out));
  EXPECT_EQ(out, Isa::avx512) << "parsing names the set; initial() caps it at the best";
  EXPECT_TRUE(isa_parse("scalar", Isa::avx2, &out));
  EXPECT_EQ(out, Isa::scalar);
  for (const char* best : {"", "auto", "native"}) {
    out = Isa::scalar;
    EXPECT_TRUE(isa_parse(best, Isa::avx2, &out));
    EXPECT_EQ(out, Isa::avx2) << "'" << best << "' means the best supported";
  }
  EXPECT_FALSE(isa_parse("AVX2 ", Isa::avx2, &out));
  EXPECT_FALSE(isa_parse("sse", Isa::avx2, &out));
  EXPECT_TRUE(isa_parse("neon", Isa::neon, &out));
  EXPECT_EQ(out, Isa::neon);
  EXPECT_TRUE(isa_parse("neon", Isa::avx512, &out));
  EXPECT_EQ(out, Isa::neon) << "parsing names the set whatever the CPU";
  EXPECT_STREQ(isa_name(Isa::avx512), "avx512");
  EXPECT_STREQ(isa_name(Isa::neon), "neon");
  EXPECT_STREQ(isa_name(static_cast<Isa>(4)), "unknown");
}

// Which sets a CPU runs, and what ABLOOM_ISA gets, for every CPU of both architectures (pure
// functions of the CPU's best set, so checked here whatever this machine is).
TEST(Isa, RunsAndCapsPerArchitecture) {
  const Isa all[] = {Isa::scalar, Isa::avx2, Isa::avx512, Isa::neon};
  struct Cpu {
    Isa best;
    std::vector<Isa> runs;
  };
  const Cpu cpus[] = {{Isa::scalar, {Isa::scalar}},                          // any, no SIMD kernel
                      {Isa::avx2, {Isa::scalar, Isa::avx2}},                 // x86-64 with AVX2
                      {Isa::avx512, {Isa::scalar, Isa::avx2, Isa::avx512}},  // and AVX-512
                      {Isa::neon, {Isa::scalar, Isa::neon}}};                // aarch64
  for (const Cpu& cpu : cpus) {
    for (Isa isa : all) {
      const bool runs = std::find(cpu.runs.begin(), cpu.runs.end(), isa) != cpu.runs.end();
      EXPECT_EQ(isa_runs(isa, cpu.best), runs) << isa_name(isa) << " on " << isa_name(cpu.best);
      // Asking can only lower the choice; what the CPU cannot run gives the best.
      EXPECT_EQ(isa_capped(isa, cpu.best), runs ? isa : cpu.best)
          << isa_name(isa) << " asked on " << isa_name(cpu.best);
    }
  }
  EXPECT_EQ(isa_capped(Isa::avx512, Isa::avx2), Isa::avx2) << "more than the CPU has: its best";
  EXPECT_EQ(isa_capped(Isa::avx2, Isa::neon), Isa::neon) << "another architecture's: the best";
  EXPECT_EQ(isa_capped(Isa::neon, Isa::avx512), Isa::avx512);
  EXPECT_EQ(isa_capped(Isa::scalar, Isa::neon), Isa::scalar);
}

// This machine's architecture gets its vector kernel, and only its own: a build where the vector
// tests above silently compared the scalar kernel with itself would fail here.
TEST(Isa, ThisArchitectureRunsItsVectorKernel) {
  const std::vector<const BlockedKernels*> runnable = blocked_kernels_runnable();
  ASSERT_FALSE(runnable.empty());
  EXPECT_EQ(runnable.front(), kBlockedScalar);
  auto has = [&](Isa isa) {
    return std::any_of(runnable.begin(), runnable.end(),
                       [&](const BlockedKernels* k) { return k->isa == isa; });
  };
#if defined(__aarch64__)
  EXPECT_EQ(isa_supported(), Isa::neon) << "NEON is part of every aarch64 CPU";
  EXPECT_EQ(runnable.size(), 2u);
  EXPECT_TRUE(has(Isa::neon));
  EXPECT_EQ(blocked_kernels_for(Isa::neon), kBlockedNeon);
  EXPECT_EQ(kBlockedNeon[0].layout, Layout::distinct);
  EXPECT_EQ(kBlockedNeon[1].layout, Layout::split);
  EXPECT_STREQ(kBlockedNeon[0].name, "neon");
  EXPECT_EQ(blocked_kernels_for(Isa::avx2), nullptr);
  EXPECT_EQ(blocked_kernels_for(Isa::avx512), nullptr);
  EXPECT_EQ(isa_force(Isa::avx2), Errc::unsupported);
  EXPECT_EQ(isa_force(Isa::avx512), Errc::unsupported);
#elif defined(__x86_64__)
  EXPECT_NE(isa_supported(), Isa::neon);
  EXPECT_FALSE(has(Isa::neon));
  EXPECT_EQ(blocked_kernels_for(Isa::neon), nullptr);
  EXPECT_EQ(isa_force(Isa::neon), Errc::unsupported);
  EXPECT_EQ(has(Isa::avx2), isa_supported() != Isa::scalar);
#else
  EXPECT_EQ(isa_supported(), Isa::scalar);
  EXPECT_EQ(runnable.size(), 1u);
#endif
  EXPECT_NE(blocked_kernels_for(isa_supported()), nullptr);
  EXPECT_TRUE(has(isa_supported()));
}

}  // namespace
}  // namespace abloom
