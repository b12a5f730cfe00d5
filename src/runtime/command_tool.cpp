// SPDX-License-Identifier: Apache-2.0
// A tool that is an external command: JSON arguments on stdin, one JSON value on stdout.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <ctime>

#include "core/utf8.hpp"
#include "interchange/json_util.hpp"
#include "ocml/tools.hpp"

extern char** environ;

namespace ocml {

namespace {

// A pipe whose ends close themselves.
struct pipe_pair {
  int fd[2] = {-1, -1};
  pipe_pair() {
    if (::pipe2(fd, O_CLOEXEC) != 0) fd[0] = fd[1] = -1;
  }
  ~pipe_pair() {
    close_end(0);
    close_end(1);
  }
  pipe_pair(const pipe_pair&) = delete;
  pipe_pair& operator=(const pipe_pair&) = delete;
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  [[nodiscard]] bool ok() const { return fd[0] >= 0 && fd[1] >= 0; }
};

// The start of what a command printed, fit for a message: cut on a character boundary,
// bytes that are not UTF-8 as U+FFFD.
std::string tail_excerpt(const std::string& s) {
  constexpr std::size_t kMax = 400;
  const std::size_t keep = detail::utf8_cut(s, kMax);
  std::string out = detail::valid_utf8(std::string_view(s).substr(0, keep));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (keep < s.size()) out += "...";
  return out;
}

// Blocks SIGPIPE in this thread while it lives (writing to a command that exited must be
// EPIPE, not the death of the process); a SIGPIPE raised meanwhile is consumed.
class sigpipe_guard {
 public:
  sigpipe_guard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~sigpipe_guard() {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  sigpipe_guard(const sigpipe_guard&) = delete;
  sigpipe_guard& operator=(const sigpipe_guard&) = delete;

 private:
  sigset_t pipe_{}, old_{};
};

result<json> run_command(const std::string& command, const command_options& opt,
                         const json& arguments, const tool_context& ctx) {
  sigpipe_guard guard;
  pipe_pair in, out, err;
  if (!in.ok() || !out.ok() || !err.ok()) {
    return make_error(error_code::tool_failed, "cannot create pipes for the command");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a kill reaches its children too
  std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
  std::array<char*, 4> argv{sh.data(), dash_c.data(), cmd.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return make_error(error_code::tool_failed, "cannot start /bin/sh: errno " + std::to_string(rc));
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  for (const int fd : {in.fd[1], out.fd[0], err.fd[0]}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  const std::string input = dump_json(arguments) + "\n";
  std::size_t written = 0;
  std::string stdout_text, stderr_text;
  bool killed = false, too_long = false;
  const auto kill_group = [&] {
    if (!killed) ::kill(-pid, SIGKILL);
    killed = true;
  };
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    if (ctx.cancelled() || too_long) kill_group();
    std::array<pollfd, 3> fds{};
    nfds_t n = 0;
    if (in.fd[1] >= 0) fds[n++] = {in.fd[1], POLLOUT, 0};
    if (out.fd[0] >= 0) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[n++] = {err.fd[0], POLLIN, 0};
    if (::poll(fds.data(), n, 20) < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      const int fd = fds[i].fd;
      if (fd == in.fd[1]) {
        const ssize_t w = ::write(fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if ((w < 0 && errno != EAGAIN) || written == input.size()) in.close_end(1);
        continue;
      }
      std::array<char, 65536> buf{};
      const ssize_t r = ::read(fd, buf.data(), buf.size());
      if (r > 0) {
        std::string& sink = fd == out.fd[0] ? stdout_text : stderr_text;
        if (sink.size() < opt.max_output) sink.append(buf.data(), static_cast<std::size_t>(r));
        if (fd == out.fd[0] && stdout_text.size() >= opt.max_output) too_long = true;
      } else if (r == 0 || errno != EAGAIN) {
        (fd == out.fd[0] ? out : err).close_end(0);
      }
    }
  }
  in.close_end(1);
  int status = 0;
  for (;;) {  // a command may close its output and go on running: stay cancellable
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (ctx.cancelled()) kill_group();
    ::poll(nullptr, 0, 10);
  }
  if (killed && ctx.cancelled()) return make_error(error_code::tool_cancelled, "command killed");
  if (too_long) {
    return make_error(error_code::tool_failed,
                      "command printed more than " + std::to_string(opt.max_output) + " bytes");
  }
  if (WIFSIGNALED(status)) {
    return make_error(error_code::tool_failed,
                      "command killed by signal " + std::to_string(WTERMSIG(status)) +
                          (stderr_text.empty() ? "" : ": " + tail_excerpt(stderr_text)));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return make_error(error_code::tool_failed,
                      "command exited with status " + std::to_string(WEXITSTATUS(status)) +
                          (stderr_text.empty() ? "" : ": " + tail_excerpt(stderr_text)));
  }
  auto parsed = detail::try_parse_json(stdout_text);
  if (!parsed) {
    return make_error(error_code::tool_failed,
                      "command printed invalid JSON: " + tail_excerpt(stdout_text));
  }
  return std::move(*parsed);
}

}  // namespace

tool_handler command_tool(std::string command, command_options options) {
  return [command = std::move(command), options](const json& args, const tool_context& ctx) {
    return run_command(command, options, args, ctx);
  };
}

}  // namespace ocml
