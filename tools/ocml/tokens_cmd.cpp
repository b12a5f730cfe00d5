// SPDX-License-Identifier: Apache-2.0
#include "tokens_cmd.hpp"

#include <charconv>
#include <fstream>
#include <iostream>
#include <optional>

#include "io.hpp"
#include "ocml/json.hpp"
#include "ocml/tokens.hpp"
#include "options.hpp"

namespace ocml::cli {

namespace {

void add_common(CLI::App* app, tokens_args& a) {
  app->add_option("--tokenizer", a.tokenizer, "tokenizer.json or .tiktoken file")->required();
  app->add_option("--encoding", a.encoding,
                  ".tiktoken: o200k_base, o200k_harmony or cl100k_base (default: by size)");
  app->add_option("file", a.file, "input file, - for stdin");
}

// Loads the tokenizer and opens the input; false (the error printed) when either fails.
bool prepare(const tokens_args& a, std::optional<tokenizer>& tok, input& in) {
  auto t = tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
  if (!t) {
    std::cerr << t.error().to_string() << '\n';
    return false;
  }
  tok.emplace(std::move(*t));
  std::string err;
  if (!in.open(a.file, err)) {
    std::cerr << "E-IO " << err << '\n';
    return false;
  }
  return true;
}

void write_ids(const std::vector<token_id>& ids, std::string& out) {
  out.push_back('[');
  char digits[16];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append(digits, std::to_chars(digits, digits + sizeof digits, ids[i]).ptr);
  }
  out += "]\n";
}

}  // namespace

tokens_commands add_tokens_commands(CLI::App& app, tokens_args& a) {
  tokens_commands c;
  c.tokens = app.add_subcommand("tokens", "token IDs: encode and decode with a tokenizer file");
  c.tokens->require_subcommand(1);
  c.encode = c.tokens->add_subcommand("encode", "text to a JSON array of token IDs");
  add_common(c.encode, a);
  c.encode
      ->add_option("--special", a.special,
                   "all: special/added tokens in the text are single IDs (transformers' "
                   "default); none: every byte is ordinary text")
      ->check(CLI::IsMember({"all", "none"}));
  c.encode->add_flag("--jsonl", a.jsonl,
                     "each input line is a JSON string; each output line its array of IDs");
  c.check = c.tokens->add_subcommand(
      "check", "which of a dialect's control tokens are single IDs of the tokenizer");
  add_dialect(c.check, a.dialect);
  c.check->add_option("--tokenizer", a.tokenizer, "tokenizer.json or .tiktoken file")->required();
  c.check->add_option("--encoding", a.encoding, ".tiktoken: the encoding");
  c.extend = c.tokens->add_subcommand(
      "extend", "a tokenizer.json with the dialect's missing control tokens added as special");
  add_dialect(c.extend, a.dialect);
  c.extend->add_option("--tokenizer", a.tokenizer, "tokenizer.json file")->required();
  c.extend->add_option("-o,--output", a.output, "where to write it (- for stdout)");
  c.decode = c.tokens->add_subcommand("decode",
                                      "token IDs (a JSON array or whitespace-separated) to text");
  add_common(c.decode, a);
  return c;
}

int run_tokens_encode(const tokens_args& a) {
  std::optional<tokenizer> tok;
  input in;
  if (!prepare(a, tok, in)) return 1;
  const special_tokens allowed = a.special == "none" ? special_tokens::none : special_tokens::all;
  std::string out;
  if (!a.jsonl) {
    write_ids(tok->encode(in.bytes(), allowed), out);
    std::cout << out;
    return 0;
  }
  std::string_view rest = in.bytes();
  std::size_t line_no = 0;
  int rc = 0;
  while (!rest.empty()) {
    ++line_no;
    const std::size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    auto j = parse_json_text(line);
    if (!j || !j->is_string()) {
      std::cerr << "E-JSON-INPUT line " << line_no << ": not a JSON string\n";
      out += "null\n";
      rc = 1;
      continue;
    }
    write_ids(tok->encode(j->get_ref<const std::string&>(), allowed), out);
    if (out.size() > (1 << 20)) {
      std::cout << out;
      out.clear();
    }
  }
  std::cout << out;
  return rc;
}

int run_tokens_decode(const tokens_args& a) {
  std::optional<tokenizer> tok;
  input in;
  if (!prepare(a, tok, in)) return 1;
  auto ids = read_token_ids(in.bytes());
  if (!ids) {
    std::cerr << ids.error().to_string() << '\n';
    return 1;
  }
  auto bytes = tok->decode(*ids);
  if (!bytes) {
    std::cerr << bytes.error().to_string() << '\n';
    return 1;
  }
  std::cout << *bytes;
  return 0;
}

int run_tokens_check(const tokens_args& a) {
  auto tok = tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
  if (!tok) {
    std::cerr << tok.error().to_string() << '\n';
    return 1;
  }
  int missing = 0;
  for (const auto& info : dialects()) {
    if (info.id != a.dialect) continue;
    for (const std::string_view t : info.tokens) {
      if (const auto id = tok->id_of(t)) {
        std::cout << t << " " << *id << '\n';
      } else {
        ++missing;
        std::cout << t << " not one ID (" << tok->encode_ordinary(t).size()
                  << " ordinary tokens)\n";
      }
    }
  }
  return missing == 0 ? 0 : 1;
}

int run_tokens_extend(const tokens_args& a) {
  // The file is read once: loaded as a tokenizer (to know what it has), then edited as JSON.
  input in;
  std::string err;
  if (!in.open(a.tokenizer, err)) {
    std::cerr << "E-IO " << err << '\n';
    return 1;
  }
  auto tok = tokenizer::from_tokenizer_json(in.bytes());
  if (!tok) {
    std::cerr << tok.error().to_string() << '\n';
    return 1;
  }
  auto j = parse_json_text(in.bytes());
  if (!j || !j->is_object()) {
    std::cerr << "E-TOKENIZER-FORMAT " << a.tokenizer
              << ": only a tokenizer.json can be extended\n";
    return 1;
  }
  json& added = (*j)["added_tokens"];
  if (!added.is_array()) added = json::array();
  auto next = static_cast<token_id>(tok->vocab_size());
  for (const auto& info : dialects()) {
    if (info.id != a.dialect) continue;
    for (const std::string_view t : info.tokens) {
      if (tok->id_of(t)) continue;
      added.push_back({{"id", next++},
                       {"content", std::string(t)},
                       {"single_word", false},
                       {"lstrip", false},
                       {"rstrip", false},
                       {"normalized", false},
                       {"special", true}});
      std::cerr << "added " << t << " as " << next - 1 << '\n';
    }
  }
  const std::string text = dump_json(*j, 2) + "\n";
  if (a.output == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream out(a.output, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "E-IO cannot write '" << a.output << "'\n";
    return 1;
  }
  return 0;
}

}  // namespace ocml::cli
