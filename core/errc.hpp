// Error conditions of the core engine. The C layer maps each to an ABLOOM_ERR_* code; the core
// itself throws nothing but std::bad_alloc (which the C layer turns into ABLOOM_ERR_NOMEM).
#pragma once

namespace abloom {

enum class Errc {
  ok = 0,
  invalid,   // an argument outside its domain
  range,     // a size that overflows or exceeds the limits
  mismatch,  // two filters of different shape
};

}  // namespace abloom
