// SPDX-License-Identifier: Apache-2.0
// Response templates against the native decoders. tests/response/templates/ holds a response
// template (transformers' declarative spec) for ChatML, Qwen3, PCML and harmony, written to
// read an assistant generation as ocml's own decoder for the format reads it.
//
// For every case of the conformance suite (y_ and i_; the ones the decoder rejects are
// skipped) and of the recovery corpus that holds an assistant turn, the text is cut right
// after the start anchor of its last assistant turn: the prompt is everything before, the
// generation runs from there to the end of the token that ends the turn (where a model stops
// generating). The decoder reads the whole text; the template reads the generation after the
// prompt; both messages, projected to OpenAI (content, reasoning, each call's name and
// arguments), must be equal. The template must also give the one-shot message at every chunk
// size 1..16, with its event spans tiling prompt + generation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ocml/json.hpp"
#include "ocml/response.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

const fs::path kTests = fs::path(OCML_SOURCE_DIR) / "tests";

// A markup format: its dialect, what opens an assistant turn (its template's start_anchor), and
// whether one turn holds several messages (harmony: analysis, preambles, calls, the answer).
struct markup {
  std::string_view dialect;
  std::string_view anchor;
  bool multi_message_turn;
};

constexpr markup kFormats[] = {
    {"chatml", "<|im_start|>assistant\n", false},
    {"qwen3", "<|im_start|>assistant\n", false},
    {"pcml", "[AST]", false},
    {"harmony", "<|start|>assistant", true},
};

// Cases where the template and the decoder disagree because a declarative template cannot
// say what the decoder does. Each must go on disagreeing: a listed case the template comes to
// read as the decoder does fails until it is taken off the list.
struct exclusion {
  std::string_view dialect;
  std::string_view name;
  std::string_view why;
};

constexpr exclusion kExcluded[] = {
    // A body that is not JSON is kept as text where it stood, delimiters included, as the
    // decoder keeps it (issue 26); a JSON body without "name" parses, so it stays a "call".
    {"chatml", "recovery/json_without_name", "a JSON body without \"name\" is text"},
    // Delimiters are found in the raw text; the decoder skips a </tool_call> inside a JSON string.
    {"chatml", "recovery/close_tag_inside_json_string", "</tool_call> inside a JSON string"},
    // A region ends only at its own close delimiter; the decoder ends an unclosed call where
    // the next <tool_call> begins (a close that stopped before <tool_call> would also stop
    // before a "<tool_call>" inside a JSON string).
    {"chatml", "recovery/two_calls_first_unclosed", "an unclosed call before the next call"},
    // <think> opens reasoning only as the first thing in the turn; a template has no "first in
    // the turn" (a region opens wherever its delimiter appears).
    {"qwen3", "i_think_after_text", "<think> after text is text"},
    // The decoder drops the white space that leads stray text between messages; the template
    // keeps text as written (a stripped content would also lose an answer's own white space).
    {"harmony", "recovery/filler_then_channel", "white space before stray text"},
};

const exclusion* excluded(std::string_view dialect, std::string_view name) {
  for (const auto& e : kExcluded) {
    if (e.dialect == dialect && e.name == name) return &e;
  }
  return nullptr;
}

struct corpus_case {
  std::string name;
  std::string text;  // what the decoder reads
  bool lenient = false;
  bool completion = false;  // `text` follows a prompt that ended in the start anchor
};

// The y_ and i_ cases of the conformance suite (strict), then the recovery corpus (lenient).
std::vector<corpus_case> cases_of(std::string_view dialect) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kTests / "conformance" / dialect)) {
    const std::string stem = e.path().stem().string();
    if (e.path().extension() == ".txt" && (stem[0] == 'y' || stem[0] == 'i')) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<corpus_case> out;
  for (const auto& path : files) {
    out.push_back({path.stem().string(), ocml::test::read_file(path), false, false});
  }
  const fs::path recovery = kTests / "recovery" / (std::string(dialect) + ".json");
  if (fs::exists(recovery)) {
    const json corpus = json::parse(ocml::test::read_file(recovery));
    for (const auto& c : corpus["cases"]) {
      out.push_back({"recovery/" + c["name"].get<std::string>(), c["input"].get<std::string>(),
                     true, c.value("completion", true)});
    }
  }
  return out;
}

// What the decoder made of a text, and where each message stands in it.
struct native_read {
  ocml::parse_result result;
  struct placed {
    std::size_t body = 0;  // where its body begins
    std::size_t stop = 0;  // where the token that ended it ends (the body's end without one)
  };
  std::vector<placed> at;  // one per message
};

native_read read_native(std::string_view text, const ocml::decoder_options& o) {
  native_read r;
  ocml::collector c;
  std::vector<ocml::byte_span> spans;  // the bytes each event took, in order (they tile)
  ocml::decoder d(o, [&](const ocml::event& e) {
    c(e);
    if (e.kind == ocml::event_kind::message_begin) {
      r.at.push_back({e.span.begin, text.size()});
    } else if (e.kind == ocml::event_kind::message_end && !r.at.empty()) {
      r.at.back().stop = e.offset;
    } else if (e.kind != ocml::event_kind::diagnostic && e.span.end > e.span.begin) {
      spans.push_back(e.span);
    }
  });
  d.push(text);
  d.finish();
  r.result = c.take();
  // A message's end token is the span that begins where the message ended (PCML reports its
  // <end> before the message's end, the other decoders after).
  for (auto& m : r.at) {
    const auto it =
        std::lower_bound(spans.begin(), spans.end(), m.stop,
                         [](const ocml::byte_span& s, std::size_t at) { return s.begin < at; });
    if (it != spans.end() && it->begin == m.stop) m.stop = it->end;
  }
  return r;
}

// An assistant turn as a client sees it: the texts of its OpenAI messages joined with "\n"
// (as recovery_test.cpp folds a response), reasoning likewise, and each call's name and
// arguments (as JSON when they parse, so that spacing does not count). Empty text is none.
nlohmann::json merged(const json& openai_messages) {
  std::string content;
  std::string reasoning;
  bool has_content = false;
  bool has_reasoning = false;
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& m : openai_messages) {
    const auto text = m.find("content");
    if (text != m.end() && text->is_string()) {
      if (has_content) content += '\n';
      content += text->get<std::string>();
      has_content = true;
    }
    const auto thought = m.find("reasoning_content");
    if (thought != m.end() && thought->is_string()) {
      if (has_reasoning) reasoning += '\n';
      reasoning += thought->get<std::string>();
      has_reasoning = true;
    }
    const auto list = m.find("tool_calls");
    if (list == m.end()) continue;
    for (const auto& tc : *list) {
      const json& fn = tc["function"];
      const std::string args = fn.value("arguments", "");
      const nlohmann::json parsed = nlohmann::json::parse(args, nullptr, false);
      calls.push_back({{"name", fn.value("name", "")},
                       {"arguments", parsed.is_discarded() ? nlohmann::json(args) : parsed}});
    }
  }
  nlohmann::json out = nlohmann::json::object();
  if (!content.empty()) out["content"] = content;
  if (!reasoning.empty()) out["reasoning"] = reasoning;
  if (!calls.empty()) out["tool_calls"] = calls;
  return out;
}

// The last assistant turn of a case: the prompt before it, the generation, and what the
// decoder read there.
struct turn {
  std::string prefix;
  std::string generation;
  nlohmann::json native;
};

// The turn, or why the case has none to compare.
std::variant<turn, std::string> last_turn(const markup& f, const corpus_case& c) {
  const ocml::decoder_options o{
      .dialect = *ocml::parse_dialect(f.dialect), .lenient = c.lenient, .completion = c.completion};
  const native_read n = read_native(c.text, o);
  if (!n.result.ok()) return std::string("rejected by the decoder");
  const auto& msgs = n.result.conversation.messages;
  if (n.at.size() != msgs.size())
    return std::string("messages without a place (decoder events changed?)");
  std::size_t last = msgs.size();
  while (last > 0 && msgs[last - 1].role != ocml::role::assistant) --last;
  if (last == 0) return std::string("no assistant turn");
  --last;
  std::size_t first = last;
  while (f.multi_message_turn && first > 0 && msgs[first - 1].role == ocml::role::assistant) {
    --first;
  }
  // A completion's offsets count from the end of the prompt, which ended in the anchor.
  const std::string full = c.completion ? std::string(f.anchor) + c.text : c.text;
  const std::size_t shift = c.completion ? f.anchor.size() : 0;
  const std::size_t body = n.at[first].body + shift;
  const std::size_t earliest = first > 0 ? n.at[first - 1].stop + shift : 0;
  const std::size_t anchor =
      body < f.anchor.size() ? std::string::npos : full.rfind(f.anchor, body - f.anchor.size());
  if (anchor == std::string::npos || anchor < earliest)
    return std::string("no start anchor before the turn");
  const std::size_t cut = anchor + f.anchor.size();
  const std::size_t stop = n.at[last].stop + shift;
  if (stop < cut) return std::string("no start anchor before the turn");
  ocml::conversation mine;
  mine.messages.assign(msgs.begin() + static_cast<std::ptrdiff_t>(first),
                       msgs.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  return turn{full.substr(0, cut), full.substr(cut, stop - cut),
              merged(ocml::to_openai_json(mine, {})["messages"])};
}

std::string outcome(const ocml::result<json>& m) {
  return m ? ocml::dump_json(*m) : "error " + m.error().to_string();
}

std::string shown(const nlohmann::json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 600) s = s.substr(0, 600) + "...";
  return s;
}

// How chunking changes what the template reads, or where its event spans fail to tile
// prompt + generation (empty: nowhere). `one_shot` is parse_response's outcome.
std::string chunking_problem(const ocml::response_template& t, const turn& tu,
                             const ocml::response_parser_options& o, const std::string& one_shot) {
  const std::size_t total = tu.prefix.size() + tu.generation.size();
  for (std::size_t chunk = 0; chunk <= 16; ++chunk) {  // 0: the generation in one push
    std::size_t next = 0;
    std::string gap;
    ocml::response_parser p(t, o, [&](const ocml::response_event& e) {
      if (e.kind == ocml::response_event_kind::diagnostic || e.span.end == e.span.begin) return;
      if (gap.empty() && e.span.begin != next) {
        gap = std::string(ocml::response_event_name(e.kind)) + " spans [" +
              std::to_string(e.span.begin) + ", " + std::to_string(e.span.end) +
              ") where the previous event ended at " + std::to_string(next);
      }
      next = e.span.end;
    });
    if (chunk == 0) {
      p.push(tu.generation);
    } else {
      for (std::size_t i = 0; i < tu.generation.size(); i += chunk) {
        p.push(std::string_view(tu.generation).substr(i, chunk));
      }
    }
    const std::string got = outcome(p.finish());
    const std::string size = chunk == 0 ? "in one push" : "at chunk size " + std::to_string(chunk);
    if (!gap.empty()) return size + ": " + gap;
    if (next != total) {
      return size + ": the spans end at " + std::to_string(next) + " of " + std::to_string(total);
    }
    if (got != one_shot) return size + ": the message is " + got + ", one-shot " + one_shot;
  }
  return {};
}

class ResponseParity : public ::testing::TestWithParam<markup> {};

TEST_P(ResponseParity, TemplateReadsEveryAssistantTurnAsTheDecoder) {
  const markup f = GetParam();
  const std::string dialect(f.dialect);
  const fs::path path = kTests / "response" / "templates" / (dialect + ".json");
  const auto t = ocml::response_template::from_file(path.string());
  ASSERT_TRUE(t) << t.error().to_string();
  std::size_t compared = 0;
  std::size_t same = 0;
  std::size_t listed = 0;
  std::map<std::string, std::size_t> skipped;  // why -> how many
  std::vector<std::string_view> seen;          // excluded cases met
  for (const auto& c : cases_of(f.dialect)) {
    auto cut = last_turn(f, c);
    if (const auto* why = std::get_if<std::string>(&cut)) {
      ++skipped[*why];
      continue;
    }
    const turn& tu = std::get<turn>(cut);
    ++compared;
    const ocml::response_parser_options o{.prefix = tu.prefix, .lenient = c.lenient};
    const auto m = ocml::parse_response(*t, tu.generation, o);
    const nlohmann::json got = m ? merged(json::array({ocml::response_to_openai(*m)}))
                                 : nlohmann::json{{"error", m.error().to_string()}};
    const std::string where = dialect + "/" + c.name;
    if (const exclusion* ex = excluded(f.dialect, c.name)) {
      ++listed;
      seen.push_back(ex->name);
      EXPECT_TRUE(got != tu.native) << where << " is excluded (" << ex->why
                                    << ") but the template now reads it as the decoder does: "
                                       "take it off the list";
    } else if (got == tu.native) {
      ++same;
    } else {
      ADD_FAILURE() << where << ": the template reads the turn differently from the decoder"
                    << "\n  generation: " << shown(nlohmann::json(tu.generation))
                    << "\n  decoder:    " << shown(tu.native) << "\n  template:   " << shown(got);
    }
    const std::string chunking = chunking_problem(*t, tu, o, outcome(m));
    EXPECT_TRUE(chunking.empty()) << where << ": " << chunking;
  }
  for (const auto& e : kExcluded) {
    if (e.dialect == f.dialect) {
      EXPECT_TRUE(std::find(seen.begin(), seen.end(), e.name) != seen.end())
          << dialect << "/" << e.name << " is excluded but no case of that name was compared";
    }
  }
  EXPECT_GT(compared, 0u);
  std::size_t skipped_total = 0;
  for (const auto& [why, n] : skipped) skipped_total += n;
  std::cout << "\n  " << dialect << " response template: " << compared << " turns compared ("
            << same << " read as the decoder reads them, " << listed << " excluded), "
            << skipped_total << " cases skipped";
  for (const auto& [why, n] : skipped) std::cout << "\n    " << n << " " << why;
  std::cout << "\n";
}

INSTANTIATE_TEST_SUITE_P(Formats, ResponseParity, ::testing::ValuesIn(kFormats),
                         [](const auto& info) { return std::string(info.param.dialect); });

}  // namespace
