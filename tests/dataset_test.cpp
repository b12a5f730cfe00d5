// SPDX-License-Identifier: Apache-2.0
// Packing (first-fit decreasing against a plain quadratic implementation) and the
// example set; the files are read back with NumPy in tests/python/test_pack.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ocml/dataset.hpp"

namespace {

// First-fit decreasing the obvious way: scan every row for each example.
std::vector<std::vector<std::size_t>> naive_ffd(const std::vector<std::size_t>& lengths,
                                                std::size_t seq_len) {
  std::vector<std::size_t> order(lengths.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
  std::vector<std::vector<std::size_t>> rows;
  std::vector<std::size_t> used;
  for (const std::size_t e : order) {
    std::size_t r = 0;
    while (r < rows.size() && used[r] + lengths[e] > seq_len) ++r;
    if (r == rows.size()) {
      rows.emplace_back();
      used.push_back(0);
    }
    rows[r].push_back(e);
    used[r] += lengths[e];
  }
  return rows;
}

TEST(Dataset, FirstFitDecreasingPlacesLongestFirst) {
  const std::vector<std::size_t> lengths = {3, 1, 2, 4, 2};
  auto rows = ocml::pack_first_fit_decreasing(lengths, 4);
  ASSERT_TRUE(rows.ok());
  // 4 | 3 1 | 2 2
  const std::vector<std::vector<std::size_t>> want = {{3}, {0, 1}, {2, 4}};
  EXPECT_EQ(*rows, want);
  auto none = ocml::pack_first_fit_decreasing({}, 8);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(Dataset, AnExampleLongerThanARowIsNamed) {
  auto rows = ocml::pack_first_fit_decreasing(std::vector<std::size_t>{2, 9, 1}, 8);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.error().code, ocml::error_code::limit_exceeded);
  EXPECT_NE(rows.error().message.find("example 1 holds 9 tokens"), std::string::npos)
      << rows.error().message;
}

TEST(Dataset, FirstFitDecreasingEqualsTheQuadraticOneOnRandomLengths) {
  std::mt19937 rng(27);
  for (int round = 0; round < 200; ++round) {
    const std::size_t seq_len = 1 + rng() % 64;
    std::vector<std::size_t> lengths(rng() % 300);
    for (auto& n : lengths) n = rng() % (seq_len + 1);  // zero-length examples too
    auto rows = ocml::pack_first_fit_decreasing(lengths, seq_len);
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(*rows, naive_ffd(lengths, seq_len)) << "round " << round;
    std::vector<int> seen(lengths.size(), 0);
    for (const auto& row : *rows) {
      std::size_t n = 0;
      for (const std::size_t e : row) {
        n += lengths[e];
        ++seen[e];
      }
      EXPECT_LE(n, seq_len);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }));
  }
}

TEST(Dataset, ExampleSetHoldsIdsAndLabelsBackToBack) {
  ocml::example_set xs;
  const std::vector<std::int32_t> a = {1, 2, 3};
  const std::vector<std::int32_t> la = {-100, 2, 3};
  const std::vector<std::int32_t> b = {4, 5};
  ASSERT_EQ(*xs.add(a, la), 0u);
  ASSERT_EQ(*xs.add(b, {}), 1u);
  const std::vector<std::int32_t> bad_labels = {1};
  auto bad = xs.add(b, bad_labels);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ocml::error_code::limit_exceeded);
  EXPECT_EQ(xs.size(), 2u);
  EXPECT_EQ(xs.tokens(), 5u);
  EXPECT_EQ(xs.lengths(), (std::vector<std::size_t>{3, 2}));
  EXPECT_TRUE(std::ranges::equal(xs.ids(1), b));
  EXPECT_TRUE(std::ranges::equal(xs.labels(0), la));
  EXPECT_TRUE(std::ranges::equal(xs.labels(1), std::vector<std::int32_t>{-100, -100}));
}

TEST(Dataset, AnUnwritablePrefixIsAnIoError) {
  ocml::example_set xs;
  const std::vector<std::int32_t> a = {1, 2};
  ASSERT_TRUE(xs.add(a, {}).ok());
  const std::vector<std::vector<std::size_t>> rows = {{0}};
  auto npy = ocml::write_npy_dataset(xs, rows, {.seq_len = 4}, "/nonexistent-dir/x");
  ASSERT_FALSE(npy.ok());
  EXPECT_EQ(npy.error().code, ocml::error_code::io_error);
  auto mm = ocml::write_megatron_dataset(xs, rows, "/nonexistent-dir/x");
  ASSERT_FALSE(mm.ok());
  EXPECT_EQ(mm.error().code, ocml::error_code::io_error);
  auto tight = ocml::write_npy_dataset(xs, rows, {.seq_len = 1}, "/nonexistent-dir/x");
  ASSERT_FALSE(tight.ok());
  EXPECT_EQ(tight.error().code, ocml::error_code::limit_exceeded);
}

}  // namespace
