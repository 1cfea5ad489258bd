// The portable serialized form of a filter (docs/FORMAT.md): a 128-byte little-endian header,
// then the body (every shard's words, little-endian, shard after shard), 64-byte aligned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "errc.hpp"
#include "filter.hpp"

namespace abloom {

inline constexpr size_t kHeaderBytes = 128;
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint32_t kLayoutV1 = 1;  // layout.hpp as of format version 1
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

// Writes header + body into out[0 .. serialized_size). Safe while other threads add: the body
// is copied word by word with atomic loads, and the checksum covers exactly what was copied.
void serialize_into(const Filter& filter, unsigned char* out) noexcept;

// Decodes and validates a header against the `len` bytes available (header + body, exactly).
// Never reads past out[len). Checks, in order: length >= header, magic, version, header size,
// header checksum, known kind/layout/hash, field consistency, then the total length.
Errc parse_header(const unsigned char* data, size_t len, Header* out) noexcept;

// Checks the header+body checksum of validated data (O(size)). Errc::checksum on mismatch or
// when the header marks it stale.
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

// A copy (owned storage) from validated, checksummed bytes.
Errc deserialize(const unsigned char* data, size_t len, std::unique_ptr<Filter>* out);

// A read-only view over caller bytes (64-byte aligned); verify adds the checksum check.
Errc view(const unsigned char* data, size_t len, bool verify, std::unique_ptr<Filter>* out);

// Shard pointers into a validated body.
std::vector<uint64_t*> shards_in(unsigned char* body, const Shape& shape);

}  // namespace abloom
