// SPDX-License-Identifier: Apache-2.0
// ocml: render, parse, stream, validate and view LLM chat markup.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string_view>

#include "chat.hpp"
#include "commands.hpp"
#include "ocml/version.hpp"
#include "options.hpp"
#include "pack_cmd.hpp"
#include "tokens_cmd.hpp"

namespace {

using ocml::cli::add_dialect;
using ocml::cli::add_dialect_option;

void add_batch_flags(CLI::App* app, ocml::cli::batch_args& b) {
  app->add_flag("--jsonl", b.jsonl, "batch: one item per input line, one result per output line");
  app->add_option("-j,--jobs", b.jobs, "batch: worker threads (output stays in input order)")
      ->check(CLI::Range(1u, 256u));
  app->add_option("--failures", b.failures,
                  "batch: write each failed line's {\"line\", \"error\"} object to this file "
                  "instead of the output (which then holds the results alone)")
      ->needs(app->get_option("--jsonl"));
  app->add_flag("--progress", b.progress,
                "batch: a progress line on stderr (lines, MB done of the input, MB/s, "
                "failures) even when stderr is not a terminal, where it is the default")
      ->needs(app->get_option("--jsonl"));
}

void add_decoder_flags(CLI::App* app, ocml::decoder_options& o) {
  app->add_flag("--lenient", o.lenient, "recover from malformed model output (warnings)");
  app->add_flag("--completion", o.completion,
                "input is a completion: it follows the dialect's generation prompt "
                "(<|start|>assistant, <|im_start|>assistant\\n, [AST], <|assistant|>, ...)");
}

// --tokenizer, --encoding and --ids (which needs --tokenizer).
void add_token_flags(CLI::App* app, std::string& tokenizer, std::string& encoding, bool& ids,
                     const std::string& ids_help) {
  app->add_option("--tokenizer", tokenizer, "with --ids: tokenizer.json or .tiktoken file");
  app->add_option("--encoding", encoding,
                  "with --ids and a .tiktoken file: o200k_base, o200k_harmony, cl100k_base");
  app->add_flag("--ids", ids, ids_help)->needs(app->get_option("--tokenizer"));
}

// --response-template (instead of -d; -d model:PATH sets it too), --prefix and --tools.
void add_response_flags(CLI::App* app, CLI::Option* dialect, ocml::cli::parse_args& a) {
  auto* rt = app->add_option("--response-template", a.response_template,
                             "parse with this response template (a spec JSON or a "
                             "tokenizer_config.json) as transformers does, instead of a dialect");
  auto* prefix = app->add_option("--prefix", a.prefix_file,
                                 "with a response template: the prompt the generation continues");
  auto* tools = app->add_option(
      "--tools", a.tools_file,
      "with a response template: the request's tools (a JSON list), to type call arguments");
  dialect->required(false);
  rt->excludes(dialect);
  app->callback([dialect, rt, prefix, tools, &a] {
    if (dialect->count() == 0 && rt->count() == 0) {
      throw CLI::RequiredError("--dialect or --response-template");
    }
    if (a.response_template.empty() && (prefix->count() > 0 || tools->count() > 0 || a.raw)) {
      throw CLI::ValidationError("--prefix/--tools/--raw", "need a response template");
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "chat") {
    return ocml::cli::run_chat_program(argc - 1, argv + 1);
  }
  if (argc > 1 && std::string_view(argv[1]) == "serve") {
    return ocml::cli::run_sibling("ocml-serve", argc - 1, argv + 1);
  }
  CLI::App app{"ocml: render, parse and check LLM chat markup"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("ocml ") + ocml::version_string);

  ocml::cli::render_args ra;
  auto* render = app.add_subcommand("render", "render a JSON conversation to markup");
  auto* render_dialect = add_dialect(render, ra.dialect, &ra.template_file);
  auto* g = render->add_option_group(
      "format",
      "input JSON shape (default: OpenAI chat JSON; native when it has native-only keys)");
  bool f_openai = false, f_native = false, f_harmony = false;
  g->add_flag("--openai", f_openai, "OpenAI chat JSON");
  g->add_flag("--native", f_native, "ocml native JSON");
  g->add_flag("--harmony", f_harmony, "harmony's Conversation JSON");
  g->require_option(0, 1);
  render->add_flag("--add-generation-prompt", ra.add_generation_prompt,
                   "append the dialect's generation prompt (<|start|>assistant, "
                   "<|im_start|>assistant\\n, [AST], <|assistant|>, ...)");
  render->add_flag("--continue-final-message", ra.continue_final_message,
                   "prefill: end right after the last (assistant) message's content");
  render->add_flag("--training", ra.training, "training rendering (<|return|> at the end)");
  render->add_flag("--keep-analysis", ra.keep_analysis,
                   "harmony: keep analysis before a final answer");
  render
      ->add_option("--reasoning-effort", ra.reasoning_effort,
                   "harmony from OpenAI JSON: low, medium or high")
      ->check(CLI::IsMember({"low", "medium", "high"}));
  render->add_option("--current-date", ra.current_date,
                     "harmony from OpenAI JSON: the system message's current date");
  add_token_flags(render, ra.tokenizer, ra.encoding, ra.ids,
                  "token IDs: {\"input_ids\", \"attention_mask\"[, \"labels\" with "
                  "--training]} instead of text");
  render
      ->add_option("--policy", ra.policy,
                   "with --ids: harmony (control tokens one ID each, content never one) or "
                   "hf (the text encoded whole, as apply_chat_template(tokenize=True))")
      ->check(CLI::IsMember({"harmony", "hf"}));
  auto* ids_opt = render->get_option("--ids");
  auto* policy_opt = render->get_option("--policy");
  render
      ->add_option("--max-tokens", ra.max_tokens,
                   "with --ids: at most N tokens a sequence, cut as --truncate says")
      ->needs(ids_opt);
  render
      ->add_option("--truncate", ra.truncate,
                   "with --max-tokens: turns (drop the oldest user turns, keeping the system "
                   "prompt and tools; a warning counts them; refused when the last turn alone "
                   "is too long), left (keep the last N tokens), right (keep the first N)")
      ->check(CLI::IsMember({"turns", "left", "right"}))
      ->needs(render->get_option("--max-tokens"));
  auto* last_turn =
      render
          ->add_flag("--last-turn-only", ra.last_turn_only,
                     "with --ids --training: --train-turns last (every step after the last "
                     "user message)")
          ->needs(ids_opt);
  auto* train_turns =
      render
          ->add_option("--train-turns", ra.train_turns,
                       "with --ids --training: automatic (every turn, in as few examples as "
                       "exactness allows: a line each), per-turn (an example a turn), whole "
                       "(one example, or refused), last (the steps after the last user "
                       "message), keep-reasoning (one example, every turn's reasoning kept)")
          ->check(CLI::IsMember({"automatic", "per-turn", "whole", "last", "keep-reasoning"}))
          ->needs(ids_opt)
          ->excludes(last_turn);
  render
      ->add_flag("--with-text", ra.with_text,
                 "with --ids: each line also holds its \"text\" and, with "
                 "--training, the \"trained\" byte spans of it")
      ->needs(ids_opt);
  auto* trailing = render
                       ->add_flag("--train-trailing-newline", ra.train_trailing_newline,
                                  "with --ids --training: also train the newline after a stop "
                                  "token")
                       ->needs(ids_opt);
  auto* strict_tokens =
      render
          ->add_flag("--strict", ra.strict_tokens,
                     "with --ids and a dialect: a control token the vocabulary lacks is an error")
          ->needs(ids_opt);
  policy_opt->needs(ids_opt);
  auto* tmpl_opt = render->add_option(
      "--template", ra.template_file,
      "render with this chat template (.jinja) as transformers does, instead of a dialect");
  // -d or --template: one of the two.
  render_dialect->required(false);
  tmpl_opt->excludes(render_dialect);
  auto* kwargs_opt =
      render->add_option("--template-kwargs", ra.template_kwargs,
                         "with --template or -d model:PATH: a JSON object of template variables "
                         "(bos_token, enable_thinking…); a conversation's chat_template_kwargs "
                         "win");
  auto* now_opt = render->add_option(
      "--now", ra.now,
      "with --template or -d model:PATH: strftime_now's time, YYYY-MM-DDTHH:MM:SS (default: "
      "$OCML_TEMPLATE_NOW, else the local time)");
  // One option set for a dialect and a model's template: what cannot apply is a usage
  // error, never silently ignored (issue 24).
  render->callback([&ra, render_dialect, tmpl_opt, kwargs_opt, now_opt, policy_opt, strict_tokens,
                    render, ids_opt, last_turn, trailing, train_turns] {
    if (render_dialect->count() == 0 && tmpl_opt->count() == 0) {
      throw CLI::RequiredError("--dialect or --template");
    }
    const bool tmpl = !ra.template_file.empty();
    const auto refuse = [](const std::string& what, const std::string& why) {
      throw CLI::ValidationError(what, why);
    };
    if (tmpl) {
      if (render->get_option("--native")->count() + render->get_option("--harmony")->count() > 0) {
        refuse("--native/--harmony", "a chat template reads OpenAI chat JSON only");
      }
      if (render->get_option("--keep-analysis")->count() > 0 ||
          render->get_option("--current-date")->count() > 0) {
        refuse("--keep-analysis/--current-date",
               "harmony's dialect options: a template takes its variables from "
               "--template-kwargs");
      }
      if (policy_opt->count() > 0 && ra.policy == "harmony") {
        refuse("--policy harmony", "needs a dialect: a template's text is encoded whole (hf)");
      }
      if (strict_tokens->count() > 0) {
        refuse("--strict", "needs a dialect (a template has no control-token list)");
      }
      if (ra.training && ids_opt->count() == 0) {
        refuse("--training", "with a template, needs --ids (labels on the assistant's turns)");
      }
    } else if (kwargs_opt->count() + now_opt->count() > 0) {
      refuse("--template-kwargs/--now", "need --template or -d model:PATH");
    }
    if ((last_turn->count() + trailing->count() + train_turns->count() > 0) && !ra.training) {
      refuse("--last-turn-only/--train-turns/--train-trailing-newline", "need --training");
    }
  });
  render->add_option("file", ra.file, "input file, - for stdin");
  add_batch_flags(render, ra.batch);

  ocml::cli::parse_args pa;
  auto* parse = app.add_subcommand("parse", "parse markup to JSON");
  auto* parse_dialect = add_dialect(parse, pa.decoder.dialect, &pa.response_template);
  auto* pg = parse->add_option_group("format", "output JSON shape (default: native)");
  bool p_native = false;
  pg->add_flag("--openai", pa.openai, "OpenAI chat JSON");
  pg->add_flag("--native", p_native, "ocml native JSON");
  pg->require_option(0, 1);
  add_decoder_flags(parse, pa.decoder);
  parse->add_option("--chunk", pa.chunk, "feed the decoder N bytes at a time")
      ->check(CLI::PositiveNumber);
  parse->add_option("--seed", pa.seed,
                    "reproducible ids for tool calls written without one (default: random, "
                    "OpenAI's call_ shape)");
  add_token_flags(parse, pa.tokenizer, pa.encoding, pa.ids,
                  "input is token IDs (a JSON array or whitespace-separated): structure comes "
                  "only from the dialect's control-token IDs");
  parse->add_option("file", pa.file, "input file, - for stdin");
  add_batch_flags(parse, pa.batch);
  parse->get_option("--ids")->excludes(parse->get_option("--jsonl"));
  auto* raw = parse->add_flag("--raw", pa.raw,
                              "with a response template: print its own dict, as transformers' "
                              "parse_response returns it (default: the native or OpenAI form)");
  raw->excludes(parse->get_option("--openai"));
  add_response_flags(parse, parse_dialect, pa);

  ocml::cli::parse_args sa;
  auto* stream = app.add_subcommand("stream", "decoder events as JSON lines");
  auto* stream_dialect = add_dialect(stream, sa.decoder.dialect, &sa.response_template);
  add_decoder_flags(stream, sa.decoder);
  stream->add_option("--chunk", sa.chunk, "feed the decoder N bytes at a time")
      ->check(CLI::PositiveNumber);
  stream->add_option("--seed", sa.seed,
                     "reproducible ids for tool calls written without one (default: random, "
                     "OpenAI's call_ shape)");
  stream
      ->add_option("--events", sa.events,
                   "project to OpenChatML events (ocml) or OpenAI chat-completion chunks (openai)")
      ->check(CLI::IsMember({"ocml", "openai"}));
  add_token_flags(stream, sa.tokenizer, sa.encoding, sa.ids,
                  "input is token IDs (a JSON array or whitespace-separated, read whole; "
                  "--chunk counts IDs)");
  stream->add_option("file", sa.file, "input file, - for stdin");
  add_response_flags(stream, stream_dialect, sa);

  ocml::decoder_options vo;
  std::vector<std::string> vfiles;
  std::string vmodel;  // -d model:PATH
  auto* validate = app.add_subcommand("validate", "check markup; diagnostics on stderr");
  add_dialect(validate, vo.dialect, &vmodel);
  add_decoder_flags(validate, vo);
  validate->add_option("files", vfiles, "input files (default: stdin)");

  ocml::cli::view_args wa;
  std::string wmodel;  // -d model:PATH
  auto* view = app.add_subcommand("view", "what a user sees (or everything with --debug)");
  add_dialect(view, wa.decoder.dialect, &wmodel);
  add_decoder_flags(view, wa.decoder);
  view->add_flag("--debug", wa.debug,
                 "show every message and part (reasoning, tool calls, tool declarations), "
                 "hidden ones marked");
  view->add_option("--color", wa.color,
                   "colour the labels: auto (on a terminal unless NO_COLOR is set), always, "
                   "never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  view->add_option("file", wa.file, "input file, - for stdin");

  ocml::cli::prepare_args pr;
  auto* prep = app.add_subcommand("prepare", "prepare a chat log for generation (gabgpt)");
  std::string prep_dialect;  // chat-log preparation is GabGPT's alone (ocml/gabgpt.hpp)
  prep->add_option("-d,--dialect", prep_dialect, "markup dialect: gabgpt, the one that defines it")
      ->check(CLI::IsMember({"gabgpt"}))
      ->required();
  prep->add_flag("--think", pr.think, "think mode: end the prompt in <|think|>");
  prep->add_option("--user", pr.user, "the new user message")->required();
  prep->add_option("log", pr.file, "chat log file (default: standard input)");

  ocml::cli::convert_args ca;
  auto* conv = app.add_subcommand("convert", "convert markup from one dialect to another");
  add_dialect_option(conv, "--from", ca.from, "input dialect");
  add_dialect_option(conv, "--to", ca.to,
                     "output dialect, or model:PATH (the model's own chat template)", &ca.to_model);
  conv->add_flag("--lenient", ca.lenient, "read malformed input leniently");
  conv->add_flag("--strict", ca.strict, "fail when the target cannot hold a feature");
  conv->add_option("file", ca.file, "input file, - for stdin");
  add_batch_flags(conv, ca.batch);

  // `ocml chat` is the ocml-chat program (the HTTP client and its TLS libraries load only
  // there, so every other command starts in ~2 ms instead of ~6.5): listed here, run by
  // run_chat_program before parsing.
  app.add_subcommand("chat", "agent loop against an OpenAI-compatible engine (ocml-chat)");
  app.add_subcommand("serve",
                     "OpenAI-compatible chat server in front of a completions engine (ocml-serve)");

  auto* list = app.add_subcommand("dialects", "list the dialects");
  bool list_json = false;
  list->add_flag("--json", list_json,
                 "the registry as JSON: names, aliases, control tokens, stop strings, and "
                 "the features each can hold");

  ocml::cli::formats_args fa;
  auto* formats =
      app.add_subcommand("formats",
                         "the dialects and the curated response templates; --explain PATH: which "
                         "response template a model folder parses with, and why");
  formats->add_flag("--json", fa.as_json, "as JSON");
  formats->add_option("--explain", fa.explain, "a model folder (or its tokenizer_config.json)");
  formats->add_option("--print", fa.print, "a curated template's name: print its JSON");

  auto* tmpl = app.add_subcommand("template", "chat templates: derive a response template");
  std::string derive_path;
  auto* derive =
      tmpl->add_subcommand("derive",
                           "the response template derived from a chat template (a model folder, a "
                           "tokenizer_config.json or a .jinja file), verified by round trip");
  derive->add_option("path", derive_path, "model folder or file")->required();

  ocml::cli::tokens_args ta;
  const auto tokens = ocml::cli::add_tokens_commands(app, ta);
  ocml::cli::pack_args pka;
  auto* pack = ocml::cli::add_pack_command(app, pka);

  bool quiet = false;
  bool verbose = false;
  for (auto* sub : {render, parse, stream, validate, view, conv, derive}) {
    sub->add_flag("-q,--quiet", quiet,
                  "print no warnings (a batch still ends with one count per kind of warning)");
    sub->add_flag("--verbose", verbose,
                  "batch: print every warning (by default the first of each kind, a code and "
                  "a JSON path, and a count at the end)");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  ocml::cli::set_quiet(quiet);
  ocml::cli::set_verbose(verbose);
  if (f_openai) ra.format = ocml::json_format::openai;
  if (f_native) ra.format = ocml::json_format::native;
  if (f_harmony) ra.format = ocml::json_format::harmony;
  ra.reasoning_effort_given = render->get_option("--reasoning-effort")->count() > 0;
  try {
    if (*render) return ocml::cli::run_render(ra);
    if (*parse && !pa.response_template.empty()) return ocml::cli::run_parse_response(pa);
    if (*parse) return ocml::cli::run_parse(pa);
    if (*stream && !sa.response_template.empty()) return ocml::cli::run_stream_response(sa);
    if (*stream) return ocml::cli::run_stream(sa);
    if (*validate && !vmodel.empty()) {
      return ocml::cli::run_validate_response(vmodel, vo.lenient, vfiles);
    }
    if (*validate) return ocml::cli::run_validate(vo, vfiles);
    if (*view && !wmodel.empty()) return ocml::cli::run_view_response(wa, wmodel);
    if (*view) return ocml::cli::run_view(wa);
    if (*prep) return ocml::cli::run_prepare(pr);
    if (*conv) return ocml::cli::run_convert(ca);
    if (*list) return ocml::cli::run_dialects(list_json);
    if (*formats) return ocml::cli::run_formats(fa);
    if (*derive) return ocml::cli::run_template_derive(derive_path, quiet);
    if (*pack) return ocml::cli::run_pack(pka);
    if (*tokens.encode) return ocml::cli::run_tokens_encode(ta);
    if (*tokens.decode) return ocml::cli::run_tokens_decode(ta);
    if (*tokens.check) return ocml::cli::run_tokens_check(ta);
    if (*tokens.extend) return ocml::cli::run_tokens_extend(ta);
  } catch (const std::exception& e) {
    std::cerr << "E-INTERNAL " << e.what() << '\n';
    return 1;
  }
  std::cerr << app.help();
  return 2;
}
