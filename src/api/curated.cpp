// SPDX-License-Identifier: Apache-2.0
// The curated response templates: their index read once from the embedded files.
#include "ocml/curated.hpp"

#include <algorithm>

#include "api/curated.hpp"
#include "interchange/json_util.hpp"
#include "ocml/json.hpp"

namespace ocml {

namespace {

std::string_view embedded(std::string_view name) {
  for (std::size_t i = 0; i < detail::kCuratedFileCount; ++i) {
    if (detail::kCuratedFiles[i].name == name) return detail::kCuratedFiles[i].text;
  }
  return {};
}

std::vector<std::string> strings(const json& entry, const char* key) {
  std::vector<std::string> out;
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_array()) return out;
  for (const auto& s : *it) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

std::string text_of(const json& entry, const char* key) {
  const auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<curated_template> load_index() {
  std::vector<curated_template> out;
  // The index is the project's own file, built in: a broken one is a build defect, which
  // the tests catch (tests/api/curated_test.cpp); here it yields no templates, never a crash.
  const auto index = detail::try_parse_json(embedded("index.json"));
  if (!index || !index->is_object() || !(*index)["templates"].is_array()) return out;
  for (const auto& e : (*index)["templates"]) {
    if (!e.is_object()) continue;
    curated_template t;
    t.name = text_of(e, "name");
    t.file = text_of(e, "file");
    t.family = text_of(e, "family");
    t.source = text_of(e, "source");
    t.all = strings(e, "all");
    t.none = strings(e, "none");
    t.text = embedded(t.file);
    if (!t.name.empty() && !t.text.empty() && !t.all.empty()) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

const std::vector<curated_template>& curated_templates() {
  static const std::vector<curated_template> all = load_index();
  return all;
}

const curated_template* match_curated(std::string_view chat_template_text) {
  const auto has = [&](const std::string& s) {
    return chat_template_text.find(s) != std::string_view::npos;
  };
  for (const auto& t : curated_templates()) {
    if (std::all_of(t.all.begin(), t.all.end(), has) &&
        std::none_of(t.none.begin(), t.none.end(), has)) {
      return &t;
    }
  }
  return nullptr;
}

std::string curated_reason(const curated_template& t) {
  std::string out = "the chat template holds ";
  for (std::size_t i = 0; i < t.all.size(); ++i) out += (i == 0 ? "" : ", ") + t.all[i];
  if (!t.none.empty()) {
    out += " and not ";
    for (std::size_t i = 0; i < t.none.size(); ++i) out += (i == 0 ? "" : ", ") + t.none[i];
  }
  return out;
}

}  // namespace ocml
