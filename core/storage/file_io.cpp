#include "storage/file_io.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "storage/format.hpp"
#include "storage/growing_format.hpp"

namespace abloom {
namespace {

using platform::File;

// Writes a filter's header + body to the file from offset `base`: the body as write_serialized
// streams it, in 512 KiB writes (through `chunk`), then the final header.
bool write_filter_at(const File& file, const Filter& filter, uint64_t base,
                     std::vector<uint64_t>& chunk) {
  unsigned char header[kHeaderBytes];
  const bool body_ok =
      write_serialized(filter, header, chunk.data(), chunk.size(),
                       [&file, base](uint64_t at, const unsigned char* bytes, size_t len) {
                         return platform::write_at(file, bytes, len, base + at);
                       });
  return body_ok && platform::write_at(file, header, kHeaderBytes, base);
}

// What a save writes: a filter, or the stages a growing filter has when the save starts (the
// chain head, then each stage in its place; the gaps between stages are holes, which read as
// zeros). Throws std::bad_alloc (for the chunk and the head).
struct SaveSource {
  const Filter* filter = nullptr;
  const GrowingFilter* chain = nullptr;

  bool write(const File& file) const {
    std::vector<uint64_t> chunk(size_t{64} * 1024);
    if (filter != nullptr) return write_filter_at(file, *filter, 0, chunk);
    const uint32_t stages = chain->stages();
    std::vector<unsigned char> head(static_cast<size_t>(chain_head_size()));
    encode_chain_head(*chain, stages, head.data());
    for (uint32_t i = 0; i < stages; ++i) {
      if (!write_filter_at(file, chain->stage(i), chain_stage_offset(*chain, i), chunk))
        return false;
    }
    // The last stage ends the file exactly (its writes reach its end), so no size to set.
    return platform::write_at(file, head.data(), head.size(), 0);
  }
};

// A filter's header rewritten sealed (its estimate and both checksums, over the body after
// `at`) at `at`, in one copy: encode_header zeroes its output first, and a writer killed in
// between (tests/cli/kill_test.sh kills them at random) would leave a header of zeros. Returns it.
Header write_sealed_header(const Filter& filter, unsigned char* at) noexcept {
  Header h = header_for(filter);
  unsigned char header[kHeaderBytes];
  encode_header(h, header);
  h.checksum = checksum_with_body(header, at + kHeaderBytes, h.body_bytes());
  encode_header(h, header);
  std::memcpy(at, header, kHeaderBytes);
  return h;
}

// `h` with the stale mark, written at `at` in one copy (as write_sealed_header): the body will
// change under the checksum.
void write_stale_header(Header h, unsigned char* at) noexcept {
  h.flags |= kFlagChecksumStale;
  unsigned char header[kHeaderBytes];
  encode_header(h, header);
  std::memcpy(at, header, kHeaderBytes);
}

// A mapped file, unmapped (and its File closed) with the filter. For read-write mappings it owns
// the header: marked stale at open and after each sync but the last, rewritten by sync().
class MappedFile final : public ExternalMemory {
 public:
  // file: the open file where platform::sync_mapping needs it, else none.
  MappedFile(unsigned char* base, size_t len, bool shared_writable, File file)
      : base_(base), len_(len), shared_writable_(shared_writable), file_(std::move(file)) {}
  ~MappedFile() override {
    if (base_ != nullptr) platform::unmap_file(base_, len_);
  }
  // Hands the mapping (base(), size()) and the file over: the caller unmaps it from now on.
  File release() noexcept {
    base_ = nullptr;
    return std::move(file_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  Errc sync(const Filter& filter, bool last) noexcept override {
    if (!shared_writable_) return Errc::ok;
    const Header h = write_sealed_header(filter, base_);
    if (!platform::sync_mapping(base_, len_, file_)) return Errc::io;
    // The handle may still write: its next add would change the body under the checksum just
    // written, with nothing to say so, and a writer killed after it would leave a file that reads
    // as corrupt. So the file is marked stale again at once (and that flushed, before any add
    // can reach the disk): what a crash leaves is stale, as the writer's open left it, and
    // abloom_seal seals it. Only the last sync (abloom_free, abloom_seal) leaves it sealed.
    return last ? Errc::ok : mark_stale(h);
  }

  unsigned char* base() const noexcept { return base_; }
  size_t size() const noexcept { return len_; }

  // Marks the header stale: the body will change under the checksum.
  Errc mark_stale(const Header& parsed) noexcept {
    write_stale_header(parsed, base_);
    return platform::sync_mapping(base_, kHeaderBytes, file_) ? Errc::ok : Errc::io;
  }

 private:
  unsigned char* base_;
  size_t len_;
  bool shared_writable_;
  File file_;
};

// ---- A growing filter's file, read-write
// ---------------------------------------------------------
//
// The chain's stages are mapped in place, as a filter's body is, and each stage's header is kept
// stale while the handle may write (so a writer killed at any point leaves stages that read as
// stale, never as corrupt: abloom_seal seals them). A stage appended to the chain goes to the
// file's end: the file grows first (durably), the new stage's header is written there, marked
// stale, and then the chain's header and table name it, before any key reaches it. A writer
// killed between the growth and the naming leaves the file one empty stage longer than its header
// says: readers take the chain the header names (growing_format.cpp), and a read-write open,
// abloom_seal's among them, adopts the stage. The table has a place for every stage
// (docs/FORMAT.md), so nothing else moves. sync() rewrites every stage's header and the chain's
// head, and flushes every mapping.
class ChainFile final : public ExternalMemory {
 public:
  // Throws std::bad_alloc (the head's buffer: made here, so that naming a stage never fails).
  ChainFile(unsigned char* base, size_t len, File file)
      : file_(std::move(file)), head_(static_cast<size_t>(chain_head_size())) {
    ranges_.push_back({base, len});
    base_ = base;
  }
  ~ChainFile() override {
    for (const platform::MappedRange& r : ranges_) platform::unmap_file(r.base, r.len);
  }
  ChainFile(const ChainFile&) = delete;
  ChainFile& operator=(const ChainFile&) = delete;

  // Stage i's bytes (its header first); the stages the file had when opened, then each appended.
  void add_stage(unsigned char* at) { stages_.push_back(at); }

  // Marks stage i's header stale (in the mapping; flushed by the caller's flush()).
  void mark_stale(uint32_t i, const Filter& stage) noexcept {
    write_stale_header(header_for(stage), stages_[i]);
  }

  // The chain's head (header and table) naming its first `stages` stages, into the mapping.
  void write_head(const GrowingFilter& chain, uint32_t stages) noexcept {
    encode_chain_head(chain, stages, head_.data());
    std::memcpy(base_, head_.data(), head_.size());
  }

  // Stage n appended: the file grown, the range mapped, an empty stage's header written there
  // (stale). `keep` becomes the stage's memory (what keeps this file alive).
  Errc append(const GrowingFilter& chain, uint32_t n, const Shape& shape,
              const FilterParams& params, std::unique_ptr<ExternalMemory> keep,
              std::unique_ptr<Filter>* out) {
    const uint64_t offset = chain_stage_offset(chain, n);
    const uint64_t size = serialized_size(shape);
    if (!platform::extend_file(file_, offset + size)) return Errc::io;
    platform::MappedRange range;
    unsigned char* at = nullptr;
    if (size > SIZE_MAX || !platform::map_file_range(file_, offset, static_cast<size_t>(size),
                                                     platform::MapMode::read_write, &range, &at)) {
      return Errc::io;
    }
    ranges_.push_back(range);
    ExternalShards ext;
    ext.shards = shards_in(at + kHeaderBytes, shape);
    ext.memory = std::move(keep);
    ext.storage = Storage::mapped;
    ext.read_only = false;
    auto stage = std::make_unique<Filter>(shape, params, std::move(ext));
    stages_.push_back(at);
    mark_stale(n, *stage);
    *out = std::move(stage);
    return Errc::ok;
  }

  // Every stage's header (estimate and checksums, the stale mark cleared) and the chain's head,
  // then every mapping flushed durably; unless `last`, the stages are marked stale again at once
  // and that flushed too (as MappedFile::sync does for a filter).
  Errc sync_chain(const GrowingFilter& chain, bool last) noexcept {
    const uint32_t n = chain.stages();
    for (uint32_t i = 0; i < n; ++i) (void)write_sealed_header(chain.stage(i), stages_[i]);
    write_head(chain, n);
    if (!flush()) return Errc::io;
    if (last) return Errc::ok;
    for (uint32_t i = 0; i < n; ++i) mark_stale(i, chain.stage(i));
    return flush() ? Errc::ok : Errc::io;
  }

  // Every mapping written back to the file, durably.
  bool flush() const noexcept {
    for (const platform::MappedRange& r : ranges_) {
      if (!platform::sync_mapping(r.base, r.len, file_)) return false;
    }
    return true;
  }

 private:
  File file_;
  unsigned char* base_ = nullptr;
  std::vector<unsigned char> head_;  // write_head's encoding, then one copy into the mapping
  std::vector<platform::MappedRange> ranges_;  // the whole file as opened, then each append
  std::vector<unsigned char*> stages_;
};

// Keeps a chain's file alive for one stage (each stage's memory), and a stage's sync a no-op:
// the chain syncs its stages together (GrowingFilter::sync).
class ChainFileRef final : public ExternalMemory {
 public:
  explicit ChainFileRef(std::shared_ptr<ChainFile> file) noexcept : file_(std::move(file)) {}

 private:
  std::shared_ptr<ChainFile> file_;
};

// The StageStore of a chain opened read-write.
class ChainFileStore final : public StageStore {
 public:
  explicit ChainFileStore(std::shared_ptr<ChainFile> file) noexcept : file_(std::move(file)) {}

  std::unique_ptr<Filter> append_stage(const GrowingFilter& chain, uint32_t n, const Shape& shape,
                                       const FilterParams& params) noexcept override {
    try {
      std::unique_ptr<Filter> stage;
      if (file_->append(chain, n, shape, params, std::make_unique<ChainFileRef>(file_), &stage) !=
          Errc::ok) {
        return nullptr;
      }
      return stage;
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
  }
  void stage_named(const GrowingFilter& chain, uint32_t stages) noexcept override {
    file_->write_head(chain, stages);
  }
  Errc sync(const GrowingFilter& chain, bool last) noexcept override {
    return file_->sync_chain(chain, last);
  }

 private:
  std::shared_ptr<ChainFile> file_;
};

// ---- Saving -------------------------------------------------------------------------------------
//
// The bytes go to a temporary file in the target's directory, which is synced and renamed over
// the target, and the directory synced: a crash leaves the old file or the new one, whole.
// What a crash may leave besides is kept to one file per killed writer, removed by the next save:
//  - The temporary is created unnamed (Linux's O_TMPFILE) where the file system allows, and
//    named only for the instant between its sync and the rename: a crash before that leaves
//    nothing, the kernel frees the inode.
//  - Elsewhere (macOS, the BSDs, Windows, file systems without O_TMPFILE) it is named from the
//    start. Either way the name is "<target name>.tmp.<writer's pid>.<6 random characters>", and
//    every save first removes the files of that pattern, beside its target, whose writer process
//    has ended.

// The temporary-name prefix of a target: "<target name>.tmp.".
std::string temp_prefix(const std::string& target) { return platform::name_of(target) + ".tmp."; }

// Whether `name` is prefix + "<pid>.<6 characters>"; the pid in *pid.
bool parse_temp_name(const std::string& name, const std::string& prefix, uint64_t* pid) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string rest = name.substr(prefix.size());
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot > 10 || rest.size() - dot - 1 != 6) return false;
  uint64_t value = 0;
  for (size_t i = 0; i < dot; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return false;
    value = value * 10 + static_cast<uint64_t>(rest[i] - '0');
  }
  if (value == 0) return false;
  *pid = value;
  return true;
}

// Removes the temporary files of `target`'s earlier saves whose writer process has ended. Best
// effort: a failure here never fails the save. Files of live writers (this process's other
// threads included), other names and non-regular files are kept.
void remove_stale_temporaries(const std::string& target) {
  const int saved = errno;
  const std::string dir = platform::directory_of(target);
  const std::string prefix = temp_prefix(target);
  std::vector<std::string> names;
  if (platform::list_directory(dir, &names)) {
    for (const std::string& name : names) {
      uint64_t pid = 0;
      if (parse_temp_name(name, prefix, &pid) && platform::process_has_ended(pid)) {
        platform::remove_regular_file(platform::join(dir, name));
      }
    }
  }
  errno = saved;
}

// A fresh temporary name for `target` in its directory (see above).
std::string temp_name(const std::string& target) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static std::atomic<uint64_t> counter{0};
  // Unique within the process by the counter, across processes by the pid; the clock only
  // spreads names so that retries after EEXIST (a name left by a writer with a reused pid) move on.
  uint64_t x = counter.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::string suffix(6, 'A');
  for (char& c : suffix) {
    c = kChars[x % 62];
    x /= 62;
  }
  return target + ".tmp." + std::to_string(platform::process_id()) + "." + suffix;
}

// Writes the source to the file, sets its permission bits and syncs it.
bool write_and_sync(const File& file, const SaveSource& source, unsigned mode) {
  return platform::set_permissions(file, mode) && source.write(file) &&
         platform::sync_durably(file);
}

// The unnamed-temporary save: Errc::ok when done; Errc::unsupported when this file system or
// system cannot do it (nothing written or left; the caller falls back); else Errc::io.
Errc save_unnamed(const SaveSource& filter, const platform::SaveTarget& target) {
  File file = platform::open_unnamed(platform::directory_of(target.path));
  if (!file.is_open()) return Errc::unsupported;
  if (!write_and_sync(file, filter, target.mode)) return Errc::io;  // the inode goes with it
  // Name it, then rename.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string tmp = temp_name(target.path);
    if (!platform::link_unnamed(file, tmp)) {
      if (errno == EEXIST) continue;
      return errno == EOPNOTSUPP ? Errc::unsupported : Errc::io;  // unsupported: nothing named
    }
    if (!file.close_checked() || !platform::replace_file(tmp, target.path)) {
      platform::remove_keeping_errno(tmp);
      return Errc::io;
    }
    return Errc::ok;
  }
  return Errc::io;  // errno is EEXIST
}

// The named-temporary save (systems and file systems without unnamed files).
Errc save_named(const SaveSource& filter, const platform::SaveTarget& target) {
  File file;
  std::string tmp;
  for (int attempt = 0; attempt < 16 && !file.is_open(); ++attempt) {
    tmp = temp_name(target.path);
    file = platform::create_new(tmp);
    if (!file.is_open() && errno != EEXIST) return Errc::io;
  }
  if (!file.is_open()) return Errc::io;
  // The file closes before the replace: Windows cannot rename a file this process holds open
  // without FILE_SHARE_DELETE, and closing first is what every system allows.
  if (!write_and_sync(file, filter, target.mode) || !file.close_checked() ||
      !platform::replace_file(tmp, target.path)) {
    file = File();  // closed (keeping errno) before the removal, which Windows refuses otherwise
    platform::remove_keeping_errno(tmp);
    return Errc::io;
  }
  return Errc::ok;
}

Errc save_source(const SaveSource& filter, const char* path, SaveMethod method) noexcept {
  try {
    platform::SaveTarget target;
    if (!platform::resolve_save_target(path, &target)) return Errc::io;
    remove_stale_temporaries(target.path);
    Errc e = method == SaveMethod::automatic ? save_unnamed(filter, target) : Errc::unsupported;
    if (e == Errc::unsupported) e = save_named(filter, target);
    if (e != Errc::ok) return e;
    // The rename is durable only once the directory entry is.
    return platform::sync_directory(platform::directory_of(target.path)) ? Errc::ok : Errc::io;
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return Errc::io;
  }
}

}  // namespace

Errc save_file(const Filter& filter, const char* path, SaveMethod method) noexcept {
  SaveSource source;
  source.filter = &filter;
  return save_source(source, path, method);
}

Errc save_file(const GrowingFilter& chain, const char* path, SaveMethod method) noexcept {
  SaveSource source;
  source.chain = &chain;
  return save_source(source, path, method);
}

namespace {

// Maps `path` whole: *mapping owns the mapping (and the file, where durable syncs of a
// read-write mapping need it). Nothing is read or written.
Errc map_path(const char* path, OpenMode mode, std::unique_ptr<MappedFile>* mapping) {
  const bool writable = mode == OpenMode::read_write;
  const platform::MapMode map_mode = mode == OpenMode::read_only ? platform::MapMode::read_only
                                     : mode == OpenMode::copy_on_write
                                         ? platform::MapMode::copy_on_write
                                         : platform::MapMode::read_write;
  uint64_t size = 0;
  File file = platform::open_for_mapping(path, map_mode, &size);
  if (!file.is_open()) return Errc::io;
  // Also: an empty file cannot be mapped (mmap says EINVAL, Windows ERROR_FILE_INVALID).
  if (size < kHeaderBytes) return Errc::truncated;
  if (size > SIZE_MAX) {
    errno = EFBIG;
    return Errc::io;
  }
  const auto len = static_cast<size_t>(size);
  void* p = platform::map_file(file, len, map_mode);
  if (p == nullptr) return Errc::io;
  // A read-write mapping keeps its file: a durable sync may need it, and a growing filter's
  // grows through it.
  if (!writable) file = File();
  *mapping =
      std::make_unique<MappedFile>(static_cast<unsigned char*>(p), len, writable, std::move(file));
  return Errc::ok;
}

// A filter over a mapping: validates its header. *out owns the mapping (and unmaps it), *header
// is the parsed header. A read-write mapping is not marked stale here (the caller does it).
Errc filter_over(std::unique_ptr<MappedFile> mapping, OpenMode mode, std::unique_ptr<Filter>* out,
                 Header* header) {
  unsigned char* base = mapping->base();
  Header h;
  if (Errc e = parse_header(base, mapping->size(), &h); e != Errc::ok) return e;
  if constexpr (std::endian::native == std::endian::big) return Errc::unsupported;
  ExternalShards ext;
  ext.shards = shards_in(base + kHeaderBytes, h.shape);
  ext.memory = std::move(mapping);
  ext.storage = Storage::mapped;
  ext.read_only = mode == OpenMode::read_only;
  ext.stale = (h.flags & kFlagChecksumStale) != 0;
  *out = std::make_unique<Filter>(h.shape, h.params, std::move(ext));
  *header = h;
  return Errc::ok;
}

// map_path, then filter_over: *base_out the mapped bytes.
Errc map_filter(const char* path, OpenMode mode, std::unique_ptr<Filter>* out,
                const unsigned char** base_out, Header* header) {
  std::unique_ptr<MappedFile> mapping;
  if (Errc e = map_path(path, mode, &mapping); e != Errc::ok) return e;
  const unsigned char* base = mapping->base();
  if (Errc e = filter_over(std::move(mapping), mode, out, header); e != Errc::ok) return e;
  *base_out = base;
  return Errc::ok;
}

// A growing filter's file mapped read-write (ChainFile): its stages in place and writable, each
// marked stale (flushed) before the handle is given out, new stages appended to the file.
Errc open_chain_read_write(std::unique_ptr<MappedFile> mapping, bool verify,
                           std::unique_ptr<GrowingFilter>* out) {
  unsigned char* base = mapping->base();
  const size_t len = mapping->size();
  auto file = std::make_shared<ChainFile>(base, len, mapping->release());
  mapping.reset();
  bool append_pending = false;
  ChainLoad how;
  how.in_place = true;
  how.verify = verify;
  how.memory = file;
  how.storage = Storage::mapped;
  how.read_only = false;
  how.append_pending = &append_pending;
  std::unique_ptr<GrowingFilter> chain;
  if (Errc e = load_chain(base, len, how, &chain); e != Errc::ok) return e;
  if constexpr (std::endian::native == std::endian::big) return Errc::unsupported;
  // The first chains' table (place count 0) has no place for another stage: such a file is read,
  // copy-on-write or read-only, and saved again (abloom_save writes today's form).
  if (chain_places(base) == 0) return Errc::unsupported;
  for (uint32_t i = 0; i < chain->stages(); ++i) {
    file->add_stage(base + chain_stage_offset(*chain, i));
    file->mark_stale(i, chain->stage(i));
  }
  chain->set_store(std::make_unique<ChainFileStore>(file));
  // The stage a killed writer had begun to append (the file already has its bytes, all empty):
  // appended again in its place, so that the file is the chain its header names.
  if (append_pending && !chain->grow_now()) return Errc::io;
  if (!file->flush()) return Errc::io;
  *out = std::move(chain);
  return Errc::ok;
}

}  // namespace

Errc open_file(const char* path, OpenMode mode, bool verify, std::unique_ptr<Filter>* out) {
  return open_file(path, mode, verify, out, nullptr);
}

Errc open_file(const char* path, OpenMode mode, bool verify, std::unique_ptr<Filter>* out,
               std::unique_ptr<GrowingFilter>* chain_out) {
  std::unique_ptr<MappedFile> mapping;
  if (Errc e = map_path(path, mode, &mapping); e != Errc::ok) return e;
  MappedFile* raw = mapping.get();
  if (chain_out != nullptr && is_chain(raw->base(), raw->size())) {
    if (mode == OpenMode::read_write) {
      return open_chain_read_write(std::move(mapping), verify, chain_out);
    }
    ChainLoad how;
    how.in_place = true;
    how.verify = verify;
    how.memory = std::shared_ptr<ExternalMemory>(std::move(mapping));
    how.storage = Storage::mapped;
    how.read_only = mode != OpenMode::copy_on_write;
    std::unique_ptr<GrowingFilter> chain;
    if (Errc e = load_chain(raw->base(), raw->size(), how, &chain); e != Errc::ok) return e;
    *chain_out = std::move(chain);
    return Errc::ok;
  }
  std::unique_ptr<Filter> f;
  Header h;
  if (Errc e = filter_over(std::move(mapping), mode, &f, &h); e != Errc::ok) return e;
  if (verify) {
    if (Errc e = verify_checksum(raw->base(), h); e != Errc::ok) return e;
  }
  if (mode == OpenMode::read_write) {
    if (Errc e = raw->mark_stale(h); e != Errc::ok) return e;
  }
  *out = std::move(f);
  return Errc::ok;
}

namespace {

// seal_file for a growing filter's file: a chain that verifies needs nothing; a stale one is
// opened read-write (every structural check made) and synced for the last time, which rewrites
// every stage's header (estimate, checksums, the stale mark cleared) and the chain's head.
Errc seal_chain(const char* path) {
  std::unique_ptr<Filter> f;
  std::unique_ptr<GrowingFilter> chain;
  const Errc checked = open_file(path, OpenMode::read_only, true, &f, &chain);
  if (checked != Errc::stale) return checked;
  chain.reset();
  if (Errc e = open_file(path, OpenMode::read_write, false, &f, &chain); e != Errc::ok) return e;
  return chain->sync(true);
}

// Whether the file at `path` holds a growing filter (its first bytes say so); false when it
// cannot be read (seal_file's own open then reports why).
bool is_chain_file(const char* path) {
  std::unique_ptr<MappedFile> mapping;
  if (map_path(path, OpenMode::read_only, &mapping) != Errc::ok) return false;
  return is_chain(mapping->base(), mapping->size());
}

}  // namespace

Errc seal_file(const char* path) {
  if (is_chain_file(path)) return seal_chain(path);
  std::unique_ptr<Filter> f;
  const unsigned char* base = nullptr;
  Header h;
  // Read-only first: a file that needs nothing (not stale) is checked without asking for write
  // access, and a read-only one that is intact is no error.
  if (Errc e = map_filter(path, OpenMode::read_only, &f, &base, &h); e != Errc::ok) {
    return e;
  }
  if ((h.flags & kFlagChecksumStale) == 0) return verify_checksum(base, h);
  f.reset();
  if (Errc e = map_filter(path, OpenMode::read_write, &f, &base, &h); e != Errc::ok) {
    return e;
  }
  // Sealed by another process between the two opens: the same answer as above.
  if ((h.flags & kFlagChecksumStale) == 0) return verify_checksum(base, h);
  // Without a checksum, the fill is what can still be checked: adds only set bits, and the
  // estimate grows with every bit set (a sum of per-unit terms, each growing with its unit's
  // fill), so bits recomputed now estimate at least what the last sync stored; UINT64_MAX
  // (saturated) stays UINT64_MAX. Fewer means bits were cleared: corruption, left as it is.
  if (header_for(*f).inserted_estimate < h.inserted_estimate) return Errc::corrupt;
  // The mapping's last sync: estimate, both checksums, the flag cleared, flushed durably.
  return f->sync(true);
}

}  // namespace abloom
