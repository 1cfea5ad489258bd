#include "options.hpp"

#include <abloom.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "input.hpp"

namespace abloom_cli {

namespace {

std::string range_text(uint64_t min, uint64_t max) {
  if (max == UINT64_MAX) return std::to_string(min) + " or more";
  return std::to_string(min) + " to " + std::to_string(max);
}

// "'abc'" for a value that may hold anything, a number as it is.
std::string in_quotes(const std::string& value) { return "'" + value + "'"; }

}  // namespace

CLI::Validator whole_number(uint64_t min, uint64_t max, const std::string& hint) {
  const std::string give = "give " + range_text(min, max) + (hint.empty() ? "" : " (" + hint + ")");
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        if (!value.empty() && value[0] == '-') return value + " is negative: " + give;
        uint64_t n = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, n);
        // from_chars takes digits only: no sign, no space, no base prefix.
        if (value.empty() || ptr != end ||
            (ec != std::errc() && ec != std::errc::result_out_of_range)) {
          return in_quotes(value) + " is not a whole number: " + give;
        }
        if (ec == std::errc::result_out_of_range) {
          return value + " is out of range: give " + std::to_string(min) + " to " +
                 std::to_string(max);
        }
        if (n < min || n > max) {
          return value + " is out of range: " + give;
        }
        value = std::to_string(n);  // "010" is ten, not CLI11's octal eight
        return {};
      },
      "");
}

CLI::Validator power_of_two(uint64_t max, const std::string& hint) {
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        const uint64_t n = std::strtoull(value.c_str(), nullptr, 10);  // whole_number ran first
        if ((n & (n - 1)) == 0) return {};
        return value + " is not a power of two: give 1, 2, 4, 8, ... up to " + std::to_string(max) +
               " (" + hint + ")";
      },
      "");
}

CLI::Validator rate() {
  static const std::string give =
      "give a rate above 0 and below 1, as a number (0.001, 1e-4) or a percentage (0.1%)";
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::string number = value;
        const bool percent = !number.empty() && number.back() == '%';
        if (percent) number.pop_back();
        char* end = nullptr;
        double v = number.empty() ? NAN : std::strtod(number.c_str(), &end);
        // strtod takes "nan", "inf" and leading spaces: none is a rate.
        if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v) ||
            std::isspace(static_cast<unsigned char>(number[0]))) {
          return in_quotes(value) + " is not a number: " + give;
        }
        if (percent) v /= 100;
        if (!(v > 0 && v < 1)) return value + " is out of range: " + give;
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        value = buf;
        return {};
      },
      "");
}

CLI::Validator one_of(const std::vector<std::string>& names, const std::string& what) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        for (const auto& n : names) {
          if (value == n) return {};
        }
        return in_quotes(value) + " is not a " + what + ": give " + list;
      },
      "");
}

void check_shape(const Shape& shape) {
  if (shape.kind == "classic" && (shape.layout == "split" || shape.layout == "half")) {
    throw CliError("--layout " + shape.layout +
                   " is for the blocked kind only: the classic kind spreads a key's bits over "
                   "its whole shard and has no layout to choose; drop --layout, or give --kind "
                   "blocked");
  }
  if (shape.layout == "split" && shape.k > ABLOOM_SPLIT_MAX_K) {
    throw CliError("--k " + std::to_string(shape.k) + " is too many for --layout split: it sets " +
                   "one bit in each of a block's 32-bit words, at most " +
                   std::to_string(ABLOOM_SPLIT_MAX_K) +
                   "; give a --k of 1 to 16, or --layout distinct (up to " +
                   std::to_string(ABLOOM_MAX_K) + ")");
  }
  // k 0: not given, and the sizing takes the layout's only k.
  if (shape.layout == "half" && shape.k != 0 && shape.k != ABLOOM_HALF_K) {
    throw CliError("--k " + std::to_string(shape.k) + " does not fit --layout half: it sets " +
                   "one bit in each of the " + std::to_string(ABLOOM_HALF_K) +
                   " 32-bit words of half a block, so k is always " +
                   std::to_string(ABLOOM_HALF_K) + "; drop --k (or give --k " +
                   std::to_string(ABLOOM_HALF_K) + "), or give --layout split or distinct");
  }
}

}  // namespace abloom_cli
