// SPDX-License-Identifier: Apache-2.0
// Real chat templates (../shared/reference/templates and templates/models, 53 files)
// rendered by `ocml render --template` and by Python Jinja2 set up as transformers sets it up
// (tests/tools/render_template.py), on the same seeded corpus of 300 OpenAI conversations
// (tests/tools/make_template_corpus.py): the same text, or an error on the same lines with
// the same code. Skips when the reference or python3-jinja2 is absent.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using ocml::json;

constexpr const char* kKwargs = R"({"bos_token": "<s>", "eos_token": "</s>"})";
constexpr const char* kNow = "2026-01-15T10:30:00";

std::vector<std::string> templates() {
  std::vector<std::string> out;
  const fs::path root = fs::path(OCML_REFERENCE_DIR) / "templates";
  for (const auto& dir : {root, root / "models"}) {
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".jinja") out.push_back(fs::relative(e.path(), root).string());
    }
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) out.emplace_back("reference_absent");
  return out;
}

std::vector<std::string> read_lines(const fs::path& p) {
  std::vector<std::string> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

const fs::path& work_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("ocml_templates_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

constexpr std::size_t kSeeded = 300;

// The corpus, made once per run: 300 seeded conversations, then the bundled example
// (examples/weather.openai.json, asking for the generation prompt), which must render with
// the real templates wherever Jinja2 renders it.
const fs::path& corpus(const std::string& py) {
  static const fs::path path = [&py] {
    fs::path p = work_dir() / "corpus.jsonl";
    const std::string cmd = py + " " + std::string(OCML_TEST_TOOLS_DIR) +
                            "/make_template_corpus.py " + std::to_string(kSeeded) + " 1 > " +
                            p.string();
    if (std::system(cmd.c_str()) != 0) return fs::path();
    json example = json::parse(
        ocml::test::read_file(fs::path(OCML_SOURCE_DIR) / "examples/weather.openai.json"));
    example["add_generation_prompt"] = true;
    std::ofstream(p, std::ios::app) << example.dump() << '\n';
    return p;
  }();
  return path;
}

// What a line says: {"text": …} or an error code ("E-…").
struct outcome {
  bool ok = false;
  std::string text;  // or the error code
  std::string message;
};

outcome read_outcome(const std::string& line) {
  const json j = json::parse(line);
  if (j.contains("text")) return {true, j["text"].get<std::string>(), ""};
  const json& e = j.at("error");
  return {false, e.at("code").get<std::string>(), e.value("message", "")};
}

// Python's recursion limit and ocml's depth limit stop the same runaway recursion.
bool same_error(const outcome& want, const outcome& got) {
  if (want.text == got.text) return true;
  return want.message.find("maximum recursion depth") != std::string::npos &&
         got.text == "E-LIMIT-EXCEEDED";
}

// The corpus holds prefill requests (continue_final_message), so every template is checked
// on them too: 44 of 45 templates the project had not seen differed on them before.
TEST(TemplateCorpus, HoldsPrefillRequests) {
  const std::string py = ocml::test::python_with_jinja();
  if (py.empty()) GTEST_SKIP() << "python3-jinja2 is not installed";
  const fs::path in = corpus(py);
  ASSERT_FALSE(in.empty());
  std::size_t prefill = 0;
  for (const auto& l : read_lines(in)) {
    prefill += json::parse(l).value("continue_final_message", false) ? 1 : 0;
  }
  EXPECT_GE(prefill, 15u);
}

class TemplateReference : public ::testing::TestWithParam<std::string> {};

TEST_P(TemplateReference, RendersAsJinja2OnTheSeededCorpus) {
  if (GetParam() == "reference_absent") GTEST_SKIP() << "../shared/reference is absent";
  const std::string py = ocml::test::python_with_jinja();
  if (py.empty()) GTEST_SKIP() << "python3-jinja2 is not installed";
  const fs::path in = corpus(py);
  ASSERT_FALSE(in.empty()) << "make_template_corpus.py failed";
  const fs::path tmpl = fs::path(OCML_REFERENCE_DIR) / "templates" / GetParam();
  std::string stem = GetParam();
  std::replace(stem.begin(), stem.end(), '/', '_');
  const fs::path want_path = work_dir() / (stem + ".want.jsonl");
  const fs::path got_path = work_dir() / (stem + ".got.jsonl");
  const std::string ref = "OCML_TEMPLATE_NOW=" + std::string(kNow) + " " + py + " " +
                          std::string(OCML_TEST_TOOLS_DIR) + "/render_template.py '" +
                          tmpl.string() + "' " + in.string() + " " + want_path.string() +
                          " --template-kwargs '" + kKwargs + "'";
  ASSERT_EQ(std::system(ref.c_str()), 0) << ref;
  const std::string ours = std::string(OCML_CLI_PATH) + " render --template '" + tmpl.string() +
                           "' --jsonl --now " + kNow + " --template-kwargs '" + kKwargs + "' " +
                           in.string() + " > " + got_path.string() + " 2>/dev/null";
  (void)std::system(ours.c_str());  // exit status 1 when some line raised
  const auto want = read_lines(want_path);
  auto got_lines = read_lines(got_path);
  ASSERT_EQ(want.size(), kSeeded + 1);
  // The bundled example renders with the templates of the models it is written for.
  if (GetParam() == "qwen3.jinja" || GetParam() == "gpt-oss.jinja") {
    EXPECT_TRUE(read_outcome(want.back()).ok) << GetParam() << ": " << want.back();
  }
  // Our error lines carry their line number; place them.
  std::vector<std::string> got(want.size());
  std::size_t next = 0;
  for (const auto& l : got_lines) {
    const json j = json::parse(l);
    if (j.contains("line")) {
      const auto n = j["line"].get<std::size_t>() - 1;
      ASSERT_LT(n, got.size());
      got[n] = l;
      next = n + 1;
    } else {
      ASSERT_LT(next, got.size());
      got[next++] = l;
    }
  }
  std::size_t differences = 0, raised = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_FALSE(got[i].empty()) << "line " << i + 1 << ": no output";
    const outcome w = read_outcome(want[i]);
    const outcome g = read_outcome(got[i]);
    raised += w.ok ? 0 : 1;
    const bool same = w.ok == g.ok && (w.ok ? w.text == g.text : same_error(w, g));
    if (same) continue;
    if (++differences <= 3) {
      ADD_FAILURE() << GetParam() << " line " << i + 1 << "\n--- jinja2 "
                    << (w.ok ? "text" : "error " + w.text + ": " + w.message) << "\n"
                    << (w.ok ? w.text.substr(0, 1500) : "") << "\n--- ocml "
                    << (g.ok ? "text" : "error " + g.text + ": " + g.message) << "\n"
                    << (g.ok ? g.text.substr(0, 1500) : "");
    }
  }
  EXPECT_EQ(differences, 0u) << "of " << want.size() << " conversations (" << raised
                             << " raise in Jinja2)";
}

INSTANTIATE_TEST_SUITE_P(Templates, TemplateReference, ::testing::ValuesIn(templates()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
                           }
                           return n;
                         });

}  // namespace
