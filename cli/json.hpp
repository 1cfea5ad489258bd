// JSON text for the commands' --json output.
#pragma once

#include <string>

namespace abloom_cli {

// `s` as a JSON string. Valid UTF-8 is kept as it is (control characters, quotes and backslashes
// escaped); each byte that is not part of a valid UTF-8 sequence (a file name in another encoding:
// POSIX names are bytes) becomes U+FFFD, the replacement character, as a decoder with
// errors="replace" writes it, so that the output is valid JSON, which is UTF-8 by definition.
std::string json_string(const std::string& s);

// A double for JSON: infinity and NaN (a saturated filter's count estimate) have no JSON form and
// are null.
std::string json_number(double v);

}  // namespace abloom_cli
