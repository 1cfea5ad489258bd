// False-positive rates at capacity: for each kind (and the blocked kind's layouts) and target,
// a filter sized for n = 1e6 keys is
// filled with 1e6 distinct keys and queried with keys never added. The count of positives is
// binomial(N, p); it must stay within 5 standard deviations of the target (and of the model
// FPR of the plan, which proves the filter sits on the model rather than merely under the
// target). Seeds are fixed, so the run is deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "filter/filter.hpp"
#include "test_keys.hpp"

namespace abloom {
namespace {

struct Case {
  Kind kind;
  double p;
  uint32_t shards;
  Layout layout = Layout::distinct;
};

std::string describe(const Case& c) {
  std::string s = c.kind == Kind::blocked ? "Blocked" : "Classic";
  if (c.layout == Layout::split) s += "Split";
  if (c.layout == Layout::half) s += "Half";
  s += "_p" + std::to_string(static_cast<int>(std::round(-std::log10(c.p))));
  s += "_shards" + std::to_string(c.shards);
  return s;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return describe(info.param); }

// GoogleTest prints a parameter it has no printer for as its raw bytes, Case's padding among
// them: the test list (and each failure's message) would change from run to run.
void PrintTo(const Case& c, std::ostream* os) { *os << describe(c); }

class FprAtCapacity : public ::testing::TestWithParam<Case> {};

TEST_P(FprAtCapacity, WithinBinomialBounds) {
  const Case c = GetParam();
  const uint64_t n = 1'000'000;
  SizingRequest req;
  req.kind = c.kind;
  req.layout = c.layout;
  req.capacity = n;
  req.fpr = c.p;
  req.shards = c.shards;
  Plan plan;
  ASSERT_EQ(make_plan(req, &plan), Errc::ok);
  FilterParams params;
  params.capacity = n;
  Filter f(plan.shape(0x5eed), params);

  // Keys are 16-byte strings from one stream: the first n are added, the rest queried.
  testing::SplitMix rng(c.shards * 1000 + static_cast<uint64_t>(c.kind) +
                        10 * static_cast<uint64_t>(c.layout));
  std::vector<uint64_t> hashes(n);
  auto next_hash = [&] {
    const uint64_t key[2] = {rng.next(), rng.next()};
    return f.hash(key, sizeof key);
  };
  for (auto& h : hashes) h = next_hash();
  const uint64_t added = f.add_many(hashes.data(), hashes.size());
  // A key is "not new" only when it was a false positive at its turn: fewer than p * n.
  EXPECT_LE(added, n);
  EXPECT_GE(static_cast<double>(added), n * (1 - c.p));
  std::vector<uint8_t> hit(n);
  EXPECT_EQ(f.test_many(hashes.data(), n, hit.data()), n) << "false negative";

  // Enough absent queries to expect ~2000 false positives (at least 2M).
  const uint64_t queries = std::max<uint64_t>(2'000'000, static_cast<uint64_t>(2000 / c.p));
  uint64_t positives = 0;
  for (uint64_t done = 0; done < queries; done += n) {
    const uint64_t m = std::min<uint64_t>(n, queries - done);
    for (uint64_t i = 0; i < m; ++i) hashes[i] = next_hash();
    positives += f.test_many(hashes.data(), m, hit.data());
  }
  const double N = static_cast<double>(queries);
  const double measured = positives / N;
  auto sigma = [&](double p) { return std::sqrt(p * (1 - p) / N); };
  EXPECT_LE(measured, c.p + 5 * sigma(c.p)) << "target " << c.p << " k=" << plan.k;
  EXPECT_NEAR(measured, plan.expected_fpr, 5 * sigma(plan.expected_fpr))
      << "model " << plan.expected_fpr;
  // The fill-based estimate agrees with what was measured, and the count estimate with n.
  EXPECT_NEAR(f.estimate_fpr(), measured, 5 * sigma(measured) + 0.02 * measured);
  EXPECT_NEAR(f.estimate_count(), static_cast<double>(n), 0.01 * n);
}

INSTANTIATE_TEST_SUITE_P(
    Core, FprAtCapacity,
    ::testing::Values(
        Case{Kind::blocked, 0.1, 1}, Case{Kind::blocked, 0.01, 1}, Case{Kind::blocked, 0.001, 1},
        Case{Kind::blocked, 1e-4, 1}, Case{Kind::classic, 0.1, 1}, Case{Kind::classic, 0.01, 1},
        Case{Kind::classic, 0.001, 1}, Case{Kind::classic, 1e-4, 1},
        // Sharding must not change the FPR.
        Case{Kind::blocked, 0.01, 16}, Case{Kind::classic, 0.01, 16},
        Case{Kind::blocked, 0.001, 64},
        // The split layout (layout.hpp), on its exact model too.
        Case{Kind::blocked, 0.1, 1, Layout::split}, Case{Kind::blocked, 0.01, 1, Layout::split},
        Case{Kind::blocked, 0.001, 1, Layout::split}, Case{Kind::blocked, 1e-4, 1, Layout::split},
        Case{Kind::blocked, 0.01, 16, Layout::split},
        // The half layout (layout.hpp), on its model (k is always 8).
        Case{Kind::blocked, 0.1, 1, Layout::half}, Case{Kind::blocked, 0.01, 1, Layout::half},
        Case{Kind::blocked, 0.001, 1, Layout::half}, Case{Kind::blocked, 0.01, 16, Layout::half}),
    case_name);

}  // namespace
}  // namespace abloom
