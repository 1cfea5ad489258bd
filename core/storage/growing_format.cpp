#include "storage/growing_format.hpp"

#include <bit>
#include <cstring>
#include <vector>

#include "storage/format.hpp"

namespace abloom {
namespace {

// Chain header offsets (docs/FORMAT.md, "Growing filters").
enum ChainOffset : size_t {
  kCOffMagic = 0,
  kCOffVersion = 8,
  kCOffHeaderSize = 12,
  kCOffKind = 16,
  kCOffLayout = 20,  // 0: each stage's layout is the library's choice; else the layout id
  kCOffHash = 24,
  kCOffStageKind = 28,
  kCOffSeed = 32,
  kCOffInitial = 40,
  kCOffShards = 48,
  kCOffFlags = 52,
  kCOffGrowth = 56,
  kCOffFpr = 64,
  kCOffStages = 72,
  kCOffPlaces = 76,  // the table's places: kMaxStages (0 in the first chains: as many as stages)
  kCOffTotal = 80,
  kCOffReserved1 = 88,  // 16 bytes
  kCOffTableChecksum = 104,
  kCOffReserved2 = 112,  // 8 bytes
  kCOffHeaderChecksum = 120,
};
static_assert(kCOffHeaderChecksum + 8 == kHeaderBytes);

uint64_t align64(uint64_t n) noexcept { return (n + 63) & ~uint64_t{63}; }
// Where the stage table of `places` entries ends and stage 0 may start.
uint64_t table_end(uint32_t places) noexcept {
  return align64(kHeaderBytes + uint64_t{places} * kStageEntryBytes);
}
// A writer's table has a place for every stage a chain may have, zeros past its count: stage
// offsets then never depend on how many stages follow, so that a stage can be appended in place.
// (The first chains, place count 0, had a table of exactly their stages: still read.)
constexpr uint32_t kWrittenPlaces = kMaxStages;

}  // namespace

bool is_chain(const unsigned char* data, size_t len) noexcept {
  return len >= kHeaderBytes && std::memcmp(data, kFormatMagic, sizeof kFormatMagic) == 0 &&
         get32(data + kCOffKind) == kKindGrowing;
}

uint64_t chain_serialized_size(const GrowingFilter& f, uint32_t stages) noexcept {
  if (stages == 0) return table_end(kWrittenPlaces);
  const uint32_t last = stages - 1;
  return chain_stage_offset(f, last) + serialized_size(f.stage(last).shape());
}

uint32_t chain_places(const unsigned char* data) noexcept { return get32(data + kCOffPlaces); }

uint64_t chain_head_size() noexcept { return table_end(kWrittenPlaces); }

void encode_chain_head(const GrowingFilter& f, uint32_t stages, unsigned char* out) noexcept {
  const GrowthRequest& req = f.request();
  const uint64_t total = chain_serialized_size(f, stages);
  std::memset(out, 0, table_end(kWrittenPlaces));
  std::memcpy(out + kCOffMagic, kFormatMagic, sizeof kFormatMagic);
  put32(out + kCOffVersion, kFormatVersion);
  put32(out + kCOffHeaderSize, kHeaderBytes);
  put32(out + kCOffKind, kKindGrowing);
  put32(out + kCOffLayout, req.layout_auto ? 0 : static_cast<uint32_t>(req.layout));
  put32(out + kCOffHash, kHashXxh3);
  put32(out + kCOffStageKind, static_cast<uint32_t>(req.kind));
  put64(out + kCOffSeed, f.seed());
  put64(out + kCOffInitial,
        req.initial_capacity == 0 ? kDefaultInitialCapacity : req.initial_capacity);
  put32(out + kCOffShards, req.shards);
  put32(out + kCOffFlags, f.growth_failed() ? kFlagGrowthFailed : 0);
  put64(out + kCOffGrowth,
        std::bit_cast<uint64_t>(req.growth == 0.0 ? kDefaultGrowth : req.growth));
  put64(out + kCOffFpr, std::bit_cast<uint64_t>(req.fpr));
  put32(out + kCOffStages, stages);
  put32(out + kCOffPlaces, kWrittenPlaces);
  put64(out + kCOffTotal, total);
  for (uint32_t i = 0; i < stages; ++i) {
    unsigned char* entry = out + kHeaderBytes + size_t{i} * kStageEntryBytes;
    put64(entry, chain_stage_offset(f, i));
    put64(entry + 8, serialized_size(f.stage(i).shape()));
    put64(entry + 16, f.stage_keys(i));
  }
  put64(out + kCOffTableChecksum,
        XXH3_64bits(out + kHeaderBytes, size_t{stages} * kStageEntryBytes));
  put64(out + kCOffHeaderChecksum, XXH3_64bits(out, kCOffHeaderChecksum));
}

uint64_t chain_stage_offset(const GrowingFilter& f, uint32_t stage) noexcept {
  uint64_t at = table_end(kWrittenPlaces);
  for (uint32_t i = 0; i < stage; ++i) at = align64(at) + serialized_size(f.stage(i).shape());
  return align64(at);
}

void serialize_chain_into(const GrowingFilter& f, uint32_t stages, unsigned char* out) noexcept {
  encode_chain_head(f, stages, out);
  uint64_t at = chain_head_size();
  for (uint32_t i = 0; i < stages; ++i) {
    const uint64_t offset = chain_stage_offset(f, i);
    std::memset(out + at, 0, offset - at);
    serialize_into(f.stage(i), out + offset);
    at = offset + serialized_size(f.stage(i).shape());
  }
}

namespace {

// Keeps the chain's shared bytes (a mapped file) alive for each stage over them.
class SharedMemory final : public ExternalMemory {
 public:
  explicit SharedMemory(std::shared_ptr<ExternalMemory> owner) noexcept
      : owner_(std::move(owner)) {}

 private:
  std::shared_ptr<ExternalMemory> owner_;
};

}  // namespace

Errc deserialize_chain(const unsigned char* data, size_t len, std::unique_ptr<GrowingFilter>* out) {
  return load_chain(data, len, ChainLoad{}, out);
}

Errc view_chain(const unsigned char* data, size_t len, bool verify,
                std::unique_ptr<GrowingFilter>* out) {
  ChainLoad how;
  how.in_place = true;
  how.verify = verify;
  return load_chain(data, len, how, out);
}

Errc load_chain(const unsigned char* data, size_t len, const ChainLoad& how,
                std::unique_ptr<GrowingFilter>* out) {
  if (how.in_place && reinterpret_cast<uintptr_t>(data) % kCacheLine != 0) return Errc::alignment;
  if (len < kHeaderBytes) return Errc::truncated;
  if (std::memcmp(data, kFormatMagic, sizeof kFormatMagic) != 0) return Errc::bad_magic;
  if (get32(data + kCOffVersion) != kFormatVersion) return Errc::version;
  if (get32(data + kCOffHeaderSize) != kHeaderBytes) return Errc::corrupt;
  if (get64(data + kCOffHeaderChecksum) != XXH3_64bits(data, kCOffHeaderChecksum)) {
    return Errc::corrupt;
  }
  if (get32(data + kCOffKind) != kKindGrowing) return Errc::unsupported;
  if (get32(data + kCOffHash) != kHashXxh3) return Errc::unsupported;
  const uint32_t flags = get32(data + kCOffFlags);
  if ((flags & ~kFlagGrowthFailed) != 0) return Errc::corrupt;
  if (get64(data + kCOffReserved1) != 0 || get64(data + kCOffReserved1 + 8) != 0 ||
      get64(data + kCOffReserved2) != 0) {
    return Errc::corrupt;
  }

  GrowthRequest req;
  const uint32_t layout = get32(data + kCOffLayout);
  req.kind = static_cast<Kind>(get32(data + kCOffStageKind));
  req.layout_auto = layout == 0;
  req.layout = static_cast<Layout>(layout == 0 ? 1 : layout);
  req.initial_capacity = get64(data + kCOffInitial);
  req.shards = get32(data + kCOffShards);
  req.growth = std::bit_cast<double>(get64(data + kCOffGrowth));
  req.fpr = std::bit_cast<double>(get64(data + kCOffFpr));
  if (req.initial_capacity == 0 || check_growth(req) != Errc::ok) return Errc::corrupt;
  const uint64_t seed = get64(data + kCOffSeed);

  const uint32_t stages = get32(data + kCOffStages);
  if (stages == 0 || stages > kMaxStages) return Errc::corrupt;
  const uint32_t places_field = get32(data + kCOffPlaces);
  if (places_field != 0 && places_field != kWrittenPlaces) return Errc::corrupt;
  const uint32_t places = places_field == 0 ? stages : places_field;
  // The bytes the chain's header names; any more are checked after the stages (an append).
  const uint64_t total = get64(data + kCOffTotal);
  if (len < total) return Errc::truncated;
  if (total < table_end(places)) return Errc::corrupt;
  const unsigned char* table = data + kHeaderBytes;
  if (get64(data + kCOffTableChecksum) != XXH3_64bits(table, size_t{stages} * kStageEntryBytes)) {
    return Errc::corrupt;
  }
  // The places of stages the chain does not have yet, and the padding, are zeros.
  for (uint64_t pad = kHeaderBytes + uint64_t{stages} * kStageEntryBytes; pad < table_end(places);
       ++pad) {
    if (data[pad] != 0) return Errc::corrupt;
  }

  // First the structure of every stage (its place, its header, the shape the schedule gives it),
  // then their contents (a verifying reader's checksums and stale marks): so that a structural
  // error gets the same answer from every reader, as a filter's header does, whatever the stages
  // before it hold.
  struct Span {
    uint64_t offset, size;
  };
  std::vector<Span> spans;
  spans.reserve(stages);
  uint64_t at = table_end(places);
  uint32_t newest_flags = 0;
  for (uint32_t i = 0; i < stages; ++i) {
    const unsigned char* entry = table + size_t{i} * kStageEntryBytes;
    const uint64_t offset = get64(entry), size = get64(entry + 8);
    if (get64(entry + 24) != 0) return Errc::corrupt;
    // In order, aligned, no gap but the alignment, inside the bytes.
    if (offset != align64(at) || offset > total || size > total - offset) return Errc::corrupt;
    for (uint64_t pad = at; pad < offset; ++pad) {
      if (data[pad] != 0) return Errc::corrupt;
    }
    Plan plan;
    uint64_t capacity = 0;
    if (plan_stage(req, i, &plan) != Errc::ok || stage_capacity(req, i, &capacity) != Errc::ok) {
      return Errc::corrupt;
    }
    const Shape want = plan.shape(seed);
    if (size != serialized_size(want)) return Errc::corrupt;
    Header header;
    if (const Errc e = parse_header(data + offset, static_cast<size_t>(size), &header);
        e != Errc::ok) {
      return e;
    }
    if (!(header.shape == want) || header.params.capacity != capacity) {
      return Errc::corrupt;  // not the stage the schedule gives this place
    }
    spans.push_back({offset, size});
    at = offset + size;
    newest_flags = header.flags;
  }
  if (at != total) return Errc::corrupt;
  if (len != total) {
    // A stage being appended (file_io.cpp): its writer grew the file by exactly the next place's
    // stage, and its header does not name that stage yet; or the writer was killed in between.
    // No key reaches a stage before the header names it, so the chain is what the header names.
    // Only a writer's file (its newest stage stale) and today's table (a place for the stage).
    Plan next;
    if (places_field != kWrittenPlaces || stages >= kMaxStages ||
        (newest_flags & kFlagChecksumStale) == 0 || plan_stage(req, stages, &next) != Errc::ok ||
        align64(total) > len || len - align64(total) != serialized_size(next.shape(seed))) {
      return Errc::corrupt;
    }
    if (how.append_pending != nullptr) *how.append_pending = true;
  }

  std::vector<std::unique_ptr<Filter>> filters;
  std::vector<uint64_t> keys;
  for (uint32_t i = 0; i < stages; ++i) {
    const auto [offset, size] = spans[i];
    std::unique_ptr<Filter> stage;
    const Errc e = how.in_place
                       ? view(data + offset, static_cast<size_t>(size), how.verify, &stage,
                              how.memory ? std::make_unique<SharedMemory>(how.memory) : nullptr,
                              how.storage, how.read_only)
                       : deserialize(data + offset, static_cast<size_t>(size), &stage);
    if (e != Errc::ok) return e;
    filters.push_back(std::move(stage));
    keys.push_back(get64(table + size_t{i} * kStageEntryBytes + 16));
  }
  auto chain = std::make_unique<GrowingFilter>(req, seed, std::move(filters), keys,
                                               (flags & kFlagGrowthFailed) != 0);
  if (chain->status() != Errc::ok) return Errc::corrupt;
  *out = std::move(chain);
  return Errc::ok;
}

}  // namespace abloom
