// The serialized form of a growing filter (docs/FORMAT.md, "Growing filters"): a 128-byte chain
// header (kind 2), a table of the stages (offset, size and new keys of each), then every stage
// in the single filter's own form (header and body), each starting 64-byte aligned, so that a
// stage can be read, checked and mapped in place as any filter is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "errc.hpp"
#include "filter/growing_filter.hpp"

namespace abloom {

inline constexpr uint32_t kKindGrowing = 2;  // the chain header's kind (stages: 0 or 1)
inline constexpr size_t kStageEntryBytes = 32;
// Chain header flag: the chain could not append a stage when it had to.
inline constexpr uint32_t kFlagGrowthFailed = 0x2;

// Whether `data` starts like a growing filter's serialized form (magic and kind); the parse
// below says whether it is one.
bool is_chain(const unsigned char* data, size_t len) noexcept;

// The chain header and stage table of the first `stages` stages of `f` (stage entries, keys
// included, as they are now; a place for each of kMaxStages, zeros past `stages`), with the
// padding to the first stage: chain_head_size bytes, whatever the count. Stage i's serialized
// form (serialize_into, write_serialized) goes at chain_stage_offset, which does not depend on
// the count; the bytes between stages are zeros. A writer streams a chain so (file_io.cpp's save).
uint64_t chain_head_size() noexcept;
void encode_chain_head(const GrowingFilter& f, uint32_t stages, unsigned char* out) noexcept;
uint64_t chain_stage_offset(const GrowingFilter& f, uint32_t stage) noexcept;

// The table's place count of a chain's bytes that load_chain accepted: kMaxStages, or 0 for the
// first chains' form (a table of exactly their stages, with no place to append one).
uint32_t chain_places(const unsigned char* data) noexcept;

// The bytes of the first `stages` stages of `f` serialized (a snapshot: stages appended later
// are not in it).
uint64_t chain_serialized_size(const GrowingFilter& f, uint32_t stages) noexcept;

// Writes those bytes into out[0, chain_serialized_size). Safe while other threads add (each
// stage is written as serialize_into writes a filter).
void serialize_chain_into(const GrowingFilter& f, uint32_t stages, unsigned char* out) noexcept;

// A copy (owned storage) from the bytes, every check made: the chain header (magic, version,
// size, kind, checksum, the growth request), the table (its checksum, each stage 64-byte aligned,
// in order, inside the bytes and not overlapping, the last ending at the header's total: the end
// of the bytes, or of all but one stage being appended, docs/FORMAT.md), then each stage
// as deserialize checks a filter (its checksum among them) and against the schedule: stage i's
// shape and capacity must be the ones the request gives stage i (so stages out of order are
// refused). Errc as for a filter; Errc::corrupt for a table or a stage the schedule disowns.
Errc deserialize_chain(const unsigned char* data, size_t len, std::unique_ptr<GrowingFilter>* out);

// The same checks, each stage a view in place over the bytes (64-byte aligned, else
// Errc::alignment), read-only: O(stages), each stage's checksum checked only when `verify`.
Errc view_chain(const unsigned char* data, size_t len, bool verify,
                std::unique_ptr<GrowingFilter>* out);

// How load_chain makes each stage: owned copies (deserialize: checksums always checked), or
// views in place (view), kept alive by `memory` (shared by the stages: a mapped file; none for a
// caller's buffer), reported as `storage`, writable unless read_only (a private mapping).
struct ChainLoad {
  bool in_place = false;
  bool verify = true;
  std::shared_ptr<ExternalMemory> memory;
  Storage storage = Storage::view;
  bool read_only = true;
  // Set to true when the bytes end with a stage being appended that the header does not name
  // yet (the chain read is the one named; a read-write open adopts that stage).
  bool* append_pending = nullptr;
};
Errc load_chain(const unsigned char* data, size_t len, const ChainLoad& how,
                std::unique_ptr<GrowingFilter>* out);

}  // namespace abloom
