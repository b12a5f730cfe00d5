// SPDX-License-Identifier: Apache-2.0
// Runs a libFuzzer target over files and directories without libFuzzer (plain ctest).
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
// Names the input that aborted (a finding) before the process dies.
std::string g_current;
int g_seed = -1;
void on_abort(int) {
  std::fprintf(stderr, "finding: %s (seed byte %d)\n", g_current.c_str(), g_seed);
  std::_Exit(1);
}
}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGABRT, on_abort);
  std::size_t runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(argv[i])) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else {
      files.emplace_back(argv[i]);
    }
    for (const auto& f : files) {
      g_current = f.string();
      std::ifstream in(f, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
#ifdef OCML_FUZZ_RAW
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++runs;
#else
      // Eight seed bytes (split patterns, dialects, modes) for each corpus file; 0x80 and
      // above also set completion mode in the parse targets.
      for (int seed : {0, 1, 2, 3, 5, 8, 0x81, 0x86}) {
        g_seed = seed;
        std::string input(1, static_cast<char>(seed));
        input += bytes;
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
        ++runs;
      }
#endif
    }
  }
  std::cout << "replayed " << runs << " inputs\n";
  return runs > 0 ? 0 : 1;
}
