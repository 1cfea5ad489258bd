// A filter past its capacity is never silent: the check build, add and dedupe make at the end,
// and dedupe's account of the lines it dropped.
#pragma once

#include <abloom.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace abloom_cli {

// The exit status of build, add and dedupe with --strict when the filter ended over its
// capacity (its file is written all the same).
constexpr int kExitOverCapacity = 4;

// Whether `filter` is over its capacity: an estimated FPR above twice its target. If so, and not
// `quiet`, warns on stderr, naming `name`, the capacity, the estimated keys and FPR, and what to
// do instead.
bool over_capacity(const abloom_filter* filter, const std::string& name, bool quiet);

// How many new keys dedupe dropped as false positives, expected from the filter's FPR measured as
// it fills. While the FPR is f, each key that dedupe adds (prints) stands for 1 / (1 - f) new keys
// that arrived, f / (1 - f) of them dropped. The FPR is measured, not taken from the model:
// dedupe adds only keys that test absent, each of which sets a clear bit, so past its capacity a
// filter fills up far faster than the model says (a filter sized for 1,000 keys had every bit set
// after 3,800 of them). It is measured on random keys, which stand for new keys (they test
// positive as often): 4096 new ones for each sample, in one bulk test.
class FalseDropMeter {
 public:
  // For a filter sized for `capacity` keys.
  explicit FalseDropMeter(uint64_t capacity);
  // Whether a sample is due after `batches` batches, with `added` keys added: once the keys
  // added since the last grew by a sixteenth of the capacity (where the FPR changes), or every
  // 256 batches (a filter far past its capacity adds few keys but drops many). A sample costs
  // about as much as a batch, so this is about 1% of a run (bench/RESULTS.md).
  bool due(uint64_t added, uint64_t batches) const {
    return added - last_added_ >= step_ || batches - last_batches_ >= 256;
  }
  // The FPR now, with `added` keys added since the start: the keys added since the last sample
  // count at the mean of f / (1 - f) at both ends.
  void sample(const abloom_filter* filter, uint64_t added, uint64_t batches);
  double expected() const { return expected_; }

 private:
  std::mt19937_64 random_{0x61626c6f6f6d};
  std::vector<std::string> keys_;
  std::vector<const void*> key_ptrs_;
  std::vector<size_t> key_lens_;
  std::vector<uint8_t> answers_;
  bool sampled_ = false;
  double last_ratio_ = 0;  // f / (1 - f) at the last sample
  uint64_t last_added_ = 0;
  uint64_t last_batches_ = 0;
  uint64_t step_;
  double expected_ = 0;
};

}  // namespace abloom_cli
