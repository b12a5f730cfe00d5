// SPDX-License-Identifier: Apache-2.0
// Writes N seeded OpenAI conversations, one JSON object per line (the corpus of the
// JSONL -> chatml benchmark against Jinja2):
//   ocml_make_openai_jsonl 20000 > /tmp/convs.jsonl
#include <cstdlib>
#include <iostream>

#include "openai_corpus.hpp"

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
  ocml::test::openai_corpus gen(2024);
  for (long i = 0; i < n; ++i) std::cout << gen.conversation().dump() << '\n';
  return 0;
}
