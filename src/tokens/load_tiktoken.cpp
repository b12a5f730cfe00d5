// SPDX-License-Identifier: Apache-2.0
// Loading a tiktoken rank file ("base64 rank" per line) with a known encoding's pattern and
// special tokens. tiktoken merges the adjacent pair whose concatenation has the lowest rank
// (bpe_model::rank_by_bytes), so no merge table is built.
#include <string>

#include "tokens/load.hpp"

namespace ocml::detail {

namespace {

diagnostic bad_tiktoken(const std::string& what) {
  return make_error(error_code::tokenizer_format, "tiktoken file: " + what);
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool base64_decode(std::string_view in, std::string& out) {
  out.clear();
  std::uint32_t acc = 0;
  int bits = 0;
  std::size_t i = 0;
  for (; i < in.size() && in[i] != '='; ++i) {
    const int v = base64_value(in[i]);
    if (v < 0) return false;
    acc = acc << 6 | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  for (; i < in.size(); ++i) {
    if (in[i] != '=') return false;
  }
  return !out.empty();
}

struct special {
  const char* text;
  token_id id;
};

void add_specials(bpe_model& m, std::string_view encoding) {
  const auto add = [&m](std::string text, token_id id) {
    m.set_bytes(id, text);
    m.added.push_back({std::move(text), id, true});
  };
  if (encoding == "cl100k_base") {
    for (const special& s : {special{"<|endoftext|>", 100257}, special{"<|fim_prefix|>", 100258},
                             special{"<|fim_middle|>", 100259}, special{"<|fim_suffix|>", 100260},
                             special{"<|endofprompt|>", 100276}}) {
      add(s.text, s.id);
    }
  } else if (encoding == "o200k_base") {
    add("<|endoftext|>", 199999);
    add("<|endofprompt|>", 200018);
  } else {  // o200k_harmony (openai/harmony): 15 named tokens, then reserved ones to 201087
    for (const special& s :
         {special{"<|startoftext|>", 199998}, special{"<|endoftext|>", 199999},
          special{"<|reserved_200000|>", 200000}, special{"<|reserved_200001|>", 200001},
          special{"<|return|>", 200002}, special{"<|constrain|>", 200003},
          special{"<|reserved_200004|>", 200004}, special{"<|channel|>", 200005},
          special{"<|start|>", 200006}, special{"<|end|>", 200007}, special{"<|message|>", 200008},
          special{"<|reserved_200009|>", 200009}, special{"<|reserved_200010|>", 200010},
          special{"<|reserved_200011|>", 200011}, special{"<|call|>", 200012}}) {
      add(s.text, s.id);
    }
    for (token_id id = 200013; id <= 201087; ++id) {
      add("<|reserved_" + std::to_string(id) + "|>", id);
    }
  }
}

}  // namespace

result<std::shared_ptr<bpe_model>> load_tiktoken(std::string_view text, std::string_view encoding) {
  auto m = std::make_shared<bpe_model>();
  std::string bytes;
  std::size_t line_no = 0;
  token_id expected = 0;
  m->spans.reserve(text.size() / 12);
  m->arena.reserve(text.size() / 2);
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::size_t sp = line.find(' ');
    if (sp == std::string_view::npos || !base64_decode(line.substr(0, sp), bytes)) {
      return bad_tiktoken("line " + std::to_string(line_no) + " is not 'base64 rank'");
    }
    token_id rank = 0;
    for (const char c : line.substr(sp + 1)) {
      if (c < '0' || c > '9' || rank > 100000000) {
        return bad_tiktoken("line " + std::to_string(line_no) + ": rank is not a number");
      }
      rank = rank * 10 + static_cast<token_id>(c - '0');
    }
    if (rank != expected) {
      return bad_tiktoken("line " + std::to_string(line_no) + ": rank " + std::to_string(rank) +
                          " where " + std::to_string(expected) + " was expected");
    }
    m->set_bytes(rank, bytes);
    ++expected;
  }
  m->ordinary_count = expected;
  std::string name(encoding);
  if (name.empty()) {
    if (expected == 199998) name = "o200k_harmony";
    if (expected == 100256) name = "cl100k_base";
  }
  if (name == "o200k_base" || name == "o200k_harmony") {
    m->pre = pretokenizer::o200k;
  } else if (name == "cl100k_base") {
    m->pre = pretokenizer::cl100k;
  } else {
    return make_error(
        error_code::tokenizer_unsupported,
        "tiktoken encoding '" + name + "' (known: o200k_base, o200k_harmony, cl100k_base)");
  }
  m->name = name;
  m->whole_piece_first = true;
  add_specials(*m, name);
  m->finish();
  for (int b = 0; b < 256; ++b) {
    if (m->byte_token[static_cast<std::size_t>(b)] == kNoToken) {
      return bad_tiktoken("no rank for byte " + std::to_string(b));
    }
  }
  m->rank_by_bytes = true;
  return m;
}

}  // namespace ocml::detail
