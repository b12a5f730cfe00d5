// SPDX-License-Identifier: Apache-2.0
#include "commands.hpp"

#include <charconv>
#include <cstdlib>

#include <string.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <iostream>
#include <type_traits>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "batch.hpp"
#include "io.hpp"
#include "ocml/convert.hpp"
#include "ocml/display.hpp"
#include "ocml/events.hpp"
#include "ocml/format.hpp"
#include "ocml/gabgpt.hpp"
#include "ocml/harmony.hpp"
#include "ocml/render.hpp"
#include "ocml/template.hpp"
#include "ocml/template_tokens.hpp"
#include "ocml/token_decoder.hpp"
#include "ocml/token_render.hpp"
#include "token_ids.hpp"
#include "tokens_cmd.hpp"

namespace ocml::cli {

namespace {

bool g_quiet = false;    // --quiet: no warnings
bool g_verbose = false;  // --verbose: every warning of a batch

bool any_error(const std::vector<diagnostic>& ds) {
  return std::any_of(ds.begin(), ds.end(),
                     [](const diagnostic& d) { return d.level == severity::error; });
}

// Pushes `bytes` to a decoder `chunk` bytes at a time (all at once when 0).
void push(decoder& d, std::string_view bytes, std::size_t chunk) {
  if (chunk == 0) {
    d.push(bytes);
  } else {
    for (std::size_t i = 0; i < bytes.size(); i += chunk) d.push(bytes.substr(i, chunk));
  }
}
// Feeds all of `bytes` (`chunk` at a time) and finishes.
void feed(decoder& d, std::string_view bytes, std::size_t chunk) {
  push(d, bytes, chunk);
  d.finish();
}
// Feeds `file` to `d` as its pieces arrive (`chunk` bytes a push), writing the events of
// each piece out before reading on; then finishes. False when the input cannot be read.
bool feed_streaming(decoder& d, const std::string& file, std::size_t chunk) {
  std::string err;
  const bool ok = read_pieces(
      file,
      [&](std::string_view piece) {
        push(d, piece, chunk);
        std::cout.flush();
      },
      err);
  if (!ok) std::cerr << "E-IO " << err << '\n';
  d.finish();
  std::cout.flush();
  return ok;
}

bool open_input(input& in, const std::string& file) {
  std::string err;
  if (in.open(file, err)) return true;
  std::cerr << "E-IO " << err << '\n';
  return false;
}

}  // namespace

namespace {

// The library options of a render from the command line's (a request's own options win
// over them inside render_json).
json_render_options json_options_of(const render_args& a) {
  json_render_options jo = json_render_defaults(a.dialect);
  jo.format = a.format;
  jo.reasoning_effort = a.reasoning_effort;
  jo.current_date = a.current_date;
  jo.render.add_generation_prompt = a.add_generation_prompt;
  jo.render.continue_final_message = a.continue_final_message;
  jo.render.training = a.training;
  jo.render.drop_analysis = jo.render.drop_analysis && !a.keep_analysis;
  return jo;
}

// Appends {"text": ...} (a batch output line) to `out`, without building a JSON tree.
void append_text_line(std::string& out, std::string_view text) {
  out += "{\"text\":";
  append_json_quoted(out, text);
  out.push_back('}');
}

// The markup of a batch line, or false with the line's error recorded.
bool markup_line(const batch_line& line, line_result& r, std::string& text) {
  auto m = markup_of_line(line.text);
  if (!m) {
    r.diagnostics.push_back(m.error());
    return false;
  }
  text = std::move(*m);
  return true;
}

}  // namespace

void print_diag(const diagnostic& d, const std::string& prefix) {
  if (g_quiet && d.level == severity::warning) return;
  std::cerr << prefix << d.to_string() << '\n';
}

int batch(const batch_args& b, const std::string& file, const line_fn& fn) {
  int failures = -1;
  if (!b.failures.empty()) {
    failures = ::open(b.failures.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (failures < 0) {
      std::cerr << "E-IO " << b.failures << ": " << std::strerror(errno) << '\n';
      return 1;
    }
  }
  // The progress line: asked for, or by default when stderr is a terminal (not with -q).
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  const run_options options{.quiet = g_quiet,
                            .verbose = g_verbose,
                            .failures_fd = failures,
                            .progress = b.progress || (tty && !g_quiet),
                            .tty = tty};
  int rc = 1;
  if (file == "-" || file.empty()) {
    line_source src(STDIN_FILENO);
    rc = run_lines(src, STDOUT_FILENO, std::cerr, b.jobs, fn, options);
  } else if (input in; open_input(in, file)) {
    line_source src(in.bytes());
    rc = run_lines(src, STDOUT_FILENO, std::cerr, b.jobs, fn, options);
  }
  if (failures >= 0 && ::close(failures) != 0) {
    std::cerr << "E-IO " << b.failures << ": " << std::strerror(errno) << '\n';
    rc = 1;
  }
  return rc;
}

void set_verbose(bool verbose) {
  g_verbose = verbose;
}

void set_quiet(bool quiet) {
  g_quiet = quiet;
}

// "00".."99": two digits a step.
constexpr auto kDigitPairs = [] {
  std::array<char, 200> t{};
  for (std::size_t i = 0; i < 100; ++i) {
    t[2 * i] = static_cast<char>('0' + i / 10);
    t[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

// Writes `v` in decimal at `p`, which has 16 bytes of room; returns its end.
char* put_decimal(char* p, std::int64_t v) {
  if (v < 0) {
    *p++ = '-';
    v = -v;
  }
  auto u = static_cast<std::uint64_t>(v);
  char tmp[40];
  char* b = tmp + 20;  // digits end here; the fixed 16-byte copy stays inside tmp
  while (u >= 100) {
    b -= 2;
    std::memcpy(b, kDigitPairs.data() + 2 * (u % 100), 2);
    u /= 100;
  }
  if (u >= 10) {
    b -= 2;
    std::memcpy(b, kDigitPairs.data() + 2 * u, 2);
  } else {
    *--b = static_cast<char>('0' + u);
  }
  std::memcpy(p, b, 16);
  return p + (tmp + 20 - b);
}

// Appends `"key":[v,…]` to `out`: written in place (token IDs and labels have at most 11
// characters; an attention mask, all ones, is one pattern), then cut to its length.
template <typename T>
void append_array(std::string& out, std::string_view key, const std::vector<T>& v) {
  out += '"';
  out += key;
  out += "\":[";
  const std::size_t at = out.size();
  out.resize(at + v.size() * 12 + 16);
  char* p = out.data() + at;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) *p++ = ',';
    const T x = v[i];
    if (x == 1) {
      *p++ = '1';
    } else if constexpr (std::is_signed_v<T>) {
      if (x == -100) {  // an untrained label
        constexpr std::string_view kUntrained = "-100";
        p = std::copy(kUntrained.begin(), kUntrained.end(), p);
      } else {
        p = put_decimal(p, x);
      }
    } else {
      p = put_decimal(p, static_cast<std::int64_t>(x));
    }
  }
  *p++ = ']';
  out.resize(static_cast<std::size_t>(p - out.data()));
}

// `{"input_ids":[…],"attention_mask":[…][,"labels":[…]][,"text":…[,"trained":[[a,b]…]]]}`.
void write_sequence(const token_sequence& s, bool training, std::string& out) {
  out += '{';
  append_array(out, "input_ids", s.input_ids);
  out += ',';
  append_array(out, "attention_mask", s.attention_mask);
  if (training) {
    out += ',';
    append_array(out, "labels", s.labels);
  }
  if (!s.text.empty()) {
    out += ",\"text\":";
    append_json_quoted(out, s.text);
    if (training) {
      out += ",\"trained\":[";
      for (std::size_t i = 0; i < s.trained.size(); ++i) {
        if (i > 0) out += ',';
        out += '[' + std::to_string(s.trained[i].first) + ',' +
               std::to_string(s.trained[i].second) + ']';
      }
      out += ']';
    }
  }
  out += '}';
}

// The lines of a rendered conversation: one per training example.
void write_ids(json_token_result j, bool training, line_result& r) {
  r.diagnostics = std::move(j.diagnostics);
  if (!j.ok()) return;
  write_sequence(j.tokens, training, r.output);
  for (const token_sequence& x : j.more_examples) {
    r.output += '\n';
    write_sequence(x, training, r.output);
  }
  if (!training) return;
  const auto count = [&r](const token_sequence& x) {
    ++r.examples;
    r.tokens += x.input_ids.size();
    r.trained += static_cast<std::size_t>(
        std::count_if(x.labels.begin(), x.labels.end(), [](std::int32_t l) { return l != -100; }));
  };
  count(j.tokens);
  for (const token_sequence& x : j.more_examples) count(x);
}

// Answers every line of a batch, or the one input, with `one`; the exit code.
int each_input(const render_args& a, const line_fn& one_line) {
  if (a.batch.jsonl) return batch(a.batch, a.file, one_line);
  input in;
  if (!open_input(in, a.file)) return 1;
  line_result r;
  one_line(batch_line{.text = in.bytes()}, r);
  for (const auto& d : r.diagnostics) print_diag(d);
  if (!any_error(r.diagnostics)) std::cout << r.output << '\n';
  return any_error(r.diagnostics) ? 1 : 0;
}

result<tokenizer> load_tokenizer(const render_args& a) {
  return tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
}

token_render_options token_options_of(const render_args& a) {
  return {// A dialect's default is harmony's; a template has only hf (main refuses harmony).
          .policy = a.policy == "hf" || !a.template_file.empty() ? token_policy::hf
                                                                 : token_policy::harmony,
          .training = a.training,
          .turns = a.last_turn_only
                       ? trained_turns::last
                       : trained_turns_of(a.train_turns).value_or(trained_turns::automatic),
          .train_trailing_newline = a.train_trailing_newline,
          .max_tokens = a.max_tokens,
          .truncate = truncation_of(a.truncate).value_or(truncation::turns),
          .strict = a.strict_tokens,
          .keep_text = a.with_text};
}

// `ocml render --ids`: one JSON object of IDs (and labels) per conversation.
int run_render_ids(const render_args& a) {
  auto tok = load_tokenizer(a);
  if (!tok) {
    std::cerr << tok.error().to_string() << '\n';
    return 1;
  }
  const token_render_options to = token_options_of(a);
  return each_input(a, [&](const batch_line& line, line_result& r) {
    const json_render_options jo = json_options_of(a);
    write_ids(render_json_tokens(line.text, jo, *tok, to), a.training, r);
  });
}

// `ocml render --template` or `-d model:PATH`: the model's own chat template (as text, or
// with --ids as IDs and labels), one conversation per line with --jsonl.
int run_render_template(const render_args& a) {
  auto t = model_template::from_file(a.template_file);
  if (!t && a.batch.jsonl && t.error().code == error_code::template_syntax) {
    // A batch answers every line: a template that does not compile is each line's error.
    const diagnostic& d = t.error();
    return batch(a.batch, a.file,
                 [&d](const batch_line&, line_result& r) { r.diagnostics.push_back(d); });
  }
  if (!t) {
    std::cerr << a.template_file << ": " << t.error().to_string() << '\n';
    return 1;
  }
  template_json_options o;
  o.add_generation_prompt = a.add_generation_prompt;
  o.continue_final_message = a.continue_final_message;
  if (!a.template_kwargs.empty()) {
    auto kw = parse_json_text(a.template_kwargs);
    if (!kw || !kw->is_object()) {
      std::cerr << "--template-kwargs: not a JSON object\n";
      return 2;
    }
    o.kwargs = std::move(*kw);
  }
  // --reasoning-effort is the kwarg gpt-oss's template reads (a request's own wins).
  if (a.reasoning_effort_given) o.kwargs["reasoning_effort"] = a.reasoning_effort;
  o.render.now = a.now;
  if (o.render.now.empty()) {
    if (const char* env = std::getenv("OCML_TEMPLATE_NOW")) o.render.now = env;
  }
  if (a.ids) {
    auto tok = load_tokenizer(a);
    if (!tok) {
      std::cerr << tok.error().to_string() << '\n';
      return 1;
    }
    // A model folder's stops include its generation_config.json's end-of-turn tokens.
    auto f = format::find("model:" + a.template_file);
    const template_token_options to{.render = o,
                                    .tokens = token_options_of(a),
                                    .stop = f ? f->stop() : template_stop_strings(*t)};
    return each_input(a, [&](const batch_line& line, line_result& r) {
      write_ids(render_template_tokens(*t, line.text, *tok, to), a.training, r);
    });
  }
  const auto one = [&](std::string_view text, line_result& r) {
    auto out = t->render_json(text, o);
    if (!out) {
      r.diagnostics.push_back(out.error());
      return;
    }
    append_text_line(r.output, *out);
  };
  if (a.batch.jsonl) {
    return batch(a.batch, a.file,
                 [&](const batch_line& line, line_result& r) { one(line.text, r); });
  }
  input in;
  if (!open_input(in, a.file)) return 1;
  auto out = t->render_json(in.bytes(), o);
  if (!out) {
    print_diag(out.error());
    return 1;
  }
  std::cout << *out;
  return 0;
}

int run_render(const render_args& a) {
  if (!a.template_file.empty()) return run_render_template(a);
  if (a.ids) return run_render_ids(a);
  const json_render_options jo = json_options_of(a);
  if (a.batch.jsonl) {
    return batch(a.batch, a.file, [&jo](const batch_line& line, line_result& r) {
      render_json_line(line.text, jo, r.direct, r.diagnostics);
    });
  }
  input in;
  if (!open_input(in, a.file)) return 1;
  const json_render_result r = render_json(in.bytes(), jo);
  for (const auto& d : r.diagnostics) print_diag(d);
  if (!any_error(r.diagnostics)) std::cout << r.text;
  return any_error(r.diagnostics) ? 1 : 0;
}

int run_parse(const parse_args& a) {
  openai_options oo = openai_defaults(a.decoder.dialect);
  oo.call_id_seed = a.seed;
  if (a.ids) {
    auto tok = tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
    if (!tok) {
      std::cerr << tok.error().to_string() << '\n';
      return 1;
    }
    input in;
    if (!open_input(in, a.file)) return 1;
    auto ids = read_token_ids(in.bytes());
    if (!ids) {
      print_diag(ids.error());
      return 1;
    }
    const parse_result r = parse_tokens(*ids, *tok, a.decoder);
    for (const auto& diag : r.diagnostics) print_diag(diag);
    const json out = a.openai ? to_openai_json(plain_meaning(r.conversation, a.decoder.dialect), oo)
                              : to_native_json(r.conversation);
    std::cout << dump_json(out, 2) << '\n';
    return r.ok() ? 0 : 1;
  }
  if (a.batch.jsonl) {
    return batch(a.batch, a.file, [&](const batch_line& line, line_result& r) {
      std::string text;
      if (!markup_line(line, r, text)) return;
      parse_result p = parse(text, a.decoder);
      r.diagnostics = std::move(p.diagnostics);
      r.output =
          dump_json(a.openai ? to_openai_json(plain_meaning(p.conversation, a.decoder.dialect), oo)
                             : to_native_json(p.conversation));
    });
  }
  input in;
  if (!open_input(in, a.file)) return 1;
  collector c;
  decoder_options whole = a.decoder;
  whole.stream_arguments = false;  // the messages only: no call's progress
  decoder d(whole, [&c](const event& e) { c(e); });
  feed(d, in.bytes(), a.chunk);
  const parse_result r = c.take();
  for (const auto& diag : r.diagnostics) print_diag(diag);
  // The OpenAI form says what the conversation means (harmony's preamble as instructions
  // and tools); the native form keeps every message as written.
  const json out = a.openai ? to_openai_json(plain_meaning(r.conversation, a.decoder.dialect), oo)
                            : to_native_json(r.conversation);
  std::cout << dump_json(out, 2) << '\n';
  return r.ok() ? 0 : 1;
}

// Decodes `a`'s input with its dialect's decoder, each event to `sink`: bytes as they arrive
// (`chunk` bytes a push), or with --ids token IDs through the token decoder (`chunk` IDs a
// push; the ID list is read whole). False when the input cannot be read.
bool decode_input(const parse_args& a, const decoder::sink& sink) {
  if (!a.ids) {
    decoder d(a.decoder, sink);
    return feed_streaming(d, a.file, a.chunk);
  }
  auto tok = tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
  if (!tok) {
    print_diag(tok.error());
    return false;
  }
  input in;
  if (!open_input(in, a.file)) return false;
  auto ids = read_token_ids(in.bytes());
  if (!ids) {
    print_diag(ids.error());
    return false;
  }
  token_decoder d(*tok, a.decoder, sink);
  const std::span<const token_id> all(*ids);
  const std::size_t step = a.chunk == 0 ? std::max<std::size_t>(all.size(), 1) : a.chunk;
  for (std::size_t i = 0; i < all.size(); i += step) {
    d.push_tokens(all.subspan(i, std::min(step, all.size() - i)));
    std::cout.flush();
  }
  d.finish();
  return true;
}

// `ocml stream --events`: the decoder's events projected to OpenChatML events or OpenAI
// chunks, one JSON text per line, written as the input arrives.
int run_stream_events(const parse_args& a) {
  const auto line = [](std::string_view json_text) {
    std::cout.write(json_text.data(), static_cast<std::streamsize>(json_text.size()));
    std::cout.put('\n');
  };
  bool error = false;
  openai_chunk_writer openai({}, line);
  ocml_event_writer ocml_events(line);
  projection p({.call_id_seed = a.seed}, [&](const delta& d) {
    if (d.kind == delta_kind::diagnostic) {
      print_diag(*d.diag);
      error = error || d.diag->level == severity::error;
    }
    if (a.events == "openai") {
      openai(d);
    } else {
      ocml_events(d);
    }
  });
  if (!decode_input(a, [&p](const event& e) { p(e); })) error = true;
  p.finish();
  const finish_reason why = error ? finish_reason::error : p.natural_finish();
  if (a.events == "openai") {
    openai.finish(why);
  } else {
    ocml_events.finish(why);
  }
  return error ? 1 : 0;
}

// `ocml stream`: every decoder event as a JSON line, written as the input arrives (the
// decoder holds at most a token prefix, so memory does not grow with the input).
int run_stream(const parse_args& a) {
  if (!a.events.empty()) return run_stream_events(a);
  bool error = false;
  // Text events as whole characters: a chunk boundary inside one is held, not written as
  // two U+FFFD (docs/decisions.md 86).
  whole_characters write([&](const event& e) {
    if (e.kind == event_kind::diagnostic) {
      if (e.diag->level == severity::error) error = true;
      print_diag(*e.diag);
    }
    std::cout << event_json_line(e) << '\n';
  });
  const bool read = decode_input(a, [&write](const event& e) { write(e); });
  write.flush();
  return error || !read ? 1 : 0;
}

int run_validate(const decoder_options& opt, const std::vector<std::string>& files) {
  int rc = 0;
  const std::vector<std::string> list = files.empty() ? std::vector<std::string>{"-"} : files;
  for (const auto& f : list) {
    // Streamed, as `stream` reads: only the decoder's bounded state is held, never the
    // input (issue 23: standard input was held twice).
    std::vector<diagnostic> diags;
    decoder_options quiet = opt;
    quiet.stream_arguments = false;  // diagnostics only
    decoder d(quiet, [&diags](const event& e) {
      if (e.kind == event_kind::diagnostic) diags.push_back(*e.diag);
    });
    std::string err;
    const bool ok = read_pieces(
        f, [&d](std::string_view piece) { push(d, piece, 0); }, err);
    d.finish();
    const std::string prefix = list.size() > 1 ? f + ": " : "";
    for (const auto& diag : diags) print_diag(diag, prefix);
    if (!ok) std::cerr << "E-IO " << err << '\n';
    if (!ok || any_error(diags)) rc = 1;
  }
  return rc;
}

bool use_color(const std::string& flag) {
  // auto: a terminal, unless NO_COLOR is set (no-color.org) or TERM is dumb; the flag wins.
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return flag == "always" || (flag == "auto" && ::isatty(STDOUT_FILENO) != 0 &&
                              (no_color == nullptr || *no_color == '\0') &&
                              !(term != nullptr && std::string_view(term) == "dumb"));
}

int run_view(const view_args& a) {
  input in;
  if (!open_input(in, a.file)) return 1;
  const markup_view v =
      view_markup(in.bytes(), a.decoder, {.debug = a.debug, .color = use_color(a.color)});
  for (const auto& diag : v.diagnostics) print_diag(diag);
  std::cout << v.text;
  return v.ok ? 0 : 1;
}

int run_prepare(const prepare_args& a) {
  input in;
  if (!open_input(in, a.file.empty() ? "-" : a.file)) return 1;
  auto prompt = gabgpt::prepare(in.bytes(), a.user, {.think = a.think});
  if (!prompt) {
    print_diag(prompt.error());
    return 1;
  }
  std::cout << *prompt;
  return 0;
}

// convert --to model:PATH: the input's meaning in OpenAI form, through the model's own chat
// template (the prompt a model would be given for this conversation, with no generation
// prompt).
int convert_to_model(const convert_args& a) {
  auto f = format::find("model:" + a.to_model);
  if (!f) {
    std::cerr << a.to_model << ": " << f.error().to_string() << '\n';
    return 1;
  }
  const auto one = [&](std::string_view text, std::vector<diagnostic>& diags, std::string& out) {
    parse_result p = parse(text, {.dialect = a.from, .lenient = a.lenient});
    diags = std::move(p.diagnostics);
    if (any_error(diags)) return;
    const conversation plain = plain_meaning(p.conversation, a.from);
    // What the model's template cannot write (probed from it): warnings, errors with --strict.
    for (auto& w : unrepresentable_features(plain, f->name(), f->holds())) {
      if (a.strict) w.level = severity::error;
      diags.push_back(std::move(w));
    }
    if (any_error(diags)) return;
    // A transcript converted is a function of its text: calls without ids get seed 0's.
    const json request = to_openai_json(plain, {.call_id_seed = 0});
    auto t = f->render_json(dump_json(request));
    if (!t.ok()) {
      for (auto& d : t.diagnostics) diags.push_back(std::move(d));
      return;
    }
    out = std::move(t.text);
  };
  if (a.batch.jsonl) {
    return batch(a.batch, a.file, [&](const batch_line& line, line_result& r) {
      std::string text;
      if (!markup_line(line, r, text)) return;
      std::string out;
      one(text, r.diagnostics, out);
      if (!any_error(r.diagnostics)) append_text_line(r.output, out);
    });
  }
  input in;
  if (!open_input(in, a.file)) return 1;
  std::vector<diagnostic> diags;
  std::string out;
  one(in.bytes(), diags, out);
  for (const auto& d : diags) print_diag(d);
  if (any_error(diags)) return 1;
  std::cout << out;
  return 0;
}

int run_convert(const convert_args& a) {
  if (!a.to_model.empty()) return convert_to_model(a);
  const convert_options o{.from = a.from, .to = a.to, .lenient = a.lenient, .strict = a.strict};
  if (a.batch.jsonl) {
    return batch(a.batch, a.file, [&o](const batch_line& line, line_result& r) {
      std::string text;
      if (!markup_line(line, r, text)) return;
      convert_result c = convert(text, o);
      r.diagnostics = std::move(c.diagnostics);
      append_text_line(r.output, c.text);
    });
  }
  input in;
  if (!open_input(in, a.file)) return 1;
  const convert_result c = convert(in.bytes(), o);
  for (const auto& d : c.diagnostics) print_diag(d);
  if (!c.ok()) return 1;
  std::cout << c.text;
  return 0;
}

int run_dialects(bool as_json) {
  if (as_json) {
    // The registry, for tests, fuzz lists and the docs' feature tables.
    json out = json::array();
    const auto list = [](auto span) {
      json a = json::array();
      for (const auto x : span) a.push_back(std::string(x));
      return a;
    };
    for (const auto& d : dialects()) {
      out.push_back({{"name", std::string(d.name)},
                     {"summary", std::string(d.summary)},
                     {"aliases", list(d.aliases)},
                     {"tokens", list(d.tokens)},
                     {"stop", list(d.stop)},
                     {"holds", list(dialect_holds(d.id))}});
    }
    std::cout << dump_json(out, 2) << '\n';
    return 0;
  }
  for (const auto& d : dialects()) {
    std::cout << d.name << '\t' << d.summary;
    if (!d.aliases.empty()) {
      std::cout << " (aliases:";
      for (const auto alias : d.aliases) std::cout << ' ' << alias;
      std::cout << ')';
    }
    std::cout << '\n';
  }
  return 0;
}

}  // namespace ocml::cli
