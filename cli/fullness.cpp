#include "fullness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "filter.hpp"

namespace abloom_cli {

namespace {

// "12,345,678": counts of keys read better grouped.
std::string grouped(double v) {
  char digits[32];
  const int n = std::snprintf(digits, sizeof digits, "%.0f", v);
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

}  // namespace

bool over_capacity(const abloom_filter* filter, const std::string& name, bool quiet) {
  const abloom_info info = filter_info(filter);
  // Explicit layouts (--k with --bits) have no target: the model's FPR at capacity is the one the
  // filter was made for.
  const double target = info.target_fpr > 0 ? info.target_fpr : info.expected_fpr;
  double estimated_fpr = 0;
  check(abloom_estimate_fpr(filter, &estimated_fpr), name);
  if (!(estimated_fpr > 2 * target)) return false;
  if (quiet) return true;
  double keys = 0;
  check(abloom_estimate_count(filter, &keys), name);
  if (info.growth != 0) {  // it grows with its keys: only a failed growth leaves it over
    std::fprintf(stderr,
                 "abloom: warning: %s could not grow (%u stages: the stage limit, the size limit "
                 "or no memory): its estimated FPR is %.3g, above twice its target of %.3g.\n",
                 name.c_str(), info.stages, estimated_fpr, target);
    return true;
  }
  std::string held = "about " + grouped(keys) + " keys";
  // A capacity for the keys it holds, with room for as many again.
  std::string advice = "--capacity " + grouped(std::ceil(keys * 2)) + " or more";
  if (!std::isfinite(keys)) {  // every bit is set: the count is beyond estimating
    held = "every bit set";
    advice = "a --capacity of at least the number of distinct keys";
  }
  advice.erase(std::remove(advice.begin(), advice.end(), ','), advice.end());  // a number to type
  std::fprintf(stderr,
               "abloom: warning: %s is over its capacity: %s in a filter sized for %s keys; its "
               "estimated FPR is %.3g, above twice its target of %.3g. Build it again with %s.\n",
               name.c_str(), held.c_str(), grouped(static_cast<double>(info.capacity)).c_str(),
               estimated_fpr, target, advice.c_str());
  return true;
}

namespace {
// Keys in the sample: the FPR within about 0.3 percentage points at 1% (one standard error), at
// the cost of a bulk test of 4096 keys per sample.
constexpr size_t kSampleKeys = 4096;
constexpr size_t kSampleKeyBytes = 16;
}  // namespace

FalseDropMeter::FalseDropMeter(uint64_t capacity)
    : keys_(kSampleKeys),
      key_ptrs_(kSampleKeys),
      key_lens_(kSampleKeys),
      answers_(kSampleKeys),
      step_(std::max<uint64_t>(capacity / 16, 1)) {
  for (size_t i = 0; i < kSampleKeys; ++i) {
    keys_[i].resize(kSampleKeyBytes);
    key_ptrs_[i] = keys_[i].data();
    key_lens_[i] = kSampleKeyBytes;
  }
}

void FalseDropMeter::sample(const abloom_filter* filter, uint64_t added, uint64_t batches) {
  // Random bytes, new for each sample, so that the samples' errors average out over a run rather
  // than repeat; from a fixed seed, so that the same run gives the same account. Text input holds
  // such keys hardly ever.
  for (std::string& key : keys_) {
    for (size_t b = 0; b < kSampleKeyBytes; b += 8) {
      const uint64_t r = random_();
      std::memcpy(key.data() + b, &r, 8);
    }
  }
  uint64_t positive = 0;
  check(abloom_test_many(filter, key_ptrs_.data(), key_lens_.data(), kSampleKeys, answers_.data(),
                         &positive),
        "dedupe");
  // Never 1: a filter whose every sampled key tests positive still lets a few new keys through.
  const double f = std::min(static_cast<double>(positive) / kSampleKeys, 1 - 0.5 / kSampleKeys);
  const double ratio = f / (1 - f);
  if (sampled_) expected_ += (last_ratio_ + ratio) / 2 * static_cast<double>(added - last_added_);
  sampled_ = true;
  last_ratio_ = ratio;
  last_added_ = added;
  last_batches_ = batches;
}

}  // namespace abloom_cli
