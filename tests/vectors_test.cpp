// Golden vectors (tests/vectors/, see its README.md): files written once by
// tests/vectors/make_vectors.c and never changed since. They pin format version 1 and the bit
// layout: every reader must accept them with the recorded answers, and rebuilding the same
// filter from the same keys must give the same bytes, forever.
//
// For each vector:
//  - the files are the checked-in ones (size and XXH3-64 digest of the .abloom and both key lists;
//    an edited vector is a failure here, not a "fix");
//  - abloom_open (with ABLOOM_VERIFY_CHECKSUM), abloom_deserialize of the bytes and abloom_view
//    (with and without the check) all give the pinned shape (kind, k, shards, blocks, seed,
//    capacity, target FPR), answer 1 for every added key and the recorded answer for every
//    absent key (false positives included), through the single-key and the bulk calls;
//  - creating a filter with the same options and adding the keys (one by one, or in one bulk
//    call) serializes, and saves, to bytes identical to the file; with the layout given
//    explicitly (bits and k, so sizing is out of the picture) the body is identical.

#include <abloom.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(ABLOOM_TEST_HAVE_XXHASH)
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "aligned_memory.hpp"
#include "capi_test_support.hpp"
#include "test_files.hpp"
#endif

#ifndef ABLOOM_VECTORS_DIR
#error "ABLOOM_VECTORS_DIR must name tests/vectors (see tests/CMakeLists.txt)"
#endif

namespace {

struct GoldenVector {
  const char *name;
  // Options make_vectors.c created the filter with.
  uint32_t kind;
  uint32_t shards;
  uint64_t seed;
  uint64_t capacity;
  double fpr;
  // The layout they gave, as recorded in the file.
  uint32_t k;
  uint64_t blocks_per_shard;
  // The checked-in files.
  uint64_t file_bytes;
  uint64_t file_xxh3;
  uint64_t keys_xxh3;
  uint64_t absent_xxh3;
  size_t keys;
  size_t absent;
  size_t false_positives;
  // The layout they gave (abloom_options.layout; ABLOOM_LAYOUT_DEFAULT: not set), and the one the
  // file records. The blocked_* vectors were written when the default was distinct; they now
  // ask for it, since the default became split.
  uint32_t layout_option = ABLOOM_LAYOUT_DEFAULT;
  uint32_t layout = ABLOOM_LAYOUT_DISTINCT;
};

// Never edit these numbers: they describe files that must never change (see the README; the one
// change so far, to three files' expected FPR when the model left libm, is described there).
const GoldenVector kVectors[] = {
    {"blocked_s1", ABLOOM_KIND_BLOCKED, 1, 0x0123456789ABCDEFull, 450, 0.01, 7, 9, 704,
     0xe1ff7b3da914ddfeull, 0x5236eb84c0859af9ull, 0x7a9a99e4a54d74a1ull, 450, 2000, 31,
     ABLOOM_LAYOUT_DISTINCT, ABLOOM_LAYOUT_DISTINCT},
    {"blocked_s4", ABLOOM_KIND_BLOCKED, 4, 0xFEDCBA9876543210ull, 450, 0.01, 8, 3, 896,
     0x3cc6190a75a0d4a1ull, 0x4f4cfb0d6426db95ull, 0xeb9d7ab5e2b79443ull, 450, 2000, 5,
     ABLOOM_LAYOUT_DISTINCT, ABLOOM_LAYOUT_DISTINCT},
    {"classic_s1", ABLOOM_KIND_CLASSIC, 1, 0x00000000DEADBEEFull, 450, 0.01, 7, 9, 704,
     0xef1837f245afcc63ull, 0xf5f2631ce44fe9abull, 0xa77e9773cf8527cfull, 450, 2000, 10},
    {"classic_s4", ABLOOM_KIND_CLASSIC, 4, 0x8000000000000001ull, 450, 0.01, 9, 3, 896,
     0x5ab162412e8923f6ull, 0xd767ca4d0cf46181ull, 0xc7e4c515847bbe18ull, 450, 2000, 1},
    // The split layout (format layout id 2), added with it.
    {"split_s1", ABLOOM_KIND_BLOCKED, 1, 0x5B117000000000A1ull, 450, 0.01, 7, 9, 704,
     0xa0a0f4870dfdd8bbull, 0x7190b216e3ff6b7eull, 0x2e152cce408273a9ull, 450, 2000, 13,
     ABLOOM_LAYOUT_SPLIT, ABLOOM_LAYOUT_SPLIT},
    {"split_s4", ABLOOM_KIND_BLOCKED, 4, 0xA100000000075B11ull, 450, 0.01, 9, 3, 896,
     0x2783468f3b6cd2b9ull, 0x5c3f962c469ae81aull, 0x8df3e991228d98bfull, 450, 2000, 8,
     ABLOOM_LAYOUT_SPLIT, ABLOOM_LAYOUT_SPLIT},
    // The half layout (format layout id 3), added with it.
    {"half_s1", ABLOOM_KIND_BLOCKED, 1, 0x4A1F000000000A18ull, 450, 0.01, 8, 10, 768,
     0xb126c5fd72c0f11full, 0xa7e3fe0d006671f2ull, 0x8422bc1ff03a57cfull, 450, 2000, 10,
     ABLOOM_LAYOUT_HALF, ABLOOM_LAYOUT_HALF},
    {"half_s4", ABLOOM_KIND_BLOCKED, 4, 0x8A0000000000F1A4ull, 450, 0.01, 8, 3, 896,
     0xe8b92a455dcc0764ull, 0x1ea058776d492d35ull, 0xf6556e48abfc6e81ull, 450, 2000, 8,
     ABLOOM_LAYOUT_HALF, ABLOOM_LAYOUT_HALF},
};

// gtest prints a failing parameter with this (instead of its bytes).
void PrintTo(const GoldenVector &v, std::ostream *os) { *os << v.name; }

using capi_test::Filter;
using capi_test::FilterDeleter;

std::string PathOf(const GoldenVector &v, const char *suffix) {
  return std::string(ABLOOM_VECTORS_DIR) + "/" + v.name + suffix;
}

std::string ReadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> Lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// XXH3-64 with seed 0: abloom_hash of a seed-0 filter is documented to be exactly that; checked
// against xxHash itself when its header is available.
uint64_t Xxh3(const std::string &bytes) {
  abloom_options o;
  abloom_options_init(&o);
  o.capacity = 1;
  o.seed = 0;
  abloom_filter *raw = nullptr;
  EXPECT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  Filter f(raw);
  uint64_t h = 0;
  EXPECT_EQ(abloom_hash(f.get(), bytes.data(), bytes.size(), &h), ABLOOM_OK);
#if defined(ABLOOM_TEST_HAVE_XXHASH)
  EXPECT_EQ(h, XXH3_64bits(bytes.data(), bytes.size()));
#endif
  return h;
}

struct Loaded {
  std::string bytes;                // the .abloom file
  std::vector<std::string> keys;    // added
  std::vector<std::string> absent;  // never added
  std::vector<uint8_t> answers;     // recorded abloom_test answer of each absent key
};

Loaded Load(const GoldenVector &v) {
  Loaded l;
  l.bytes = ReadFile(PathOf(v, ".abloom"));
  l.keys = Lines(ReadFile(PathOf(v, ".keys.txt")));
  for (const std::string &line : Lines(ReadFile(PathOf(v, ".absent.txt")))) {
    if (line.size() < 3 || (line[0] != '0' && line[0] != '1') || line[1] != ' ') {
      throw std::runtime_error(std::string(v.name) + ".absent.txt: bad line '" + line + "'");
    }
    l.answers.push_back(static_cast<uint8_t>(line[0] - '0'));
    l.absent.push_back(line.substr(2));
  }
  return l;
}

// Keys as the pointer and length arrays the bulk calls take (valid while `keys` lives).
struct KeyArrays {
  explicit KeyArrays(const std::vector<std::string> &keys) {
    for (const std::string &key : keys) {
      ptrs.push_back(key.data());
      lens.push_back(key.size());
    }
  }
  std::vector<const void *> ptrs;
  std::vector<size_t> lens;
};

abloom_options OptionsOf(const GoldenVector &v) {
  abloom_options o;
  EXPECT_EQ(abloom_options_init(&o), ABLOOM_OK);
  o.capacity = v.capacity;
  o.fpr = v.fpr;
  o.kind = v.kind;
  o.shards = v.shards;
  o.seed = v.seed;
  o.layout = v.layout_option;
  return o;
}

// Shape, and every key's answer, single and bulk.
void CheckFilter(const GoldenVector &v, const Loaded &l, const abloom_filter *f, uint32_t storage,
                 const char *how) {
  SCOPED_TRACE(how);
  abloom_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  ASSERT_EQ(abloom_get_info(f, &info), ABLOOM_OK);
  EXPECT_EQ(info.kind, v.kind);
  EXPECT_EQ(info.layout, v.layout);
  EXPECT_EQ(info.k, v.k);
  EXPECT_EQ(info.shards, v.shards);
  EXPECT_EQ(info.blocks_per_shard, v.blocks_per_shard);
  EXPECT_EQ(info.bits, uint64_t{v.shards} * v.blocks_per_shard * 512);
  EXPECT_EQ(info.bytes + ABLOOM_HEADER_BYTES, v.file_bytes);
  EXPECT_EQ(info.seed, v.seed);
  EXPECT_EQ(info.capacity, v.capacity);
  EXPECT_EQ(info.target_fpr, v.fpr);
  EXPECT_GT(info.expected_fpr, 0.0);
  EXPECT_LE(info.expected_fpr, v.fpr);
  EXPECT_EQ(info.storage, storage);

  for (const std::string &key : l.keys) {
    ASSERT_EQ(abloom_test(f, key.data(), key.size()), 1) << "added key '" << key << "'";
  }
  for (size_t i = 0; i < l.absent.size(); ++i) {
    ASSERT_EQ(abloom_test(f, l.absent[i].data(), l.absent[i].size()), l.answers[i])
        << "absent key '" << l.absent[i] << "' (line " << i + 1 << ")";
  }

  // Bulk: the added keys as pointer arrays, the absent ones packed.
  const KeyArrays arrays(l.keys);
  std::vector<uint8_t> results(l.keys.size(), 0);
  uint64_t found = 0;
  ASSERT_EQ(abloom_test_many(f, arrays.ptrs.data(), arrays.lens.data(), arrays.ptrs.size(),
                             results.data(), &found),
            ABLOOM_OK);
  EXPECT_EQ(found, l.keys.size());
  std::string packed;
  std::vector<uint64_t> offsets{0};
  for (const std::string &key : l.absent) {
    packed += key;
    offsets.push_back(packed.size());
  }
  results.assign(l.absent.size(), 2);
  ASSERT_EQ(abloom_test_packed(f, packed.data(), packed.size(), offsets.data(), l.absent.size(),
                               results.data(), &found),
            ABLOOM_OK);
  EXPECT_EQ(results, l.answers);
  EXPECT_EQ(found, v.false_positives);
}

// The serialized bytes of f, as a string: ReadFile's form of the golden files, compared whole.
std::string SerializeToString(const abloom_filter *f) {
  uint64_t size = 0;
  EXPECT_EQ(abloom_serialized_size(f, &size), ABLOOM_OK);
  std::string out(size, '\0');
  size_t written = 0;
  EXPECT_EQ(abloom_serialize(f, out.data(), out.size(), &written), ABLOOM_OK);
  EXPECT_EQ(written, size);
  return out;
}

// Which header fields (docs/FORMAT.md) differ, for a readable failure.
std::string Diff(const std::string &got, const std::string &want) {
  static const struct {
    size_t off;
    const char *name;
  } kFields[] = {{0, "magic"},
                 {8, "format version"},
                 {12, "header size"},
                 {16, "kind"},
                 {20, "layout id"},
                 {24, "hash id"},
                 {28, "k"},
                 {32, "seed"},
                 {40, "blocks per shard"},
                 {48, "shards"},
                 {52, "flags"},
                 {56, "bit count"},
                 {64, "capacity"},
                 {72, "inserted-key estimate"},
                 {80, "target FPR"},
                 {88, "expected FPR"},
                 {96, "body size"},
                 {104, "checksum"},
                 {112, "reserved"},
                 {120, "header checksum"},
                 {128, "body"}};
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  }
  std::string out;
  for (size_t f = 0; f < std::size(kFields); ++f) {
    const size_t begin = kFields[f].off;
    const size_t end = f + 1 < std::size(kFields) ? kFields[f + 1].off : got.size();
    for (size_t i = begin; i < end; ++i) {
      if (got[i] != want[i]) {
        out += std::string(out.empty() ? "" : ", ") + kFields[f].name + " (first at byte " +
               std::to_string(i) + ")";
        break;
      }
    }
  }
  return out.empty() ? "identical" : "differ: " + out;
}

class GoldenVectors : public ::testing::TestWithParam<GoldenVector> {
 protected:
  void SetUp() override { ASSERT_NO_THROW(l_ = Load(GetParam())); }
  Loaded l_;
};

TEST_P(GoldenVectors, FilesAreTheCheckedInOnes) {
  const GoldenVector &v = GetParam();
  EXPECT_EQ(l_.bytes.size(), v.file_bytes);
  EXPECT_EQ(Xxh3(l_.bytes), v.file_xxh3) << v.name << ".abloom was changed";
  EXPECT_EQ(Xxh3(ReadFile(PathOf(v, ".keys.txt"))), v.keys_xxh3) << v.name << ".keys.txt changed";
  EXPECT_EQ(Xxh3(ReadFile(PathOf(v, ".absent.txt"))), v.absent_xxh3)
      << v.name << ".absent.txt changed";
  EXPECT_EQ(l_.keys.size(), v.keys);
  EXPECT_EQ(l_.absent.size(), v.absent);
  size_t positives = 0;
  for (uint8_t a : l_.answers) positives += a;
  EXPECT_EQ(positives, v.false_positives);
}

// The file's words are little-endian, so a big-endian machine cannot use them in place: mapping
// and viewing are refused there with ABLOOM_ERR_UNSUPPORTED (abloom.h), after the header checks.
constexpr bool kBigEndian = std::endian::native == std::endian::big;

TEST_P(GoldenVectors, OpenWithVerify) {
  const GoldenVector &v = GetParam();
  abloom_filter *raw = nullptr;
  if (kBigEndian) {
    EXPECT_EQ(abloom_open(PathOf(v, ".abloom").c_str(), ABLOOM_VERIFY_CHECKSUM, &raw),
              ABLOOM_ERR_UNSUPPORTED);
    EXPECT_EQ(raw, nullptr);
    return;
  }
  ASSERT_EQ(abloom_open(PathOf(v, ".abloom").c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  Filter f(raw);
  CheckFilter(v, l_, f.get(), ABLOOM_STORAGE_MAPPED, "abloom_open");
  raw = nullptr;
  ASSERT_EQ(abloom_open(PathOf(v, ".abloom").c_str(), 0, &raw), ABLOOM_OK);
  Filter g(raw);
  EXPECT_EQ(abloom_equal(f.get(), g.get()), 1);
}

TEST_P(GoldenVectors, Deserialize) {
  const GoldenVector &v = GetParam();
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_deserialize(l_.bytes.data(), l_.bytes.size(), &raw), ABLOOM_OK);
  Filter f(raw);
  CheckFilter(v, l_, f.get(), ABLOOM_STORAGE_OWNED, "abloom_deserialize");
}

TEST_P(GoldenVectors, View) {
  const GoldenVector &v = GetParam();
  const test_memory::AlignedBlock buf =
      test_memory::Aligned64Copy(l_.bytes.data(), l_.bytes.size());
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    abloom_filter *raw = nullptr;
    if (kBigEndian) {
      EXPECT_EQ(abloom_view(buf.get(), l_.bytes.size(), flags, &raw), ABLOOM_ERR_UNSUPPORTED);
      EXPECT_EQ(raw, nullptr);
      continue;
    }
    ASSERT_EQ(abloom_view(buf.get(), l_.bytes.size(), flags, &raw), ABLOOM_OK);
    Filter f(raw);
    CheckFilter(v, l_, f.get(), ABLOOM_STORAGE_VIEW,
                flags ? "abloom_view verified" : "abloom_view");
  }
}

TEST_P(GoldenVectors, RebuildGivesIdenticalBytes) {
  const GoldenVector &v = GetParam();
  const abloom_options o = OptionsOf(v);

  // One abloom_add per key, in file order (as make_vectors.c did).
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  Filter one(raw);
  for (const std::string &key : l_.keys) {
    ASSERT_EQ(abloom_add(one.get(), key.data(), key.size()), ABLOOM_OK);
  }
  const std::string bytes = SerializeToString(one.get());
  EXPECT_TRUE(bytes == l_.bytes) << "abloom_serialize of the rebuilt filter: "
                                 << Diff(bytes, l_.bytes);

  // All keys in one bulk call: same bits, same bytes.
  raw = nullptr;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  Filter bulk(raw);
  const KeyArrays arrays(l_.keys);
  ASSERT_EQ(abloom_add_many(bulk.get(), arrays.ptrs.data(), arrays.lens.data(), arrays.ptrs.size(),
                            nullptr),
            ABLOOM_OK);
  const std::string bulk_bytes = SerializeToString(bulk.get());
  EXPECT_TRUE(bulk_bytes == l_.bytes)
      << "abloom_add_many then abloom_serialize: " << Diff(bulk_bytes, l_.bytes);

  // abloom_save writes through its own code path (chunked, streaming checksum): same bytes.
  std::string saved;
  {
    const test_files::TempDir dir("abloom-vectors");
    const std::string path = dir / (std::string(v.name) + ".abloom");
    EXPECT_EQ(abloom_save(one.get(), path.c_str()), ABLOOM_OK);
    EXPECT_NO_THROW(saved = ReadFile(path));
  }
  EXPECT_TRUE(saved == l_.bytes) << "abloom_save of the rebuilt filter: " << Diff(saved, l_.bytes);
}

// With bits and k given explicitly, sizing plays no part: the bits alone pin the layout (key ->
// shard, block, bit positions). The header then says target FPR 0, so only the body is compared.
TEST_P(GoldenVectors, ExplicitLayoutGivesIdenticalBody) {
  const GoldenVector &v = GetParam();
  abloom_options o = OptionsOf(v);
  o.bits = uint64_t{v.shards} * v.blocks_per_shard * 512;
  o.k = v.k;
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  Filter f(raw);
  for (const std::string &key : l_.keys) {
    ASSERT_EQ(abloom_add(f.get(), key.data(), key.size()), ABLOOM_OK);
  }
  const std::string bytes = SerializeToString(f.get());
  ASSERT_EQ(bytes.size(), l_.bytes.size());
  EXPECT_TRUE(bytes.compare(ABLOOM_HEADER_BYTES, std::string::npos, l_.bytes, ABLOOM_HEADER_BYTES,
                            std::string::npos) == 0)
      << "the bits differ: the bit layout changed";
}

INSTANTIATE_TEST_SUITE_P(Vectors, GoldenVectors, ::testing::ValuesIn(kVectors),
                         [](const ::testing::TestParamInfo<GoldenVector> &info) {
                           return std::string(info.param.name);
                         });

// The three vectors whose expected FPR (header offset 88) was computed with glibc's libm when they
// were first written, as they were then (tests/vectors/first-written/, see the README): files that
// older versions wrote must stay readable. Each is the vector of the same name but for that field
// and the two checksums over it, and every reader accepts it with the same answers.
struct FirstWritten {
  const char *name;
  uint64_t file_xxh3;
};
const FirstWritten kFirstWritten[] = {
    {"classic_s4", 0x46e1d97ef661d7fdull},
    {"split_s1", 0x62e54a482444c811ull},
    {"split_s4", 0xac1b162d528eba19ull},
};
void PrintTo(const FirstWritten &w, std::ostream *os) { *os << w.name; }

class FirstWrittenVectors : public ::testing::TestWithParam<FirstWritten> {};

TEST_P(FirstWrittenVectors, ReadLikeTheVectorTheyDifferFromOnlyInTheExpectedFpr) {
  const FirstWritten &w = GetParam();
  const GoldenVector *vector = nullptr;
  for (const GoldenVector &v : kVectors) {
    if (std::strcmp(v.name, w.name) == 0) vector = &v;
  }
  ASSERT_NE(vector, nullptr);
  const GoldenVector &v = *vector;
  Loaded l;
  ASSERT_NO_THROW(l = Load(v));
  const std::string path = std::string(ABLOOM_VECTORS_DIR) + "/first-written/" + v.name + ".abloom";
  std::string old;
  ASSERT_NO_THROW(old = ReadFile(path));
  EXPECT_EQ(Xxh3(old), w.file_xxh3) << path << " was changed";
  ASSERT_EQ(old.size(), l.bytes.size());
  for (size_t i = 0; i < old.size(); ++i) {
    const bool may_differ = (i >= 88 && i < 96) || (i >= 104 && i < 112) || i >= 120;
    if (i >= ABLOOM_HEADER_BYTES || !may_differ) {
      ASSERT_EQ(old[i], l.bytes[i]) << "byte " << i << " differs from " << v.name << ".abloom";
    }
  }
  EXPECT_NE(old.compare(88, 8, l.bytes, 88, 8), 0) << "the expected FPR is the one that changed";

  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_deserialize(old.data(), old.size(), &raw), ABLOOM_OK);
  Filter deserialized(raw);
  CheckFilter(v, l, deserialized.get(), ABLOOM_STORAGE_OWNED, "abloom_deserialize");
  if (kBigEndian) return;  // open and view are refused there (tested above)
  raw = nullptr;
  ASSERT_EQ(abloom_open(path.c_str(), ABLOOM_VERIFY_CHECKSUM, &raw), ABLOOM_OK);
  Filter opened(raw);
  CheckFilter(v, l, opened.get(), ABLOOM_STORAGE_MAPPED, "abloom_open");
  EXPECT_EQ(abloom_equal(opened.get(), deserialized.get()), 1);
}

INSTANTIATE_TEST_SUITE_P(Vectors, FirstWrittenVectors, ::testing::ValuesIn(kFirstWritten),
                         [](const ::testing::TestParamInfo<FirstWritten> &info) {
                           return std::string(info.param.name);
                         });

}  // namespace

namespace {

// The growing vector (tests/vectors/README.md, "growing_s1"): a chain of three stages, growth 2
// from a first stage of 100 keys, target FPR 10%, split layout (the default), one shard, its
// seed; written again once, when the stage table got a place for every stage (the first file is
// first-written/growing_s1.abloom). Never edit these numbers either.
const GoldenVector kGrowing = {"growing_s1",
                               ABLOOM_KIND_BLOCKED,
                               1,
                               UINT64_C(0x6A0E1A6000000003),
                               100,
                               0.1,
                               /*k (newest stage)=*/9,
                               /*blocks_per_shard (newest stage)=*/11,
                               /*file_bytes=*/3904,
                               /*file_xxh3=*/UINT64_C(0x20802D02E647466A),
                               /*keys_xxh3=*/UINT64_C(0x30EB1A4FC1768E60),
                               /*absent_xxh3=*/UINT64_C(0x16975E0DA35F2255),
                               /*keys=*/450,
                               /*absent=*/2000,
                               /*false_positives=*/1,
                               ABLOOM_LAYOUT_DEFAULT,
                               ABLOOM_LAYOUT_SPLIT};

abloom_options GrowingOptions() {
  abloom_options o = OptionsOf(kGrowing);
  o.growth = 2.0;
  return o;
}

// Three stages of 100, 200 and 400 keys; the 450 keys fill the first two, 150 go to the third.
void CheckGrowing(const Loaded &l, const abloom_filter *f, uint32_t storage, const char *how) {
  SCOPED_TRACE(how);
  abloom_info info;
  ASSERT_EQ(abloom_info_init(&info), ABLOOM_OK);
  ASSERT_EQ(abloom_get_info(f, &info), ABLOOM_OK);
  EXPECT_EQ(info.stages, 3u);
  EXPECT_EQ(info.growth, 2.0);
  EXPECT_EQ(info.seed, kGrowing.seed);
  EXPECT_EQ(info.target_fpr, 0.1);
  EXPECT_EQ(info.capacity, 700u);
  EXPECT_EQ(info.k, kGrowing.k);
  EXPECT_EQ(info.blocks_per_shard, kGrowing.blocks_per_shard);
  EXPECT_EQ(info.storage, storage);
  const uint64_t capacities[] = {100, 200, 400};
  for (uint32_t s = 0; s < 3; ++s) {
    abloom_info st;
    ASSERT_EQ(abloom_info_init(&st), ABLOOM_OK);
    ASSERT_EQ(abloom_get_stage_info(f, s, &st), ABLOOM_OK);
    EXPECT_EQ(st.capacity, capacities[s]) << "stage " << s;
    EXPECT_EQ(st.layout, ABLOOM_LAYOUT_SPLIT) << "stage " << s;
  }
  for (const std::string &key : l.keys) ASSERT_EQ(abloom_test(f, key.data(), key.size()), 1) << key;
  const KeyArrays arrays(l.absent);
  std::vector<uint8_t> bulk(l.absent.size());
  ASSERT_EQ(abloom_test_many(f, arrays.ptrs.data(), arrays.lens.data(), arrays.ptrs.size(),
                             bulk.data(), nullptr),
            ABLOOM_OK);
  for (size_t i = 0; i < l.absent.size(); ++i) {
    ASSERT_EQ(abloom_test(f, l.absent[i].data(), l.absent[i].size()), l.answers[i]) << l.absent[i];
    ASSERT_EQ(bulk[i], l.answers[i]) << l.absent[i];
  }
}

class GrowingVector : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_THROW(l_ = Load(kGrowing)); }
  Loaded l_;
};

TEST_F(GrowingVector, FilesAreTheCheckedInOnes) {
  EXPECT_EQ(l_.bytes.size(), kGrowing.file_bytes);
  EXPECT_EQ(Xxh3(l_.bytes), kGrowing.file_xxh3) << "growing_s1.abloom was changed";
  EXPECT_EQ(Xxh3(ReadFile(PathOf(kGrowing, ".keys.txt"))), kGrowing.keys_xxh3);
  EXPECT_EQ(Xxh3(ReadFile(PathOf(kGrowing, ".absent.txt"))), kGrowing.absent_xxh3);
  EXPECT_EQ(l_.keys.size(), kGrowing.keys);
  EXPECT_EQ(l_.absent.size(), kGrowing.absent);
  size_t positives = 0;
  for (uint8_t a : l_.answers) positives += a;
  EXPECT_EQ(positives, kGrowing.false_positives);
}

TEST_F(GrowingVector, EveryReaderTakesIt) {
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_deserialize(l_.bytes.data(), l_.bytes.size(), &raw), ABLOOM_OK);
  Filter copy(raw);
  CheckGrowing(l_, copy.get(), ABLOOM_STORAGE_OWNED, "abloom_deserialize");
  if (kBigEndian) return;  // mapping and views are refused there (GoldenVectors tests that)
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    raw = nullptr;
    ASSERT_EQ(abloom_open(PathOf(kGrowing, ".abloom").c_str(), flags, &raw), ABLOOM_OK);
    Filter opened(raw);
    CheckGrowing(l_, opened.get(), ABLOOM_STORAGE_MAPPED, "abloom_open");
    const test_memory::AlignedBlock buf =
        test_memory::Aligned64Copy(l_.bytes.data(), l_.bytes.size());
    raw = nullptr;
    ASSERT_EQ(abloom_view(buf.get(), l_.bytes.size(), flags, &raw), ABLOOM_OK);
    Filter view(raw);
    CheckGrowing(l_, view.get(), ABLOOM_STORAGE_VIEW, "abloom_view");
  }
}

// The chain as first written (a table of its three stages only, place count 0): every reader
// still takes it with the same answers, and what it reads is written in today's form.
TEST_F(GrowingVector, TheFirstWrittenChainReadsTheSame) {
  const std::string path = std::string(ABLOOM_VECTORS_DIR) + "/first-written/growing_s1.abloom";
  std::string old;
  ASSERT_NO_THROW(old = ReadFile(path));
  EXPECT_EQ(old.size(), 1984u);
  EXPECT_EQ(Xxh3(old), UINT64_C(0xFA591ED47B44A192)) << path << " was changed";
  EXPECT_EQ(old.compare(76, 4, std::string(4, '\0')), 0) << "its place count is 0";
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_deserialize(old.data(), old.size(), &raw), ABLOOM_OK);
  Filter copy(raw);
  CheckGrowing(l_, copy.get(), ABLOOM_STORAGE_OWNED, "abloom_deserialize (first written)");
  EXPECT_TRUE(SerializeToString(copy.get()) == l_.bytes) << "written again in today's form";
  if (kBigEndian) return;
  for (uint32_t flags : {0u, ABLOOM_VERIFY_CHECKSUM}) {
    raw = nullptr;
    ASSERT_EQ(abloom_open(path.c_str(), flags, &raw), ABLOOM_OK);
    Filter opened(raw);
    CheckGrowing(l_, opened.get(), ABLOOM_STORAGE_MAPPED, "abloom_open (first written)");
    EXPECT_EQ(abloom_equal(opened.get(), copy.get()), 1);
    const test_memory::AlignedBlock buf = test_memory::Aligned64Copy(old.data(), old.size());
    raw = nullptr;
    ASSERT_EQ(abloom_view(buf.get(), old.size(), flags, &raw), ABLOOM_OK);
    Filter view(raw);
    CheckGrowing(l_, view.get(), ABLOOM_STORAGE_VIEW, "abloom_view (first written)");
  }
}

TEST_F(GrowingVector, RebuildGivesIdenticalBytes) {
  const abloom_options o = GrowingOptions();
  abloom_filter *raw = nullptr;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  Filter one(raw);
  for (const std::string &key : l_.keys) {
    ASSERT_EQ(abloom_add(one.get(), key.data(), key.size()), ABLOOM_OK);
  }
  const std::string bytes = SerializeToString(one.get());
  EXPECT_TRUE(bytes == l_.bytes) << "abloom_serialize of the rebuilt chain differs";
  // One bulk call: stages fill to their capacities exactly, as one key at a time does.
  raw = nullptr;
  ASSERT_EQ(abloom_create(&o, &raw), ABLOOM_OK);
  Filter bulk(raw);
  const KeyArrays arrays(l_.keys);
  ASSERT_EQ(abloom_add_many(bulk.get(), arrays.ptrs.data(), arrays.lens.data(), arrays.ptrs.size(),
                            nullptr),
            ABLOOM_OK);
  EXPECT_TRUE(SerializeToString(bulk.get()) == l_.bytes) << "abloom_add_many then abloom_serialize";
  std::string saved;
  {
    const test_files::TempDir dir("abloom-vectors");
    const std::string path = dir / "growing_s1.abloom";
    EXPECT_EQ(abloom_save(one.get(), path.c_str()), ABLOOM_OK);
    EXPECT_NO_THROW(saved = ReadFile(path));
  }
  EXPECT_TRUE(saved == l_.bytes) << "abloom_save of the rebuilt chain differs";
}

}  // namespace
