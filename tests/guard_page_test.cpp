// SPDX-License-Identifier: Apache-2.0
// Inputs that end right before a PROT_NONE page: a read past the end of the input faults.
// Every decoder, one-shot and chunked, over the conformance cases and edge inputs.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "dialects/chatml/chatml.hpp"
#include "interchange/simd_json.hpp"
#include "support.hpp"

namespace fs = std::filesystem;

namespace {

// Copies `text` so that it ends exactly at a guard page.
class guarded {
 public:
  explicit guarded(std::string_view text) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t data_pages = (text.size() + page - 1) / page + 1;
    size_ = (data_pages + 1) * page;
    base_ = static_cast<char*>(
        mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    char* guard = base_ + data_pages * page;
    EXPECT_EQ(mprotect(guard, page, PROT_NONE), 0);
    data_ = guard - text.size();
    std::memcpy(data_, text.data(), text.size());
  }
  ~guarded() { munmap(base_, size_); }
  guarded(const guarded&) = delete;
  guarded& operator=(const guarded&) = delete;
  [[nodiscard]] std::string_view view(std::size_t n) const { return {data_, n}; }

 private:
  char* base_ = nullptr;
  char* data_ = nullptr;
  std::size_t size_ = 0;
};

const std::vector<ocml::dialect> kAll = [] {
  std::vector<ocml::dialect> v;
  for (const auto& d : ocml::dialects()) v.push_back(d.id);
  return v;
}();

void feed_everything(std::string_view text) {
  guarded g(text);
  const std::string_view v = g.view(text.size());
  for (auto d : kAll) {
    for (bool lenient : {false, true}) {
      const ocml::decoder_options o{.dialect = d, .lenient = lenient};
      (void)ocml::parse(v, o);
      for (std::size_t chunk : {1u, 7u, 16u, 17u, 33u}) {
        // Each chunk also ends at the guard when it is the last one.
        (void)ocml::test::parse_chunked(v, o, chunk);
      }
    }
  }
  std::string out;
  std::vector<ocml::diagnostic> w;
  (void)ocml::detail::chatml::render_openai_text(v, false, out, w);
  ocml::detail::escaped_buffer line;
  (void)ocml::detail::chatml::render_openai_json_text(v, false, line, w);
  (void)ocml::detail::read_openai_text(v);
  (void)ocml::parse_json_text(v);
}

TEST(GuardPage, EdgeInputsNeverReadPastTheirEnd) {
  const std::vector<std::string> edges = {
      "",
      "<",
      "<|",
      "<<",
      "<<|",
      "<|start|",
      "<|start|>",
      "<|start|>user<|message|>x<",
      "<|start|>user<|message|>xxxxxxxxxxxxxxxx<<|end",
      "[USR]a=\"b",
      "[AST]<call>{",
      "<|im_start|>user\n<tool_",
      "<|user|>x<|assis",
      "[BOS]<|im_start|>user\nx<|fim_pre",
      "---\nversion: 2.2\n",
      "version: 2.2\n<|sta",
      std::string(100, '<'),
      std::string(33, '|'),
      "\xe2\x82",
      "\xf0\x9f\x98",
      "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"messages\":[",
      "<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>[[[["};
  for (const auto& e : edges) {
    for (std::size_t n = 0; n <= e.size(); ++n) feed_everything(std::string_view(e).substr(0, n));
  }
  SUCCEED();
}

TEST(GuardPage, ConformanceCasesNeverReadPastTheirEnd) {
  std::size_t cases = 0;
  for (const auto& e :
       fs::recursive_directory_iterator(fs::path(OCML_SOURCE_DIR) / "tests" / "conformance")) {
    if (e.path().extension() != ".txt" || e.file_size() > 8192) continue;
    feed_everything(ocml::test::read_file(e.path()));
    ++cases;
  }
  EXPECT_GT(cases, 500u);
}

}  // namespace
