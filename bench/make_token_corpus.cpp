// SPDX-License-Identifier: Apache-2.0
// ocml_make_token_corpus MB: the seeded token corpus (tests/token_corpus.hpp), documents
// separated by a blank line, about MB megabytes, on standard output.
#include <cstdio>
#include <cstdlib>

#include "token_corpus.hpp"

int main(int argc, char** argv) {
  const std::size_t mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10;
  for (const auto& d : ocml::test::token_corpus(mb << 20, 15)) {
    std::fwrite(d.data(), 1, d.size(), stdout);
    std::fputs("\n\n", stdout);
  }
  return 0;
}
