// SPDX-License-Identifier: Apache-2.0
// Writes a synthetic transcript for command-line benchmarks:
//   ocml_make_corpus 64 > /tmp/corpus.txt   (size in MiB)
#include <cstdlib>
#include <iostream>

#include "corpus.hpp"

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  std::cout << ocml::bench::make_transcript(mib << 20);
  return 0;
}
