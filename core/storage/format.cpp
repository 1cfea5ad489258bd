#include "storage/format.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>

namespace abloom {
namespace {

// Header offsets (docs/FORMAT.md).
enum Offset : size_t {
  kOffMagic = 0,
  kOffVersion = 8,
  kOffHeaderSize = 12,
  kOffKind = 16,
  kOffLayout = 20,
  kOffHash = 24,
  kOffK = 28,
  kOffSeed = 32,
  kOffBlocks = 40,
  kOffShards = 48,
  kOffFlags = 52,
  kOffBits = 56,
  kOffCapacity = 64,
  kOffInserted = 72,
  kOffTargetFpr = 80,
  kOffExpectedFpr = 88,
  kOffBodyBytes = 96,
  kOffChecksum = 104,
  kOffReserved = 112,
  kOffHeaderChecksum = 120,
};
static_assert(kOffHeaderChecksum + 8 == kHeaderBytes);
static_assert(kHeaderBytes % kCacheLine == 0, "the body must start 64-byte aligned");

uint64_t header_checksum(const unsigned char* h) noexcept {
  return XXH3_64bits(h, kOffHeaderChecksum);
}

bool valid_fpr(double p, bool allow_one) noexcept {
  return std::isfinite(p) && p >= 0 && (allow_one ? p <= 1 : p < 1);
}

}  // namespace

uint64_t serialized_size(const Shape& shape) noexcept {
  return kHeaderBytes + shape.total_bits() / 8;
}

BodyChecksum::BodyChecksum(const unsigned char* header_bytes) noexcept {
  XXH3_64bits_reset(&state_);
  XXH3_64bits_update(&state_, header_bytes, kOffChecksum);
}
void BodyChecksum::update(const void* data, size_t len) noexcept {
  XXH3_64bits_update(&state_, data, len);
}
uint64_t BodyChecksum::digest() const noexcept { return XXH3_64bits_digest(&state_); }

uint64_t checksum_with_body(const unsigned char* header_bytes, const unsigned char* body,
                            uint64_t body_bytes) noexcept {
  BodyChecksum sum(header_bytes);
  sum.update(body, body_bytes);
  return sum.digest();
}

Header header_for(const Filter& filter) noexcept {
  Header h;
  h.shape = filter.shape();
  h.params = filter.params();
  const double estimate = filter.header_key_estimate();
  h.inserted_estimate = std::isfinite(estimate) && estimate < 1.8e19
                            ? static_cast<uint64_t>(std::llround(estimate))
                            : UINT64_MAX;
  return h;
}

void encode_header(const Header& header, unsigned char* out) noexcept {
  std::memset(out, 0, kHeaderBytes);
  std::memcpy(out + kOffMagic, kFormatMagic, sizeof kFormatMagic);
  put32(out + kOffVersion, kFormatVersion);
  put32(out + kOffHeaderSize, kHeaderBytes);
  put32(out + kOffKind, static_cast<uint32_t>(header.shape.kind));
  put32(out + kOffLayout, static_cast<uint32_t>(header.shape.layout));
  put32(out + kOffHash, kHashXxh3);
  put32(out + kOffK, header.shape.k);
  put64(out + kOffSeed, header.shape.seed);
  put64(out + kOffBlocks, header.shape.blocks_per_shard);
  put32(out + kOffShards, header.shape.shards());
  put32(out + kOffFlags, header.flags);
  put64(out + kOffBits, header.shape.total_bits());
  put64(out + kOffCapacity, header.params.capacity);
  put64(out + kOffInserted, header.inserted_estimate);
  put64(out + kOffTargetFpr, std::bit_cast<uint64_t>(header.params.target_fpr));
  put64(out + kOffExpectedFpr, std::bit_cast<uint64_t>(header.params.expected_fpr));
  put64(out + kOffBodyBytes, header.body_bytes());
  put64(out + kOffChecksum, header.checksum);
  put64(out + kOffHeaderChecksum, header_checksum(out));
}

void serialize_into(const Filter& filter, unsigned char* out) noexcept {
  uint64_t chunk[4096];  // 32 KiB on the stack: no allocation
  write_serialized(filter, out, chunk, std::size(chunk),
                   [out](uint64_t at, const unsigned char* bytes, size_t len) {
                     std::memcpy(out + at, bytes, len);
                     return true;
                   });
}

Errc parse_header(const unsigned char* d, size_t len, Header* out) noexcept {
  if (len < kHeaderBytes) return Errc::truncated;
  if (std::memcmp(d + kOffMagic, kFormatMagic, sizeof kFormatMagic) != 0) return Errc::bad_magic;
  if (get32(d + kOffVersion) != kFormatVersion) return Errc::version;
  if (get32(d + kOffHeaderSize) != kHeaderBytes) return Errc::corrupt;
  if (get64(d + kOffHeaderChecksum) != header_checksum(d)) return Errc::corrupt;

  const uint32_t kind = get32(d + kOffKind);
  if (kind != static_cast<uint32_t>(Kind::blocked) &&
      kind != static_cast<uint32_t>(Kind::classic)) {
    return Errc::unsupported;
  }
  // Layout 1 for either kind; layouts 2 (split) and 3 (half) are the blocked kind's only.
  const uint32_t layout = get32(d + kOffLayout);
  const bool layout_known = layout == static_cast<uint32_t>(Layout::distinct) ||
                            ((layout == static_cast<uint32_t>(Layout::split) ||
                              layout == static_cast<uint32_t>(Layout::half)) &&
                             kind == static_cast<uint32_t>(Kind::blocked));
  if (!layout_known || get32(d + kOffHash) != kHashXxh3) return Errc::unsupported;
  const uint32_t k = get32(d + kOffK);
  const uint32_t shards = get32(d + kOffShards);
  const uint64_t blocks = get64(d + kOffBlocks);
  const uint32_t flags = get32(d + kOffFlags);
  if (k == 0 || k > kMaxK) return Errc::corrupt;
  if (layout == static_cast<uint32_t>(Layout::split) && k > kSplitMaxK) return Errc::corrupt;
  if (layout == static_cast<uint32_t>(Layout::half) && k != kHalfK) return Errc::corrupt;
  if (shards == 0 || shards > kMaxShards || !std::has_single_bit(shards)) return Errc::corrupt;
  if (blocks == 0 || blocks > kMaxBytes / kCacheLine / shards) return Errc::corrupt;
  if ((flags & ~kFlagChecksumStale) != 0 || get64(d + kOffReserved) != 0) return Errc::corrupt;

  Header h;
  h.shape.kind = static_cast<Kind>(kind);
  h.shape.k = k;
  h.shape.layout = static_cast<Layout>(layout);
  h.shape.shard_bits = static_cast<uint32_t>(std::countr_zero(shards));
  h.shape.blocks_per_shard = blocks;
  h.shape.seed = get64(d + kOffSeed);
  if (get64(d + kOffBits) != h.shape.total_bits()) return Errc::corrupt;
  if (get64(d + kOffBodyBytes) != h.body_bytes()) return Errc::corrupt;
  h.params.capacity = get64(d + kOffCapacity);
  h.params.target_fpr = std::bit_cast<double>(get64(d + kOffTargetFpr));
  h.params.expected_fpr = std::bit_cast<double>(get64(d + kOffExpectedFpr));
  h.params.threads = 1;
  if (h.params.capacity == 0 || !valid_fpr(h.params.target_fpr, false) ||
      !valid_fpr(h.params.expected_fpr, true)) {
    return Errc::corrupt;
  }
  h.inserted_estimate = get64(d + kOffInserted);
  h.flags = flags;
  h.checksum = get64(d + kOffChecksum);

  const uint64_t total = kHeaderBytes + h.body_bytes();  // <= 2^48 + 128: no overflow
  if (len < total) return Errc::truncated;
  if (len > total) return Errc::corrupt;  // trailing bytes
  *out = h;
  return Errc::ok;
}

Errc verify_checksum(const unsigned char* data, const Header& header) noexcept {
  // A stale mark is no corruption: the bits are valid, only the checksums are not current yet.
  if ((header.flags & kFlagChecksumStale) != 0) return Errc::stale;
  const uint64_t sum = checksum_with_body(data, data + kHeaderBytes, header.body_bytes());
  return sum == header.checksum ? Errc::ok : Errc::checksum;
}

std::vector<uint64_t*> shards_in(unsigned char* body, const Shape& shape) {
  std::vector<uint64_t*> ptrs(shape.shards());
  const uint64_t shard_bytes = shape.words_per_shard() * 8;
  for (uint32_t s = 0; s < shape.shards(); ++s) {
    ptrs[s] = reinterpret_cast<uint64_t*>(body + s * shard_bytes);
  }
  return ptrs;
}

Errc deserialize(const unsigned char* data, size_t len, std::unique_ptr<Filter>* out) {
  Header h;
  if (Errc e = parse_header(data, len, &h); e != Errc::ok) return e;
  if (Errc e = verify_checksum(data, h); e != Errc::ok) return e;
  auto f = std::make_unique<Filter>(h.shape, h.params);
  const uint64_t words = h.shape.words_per_shard();
  for (uint32_t s = 0; s < h.shape.shards(); ++s) {
    const unsigned char* src = data + kHeaderBytes + s * words * 8;
    uint64_t* dst = const_cast<uint64_t*>(f->shard_words(s));  // owned, not yet shared
    for (uint64_t w = 0; w < words; ++w) {
      uint64_t v;
      std::memcpy(&v, src + w * 8, 8);
      dst[w] = to_le(v);
    }
  }
  *out = std::move(f);
  return Errc::ok;
}

Errc view(const unsigned char* data, size_t len, bool verify, std::unique_ptr<Filter>* out) {
  return view(data, len, verify, out, nullptr, Storage::view, true);
}

Errc view(const unsigned char* data, size_t len, bool verify, std::unique_ptr<Filter>* out,
          std::unique_ptr<ExternalMemory> memory, Storage storage, bool read_only) {
  if (reinterpret_cast<uintptr_t>(data) % kCacheLine != 0) return Errc::alignment;
  Header h;
  if (Errc e = parse_header(data, len, &h); e != Errc::ok) return e;
  if constexpr (std::endian::native == std::endian::big) return Errc::unsupported;  // LE words
  if (verify) {
    if (Errc e = verify_checksum(data, h); e != Errc::ok) return e;
  }
  ExternalShards ext;
  ext.shards = shards_in(const_cast<unsigned char*>(data + kHeaderBytes), h.shape);
  ext.memory = std::move(memory);
  ext.storage = storage;
  ext.read_only = read_only;
  ext.stale = (h.flags & kFlagChecksumStale) != 0;
  *out = std::make_unique<Filter>(h.shape, h.params, std::move(ext));
  return Errc::ok;
}

}  // namespace abloom
