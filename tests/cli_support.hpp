// SPDX-License-Identifier: Apache-2.0
// Runs the `ocml` program of this build (OCML_CLI_PATH) with arguments and standard input.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
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

#include <fcntl.h>
#include <poll.h>
#include <signal.h>

namespace ocml::test {

/// `ocml ARGS` as a co-process: write to its standard input, read lines of its standard
/// output while it runs (a test of streaming: answers before the input is closed).
class coprocess {
 public:
  explicit coprocess(const std::string& args) {
    int in[2];
    int out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      ::close(in[1]);
      ::close(out[0]);
      const std::string cmd = std::string("exec ") + OCML_CLI_PATH + " " + args;
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
    ::signal(SIGPIPE, SIG_IGN);
  }
  ~coprocess() {
    close_input();
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  coprocess(const coprocess&) = delete;
  coprocess& operator=(const coprocess&) = delete;

  void write(std::string_view s) {
    while (!s.empty() && to_ >= 0) {
      const ssize_t n = ::write(to_, s.data(), s.size());
      if (n <= 0) return;
      s.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void close_input() {
    if (to_ >= 0) ::close(to_);
    to_ = -1;
  }
  /// The next line of output (without its newline), or nullopt after `timeout_ms` without
  /// one or at end of output.
  std::optional<std::string> read_line(int timeout_ms = 10000) {
    for (;;) {
      const auto nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return std::nullopt;
      char chunk[4096];
      const ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buf_;
};

}  // namespace ocml::test
