// A growing filter's serialized form (core/storage/growing_format.hpp): written and read back
// equal, byte for byte, at every stage count from 1 to 12; every damaged or hostile chain refused
// with the right error (a stage count past the end, stages out of order or overlapping, one stage's
// checksum bad, truncations, trailing bytes, bad header fields), never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "filter/aligned_buffer.hpp"
#include "storage/format.hpp"
#include "storage/growing_format.hpp"
#include "test_keys.hpp"
#include "xxhash.h"

namespace abloom {
namespace {

using testing::mix;

std::unique_ptr<GrowingFilter> chain_with(uint32_t stages, uint64_t* added = nullptr) {
  GrowthRequest req;
  req.initial_capacity = 64;
  req.fpr = 0.01;
  auto f = std::make_unique<GrowingFilter>(req, 77);
  uint64_t i = 0;
  while (f->stages() < stages) f->add_hash(mix(i++));
  for (int extra = 0; extra < 10; ++extra) f->add_hash(mix(i++));  // some keys in the newest
  EXPECT_EQ(f->stages(), stages);
  if (added != nullptr) *added = i;
  return f;
}

std::vector<unsigned char> bytes_of(const GrowingFilter& f, uint32_t stages) {
  std::vector<unsigned char> out(chain_serialized_size(f, stages));
  serialize_chain_into(f, stages, out.data());
  return out;
}

// Rewrites the table's and the header's checksums after an edit, so that the deeper checks are
// the ones that must catch it.
void reseal(std::vector<unsigned char>& b) {
  const uint32_t stages = get32(b.data() + 72);
  const size_t table = std::min<size_t>(size_t{stages} * kStageEntryBytes, b.size() - kHeaderBytes);
  put64(b.data() + 104, XXH3_64bits(b.data() + kHeaderBytes, table));
  put64(b.data() + 120, XXH3_64bits(b.data(), 120));
}

Errc read(const std::vector<unsigned char>& b) {
  std::unique_ptr<GrowingFilter> f;
  return deserialize_chain(b.data(), b.size(), &f);
}

TEST(GrowingFormat, RoundTripsAtEveryStageCountFrom1To12) {
  for (uint32_t n = 1; n <= 12; ++n) {
    uint64_t added = 0;
    auto f = chain_with(n, &added);
    const auto b = bytes_of(*f, n);
    EXPECT_TRUE(is_chain(b.data(), b.size()));
    EXPECT_EQ(b.size() % 64, 0u);
    std::unique_ptr<GrowingFilter> g;
    ASSERT_EQ(deserialize_chain(b.data(), b.size(), &g), Errc::ok) << n;
    EXPECT_EQ(g->stages(), n);
    EXPECT_TRUE(g->equals(*f)) << n;
    for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(g->stage_keys(i), f->stage_keys(i));
    for (uint64_t i = 0; i < added; ++i) ASSERT_TRUE(g->test_hash(mix(i))) << n << " " << i;
    EXPECT_EQ(bytes_of(*g, n), b) << n;  // what the reader read, written again: the same bytes
    // The copy goes on growing as the original would.
    g->add_hash(mix(1ULL << 50));
    EXPECT_TRUE(g->test_hash(mix(1ULL << 50)));
  }
}

TEST(GrowingFormat, ASnapshotOfTheFirstStages) {
  auto f = chain_with(5);
  const auto b = bytes_of(*f, 3);
  std::unique_ptr<GrowingFilter> g;
  ASSERT_EQ(deserialize_chain(b.data(), b.size(), &g), Errc::ok);
  EXPECT_EQ(g->stages(), 3u);
}

// The first chains' form, made from today's: place count 0, a table of exactly the chain's
// stages, every stage moved back by the places it no longer has (offsets and checksums redone).
std::vector<unsigned char> first_form_of(const std::vector<unsigned char>& b) {
  const uint32_t stages = get32(b.data() + 72);
  const size_t entries = size_t{stages} * kStageEntryBytes;
  const size_t old_end = (kHeaderBytes + entries + 63) & ~size_t{63};
  const size_t shift = get64(b.data() + kHeaderBytes) - old_end;  // stage 0's offset moves
  std::vector<unsigned char> out(b.size() - shift, 0);
  std::copy(b.begin(), b.begin() + kHeaderBytes, out.begin());
  std::copy(b.begin() + static_cast<ptrdiff_t>(old_end + shift), b.end(),
            out.begin() + static_cast<ptrdiff_t>(old_end));
  for (uint32_t i = 0; i < stages; ++i) {
    const unsigned char* from = b.data() + kHeaderBytes + size_t{i} * kStageEntryBytes;
    unsigned char* to = out.data() + kHeaderBytes + size_t{i} * kStageEntryBytes;
    std::copy(from, from + kStageEntryBytes, to);
    put64(to, get64(from) - shift);
  }
  put32(out.data() + 76, 0);
  put64(out.data() + 80, out.size());
  reseal(out);
  return out;
}

TEST(GrowingFormat, StageOffsetsDoNotDependOnTheStageCount) {
  auto f = chain_with(6);
  const auto six = bytes_of(*f, 6);
  EXPECT_EQ(get32(six.data() + 76), kMaxStages);  // a place for every stage
  EXPECT_EQ(chain_head_size(), kHeaderBytes + kMaxStages * kStageEntryBytes);
  EXPECT_EQ(get64(six.data() + kHeaderBytes), chain_head_size());
  for (uint32_t n = 1; n < 6; ++n) {
    const auto b = bytes_of(*f, n);
    ASSERT_EQ(read(b), Errc::ok) << n;
    // A shorter chain is a prefix of the longer one but for its header and table: stage i sits
    // at the same offset with the same bytes.
    ASSERT_LE(b.size(), six.size());
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(get64(b.data() + kHeaderBytes + size_t{i} * kStageEntryBytes),
                get64(six.data() + kHeaderBytes + size_t{i} * kStageEntryBytes));
    }
    EXPECT_TRUE(std::equal(b.begin() + static_cast<ptrdiff_t>(chain_head_size()), b.end(),
                           six.begin() + static_cast<ptrdiff_t>(chain_head_size())))
        << n;
  }
}

TEST(GrowingFormat, TheFirstChainsFormIsStillRead) {
  for (uint32_t n = 1; n <= 12; ++n) {
    auto f = chain_with(n);
    const auto today = bytes_of(*f, n);
    const auto first = first_form_of(today);
    ASSERT_LT(first.size(), today.size());
    std::unique_ptr<GrowingFilter> g;
    ASSERT_EQ(deserialize_chain(first.data(), first.size(), &g), Errc::ok) << n;
    EXPECT_TRUE(g->equals(*f)) << n;
    for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(g->stage_keys(i), f->stage_keys(i));
    EXPECT_EQ(bytes_of(*g, n), today) << n;  // written again in today's form
    // In place too (64-byte aligned, as a mapping is).
    AlignedBuffer aligned((first.size() + 7) / 8);
    auto* at = reinterpret_cast<unsigned char*>(aligned.data());
    std::copy(first.begin(), first.end(), at);
    std::unique_ptr<GrowingFilter> v;
    ASSERT_EQ(view_chain(at, first.size(), true, &v), Errc::ok) << n;
    EXPECT_TRUE(v->equals(*f)) << n;
  }
}

TEST(GrowingFormat, PlaceCountsOtherThanTheTwoFormsAreRefused) {
  auto f = chain_with(3);
  const auto good = bytes_of(*f, 3);
  for (uint32_t places : {1u, 2u, 3u, 4u, 63u, 65u, 1000u, 0xFFFFFFFFu}) {
    auto b = good;
    put32(b.data() + 76, places);
    reseal(b);
    EXPECT_EQ(read(b), Errc::corrupt) << places;
  }
  // A byte in a place past the stage count (the table's checksum covers only the stages').
  for (size_t off : {kHeaderBytes + 3 * kStageEntryBytes, kHeaderBytes + 40 * kStageEntryBytes + 7,
                     chain_head_size() - 1}) {
    auto b = good;
    b[off] = 1;
    reseal(b);
    EXPECT_EQ(read(b), Errc::corrupt) << off;
  }
  // The first form with a byte in its padding, and cut inside its table.
  auto first = first_form_of(good);
  ASSERT_EQ(read(first), Errc::ok);
  auto b = first;
  b[kHeaderBytes + 3 * kStageEntryBytes + 1] = 1;
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);
  b.assign(first.begin(), first.begin() + kHeaderBytes + 40);
  EXPECT_NE(read(b), Errc::ok);
}

TEST(GrowingFormat, AFixedFilterIsNotAChain) {
  GrowthRequest req;
  Plan plan;
  ASSERT_EQ(plan_stage(req, 0, &plan), Errc::ok);
  FilterParams params;
  params.capacity = 1024;
  Filter fixed(plan.shape(1), params);
  std::vector<unsigned char> b(serialized_size(fixed.shape()));
  serialize_into(fixed, b.data());
  EXPECT_FALSE(is_chain(b.data(), b.size()));
  EXPECT_EQ(read(b), Errc::unsupported);  // kind 0 in a chain header's place
}

TEST(GrowingFormat, DamagedChainsAreRefused) {
  auto f = chain_with(4);
  const auto good = bytes_of(*f, 4);
  ASSERT_EQ(read(good), Errc::ok);
  const size_t table = kHeaderBytes;

  auto b = good;
  b[60] ^= 1;  // a header byte (the growth): its checksum
  EXPECT_EQ(read(b), Errc::corrupt);
  b = good;
  b[0] ^= 1;
  EXPECT_EQ(read(b), Errc::bad_magic);
  b = good;
  put32(b.data() + 8, 2);
  reseal(b);
  EXPECT_EQ(read(b), Errc::version);

  // A stage count past the file's end, and an absurd one.
  b = good;
  put32(b.data() + 72, 9);
  reseal(b);
  EXPECT_NE(read(b), Errc::ok);
  b = good;
  put32(b.data() + 72, 1000);
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);
  b = good;
  put32(b.data() + 72, 0);
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);

  // The table edited without its checksum.
  b = good;
  b[table + 16] ^= 1;
  put64(b.data() + 120, XXH3_64bits(b.data(), 120));
  EXPECT_EQ(read(b), Errc::corrupt);

  // Stages out of order: entries 1 and 2 swapped (checksums resealed).
  b = good;
  std::swap_ranges(b.begin() + table + kStageEntryBytes, b.begin() + table + 2 * kStageEntryBytes,
                   b.begin() + table + 2 * kStageEntryBytes);
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);
  // Stage 2's bytes replaced by stage 1's form (a stage in the wrong place, its own checksum good).
  {
    auto g = chain_with(4);
    std::vector<unsigned char> s1(serialized_size(g->stage(1).shape()));
    serialize_into(g->stage(1), s1.data());
    b = good;
    const uint64_t off2 = get64(b.data() + table + 2 * kStageEntryBytes);
    std::copy(s1.begin(), s1.end(), b.begin() + static_cast<ptrdiff_t>(off2));
    put64(b.data() + table + 2 * kStageEntryBytes + 8, s1.size());
    reseal(b);
    EXPECT_EQ(read(b), Errc::corrupt);
  }
  // Overlapping stages: stage 1's offset moved back into stage 0.
  b = good;
  put64(b.data() + table + kStageEntryBytes, get64(b.data() + table + kStageEntryBytes) - 64);
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);

  // One stage's body damaged: its own checksum.
  b = good;
  const uint64_t off3 = get64(b.data() + table + 3 * kStageEntryBytes);
  b[off3 + kHeaderBytes + 5] ^= 0x10;
  EXPECT_EQ(read(b), Errc::checksum);

  // A bad request in the header: FPR 1.5, growth 1, capacity 0.
  b = good;
  put64(b.data() + 64, std::bit_cast<uint64_t>(1.5));
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);
  b = good;
  put64(b.data() + 56, std::bit_cast<uint64_t>(1.0));
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);
  b = good;
  put64(b.data() + 40, 0);
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);
  // A different initial capacity: every stage's capacity disagrees with its header.
  b = good;
  put64(b.data() + 40, 65);
  reseal(b);
  EXPECT_EQ(read(b), Errc::corrupt);

  // Reserved fields of the header and of a table entry that are not zero.
  for (size_t off : {size_t{88}, size_t{100}, size_t{112}, table + kStageEntryBytes + 24}) {
    b = good;
    b[off] = 1;
    reseal(b);
    EXPECT_EQ(read(b), Errc::corrupt) << off;
  }

  // A trailing byte.
  b = good;
  b.push_back(0);
  EXPECT_EQ(read(b), Errc::corrupt);
}

TEST(GrowingFormat, EveryTruncationIsRefused) {
  auto f = chain_with(5);
  const auto good = bytes_of(*f, 5);
  for (size_t len = 0; len < good.size(); len += (len < 512 ? 1 : 61)) {
    std::unique_ptr<GrowingFilter> g;
    const Errc e = deserialize_chain(good.data(), len, &g);
    EXPECT_NE(e, Errc::ok) << len;
    EXPECT_EQ(g, nullptr);
  }
}

}  // namespace
}  // namespace abloom
