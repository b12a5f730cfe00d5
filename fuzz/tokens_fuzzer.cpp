// Tokenizer round trips on arbitrary bytes: the pre-tokenizers' pieces tile the input and
// always advance (all four patterns); decode(encode(x)) == x with and without special
// tokens; the streaming text decoder gives back exactly the bytes.
#include <string>

#include "fuzz_common.hpp"
#include "ocml/tokens.hpp"
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
  return 0;
}
