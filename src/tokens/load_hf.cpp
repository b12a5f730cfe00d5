// SPDX-License-Identifier: Apache-2.0
// Loading a Hugging Face tokenizer.json (BPE, byte-level) into a bpe_model.
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "interchange/simd_json.hpp"
#include "tokens/load.hpp"
#include "tokens/unicode.hpp"

namespace ocml::detail {

namespace {

using simdjson::dom::element;

diagnostic unsupported(const std::string& what) {
  return make_error(error_code::tokenizer_unsupported, "tokenizer.json: " + what);
}
diagnostic malformed(const std::string& what) {
  return make_error(error_code::tokenizer_format, "tokenizer.json: " + what);
}

// IDs may run past the number of entries by this much (real files leave gaps between the
// vocabulary and the added tokens, a few hundred IDs at most in the reference families).
constexpr std::uint64_t kIdGapAllowance = std::uint64_t{1} << 20;

diagnostic beyond_entries(const char* what, std::string_view text, std::uint64_t id,
                          std::uint64_t limit) {
  return make_error(error_code::limit_exceeded,
                    "tokenizer.json: " + std::string(what) + " '" +
                        std::string(text.substr(0, 64)) + "' has ID " + std::to_string(id) +
                        ", beyond the " + std::to_string(limit) + " the file's entries allow");
}

// GPT-2's byte <-> character map: printable bytes stand for themselves, the others for
// U+0100 onwards in byte order.
struct byte_level_map {
  std::array<std::int16_t, 324> byte_of_char;  // code point -> byte, or -1
  byte_level_map() {
    byte_of_char.fill(-1);
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
      byte_of_char[static_cast<std::size_t>(printable ? b : 256 + extra++)] =
          static_cast<std::int16_t>(b);
    }
  }
  // The bytes a vocabulary string stands for; false when a character is not in the map.
  bool to_bytes(std::string_view s, std::string& out) const {
    out.clear();
    for (std::size_t i = 0; i < s.size();) {
      const auto c = static_cast<unsigned char>(s[i]);
      std::uint32_t cp = 0;
      std::size_t len = 1;
      if (c < 0x80) {
        cp = c;
      } else if ((c & 0xE0) == 0xC0 && i + 1 < s.size()) {
        cp = (c & 0x1Fu) << 6 | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
        len = 2;
      } else {
        return false;
      }
      if (cp >= byte_of_char.size() || byte_of_char[cp] < 0) return false;
      out.push_back(static_cast<char>(byte_of_char[cp]));
      i += len;
    }
    return true;
  }
};

// Reads `key` of `e` into `v` when it is there with the right type; else leaves `v`.
template <class T>
void read_if_present(element e, const char* key, T& v) {
  if (e[key].get(v) != simdjson::SUCCESS) return;
}

// A component and what it nests (Sequence), read without recursion on the file's depth.
constexpr std::size_t kMaxComponents = 64;

// The leaves of a component tree, in order: a Sequence's members replace it.
result<std::vector<element>> flatten(element root, const char* list_key, const char* what) {
  std::vector<element> out;
  std::vector<element> stack{root};
  std::size_t seen = 0;
  while (!stack.empty()) {
    element e = stack.back();
    stack.pop_back();
    if (++seen > kMaxComponents) {
      return unsupported(std::string(what) + " with more than 64 components");
    }
    std::string_view type;
    if (e["type"].get(type) != simdjson::SUCCESS) {
      return malformed(std::string(what) + " without a type");
    }
    simdjson::dom::array members;
    if (type == "Sequence" && e[list_key].get(members) == simdjson::SUCCESS) {
      std::vector<element> m(members.begin(), members.end());
      for (auto it = m.rbegin(); it != m.rend(); ++it) stack.push_back(*it);
      continue;
    }
    out.push_back(e);
  }
  return out;
}

result<std::vector<normalizer_step>> read_normalizers(element norm) {
  auto parts = flatten(norm, "normalizers", "normalizer");
  if (!parts) return parts.error();
  std::vector<normalizer_step> out;
  for (element n : *parts) {
    std::string_view type;
    read_if_present(n, "type", type);
    normalizer_step step;
    if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
      step.what = normalizer_step::kind::unicode;
      step.form = type == "NFC"    ? unicode_form::nfc
                  : type == "NFD"  ? unicode_form::nfd
                  : type == "NFKC" ? unicode_form::nfkc
                                   : unicode_form::nfkd;
    } else if (type == "Prepend") {
      std::string_view v;
      if (n["prepend"].get(v) != simdjson::SUCCESS) return malformed("Prepend without prepend");
      step.what = normalizer_step::kind::prepend;
      step.pattern = v;
    } else if (type == "Replace") {
      std::string_view pat;
      std::string_view content;
      if (n["pattern"]["String"].get(pat) != simdjson::SUCCESS) {
        return unsupported("Replace normalizer with a Regex pattern");
      }
      if (n["content"].get(content) != simdjson::SUCCESS) {
        return malformed("Replace without content");
      }
      step.what = normalizer_step::kind::replace;
      step.pattern = pat;
      step.content = content;
    } else if (type == "Strip") {
      step.what = normalizer_step::kind::strip;
      read_if_present(n, "strip_left", step.left);
      read_if_present(n, "strip_right", step.right);
    } else if (type == "Lowercase") {
      step.what = normalizer_step::kind::lowercase;
    } else {
      return unsupported("normalizer '" + std::string(type) + "'");
    }
    out.push_back(std::move(step));
  }
  return out;
}

result<split_behavior> read_behavior(element e) {
  std::string_view b;
  if (e["behavior"].get(b) != simdjson::SUCCESS) return split_behavior::isolated;
  if (b == "Removed") return split_behavior::removed;
  if (b == "Isolated") return split_behavior::isolated;
  if (b == "MergedWithPrevious") return split_behavior::merged_with_previous;
  if (b == "MergedWithNext") return split_behavior::merged_with_next;
  if (b == "Contiguous") return split_behavior::contiguous;
  return malformed("split behavior '" + std::string(b) + "'");
}

result<pre_step> regex_step(std::string_view regex) {
  pre_step step;
  if (auto p = recognize_pattern(regex)) {
    step.what = pre_step::kind::scanner;
    step.scanner = *p;
    return step;
  }
  auto re = split_regex::compile(regex);
  if (!re) return re.error();
  step.what = pre_step::kind::regex;
  step.re = std::move(*re);
  return step;
}

result<std::vector<pre_step>> read_pre_tokenizers(element pt) {
  auto parts = flatten(pt, "pretokenizers", "pre_tokenizer");
  if (!parts) return parts.error();
  std::vector<pre_step> out;
  for (element p : *parts) {
    std::string_view type;
    read_if_present(p, "type", type);
    pre_step step;
    if (type == "ByteLevel") {
      step.what = pre_step::kind::byte_level;
      step.scanner = pretokenizer::gpt2;
      read_if_present(p, "add_prefix_space", step.add_prefix_space);
      read_if_present(p, "use_regex", step.use_regex);  // absent: true, as the reference reads it
    } else if (type == "Split") {
      auto behavior = read_behavior(p);
      if (!behavior) return behavior.error();
      std::string_view pattern;
      if (p["pattern"]["Regex"].get(pattern) == simdjson::SUCCESS) {
        auto r = regex_step(pattern);
        if (!r) return r.error();
        step = std::move(*r);
      } else if (p["pattern"]["String"].get(pattern) == simdjson::SUCCESS) {
        step.what = pre_step::kind::literal;
        step.literal = pattern;
      } else {
        return malformed("Split without a String or Regex pattern");
      }
      step.behavior = *behavior;
      read_if_present(p, "invert", step.invert);
    } else if (type == "Digits") {
      bool individual = false;
      read_if_present(p, "individual_digits", individual);
      step.what = pre_step::kind::digits;
      step.behavior = individual ? split_behavior::isolated : split_behavior::contiguous;
    } else if (type == "WhitespaceSplit") {
      step.what = pre_step::kind::white_space;
      step.behavior = split_behavior::removed;
    } else if (type == "Whitespace") {
      auto r = regex_step("\\w+|[^\\w\\s]+");
      if (!r) return r.error();
      step = std::move(*r);
      step.behavior = split_behavior::removed;
      step.invert = true;
    } else if (type == "Punctuation") {
      auto behavior = read_behavior(p);
      if (!behavior) return behavior.error();
      auto r = regex_step("[\\p{P}!-/:-@\\[-`{-~]");
      if (!r) return r.error();
      step = std::move(*r);
      step.behavior = *behavior;
    } else if (type == "CharDelimiterSplit") {
      std::string_view d;
      if (p["delimiter"].get(d) != simdjson::SUCCESS) return malformed("CharDelimiterSplit");
      step.what = pre_step::kind::literal;
      step.literal = d;
      step.behavior = split_behavior::removed;
    } else if (type == "Metaspace") {
      std::string_view rep = "\xE2\x96\x81";
      read_if_present(p, "replacement", rep);
      step.what = pre_step::kind::metaspace;
      step.literal = rep;
      std::string_view scheme;
      bool add_prefix = true;
      if (p["prepend_scheme"].get(scheme) == simdjson::SUCCESS) {
        step.scheme = scheme == "first"   ? pre_step::prepend::first
                      : scheme == "never" ? pre_step::prepend::never
                                          : pre_step::prepend::always;
      } else if (p["add_prefix_space"].get(add_prefix) == simdjson::SUCCESS) {
        step.scheme = add_prefix ? pre_step::prepend::always : pre_step::prepend::never;
      }
      read_if_present(p, "split", step.split);
    } else {
      return unsupported("pre_tokenizer '" + std::string(type) + "'");
    }
    out.push_back(std::move(step));
  }
  return out;
}

// What each token decodes to, beyond its spelling: decoders other than ByteLevel.
struct char_decoder {
  std::vector<std::pair<std::string, std::string>> replace;  // in order
  bool byte_fallback = false;
  std::size_t strip_leading = 0;
  bool first_token_spaces = false;  // Metaspace: the first token loses its replacements
  std::string marker;               // Metaspace's replacement
};

result<char_decoder> read_char_decoder(element dec) {
  auto parts = flatten(dec, "decoders", "decoder");
  if (!parts) return parts.error();
  char_decoder d;
  bool fused = false;
  for (element e : *parts) {
    std::string_view type;
    read_if_present(e, "type", type);
    if (type == "Replace") {
      std::string_view pat;
      std::string_view content;
      if (e["pattern"]["String"].get(pat) != simdjson::SUCCESS ||
          e["content"].get(content) != simdjson::SUCCESS) {
        return unsupported("Replace decoder without a String pattern");
      }
      d.replace.emplace_back(pat, content);
    } else if (type == "ByteFallback") {
      d.byte_fallback = true;
    } else if (type == "Fuse") {
      fused = true;
    } else if (type == "Strip") {
      if (!fused) return unsupported("Strip decoder before Fuse (it strips each token)");
      std::string_view content;
      std::uint64_t start = 0;
      std::uint64_t stop = 0;
      read_if_present(e, "content", content);
      read_if_present(e, "start", start);
      read_if_present(e, "stop", stop);
      if (content != " " || stop != 0 || start > 16) {
        return unsupported("Strip decoder other than leading spaces");
      }
      d.strip_leading = start;
    } else if (type == "Metaspace") {
      std::string_view rep = "\xE2\x96\x81";
      read_if_present(e, "replacement", rep);
      d.replace.emplace_back(rep, " ");
      d.marker = rep;
      std::string_view scheme;
      bool add_prefix = true;
      if (e["prepend_scheme"].get(scheme) == simdjson::SUCCESS) {
        d.first_token_spaces = scheme != "never";
      } else if (e["add_prefix_space"].get(add_prefix) == simdjson::SUCCESS) {
        d.first_token_spaces = add_prefix;
      } else {
        d.first_token_spaces = true;
      }
    } else {
      return unsupported("decoder '" + std::string(type) + "'");
    }
  }
  return d;
}

// A char-level token's decoded bytes.
void decoded_bytes(const char_decoder& d, std::string_view spelling, std::string& out) {
  if (d.byte_fallback && spelling.size() == 6 && spelling.starts_with("<0x") &&
      spelling[5] == '>' && std::isxdigit(static_cast<unsigned char>(spelling[3])) != 0 &&
      std::isxdigit(static_cast<unsigned char>(spelling[4])) != 0) {
    out.assign(1, static_cast<char>(std::stoi(std::string(spelling.substr(3, 2)), nullptr, 16)));
    return;
  }
  out.assign(spelling);
  for (const auto& [from, to] : d.replace) {
    if (from.empty()) continue;
    std::string next;
    std::size_t at = 0;
    for (std::size_t hit; (hit = out.find(from, at)) != std::string::npos; at = hit + from.size()) {
      next.append(out, at, hit - at);
      next.append(to);
    }
    next.append(out, at);
    out.swap(next);
  }
}

// Adds to `joiners` each character that `s` holds right before a "▁" (U+2581), other than
// "▁" itself.
void marker_joiners(std::string_view s, std::vector<std::uint32_t>& joiners) {
  constexpr std::string_view kMarker = "\xE2\x96\x81";
  for (std::size_t at = s.find(kMarker, 1); at != std::string_view::npos;
       at = s.find(kMarker, at + 1)) {
    std::size_t b = at - 1;
    while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::uint32_t cp = unicode::decode(p + b, p + at).cp;
    if (cp != 0x2581 && std::find(joiners.begin(), joiners.end(), cp) == joiners.end()) {
      joiners.push_back(cp);
    }
  }
}

// The hand-scanned fast path: [Split(recognized regex) + ByteLevel] or ByteLevel alone,
// no prefix space; the regex's every character is in some match, so Removed with invert
// is Isolated.
bool fast_path(const std::vector<pre_step>& steps, pretokenizer& pre) {
  const auto plain_byte_level = [](const pre_step& s, bool regex) {
    return s.what == pre_step::kind::byte_level && !s.add_prefix_space && s.use_regex == regex;
  };
  if (steps.size() == 1 && plain_byte_level(steps[0], true)) {
    pre = pretokenizer::gpt2;
    return true;
  }
  if (steps.size() != 2 || !plain_byte_level(steps[1], false)) return false;
  const pre_step& split = steps[0];
  const bool isolated = (split.behavior == split_behavior::isolated && !split.invert) ||
                        (split.behavior == split_behavior::removed && split.invert);
  if (split.what != pre_step::kind::scanner || !isolated) return false;
  pre = split.scanner;
  return true;
}

constexpr std::size_t kMaxUnigramPiece = 256;

// A Unigram model's vocabulary: [[spelling, score], ...], the ID an entry's place; its
// unk_id (required: the reference refuses text outside the vocabulary without one).
result<bool> read_unigram_vocab(element model, const char_decoder& decoder, bpe_model& m) {
  simdjson::dom::array vocab;
  if (model["vocab"].get(vocab) != simdjson::SUCCESS) return malformed("model.vocab is not a list");
  std::string bytes;
  double lowest = 0;
  token_id id = 0;
  for (element e : vocab) {
    simdjson::dom::array entry;
    std::string_view spelling;
    double score = 0;
    if (e.get(entry) != simdjson::SUCCESS || entry.size() != 2 ||
        entry.at(0).get(spelling) != simdjson::SUCCESS ||
        entry.at(1).get(score) != simdjson::SUCCESS) {
      return malformed("Unigram vocab entry " + std::to_string(id) + " is not [text, score]");
    }
    // The cut walks as deep as the longest entry at every character: bounded, so that a
    // file cannot make encoding quadratic (SentencePiece's own pieces are 16 characters).
    if (spelling.size() > kMaxUnigramPiece) {
      return unsupported("Unigram vocab entry " + std::to_string(id) + " of " +
                         std::to_string(spelling.size()) + " bytes (at most " +
                         std::to_string(kMaxUnigramPiece) + ")");
    }
    decoded_bytes(decoder, spelling, bytes);
    m.set_key(id, spelling);
    m.set_bytes(id, bytes);
    m.scores.push_back(score);
    lowest = id == 0 ? score : std::min(lowest, score);
    ++id;
  }
  m.ordinary_count = id;
  m.unigram = true;
  m.fuse_unk = true;  // the reference's Unigram always fuses
  m.unk_score = lowest - 10.0;
  std::uint64_t unk = 0;
  if (model["unk_id"].get(unk) != simdjson::SUCCESS) {
    return unsupported("a Unigram model without unk_id (text outside its vocabulary has no ID)");
  }
  if (unk >= id) return malformed("unk_id " + std::to_string(unk) + " is not in the vocabulary");
  m.unk = static_cast<token_id>(unk);
  return true;
}

struct added_entry {
  token_id id;
  std::string_view content;
  bool special;
};

// One entry of added_tokens, with what ocml refuses in it.
result<added_entry> read_added(element a, const bpe_model& m, std::uint64_t id_limit) {
  std::uint64_t id = 0;
  std::string_view content;
  if (a["id"].get(id) != simdjson::SUCCESS || a["content"].get(content) != simdjson::SUCCESS ||
      content.empty()) {
    return malformed("added token without an ID or content");
  }
  if (id >= id_limit) return beyond_entries("added token", content, id, id_limit);
  for (const char* key : {"lstrip", "rstrip", "single_word"}) {
    bool v = false;
    if (a[key].get(v) == simdjson::SUCCESS && v) {
      return unsupported("added token '" + std::string(content) + "' with " + key);
    }
  }
  bool special = false;
  bool normalized = false;
  read_if_present(a, "special", special);
  read_if_present(a, "normalized", normalized);
  if (normalized && !m.normalizers.empty()) {
    return unsupported("added token '" + std::string(content) + "' matched after normalizing");
  }
  return added_entry{static_cast<token_id>(id), content, special};
}

// The configuration read into a model whose tables the cache restored: the added tokens
// (their bytes are in the tables; each must name the ID the tables hold it under).
result<std::shared_ptr<bpe_model>> with_cached_tables(std::shared_ptr<bpe_model> m,
                                                      simdjson::dom::array added, bool has_added,
                                                      bool unigram) {
  if (unigram != m->unigram) return malformed("cached tables of another model type");
  if (unigram) m->fuse_unk = true;  // as read_unigram_vocab sets it
  m->added.clear();
  if (has_added) {
    for (element a : added) {
      auto read = read_added(a, *m, m->spans.size());
      if (!read) return read.error();
      m->added.push_back({std::string(read->content), read->id, read->special});
    }
  }
  m->index_added();
  return m;
}

}  // namespace

result<std::shared_ptr<bpe_model>> load_tokenizer_json(std::string_view text,
                                                       std::shared_ptr<bpe_model> tables) {
  element root;
  if (parse_document(text).get(root) != simdjson::SUCCESS || !root.is_object()) {
    return malformed("not a JSON object");
  }
  const bool cached = tables != nullptr;
  auto m = cached ? std::move(tables) : std::make_shared<bpe_model>();
  m->name = "tokenizer.json";
  element model;
  std::string_view type;
  if (root["model"].get(model) != simdjson::SUCCESS ||
      model["type"].get(type) != simdjson::SUCCESS) {
    return malformed("no model");
  }
  const bool unigram = type == "Unigram";
  if (type != "BPE" && !unigram) return unsupported("model type '" + std::string(type) + "'");
  bool flag = false;
  if (element d; model["dropout"].get(d) == simdjson::SUCCESS && !d.is_null()) {
    double p = 0;
    if (d.get(p) != simdjson::SUCCESS || p != 0) return unsupported("BPE dropout");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    std::string_view v;
    if (model[key].get(v) == simdjson::SUCCESS && !v.empty()) return unsupported(key);
  }
  if (model["ignore_merges"].get(flag) == simdjson::SUCCESS) m->whole_piece_first = flag;
  read_if_present(model, "byte_fallback", m->byte_fallback);
  read_if_present(model, "fuse_unk", m->fuse_unk);

  element norm;
  if (root["normalizer"].get(norm) == simdjson::SUCCESS && !norm.is_null()) {
    auto steps = read_normalizers(norm);
    if (!steps) return steps.error();
    m->normalizers = std::move(*steps);
  }
  element pt;
  if (root["pre_tokenizer"].get(pt) == simdjson::SUCCESS && !pt.is_null()) {
    auto steps = read_pre_tokenizers(pt);
    if (!steps) return steps.error();
    m->pre_steps = std::move(*steps);
  }
  const bool byte_level =
      std::any_of(m->pre_steps.begin(), m->pre_steps.end(),
                  [](const pre_step& s) { return s.what == pre_step::kind::byte_level; });
  m->char_level = !byte_level;
  m->general = !fast_path(m->pre_steps, m->pre);
  if (byte_level && m->byte_fallback)
    return unsupported("byte_fallback with a ByteLevel pre_tokenizer");
  if (byte_level && unigram) return unsupported("a Unigram model with a ByteLevel pre_tokenizer");

  element dec;
  char_decoder decoder;
  const bool has_decoder = root["decoder"].get(dec) == simdjson::SUCCESS && !dec.is_null();
  if (byte_level) {
    std::string_view dt;
    if (has_decoder && (dec["type"].get(dt) != simdjson::SUCCESS || dt != "ByteLevel")) {
      return unsupported("decoder '" + std::string(dt) + "' with a ByteLevel pre_tokenizer");
    }
  } else {
    if (!has_decoder) return unsupported("no decoder for a vocabulary that is not byte-level");
    std::string_view dt;
    if (dec["type"].get(dt) == simdjson::SUCCESS && dt == "ByteLevel") {
      return unsupported("ByteLevel decoder without a ByteLevel pre_tokenizer");
    }
    auto d = read_char_decoder(dec);
    if (!d) return d.error();
    decoder = std::move(*d);
    m->decode_strip_leading = decoder.strip_leading;
    m->decode_first_token_spaces = decoder.first_token_spaces;
    if (!decoder.marker.empty()) m->decode_marker = decoder.marker;
  }

  static const byte_level_map bytes_map;
  std::string bytes;
  simdjson::dom::array added;
  const bool has_added = root["added_tokens"].get(added) == simdjson::SUCCESS;
  if (unigram && !cached) {
    if (auto r = read_unigram_vocab(model, decoder, *m); !r) return r.error();
  }
  if (cached) return with_cached_tables(m, added, has_added, unigram);
  simdjson::dom::object vocab;
  std::size_t entries = m->ordinary_count;  // a Unigram vocabulary's, read above
  if (!unigram) {
    if (model["vocab"].get(vocab) != simdjson::SUCCESS)
      return malformed("model.vocab is not an object");
    entries = vocab.size();
  }
  // The tables are dense up to the largest ID (16 bytes an ID), so an ID is bounded by the
  // number of entries the file holds, plus room for real files' gaps (decision 75).
  const std::uint64_t id_limit = std::min<std::uint64_t>(
      entries + (has_added ? added.size() : 0) + kIdGapAllowance, 0x7FFFFFFF);
  if (!unigram) {  // a BPE vocabulary: {spelling: ID}
    for (auto [key, value] : vocab) {
      std::uint64_t id = 0;
      if (value.get(id) != simdjson::SUCCESS) return malformed("vocab entry without an ID");
      if (id >= id_limit) return beyond_entries("vocab entry", key, id, id_limit);
      if (byte_level) {
        if (!bytes_map.to_bytes(key, bytes)) {
          // Not spelled in the byte map (Command R+'s U+200D, DeepSeek-V3's special tokens):
          // merging never makes it; it decodes to its own UTF-8, as the reference's does.
          bytes.assign(key);
          if (id >= m->unindexed.size()) m->unindexed.resize(id + 1, 0);
          m->unindexed[id] = 1;
        }
      } else {
        decoded_bytes(decoder, key, bytes);
        m->set_key(static_cast<token_id>(id), key);
      }
      m->set_bytes(static_cast<token_id>(id), bytes);
      m->ordinary_count = std::max<std::size_t>(m->ordinary_count, id + 1);
    }
  }
  if (has_added) {
    for (element a : added) {
      auto read = read_added(a, *m, id_limit);
      if (!read) return read.error();
      const auto [id, content, special] = *read;
      // The decoder reads an added token as it reads any token (ByteLevel: mapped back to
      // bytes when every character is in the map, else its own UTF-8).
      if (byte_level) {
        if (!bytes_map.to_bytes(content, bytes)) bytes.assign(content);
      } else {
        decoded_bytes(decoder, content, bytes);
        if (id >= m->key_spans.size() || m->key_spans[id].second == 0) {
          m->set_key(static_cast<token_id>(id), content);
        }
      }
      m->set_bytes(id, bytes);
      m->added.push_back({std::string(content), id, special});
    }
  }
  m->finish();
  if (unigram) {  // read_unigram_vocab found its unk token; no merges
    build_unigram_trie(*m);
    return m;
  }
  if (byte_level) {
    for (int b = 0; b < 256; ++b) {
      if (m->find_bytes(std::string(1, static_cast<char>(b))) == kNoToken) {
        return malformed("no token for byte " + std::to_string(b) + " (not byte-level BPE)");
      }
    }
  }
  if (std::string_view unk; model["unk_token"].get(unk) == simdjson::SUCCESS) {
    m->unk = m->find_bytes(unk);
    if (m->unk == kNoToken) {
      for (const auto& a : m->added) {
        if (a.text == unk) m->unk = a.id;
      }
    }
    if (m->unk == kNoToken) return malformed("unk_token '" + std::string(unk) + "' is not a token");
  }

  simdjson::dom::array merges;
  if (model["merges"].get(merges) != simdjson::SUCCESS)
    return malformed("model.merges is not a list");
  m->merges.reserve(merges.size());
  std::uint32_t rank = 0;
  // The characters some merge joins to a following "▁" (a piece is not cut after them).
  constexpr std::size_t kMaxJoiners = 64;
  std::vector<std::uint32_t> joiners;
  std::string left;
  std::string right;
  for (element e : merges) {
    std::string_view a;
    std::string_view b;
    if (std::string_view ab; e.get(ab) == simdjson::SUCCESS) {
      const auto sp = ab.find(' ');
      if (sp == std::string_view::npos) return malformed("merge '" + std::string(ab) + "'");
      a = ab.substr(0, sp);
      b = ab.substr(sp + 1);
    } else if (simdjson::dom::array pair; e.get(pair) == simdjson::SUCCESS && pair.size() == 2 &&
                                          pair.at(0).get(a) == simdjson::SUCCESS &&
                                          pair.at(1).get(b) == simdjson::SUCCESS) {
    } else {
      return malformed("merge " + std::to_string(rank) + " is neither \"a b\" nor [a, b]");
    }
    if (byte_level) {
      if (!bytes_map.to_bytes(a, left) || !bytes_map.to_bytes(b, right)) {
        return malformed("merge " + std::to_string(rank) + " is not byte-level");
      }
    } else {
      left.assign(a);
      right.assign(b);
    }
    const token_id l = m->find_bytes(left);
    const token_id r = m->find_bytes(right);
    const token_id lr = m->find_bytes(left + right);
    if (!byte_level && joiners.size() <= kMaxJoiners) marker_joiners(left + right, joiners);
    if (l == kNoToken || r == kNoToken || lr == kNoToken) {
      return malformed("merge " + std::to_string(rank) + " names a token the vocabulary lacks");
    }
    // A pair listed twice takes its last rank, as the reference's HashMap of merges does.
    m->merges.assign(static_cast<std::uint64_t>(l) << 32 | r,
                     static_cast<std::uint64_t>(rank) << 32 | lr);
    // A merge whose left part is the unk token or a byte token could join such a symbol
    // to a following "▁" whatever character it stood for: no cutting at words then.
    if (!byte_level && (l == m->unk || (left.size() == 6 && left.starts_with("<0x")))) {
      joiners.resize(kMaxJoiners + 1);
    }
    ++rank;
  }
  // ignore_merges looks a piece up whole: a word of a piece could be found where the piece
  // as a whole is not, so such files are never cut.
  m->split_at_words = !byte_level && !m->whole_piece_first && joiners.size() <= kMaxJoiners;
  std::sort(joiners.begin(), joiners.end());
  m->word_joiners = std::move(joiners);
  return m;
}

}  // namespace ocml::detail
