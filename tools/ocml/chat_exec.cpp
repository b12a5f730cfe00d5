// SPDX-License-Identifier: Apache-2.0
// `ocml chat` and `ocml serve` hand over to the ocml-chat and ocml-serve programs.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "chat.hpp"

namespace ocml::cli {

int run_chat_program(int argc, char** argv) {
  return run_sibling("ocml-chat", argc, argv);
}

int run_sibling(std::string program, int argc, char** argv) {
  std::vector<char*> args;
  args.push_back(program.data());
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  // Beside this executable first (a build tree, an install prefix), then on PATH.
  std::string self(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n > 0) {
    self.resize(static_cast<std::size_t>(n));
    const std::string sibling = self.substr(0, self.rfind('/') + 1) + program;
    ::execv(sibling.c_str(), args.data());
  }
  ::execvp(program.c_str(), args.data());
  std::cerr << "E-IO cannot run " << program << ": " << std::strerror(errno) << '\n';
  return 2;
}

}  // namespace ocml::cli
