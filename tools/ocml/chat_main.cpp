// SPDX-License-Identifier: Apache-2.0
// ocml-chat: the agent loop of `ocml chat` (its own program, so that only it loads the HTTP
// client and its TLS libraries).
#include <CLI/CLI.hpp>

#include <iostream>

#include "chat.hpp"
#include "ocml/version.hpp"
#include "options.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ocml chat: agent loop against an OpenAI-compatible engine"};
  app.name("ocml chat");
  app.set_version_flag("--version", std::string("ocml ") + ocml::version_string);
  ocml::cli::chat_args ch;
  ocml::cli::add_dialect(&app, ch.dialect, &ch.model_format);
  app.add_option("--endpoint", ch.endpoint, "engine URL, e.g. http://127.0.0.1:8080")->required();
  app.add_option("--model", ch.model, "the `model` of each request");
  app.add_option("--api-key", ch.api_key, "bearer token")->envname("OCML_API_KEY");
  app.add_option("--tool", ch.tools, "NAME=COMMAND: a tool run as a shell command");
  app.add_option("--tools", ch.tools_file, "OpenAI tools JSON (schemas, descriptions)");
  app.add_option("--system", ch.system, "a system message");
  app.add_flag("--show-reasoning", ch.show_reasoning, "print reasoning as well");
  app.add_flag("--think", ch.think, "GabGPT think mode");
  app.add_option("--max-tokens", ch.max_tokens,
                 "tokens one generation may take (sent as max_tokens; 0 sends none, leaving the "
                 "engine's default, which is 16 in vLLM's completions API and cuts answers). "
                 "8192 fits a reasoning model's analysis and answer within most models' context")
      ->capture_default_str();
  app.add_option("--seed", ch.seed,
                 "make the ids of tool calls the model wrote without one reproducible "
                 "(otherwise random per response, OpenAI's call_ shape)");
  app.add_option("--budget", ch.budget,
                 "prompt budget in bytes, or in tokens with --tokenizer (oldest turns dropped)");
  app.add_option("--tokenizer", ch.tokenizer,
                 "tokenizer.json or .tiktoken file: send prompts as token IDs, read sampled IDs "
                 "back (vLLM/SGLang return_token_ids), stop on stop-token IDs");
  app.add_option("--encoding", ch.encoding, "with a .tiktoken --tokenizer: its encoding")
      ->needs(app.get_option("--tokenizer"));
  app.add_option("--reasoning-effort", ch.reasoning_effort,
                 "harmony: the system message's Reasoning: line")
      ->check(CLI::IsMember({"low", "medium", "high"}));
  app.add_option("--max-bytes", ch.max_bytes, "bytes of one completion at most")
      ->capture_default_str();
  app.add_option("--max-tool-calls", ch.max_tool_calls,
                 "tool calls run per round (the rest are answered with an error)")
      ->capture_default_str();
  app.add_option("--max-rounds", ch.max_rounds, "tool rounds per user turn")
      ->check(CLI::Range(1u, 100u));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    return ocml::cli::run_chat(ch);
  } catch (const std::exception& e) {
    std::cerr << "E-INTERNAL " << e.what() << '\n';
    return 1;
  }
}
