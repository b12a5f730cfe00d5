// SPDX-License-Identifier: Apache-2.0
// The ocml tool's subcommands. Each returns the process exit code:
// 0 success, 1 invalid input (diagnostics on stderr), 2 usage error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batch.hpp"
#include "ocml/decoder.hpp"
#include "ocml/json.hpp"

namespace ocml::cli {

/// Batch mode shared by render, parse and convert.
struct batch_args {
  bool jsonl = false;
  unsigned jobs = 1;
  std::string failures;   ///< --failures FILE: failed lines' error objects go there
  bool progress = false;  ///< --progress: the progress line even when stderr is no terminal
};

struct render_args {
  ocml::dialect dialect = dialect::ocml_2_2;
  json_format format = json_format::automatic;
  bool add_generation_prompt = false;
  bool continue_final_message = false;
  bool training = false;
  bool keep_analysis = false;
  std::string reasoning_effort = "medium";  ///< harmony prompt from OpenAI JSON
  bool reasoning_effort_given = false;      ///< --reasoning-effort was on the command line
  std::string current_date;                 ///< harmony prompt from OpenAI JSON
  std::string file = "-";
  batch_args batch;
  // --ids: token IDs instead of text
  bool ids = false;
  std::string tokenizer;
  std::string encoding;
  std::string policy;  ///< "harmony", "hf", or empty: harmony for a dialect, hf for a template
  std::size_t max_tokens = 0;
  bool last_turn_only = false;
  std::string train_turns = "automatic";
  std::string truncate = "turns";
  bool with_text = false;
  bool train_trailing_newline = false;
  bool strict_tokens = false;
  // --template: the model's own chat template instead of a dialect
  std::string template_file;
  std::string template_kwargs;  ///< a JSON object
  std::string now;              ///< strftime_now's time (default: OCML_TEMPLATE_NOW, else now)
};

struct parse_args {
  decoder_options decoder;
  bool openai = false;
  bool raw = false;       ///< with a response template: its own dict, as transformers returns it
  bool ids = false;       ///< input is token IDs
  std::string tokenizer;  ///< with ids
  std::string encoding;   ///< with ids and a .tiktoken file
  std::string events;     ///< stream: "ocml" or "openai" projection instead of decoder events
  std::size_t chunk = 0;  ///< 0 = all at once
  std::string file = "-";
  batch_args batch;
  std::string response_template;  ///< a response template (spec or tokenizer_config.json)
  std::string prefix_file;        ///< with response_template: the prompt
  std::string tools_file;         ///< with response_template: the request's tools
  /// Reproducible ids for the tool calls the model wrote without one (random otherwise).
  std::optional<std::uint64_t> seed;
};

struct convert_args {
  ocml::dialect from = dialect::ocml_2_2;
  ocml::dialect to = dialect::ocml_2_2;
  std::string to_model;  ///< --to model:PATH: the model's own chat template
  bool lenient = false;
  bool strict = false;
  std::string file = "-";
  batch_args batch;
};

struct view_args {
  decoder_options decoder;
  bool debug = false;
  std::string color = "auto";  ///< never, always, or auto (a terminal, unless NO_COLOR)
  std::string file = "-";
};

/// --quiet: warnings are not printed (a batch still ends with one count per warning code).
void set_quiet(bool quiet);
/// --verbose: a batch prints every warning, not only the first of each kind.
void set_verbose(bool verbose);
/// Runs `fn` on every line of `file` ("-": standard input) as --jsonl [-j N] says.
int batch(const batch_args& b, const std::string& file, const line_fn& fn);
/// Prints a diagnostic on standard error (a warning only without --quiet).
void print_diag(const diagnostic& d, const std::string& prefix = {});

int run_render(const render_args& a);
int run_parse(const parse_args& a);
int run_stream(const parse_args& a);
int run_validate(const decoder_options& d, const std::vector<std::string>& files);
int run_view(const view_args& a);
struct prepare_args {
  bool think = false;
  std::string user;
  std::string file;  ///< empty: the log comes from standard input
};

/// `ocml dialects [--json]`: the registry, as lines or as JSON.
int run_dialects(bool as_json);
struct formats_args {
  bool as_json = false;
  std::string explain;  ///< a model folder: which response template parses it, and why
  std::string print;    ///< a curated template's name: its JSON
};
/// `ocml formats [--json] [--explain PATH] [--print NAME]`.
int run_formats(const formats_args& a);
/// `ocml template derive PATH`: the response template derived from a chat template and
/// verified by round trip (what was found and verified on stderr unless `quiet`).
int run_template_derive(const std::string& path, bool quiet);
/// `ocml parse --response-template`: the message, as transformers' parse_response returns it.
int run_parse_response(const parse_args& a);
/// `validate -d model:PATH`: each file parsed by the model's response template.
int run_validate_response(const std::string& response_template, bool lenient,
                          const std::vector<std::string>& files);
/// `view -d model:PATH`: the parsed generation as a user sees it.
int run_view_response(const view_args& a, const std::string& response_template);
/// --color: auto (a terminal, unless NO_COLOR or TERM=dumb), always or never.
bool use_color(const std::string& flag);
/// `ocml stream --response-template`: the template's events as JSON lines (or OpenAI chunks).
int run_stream_response(const parse_args& a);
int run_prepare(const prepare_args& a);
int run_convert(const convert_args& a);

}  // namespace ocml::cli
