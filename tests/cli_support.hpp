// Runs the `ocml` program of this build (OCML_CLI_PATH) with arguments and standard input.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support.hpp"

namespace ocml::test {

struct run_result {
  int code;
  std::string out;
  std::string err;
};

/// `ocml ARGS <stdin_text`, its exit status, standard output and standard error.
///
///   auto r = run("parse -d chatml -", "<|im_start|>user\nHi<|im_end|>\n");
inline run_result run(const std::string& args, const std::string& stdin_text = "") {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path dir = fs::temp_directory_path() /
                       ("ocml_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  const fs::path in = dir / "in", out = dir / "out", err = dir / "err";
  { std::ofstream(in, std::ios::binary) << stdin_text; }
  const std::string cmd = std::string(OCML_CLI_PATH) + " " + args + " <" + in.string() + " >" +
                          out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  run_result r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_file(out),
               read_file(err)};
  fs::remove_all(dir);
  return r;
}

}  // namespace ocml::test
