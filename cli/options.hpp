// The rules of the abloom command's option values, as CLI11 validators and transforms, so that a
// bad value is refused before the library is called, with a message that names the option, the
// value and what it may be ("--k: 100 is out of range: give 1 to 64"). CLI11 puts the option's
// name in front of each message.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "commands.hpp"

namespace abloom_cli {

// A whole number in decimal digits from `min` to `max`, else refused. CLI11 alone would take "-5"
// for an unsigned option as 2^64 - 5, "010" as octal and "0x10" as hex: only digits pass here,
// leading zeros dropped. `hint`, if any, follows the range in the message.
CLI::Validator whole_number(uint64_t min, uint64_t max, const std::string& hint = "");

// A whole number that is a power of two up to `max` (shard counts).
CLI::Validator power_of_two(uint64_t max, const std::string& hint);

// A false-positive rate above 0 and below 1, as a number (0.01, 1e-4) or a percentage (1%, 0.5%),
// which becomes the number.
CLI::Validator rate();

// One of `names`, spelled exactly; `what` names the thing ("kind") in the message.
CLI::Validator one_of(const std::vector<std::string>& names, const std::string& what);

// The rules between options that no one option's validator sees: the split and half layouts are
// the blocked kind's only; split holds at most ABLOOM_SPLIT_MAX_K probes, half exactly
// ABLOOM_HALF_K. Throws CliError.
void check_shape(const Shape& shape);

}  // namespace abloom_cli
