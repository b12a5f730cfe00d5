// SPDX-License-Identifier: Apache-2.0
// ocml-serve: `ocml serve`, an OpenAI-compatible chat server in front of any completions
// engine (its own program, so that only it and ocml-chat load the HTTP library).
#include <signal.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "io.hpp"
#include "ocml/serve.hpp"
#include "ocml/tokens.hpp"
#include "ocml/version.hpp"

namespace {

ocml::chat_server* g_server = nullptr;

// SIGINT and SIGTERM stop the server from a thread of its own (stop() is not
// async-signal-safe): the handler only wakes it.
void stop_on_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread made after this
  std::thread([set] {
    int sig = 0;
    sigwait(&set, &sig);
    if (g_server != nullptr) g_server->stop();
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ocml serve: an OpenAI-compatible chat server in front of a completions engine"};
  app.name("ocml serve");
  app.set_version_flag("--version", std::string("ocml ") + ocml::version_string);
  std::string dialect = "harmony", tokenizer, encoding;
  ocml::serve_options o;
  std::size_t timeout = 600, client_timeout = 30;
  app.add_option("--engine", o.engine.endpoint,
                 "the engine's URL (its /v1/completions is used), e.g. http://127.0.0.1:8080")
      ->required();
  app.add_option("-d,--dialect", dialect,
                 "the format: a dialect (see `ocml dialects`), or model:PATH (a model folder, "
                 "or its tokenizer_config.json)")
      ->capture_default_str();
  app.add_option("--tokenizer", tokenizer,
                 "tokenizer.json or .tiktoken: with a dialect, prompts go to the engine as IDs "
                 "and generation stops on stop-token IDs; usage is counted; /tokenize works");
  app.add_option("--encoding", encoding, "with a .tiktoken --tokenizer: its encoding")
      ->needs(app.get_option("--tokenizer"));
  app.add_option("--host", o.host, "address to listen on")->capture_default_str();
  app.add_option("--port", o.port, "port (0: any free one)")->capture_default_str();
  app.add_option("--model-name", o.model_name,
                 "the name /v1/models lists; requests naming another model get 404 (default: "
                 "the format's name, any model accepted)");
  app.add_option("--engine-model", o.engine.model, "the `model` sent to the engine");
  app.add_option("--api-key", o.engine.api_key, "the engine's bearer token")
      ->envname("OCML_API_KEY");
  app.add_option("--max-concurrency", o.limits.max_concurrency,
                 "chat requests at once; more get 429")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  app.add_option("--max-request-bytes", o.limits.max_request_bytes,
                 "largest request body; larger get 413")
      ->capture_default_str();
  app.add_option("--request-timeout", timeout, "seconds a chat request may run (then 504)")
      ->capture_default_str();
  app.add_option("--client-timeout", client_timeout, "seconds a client may take to send or to read")
      ->capture_default_str();
  app.add_option("--max-tokens", o.limits.default_max_tokens,
                 "max_tokens sent when a request has none")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  o.limits.request_timeout = std::chrono::seconds(timeout);
  o.limits.client_timeout = std::chrono::seconds(client_timeout);
  auto format = ocml::format::find(dialect);
  if (!format) {
    std::cerr << "ocml serve: " << format.error().to_string() << '\n';
    return 2;
  }
  if (format->is_model() && format->response_template() == nullptr) {
    std::cerr << "ocml serve: " << dialect
              << " has no response template, and none was found for its chat template: its "
                 "output cannot be parsed (see `ocml formats --explain "
              << dialect << "`)\n";
    return 2;
  }
  o.format = *format;
  std::optional<ocml::tokenizer> tok;
  if (!tokenizer.empty()) {
    auto t = ocml::tokenizer::from_file(tokenizer, ocml::cli::tokenizer_options_for(encoding));
    if (!t) {
      std::cerr << tokenizer << ": " << t.error().to_string() << '\n';
      return 2;
    }
    tok = std::move(*t);
    o.tokens = &*tok;
  }
  stop_on_signals();
  ocml::chat_server server(std::move(o));
  if (auto port = server.bind(); !port) {
    std::cerr << "ocml serve: " << port.error().to_string() << '\n';
    return 1;
  }
  g_server = &server;
  const bool ok = server.listen();
  g_server = nullptr;
  return ok ? 0 : 1;
}
