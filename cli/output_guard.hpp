// The check every command that writes a filter file (build, merge and intersect's -o, dedupe's
// --save) makes before it reads anything: a mistyped command line must not replace the user's
// data with a filter.
#pragma once

#include <string>
#include <vector>

namespace abloom_cli {

// Throws CliError when `output` (the option `option` names it) is the same file as one of
// `inputs` ("-": standard input, which may be a redirected file), or when it exists, is a regular
// file and is not an abloom filter (its first bytes are not the format's magic,
// docs/FORMAT.md) and `force` is false. A missing output, or a filter, passes: it is replaced as
// before. Files are compared by sys::FileId, so links and other spellings of a name are caught.
void guard_output(const std::string& option, const std::string& output,
                  const std::vector<std::string>& inputs, bool force);

}  // namespace abloom_cli
