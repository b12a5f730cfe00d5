// SPDX-License-Identifier: Apache-2.0
// Inputs the fuzzers found (fuzz/regressions/<dialect>--<what>, first byte = the seed that
// picked the split pattern), replayed through the same check as the parse targets.
#include <gtest/gtest.h>

#include <filesystem>

#include "fuzz_common.hpp"
#include "support.hpp"

namespace fs = std::filesystem;

namespace {

TEST(FuzzRegressions, ReplayWithTheirSeeds) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(OCML_SOURCE_DIR) / "fuzz" / "regressions")) {
    const std::string name = e.path().filename().string();
    const auto d = ocml::parse_dialect(name.substr(0, name.find("--")));
    ASSERT_TRUE(d.has_value()) << name;
    const std::string bytes = ocml::test::read_file(e.path());
    ASSERT_FALSE(bytes.empty());
    const std::string_view text(bytes.data() + 1, bytes.size() - 1);
    const auto seed = static_cast<std::uint8_t>(bytes[0]);
    for (bool lenient : {false, true}) {
      const ocml::decoder_options o{
          .dialect = *d, .lenient = lenient, .completion = (seed & 0x80) != 0};
      const auto whole = ocml::parse(text, o);
      const auto split = ocml::fuzz::parse_split(text, o, seed);
      EXPECT_EQ(whole.conversation, split.conversation) << name;
      EXPECT_EQ(whole.diagnostics, split.diagnostics) << name;
    }
    ++n;
  }
  EXPECT_GE(n, 2u);
}

}  // namespace
