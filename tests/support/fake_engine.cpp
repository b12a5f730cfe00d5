// SPDX-License-Identifier: Apache-2.0
// ocml_fake_engine SCRIPT PORTFILE [TOKENIZER]: serves the scripted replies of SCRIPT (JSON:
// {"replies":[{"text":..., "chunk":8}], "lifetime_s": 60}; a reply may also say "status",
// "silent", "keep_alive" or "endless": loopback_engine.hpp) on a free loopback port written
// to PORTFILE; exits once every reply was requested (or after lifetime_s), printing each
// request body as one JSON line ("cycle": true serves the replies in turn until lifetime_s,
// for load tests, and prints only the first 64). With TOKENIZER (a tokenizer.json or .tiktoken
// file), each reply's text is also sampled as IDs (control tokens one ID each) for token-mode
// requests.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "loopback_engine.hpp"
#include "ocml/tokens.hpp"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: ocml_fake_engine SCRIPT PORTFILE [TOKENIZER]\n";
    return 2;
  }
  std::optional<ocml::tokenizer> tok;
  if (argc == 4) {
    auto t = ocml::tokenizer::from_file(argv[3], {});
    if (!t) {
      std::cerr << "ocml_fake_engine: " << t.error().to_string() << '\n';
      return 2;
    }
    tok = std::move(*t);
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  const auto script = nlohmann::json::parse(ss.str(), nullptr, false);
  if (script.is_discarded()) {
    std::cerr << "ocml_fake_engine: " << argv[1] << " is not JSON\n";
    return 2;
  }
  std::vector<ocml::test::engine_reply> replies;
  for (const auto& r : script.at("replies")) {
    replies.push_back({.text = r.at("text").get<std::string>(),
                       .chunk = r.value("chunk", std::size_t{8}),
                       .status = r.value("status", 200),
                       .silent = r.value("silent", false),
                       .keep_alive = r.value("keep_alive", false),
                       .endless = r.value("endless", false)});
    if (tok) {
      const auto ids = tok->encode(replies.back().text, ocml::special_tokens::all);
      replies.back().ids.assign(ids.begin(), ids.end());
    }
  }
  // "cycle": true (load tests) serves the replies in turn until lifetime_s.
  const bool cycle = script.value("cycle", false);
  const std::size_t expected = cycle ? SIZE_MAX : replies.size();
  ocml::test::loopback_engine engine(std::move(replies), expected);
  if (cycle) engine.cycle();
  {
    std::ofstream port(std::string(argv[2]) + ".tmp");
    port << engine.port() << '\n';
  }
  std::rename((std::string(argv[2]) + ".tmp").c_str(), argv[2]);
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(script.value("lifetime_s", 60));
  while (engine.served() < expected && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Let the last reply finish ("linger_ms": how long a hostile one may go on).
  std::this_thread::sleep_for(std::chrono::milliseconds(script.value("linger_ms", 300)));
  engine.stop();
  for (const auto& r : engine.requests()) std::cout << r.dump() << '\n';
  return cycle || engine.requests().size() == expected ? 0 : 1;
}
