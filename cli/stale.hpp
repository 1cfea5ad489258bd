// Stale filter files (docs/FORMAT.md): a file that an `abloom add` (or any read-write writer)
// left unsynced, killed or still running. Its bits are valid, only its checksum is not current:
// the commands that read filters open it anyway, with one warning, and `abloom seal` seals it.
#pragma once

#include <abloom.h>

#include <cstdint>
#include <string>

#include "filter.hpp"

namespace abloom_cli {

// abloom_open(path, flags) that also opens a stale file: when ABLOOM_VERIFY_CHECKSUM meets a
// stale file (ABLOOM_ERR_STALE) it opens it again without the check, which a stale file cannot
// pass. Either way, a file found stale (abloom_info.stale) gets one warning on stderr, per path
// and process, unless `quiet`. Other errors throw CliError as open_filter does.
Filter open_filter_allow_stale(const std::string& path, uint32_t flags, bool quiet);

// Why a stale `path` still works and what to do about it (no path in front, no newline).
std::string stale_reason(const std::string& path);

// `abloom verify` of a stale file: says so on stdout; returns its exit status (3).
int report_stale(const std::string& path);

// `abloom seal FILTER`: abloom_seal, reporting "sealed (N estimated keys)", "already sealed" or
// why not (status 1 for a corrupt file, which is left as it is; 2 when it cannot be read).
int cmd_seal(const std::string& path);

// verify's exit status for a stale file.
constexpr int kExitStale = 3;

}  // namespace abloom_cli
