// SPDX-License-Identifier: Apache-2.0
// Loading a Hugging Face tokenizer.json (BPE, byte-level) into a bpe_model.
#include <simdjson.h>

#include <algorithm>
#include <array>

#include "interchange/simd_json.hpp"
#include "tokens/load.hpp"

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

// The pre-tokenizer: Sequence[Split(regex, Isolated), ByteLevel(use_regex: false)], or
// ByteLevel(use_regex: true) alone (GPT-2's regex).
result<pretokenizer> read_pre_tokenizer(element pt) {
  std::string_view type;
  if (pt["type"].get(type) != simdjson::SUCCESS) return unsupported("pre_tokenizer without a type");
  const auto byte_level_ok = [](element bl, bool want_regex) {
    bool prefix = false;
    bool regex = !want_regex;
    (void)bl["add_prefix_space"].get(prefix);
    (void)bl["use_regex"].get(regex);
    return !prefix && regex == want_regex;
  };
  if (type == "ByteLevel") {
    if (!byte_level_ok(pt, true)) {
      return unsupported("ByteLevel pre_tokenizer with add_prefix_space or without its regex");
    }
    return pretokenizer::gpt2;
  }
  simdjson::dom::array seq;
  if (type != "Sequence" || pt["pretokenizers"].get(seq) != simdjson::SUCCESS || seq.size() != 2) {
    return unsupported("pre_tokenizer '" + std::string(type) +
                       "' (only Split + ByteLevel and ByteLevel are implemented)");
  }
  element split = seq.at(0);
  element bl = seq.at(1);
  std::string_view st;
  std::string_view bt;
  std::string_view regex;
  std::string_view behavior;
  bool invert = false;
  (void)split["invert"].get(invert);
  if (split["type"].get(st) != simdjson::SUCCESS || st != "Split" ||
      bl["type"].get(bt) != simdjson::SUCCESS || bt != "ByteLevel") {
    return unsupported("pre_tokenizer sequence other than Split + ByteLevel");
  }
  if (split["pattern"]["Regex"].get(regex) != simdjson::SUCCESS) {
    return unsupported("Split pre_tokenizer without a Regex pattern");
  }
  if (split["behavior"].get(behavior) != simdjson::SUCCESS || behavior != "Isolated" || invert) {
    return unsupported("Split behavior other than Isolated");
  }
  if (!byte_level_ok(bl, false)) {
    return unsupported("ByteLevel after Split with add_prefix_space or its own regex");
  }
  if (auto p = recognize_pattern(regex)) return *p;
  return unsupported("Split regex is none of o200k, cl100k/Llama 3, Qwen2, GPT-2: " +
                     std::string(regex.substr(0, 80)));
}

}  // namespace

result<std::shared_ptr<bpe_model>> load_tokenizer_json(std::string_view text) {
  element root;
  if (parse_document(text).get(root) != simdjson::SUCCESS || !root.is_object()) {
    return malformed("not a JSON object");
  }
  auto m = std::make_shared<bpe_model>();
  m->name = "tokenizer.json";
  element model;
  std::string_view type;
  if (root["model"].get(model) != simdjson::SUCCESS ||
      model["type"].get(type) != simdjson::SUCCESS) {
    return malformed("no model");
  }
  if (type != "BPE") return unsupported("model type '" + std::string(type) + "'");
  bool flag = false;
  if (model["byte_fallback"].get(flag) == simdjson::SUCCESS && flag) {
    return unsupported("byte_fallback");
  }
  if (element d; model["dropout"].get(d) == simdjson::SUCCESS && !d.is_null()) {
    return unsupported("BPE dropout");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    std::string_view v;
    if (model[key].get(v) == simdjson::SUCCESS && !v.empty()) return unsupported(key);
  }
  if (model["ignore_merges"].get(flag) == simdjson::SUCCESS) m->whole_piece_first = flag;

  element norm;
  if (root["normalizer"].get(norm) == simdjson::SUCCESS && !norm.is_null()) {
    std::string_view nt;
    if (norm["type"].get(nt) != simdjson::SUCCESS || nt != "NFC") {
      return unsupported("normalizer '" + std::string(nt) + "' (only NFC is implemented)");
    }
    m->nfc = true;
  }
  element pt;
  if (root["pre_tokenizer"].get(pt) != simdjson::SUCCESS || pt.is_null()) {
    return unsupported("no pre_tokenizer (byte-level BPE needs one)");
  }
  auto pre = read_pre_tokenizer(pt);
  if (!pre) return pre.error();
  m->pre = *pre;
  element dec;
  if (root["decoder"].get(dec) == simdjson::SUCCESS && !dec.is_null()) {
    std::string_view dt;
    if (dec["type"].get(dt) != simdjson::SUCCESS || dt != "ByteLevel") {
      return unsupported("decoder '" + std::string(dt) + "' (only ByteLevel is implemented)");
    }
  }

  static const byte_level_map bytes_map;
  std::string bytes;
  simdjson::dom::object vocab;
  if (model["vocab"].get(vocab) != simdjson::SUCCESS)
    return malformed("model.vocab is not an object");
  simdjson::dom::array added;
  const bool has_added = root["added_tokens"].get(added) == simdjson::SUCCESS;
  // The tables are dense up to the largest ID (16 bytes an ID), so an ID is bounded by the
  // number of entries the file holds, plus room for real files' gaps (decision 75).
  const std::uint64_t id_limit = std::min<std::uint64_t>(
      vocab.size() + (has_added ? added.size() : 0) + kIdGapAllowance, 0x7FFFFFFF);
  for (auto [key, value] : vocab) {
    std::uint64_t id = 0;
    if (value.get(id) != simdjson::SUCCESS) return malformed("vocab entry without an ID");
    if (id >= id_limit) return beyond_entries("vocab entry", key, id, id_limit);
    if (!bytes_map.to_bytes(key, bytes)) {
      return malformed("vocab entry '" + std::string(key) + "' is not byte-level");
    }
    m->set_bytes(static_cast<token_id>(id), bytes);
    m->ordinary_count = std::max<std::size_t>(m->ordinary_count, id + 1);
  }
  if (has_added) {
    for (element a : added) {
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
      (void)a["special"].get(special);
      (void)a["normalized"].get(normalized);
      if (normalized && m->nfc) {
        return unsupported("added token '" + std::string(content) + "' matched after NFC");
      }
      m->set_bytes(static_cast<token_id>(id), content);
      m->added.push_back({std::string(content), static_cast<token_id>(id), special});
    }
  }
  m->finish();
  for (int b = 0; b < 256; ++b) {
    if (m->find_bytes(std::string(1, static_cast<char>(b))) == kNoToken) {
      return malformed("no token for byte " + std::to_string(b) + " (not byte-level BPE)");
    }
  }

  simdjson::dom::array merges;
  if (model["merges"].get(merges) != simdjson::SUCCESS)
    return malformed("model.merges is not a list");
  m->merges.reserve(merges.size());
  std::uint32_t rank = 0;
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
    if (!bytes_map.to_bytes(a, left) || !bytes_map.to_bytes(b, right)) {
      return malformed("merge " + std::to_string(rank) + " is not byte-level");
    }
    const token_id l = m->find_bytes(left);
    const token_id r = m->find_bytes(right);
    const token_id lr = m->find_bytes(left + right);
    if (l == kNoToken || r == kNoToken || lr == kNoToken) {
      return malformed("merge " + std::to_string(rank) + " names a token the vocabulary lacks");
    }
    m->merges.insert(static_cast<std::uint64_t>(l) << 32 | r,
                     static_cast<std::uint64_t>(rank) << 32 | lr);
    ++rank;
  }
  return m;
}

}  // namespace ocml::detail
