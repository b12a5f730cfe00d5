// ocml_token_speed: the tokenizer's speeds on one machine, for docs/BENCHMARKS.md.
//
//   ocml_token_speed TOKENIZER_FILE ENCODING CORPUS_FILE
//
// Prints, one per line: load time, single-thread encode MB/s over the corpus (documents
// split at blank-line boundaries, as bench/token_speed.sh gives the peer), decode MB/s,
// and the time of one adversarial 1 MB piece (a single letter repeated, one pre-token).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ocml/tokens.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: ocml_token_speed TOKENIZER_FILE ENCODING CORPUS_FILE\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto tok = ocml::tokenizer::from_file(argv[1], {.encoding = argv[2]});
  const double load = seconds_since(t0);
  if (!tok) {
    std::fprintf(stderr, "%s\n", tok.error().to_string().c_str());
    return 1;
  }
  std::ifstream in(argv[3], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string corpus = ss.str();
  std::vector<std::string_view> docs;
  for (std::size_t at = 0; at < corpus.size();) {
    std::size_t end = corpus.find("\n\n", at);
    end = end == std::string::npos ? corpus.size() : end + 2;
    docs.emplace_back(corpus.data() + at, end - at);
    at = end;
  }
  std::printf("load_ms %.1f\n", load * 1e3);
  double best = 1e9;
  std::size_t tokens = 0;
  std::vector<ocml::token_id> all;
  for (int run = 0; run < 3; ++run) {
    tokens = 0;
    all.clear();
    t0 = std::chrono::steady_clock::now();
    for (const auto d : docs) tok->append_ordinary(d, all);
    best = std::min(best, seconds_since(t0));
    tokens = all.size();
  }
  std::printf("encode_MBps %.1f (%zu bytes, %zu tokens, best of 3)\n",
              static_cast<double>(corpus.size()) / best / 1e6, corpus.size(), tokens);
  double dbest = 1e9;
  for (int run = 0; run < 3; ++run) {
    t0 = std::chrono::steady_clock::now();
    const auto text = tok->decode(all);
    dbest = std::min(dbest, seconds_since(t0));
    if (!text || text->size() != corpus.size()) std::fprintf(stderr, "decode mismatch\n");
  }
  std::printf("decode_MBps %.1f\n", static_cast<double>(corpus.size()) / dbest / 1e6);
  const std::string piece(1 << 20, 'x');
  t0 = std::chrono::steady_clock::now();
  const auto ids = tok->encode_ordinary(piece);
  std::printf("adversarial_1MB_ms %.1f (%zu tokens)\n", seconds_since(t0) * 1e3, ids.size());
  return 0;
}
