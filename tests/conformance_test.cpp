// SPDX-License-Identifier: Apache-2.0
// The conformance suite (tests/conformance/<dialect>/, named the JSONTestSuite way):
// y_ must parse, n_ must be rejected with the recorded code and offset, i_ may go either way
// but must never crash and must match what was recorded. Every case is replayed whole, at
// every chunk size from 1 (byte at a time) to 64: the outcome must not change. A results
// matrix is printed per dialect.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>

#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

const fs::path kRoot = fs::path(OCML_SOURCE_DIR) / "tests" / "conformance";

std::string fnv1a64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Compact native JSON in key order, as Python's json.dumps(separators=(",", ":")) writes it.
std::string compact(const ocml::conversation& c) {
  return ocml::dump_json(ocml::to_native_json(c));
}

struct outcome {
  bool ok;
  std::string text;  // conversation + diagnostics, for chunking comparisons
};

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, EveryCaseAtEveryChunkSize) {
  const std::string dialect_name = GetParam();
  const ocml::dialect d = *ocml::parse_dialect(dialect_name);
  std::map<char, std::pair<int, int>> matrix;  // kind -> (expected, unexpected)
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(kRoot / dialect_name)) {
    if (e.path().extension() == ".txt") cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_FALSE(cases.empty());
  for (const auto& path : cases) {
    const std::string name = path.stem().string();
    const char kind = name[0];
    const std::string text = ocml::test::read_file(path);
    fs::path exp_path = path;
    exp_path.replace_extension(".json");
    const json expected = json::parse(ocml::test::read_file(exp_path));
    bool good = true;
    std::string why;
    const auto strict = ocml::parse(text, {.dialect = d});
    // Chunk invariance, strict and lenient.
    for (bool lenient : {false, true}) {
      const ocml::decoder_options o{.dialect = d, .lenient = lenient};
      const auto whole = lenient ? ocml::parse(text, o) : strict;
      for (std::size_t chunk = 1; chunk <= 64 && good; ++chunk) {
        const auto r = ocml::test::parse_chunked(text, o, chunk);
        if (!(r.conversation == whole.conversation) || !(r.diagnostics == whole.diagnostics)) {
          good = false;
          why = "outcome changed at chunk size " + std::to_string(chunk) +
                (lenient ? " (lenient)" : "");
        }
      }
    }
    if (good && kind == 'y') {
      if (!strict.diagnostics.empty()) {
        good = false;
        why = "rejected: " + strict.diagnostics[0].to_string();
      } else if (expected.contains("native")) {
        good = nlohmann::json::parse(ocml::dump_json(ocml::to_native_json(strict.conversation))) ==
               nlohmann::json::parse(expected["native"].dump());
        why = "native JSON differs";
      } else {
        good =
            fnv1a64(compact(strict.conversation)) == expected["native_fnv1a64"].get<std::string>();
        why = "native JSON digest differs";
      }
    } else if (good && kind == 'n') {
      const auto first =
          std::find_if(strict.diagnostics.begin(), strict.diagnostics.end(),
                       [](const auto& x) { return x.level == ocml::severity::error; });
      if (first == strict.diagnostics.end()) {
        good = false;
        why = "accepted";
      } else {
        good = ocml::error_name(first->code) == expected["code"].get<std::string>() &&
               first->offset == expected["offset"].get<std::size_t>() &&
               first->line == expected["line"].get<std::size_t>() &&
               first->column == expected["column"].get<std::size_t>();
        why = "got " + first->to_string() + " at " + std::to_string(first->offset);
      }
    } else if (good && kind == 'i') {
      const auto lenient = ocml::parse(text, {.dialect = d, .lenient = true});
      std::vector<std::string> codes;
      for (const auto& x : lenient.diagnostics) codes.emplace_back(ocml::error_name(x.code));
      good = (strict.ok() ? "accept" : "reject") == expected["strict"].get<std::string>() &&
             (lenient.ok() ? "accept" : "reject") == expected["lenient"].get<std::string>() &&
             json(codes) == expected["lenient_codes"] &&
             nlohmann::json::parse(ocml::dump_json(ocml::to_native_json(lenient.conversation))) ==
                 nlohmann::json::parse(expected["lenient_native"].dump());
      why = "recorded outcome differs";
    }
    auto& cell = matrix[kind];
    (good ? cell.first : cell.second)++;
    EXPECT_TRUE(good) << dialect_name << "/" << name << ": " << why;
  }
  std::cout << "\n  " << dialect_name << " conformance      expected   unexpected\n";
  for (char k : {'y', 'n', 'i'}) {
    std::cout << "    " << k << "_ cases             " << std::setw(5) << matrix[k].first << "   "
              << std::setw(10) << matrix[k].second << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Suites, Conformance, ::testing::ValuesIn([] {
                           std::vector<std::string> names;  // every dialect of the registry
                           for (const auto& d : ocml::dialects()) names.emplace_back(d.name);
                           return names;
                         }()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
