// SPDX-License-Identifier: Apache-2.0
// Tokenizer round trips on arbitrary bytes: the pre-tokenizers' pieces tile the input and
// always advance (all four patterns); decode(encode(x)) == x with and without special
// tokens; the streaming text decoder gives back exactly the bytes. Then the same bytes as
// token IDs (every dialect's control tokens in the vocabulary, unknown IDs too) through
// push_tokens: the spans tile the text the IDs stand for, whatever the chunking. Input that
// opens with '{' is also loaded as a tokenizer.json.
#include <nlohmann/json.hpp>

#include <string>

#include "fuzz_common.hpp"
#include "ocml/token_decoder.hpp"
#include "ocml/tokens.hpp"
#include "token_support.hpp"
#include "tokens/pretokenize.hpp"

namespace {

std::string base64(std::string_view s) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (const char c : s) {
    acc = acc << 8 | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(k[(acc >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(k[(acc << (6 - bits)) & 63]);
  while (out.size() % 4 != 0) out.push_back('=');
  return out;
}

const ocml::tokenizer& vocabulary(bool cl100k) {
  static const auto make = [](const char* encoding) {
    std::string f;
    int rank = 0;
    for (int b = 0; b < 256; ++b) {
      f += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(rank++) + "\n";
    }
    for (const char* t : {"th", "he", "the", " t", " the", "in", "ing", "aa", "aaaa", "  ", "    ",
                          "\n\n", "<|", "|>", "\xe6\x97", "\xe6\x97\xa5", "er"}) {
      f += base64(t) + " " + std::to_string(rank++) + "\n";
    }
    return *ocml::tokenizer::from_tiktoken(f, {.encoding = encoding});
  };
  static const ocml::tokenizer o200k = make("o200k_base");
  static const ocml::tokenizer cl = make("cl100k_base");
  return cl100k ? cl : o200k;
}

// Bytes as IDs 0..255 (byte-level), and every dialect's control tokens as added tokens
// from 1000 on.
const ocml::tokenizer& control_vocabulary() {
  static const ocml::tokenizer tok = [] {
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) vocab[ocml::test::byte_char(b)] = b;
    nlohmann::json added = nlohmann::json::array();
    int id = 1000;
    for (const auto& d : ocml::dialects()) {
      for (const auto t : d.tokens) {
        bool seen = false;
        for (const auto& a : added) seen = seen || a["content"] == t;
        if (!seen) added.push_back({{"id", id++}, {"content", std::string(t)}, {"special", true}});
      }
    }
    const nlohmann::json j = {
        {"pre_tokenizer",
         {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
        {"added_tokens", added},
        {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}}};
    return *ocml::tokenizer::from_tokenizer_json(j.dump());
  }();
  return tok;
}

// The token-ID decoder on `ids`, pushed `chunk` at a time: the events' kinds, spans, texts.
std::string token_events(const ocml::tokenizer& tok, ocml::dialect d,
                         const std::vector<ocml::token_id>& ids, std::size_t chunk,
                         std::size_t& covered) {
  std::string log;
  covered = 0;
  ocml::token_decoder dec(tok, {.dialect = d, .lenient = true}, [&](const ocml::event& e) {
    if (e.kind == ocml::event_kind::diagnostic) return;
    ocml::fuzz::check(e.span.begin == covered && e.span.end >= e.span.begin);
    covered = e.span.end;
    log += std::to_string(static_cast<int>(e.kind));
    log += ':';
    log.append(e.text);
    log += '|';
  });
  for (std::size_t i = 0; i < ids.size(); i += chunk) {
    dec.push_tokens(
        std::span<const ocml::token_id>(ids.data() + i, std::min(chunk, ids.size() - i)));
  }
  dec.finish();
  return log;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  using P = ocml::detail::pretokenizer;
  for (const P p : {P::o200k, P::cl100k, P::qwen2, P::gpt2}) {
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t n = ocml::detail::next_piece(p, text, at);
      ocml::fuzz::check(n > 0 && at + n <= text.size());
      at += n;
    }
  }
  // Text that opens as JSON is also tried as a tokenizer.json (IDs far past the entries,
  // broken tables): it loads or is refused with a code, and what loads encodes and decodes.
  if (!text.empty() && text[0] == '{') {
    auto loaded = ocml::tokenizer::from_tokenizer_json(text);
    if (loaded) {
      (void)loaded->decode(loaded->encode(text.substr(0, 64), ocml::special_tokens::all));
    } else {
      const auto c = loaded.error().code;
      ocml::fuzz::check(
          c == ocml::error_code::tokenizer_format || c == ocml::error_code::tokenizer_unsupported ||
          c == ocml::error_code::limit_exceeded || c == ocml::error_code::invalid_json);
    }
  }
  const ocml::tokenizer& tok = vocabulary((data[0] & 1) != 0);
  const auto ids = tok.encode_ordinary(text);
  ocml::fuzz::check(tok.decode(ids).value() == text);
  const auto with_specials = tok.encode(text, ocml::special_tokens::all);
  ocml::fuzz::check(tok.decode(with_specials).value() == text);
  ocml::token_text_decoder d(tok);
  std::string streamed;
  for (const auto id : ids) streamed += d.push(id);
  streamed += d.finish();
  ocml::fuzz::check(streamed == text);

  // Token IDs: bytes below 0xF0 are byte tokens; 0xF0..0xFE pick a control token (of this
  // dialect or another), 0xFF an unknown ID.
  const ocml::dialect dialect = ocml::fuzz::dialect_at(data[0]);
  std::vector<ocml::token_id> as_ids;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    as_ids.push_back(b < 0xF0 ? b : (b == 0xFF ? 999999u : 1000u + (b - 0xF0u) * 3u));
  }
  std::size_t whole = 0;
  std::size_t chunked = 0;
  const ocml::tokenizer& controls = control_vocabulary();
  const std::string a =
      token_events(controls, dialect, as_ids, as_ids.empty() ? 1 : as_ids.size(), whole);
  const std::string b = token_events(controls, dialect, as_ids, 1 + data[0] % 5, chunked);
  ocml::fuzz::check(a == b && whole == chunked);
  return 0;
}
