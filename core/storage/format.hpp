// The portable serialized form of a filter (docs/FORMAT.md): a 128-byte little-endian header,
// then the body (every shard's words, little-endian, shard after shard), 64-byte aligned.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "errc.hpp"
#include "filter/filter.hpp"
#include "layout/atomic_bits.hpp"

namespace abloom {

inline constexpr size_t kHeaderBytes = 128;
// The first 8 bytes of every abloom file or buffer (docs/FORMAT.md).
inline constexpr unsigned char kFormatMagic[8] = {0x89, 'A', 'B', 'L', 'O', 'O', 'M', '\n'};
inline constexpr uint32_t kFormatVersion = 1;
// Layout ids: Layout's values (layout.hpp): 1 = distinct (format version 1's first), 2 = split.
inline constexpr uint32_t kHashXxh3 = 1;  // XXH3-64 with the filter's seed
// Header flag: the body checksum is stale (a read-write mapping has not been synced).
inline constexpr uint32_t kFlagChecksumStale = 0x1;

// Everything the header says, decoded and validated.
struct Header {
  Shape shape;
  FilterParams params;  // capacity, target and expected FPR (threads = 1)
  uint64_t inserted_estimate = 0;
  uint32_t flags = 0;
  uint64_t checksum = 0;  // over header bytes [0, 104) and the body
  uint64_t body_bytes() const noexcept { return shape.total_bits() / 8; }
};

uint64_t serialized_size(const Shape& shape) noexcept;

// Little-endian fields of the headers, whatever the host.
inline uint32_t get32(const unsigned char* p) noexcept {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
inline uint64_t get64(const unsigned char* p) noexcept {
  return static_cast<uint64_t>(get32(p)) | static_cast<uint64_t>(get32(p + 4)) << 32;
}
inline void put32(unsigned char* p, uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void put64(unsigned char* p, uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// A word as stored: little-endian whatever the host.
inline uint64_t to_le(uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) return __builtin_bswap64(v);
  return v;
}

// Writes header + body into out[0 .. serialized_size) (see write_serialized).
void serialize_into(const Filter& filter, unsigned char* out) noexcept;

// Decodes and validates a header against the `len` bytes available (header + body, exactly).
// Never reads past out[len). Checks, in order: length >= header, magic, version, header size,
// header checksum, known kind/layout/hash, field consistency, then the total length.
Errc parse_header(const unsigned char* data, size_t len, Header* out) noexcept;

// Checks the header+body checksum of validated data (O(size)). Errc::checksum on mismatch;
// Errc::stale when the header marks it stale (the checksum is not current, so not checked).
Errc verify_checksum(const unsigned char* data, const Header& header) noexcept;

// Encodes `header` into out[0, 128), computing the header checksum; header.checksum must already
// hold the header+body checksum (see checksum_with_body).
void encode_header(const Header& header, unsigned char* out) noexcept;

// The header+body checksum of an encoded header prefix and a body.
uint64_t checksum_with_body(const unsigned char* header_bytes, const unsigned char* body,
                            uint64_t body_bytes) noexcept;

// Streaming form of checksum_with_body, for writers that produce the body in pieces.
class BodyChecksum {
 public:
  explicit BodyChecksum(const unsigned char* header_bytes) noexcept;
  void update(const void* data, size_t len) noexcept;
  uint64_t digest() const noexcept;

 private:
  XXH3_state_t state_;
};

// A header describing `filter` now (estimate of inserted keys included), checksum not yet set.
Header header_for(const Filter& filter) noexcept;

// The one writer of the serialized form, for buffers and files alike: hands the body to
// sink(offset, bytes, len) in order, in chunks (offset counts from the start of the serialized
// form), stopping with false as soon as the sink returns false; then encodes the final header,
// checksums included, into header_out[0, 128). Chunks are staged in the caller's
// chunk[0, chunk_words) (big for files: fewer writes). Safe while other threads add: words are
// copied with atomic loads, and the checksum covers exactly the bytes handed to the sink.
template <class Sink>
bool write_serialized(const Filter& filter, unsigned char* header_out, uint64_t* chunk,
                      size_t chunk_words, Sink sink) noexcept {
  Header h = header_for(filter);
  encode_header(h, header_out);  // the prefix the checksum covers
  BodyChecksum sum(header_out);
  const auto* bytes = reinterpret_cast<const unsigned char*>(chunk);
  const Shape& shape = filter.shape();
  uint64_t at = kHeaderBytes;
  for (uint32_t s = 0; s < shape.shards(); ++s) {
    const uint64_t* src = filter.shard_words(s);
    for (uint64_t w = 0; w < shape.words_per_shard(); w += chunk_words) {
      const uint64_t left = shape.words_per_shard() - w;
      const size_t n = left < chunk_words ? static_cast<size_t>(left) : chunk_words;
      for (size_t i = 0; i < n; ++i) chunk[i] = to_le(load_word(src + w + i));
      sum.update(bytes, n * 8);
      if (!sink(at, bytes, n * 8)) return false;
      at += n * 8;
    }
  }
  h.checksum = sum.digest();
  encode_header(h, header_out);
  return true;
}

// A copy (owned storage) from validated, checksummed bytes.
Errc deserialize(const unsigned char* data, size_t len, std::unique_ptr<Filter>* out);

// A read-only view over caller bytes (64-byte aligned); verify adds the checksum check.
Errc view(const unsigned char* data, size_t len, bool verify, std::unique_ptr<Filter>* out);

// The same over bytes that `memory` keeps alive (a stage of a mapped growing filter), reported
// as `storage`, writable unless `read_only` (a private, copy-on-write mapping).
Errc view(const unsigned char* data, size_t len, bool verify, std::unique_ptr<Filter>* out,
          std::unique_ptr<ExternalMemory> memory, Storage storage, bool read_only);

// Shard pointers into a validated body.
std::vector<uint64_t*> shards_in(unsigned char* body, const Shape& shape);

}  // namespace abloom
