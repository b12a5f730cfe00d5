// SPDX-License-Identifier: Apache-2.0
// `ocml parse|stream --response-template`: a model's own response template, run on a
// generation (after an optional prompt prefix).
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "io.hpp"
#include "ocml/display.hpp"
#include "ocml/format.hpp"
#include "ocml/json.hpp"
#include "ocml/response.hpp"
#include "ocml/tokens.hpp"
#include "token_ids.hpp"

namespace ocml::cli {

namespace {

// The template, the prefix and the tools a command names; false after printing why not.
struct response_setup {
  response_template tmpl;
  std::string prefix;
  json tools;
  bool has_tools = false;
};

bool read_text(const std::string& path, std::string& out) {
  input in;
  std::string err;
  if (!in.open(path, err)) {
    std::cerr << "E-IO " << err << '\n';
    return false;
  }
  out.assign(in.bytes());
  return true;
}

// The response template of a.response_template. A model's tokenizer_config.json (what -d
// model:PATH names) is read as format::find reads it, as `ocml serve` and `ocml chat` parse
// with it: its own response template, else the curated one its chat template's fingerprint
// picks, else one derived from the chat template and verified by round trip.
result<response_template> load_template(const std::string& path) {
  if (std::filesystem::path(path).filename() == "tokenizer_config.json") {
    auto f = format::find("model:" + path);
    if (f && f->response_template() != nullptr) return *f->response_template();
  }
  return response_template::from_file(path);
}

bool setup(const parse_args& a, response_setup& s) {
  auto t = load_template(a.response_template);
  if (!t) {
    print_diag(t.error());
    return false;
  }
  s.tmpl = std::move(t).value();
  if (!a.prefix_file.empty() && !read_text(a.prefix_file, s.prefix)) return false;
  if (!a.tools_file.empty()) {
    std::string text;
    if (!read_text(a.tools_file, text)) return false;
    auto j = parse_json_text(text);
    if (!j) {
      print_diag(j.error());
      return false;
    }
    // A bare list of tools, or a request that holds one.
    s.tools = j->is_object() && j->contains("tools") ? (*j)["tools"] : *j;
    s.has_tools = true;
  }
  return true;
}

response_parser_options options_of(const parse_args& a, const response_setup& s) {
  return {
      .prefix = s.prefix, .tools = s.has_tools ? &s.tools : nullptr, .lenient = a.decoder.lenient};
}

// Feeds the input as it arrives, `chunk` bytes a push (0: as read).
bool feed(response_parser& p, const parse_args& a) {
  std::string err;
  const bool ok = read_pieces(
      a.file,
      [&](std::string_view piece) {
        if (a.chunk == 0) {
          p.push(piece);
        } else {
          for (std::size_t i = 0; i < piece.size(); i += a.chunk) p.push(piece.substr(i, a.chunk));
        }
        std::cout.flush();
      },
      err);
  if (!ok) std::cerr << "E-IO " << err << '\n';
  return ok;
}

// The parsed message in the command's output shape: the OpenAI or native form of the
// one-message conversation, as a dialect's parse writes it; --raw: the template's own dict.
result<json> output_of(const parse_args& a, const json& m) {
  if (a.raw) return m;
  auto conv = response_to_conversation(m, {.call_id_seed = a.seed});
  if (!conv) return conv.error();
  if (a.openai) return to_openai_json(*conv, {.call_id_seed = a.seed});
  return to_native_json(*conv);
}

// --ids: the generation's IDs decoded to its text with the tokenizer.
bool read_ids_text(const parse_args& a, std::string& text) {
  auto tok = tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
  if (!tok) {
    print_diag(tok.error());
    return false;
  }
  std::string bytes;
  if (!read_text(a.file, bytes)) return false;
  auto ids = read_token_ids(bytes);
  if (!ids) {
    print_diag(ids.error());
    return false;
  }
  auto decoded = tok->decode(*ids);
  if (!decoded) {
    print_diag(decoded.error());
    return false;
  }
  text = std::move(*decoded);
  return true;
}

}  // namespace

// --jsonl: a line is the generation (a JSON string), or an object with "generation" (or
// "text") and optionally its own "prefix" and "tools"; the output line is the message.
int parse_response_lines(const parse_args& a, const response_setup& s) {
  return batch(a.batch, a.file, [&](const batch_line& line, line_result& r) {
    auto j = parse_json_text(line.text);
    if (!j) {
      r.diagnostics.push_back(j.error());
      return;
    }
    response_parser_options o = options_of(a, s);
    std::string generation;
    if (j->is_string()) {
      generation = j->get<std::string>();
    } else if (j->is_object() && ((j->contains("generation") && (*j)["generation"].is_string()) ||
                                  (j->contains("text") && (*j)["text"].is_string()))) {
      generation = j->contains("generation") ? (*j)["generation"].get<std::string>()
                                             : (*j)["text"].get<std::string>();
      if (j->contains("prefix") && (*j)["prefix"].is_string()) {
        o.prefix = (*j)["prefix"].get_ref<const std::string&>();
      }
      if (j->contains("tools")) o.tools = &(*j)["tools"];
    } else {
      r.diagnostics.push_back(make_error(error_code::invalid_json,
                                         "a line must be a JSON string or {\"generation\": ..., "
                                         "\"prefix\": ..., \"tools\": ...}"));
      return;
    }
    response_parser p(s.tmpl, o, nullptr);
    p.push(generation);
    auto m = p.finish();
    r.diagnostics = p.diagnostics();
    if (!m) return;
    auto out = output_of(a, *m);
    if (!out) {
      r.diagnostics.push_back(out.error());
      return;
    }
    r.output = dump_json(*out);
  });
}

int run_parse_response(const parse_args& a) {
  response_setup s;
  if (!setup(a, s)) return 1;
  if (a.batch.jsonl) return parse_response_lines(a, s);
  response_parser p(s.tmpl, options_of(a, s), nullptr);
  bool read = true;
  if (a.ids) {
    std::string text;
    read = read_ids_text(a, text);
    if (!read) return 1;
    p.push(text);
  } else {
    read = feed(p, a);
  }
  auto m = p.finish();
  for (const auto& d : p.diagnostics()) print_diag(d);
  if (!m || !read) return 1;
  auto out = output_of(a, *m);
  if (!out) {
    print_diag(out.error());
    return 1;
  }
  std::cout << dump_json(*out, 2) << '\n';
  return 0;
}

int run_stream_response(const parse_args& a) {
  if (a.events == "ocml") {
    // Refused rather than ignored (issue 24): OpenChatML events come from a dialect's
    // decoder; a model's stream gives its response events, or OpenAI chunks.
    std::cerr << "--events ocml needs a dialect (with a model: the response events, or "
                 "--events openai)\n";
    return 2;
  }
  response_setup s;
  if (!setup(a, s)) return 1;
  const auto line = [](std::string_view text) {
    std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
    std::cout.put('\n');
  };
  openai_chunk_writer openai({}, line);
  response_projection proj([&](const delta& d) { openai(d); }, {.call_id_seed = a.seed});
  const bool chunks = a.events == "openai";
  response_parser p(s.tmpl, options_of(a, s), [&](const response_event& e) {
    if (e.kind == response_event_kind::diagnostic) print_diag(*e.diag);
    if (chunks) {
      proj(e);
    } else {
      line(dump_json(response_event_json(e)));
    }
  });
  bool read = true;
  if (a.ids) {
    // Token IDs, each turned to its text as it comes (never splitting a character).
    read = false;
    auto tok = tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
    std::string bytes;
    if (!tok) {
      print_diag(tok.error());
    } else if (read_text(a.file, bytes)) {
      auto ids = read_token_ids(bytes);
      if (!ids) {
        print_diag(ids.error());
      } else {
        token_text_decoder text(*tok);
        for (const token_id id : *ids) p.push(text.push(id));
        p.push(text.finish());
        read = true;
      }
    }
  } else {
    read = feed(p, a);
  }
  auto m = p.finish();
  if (chunks) {
    openai.finish(!m || !read ? finish_reason::error : proj.natural_finish());
  } else if (m) {
    line(dump_json({{"type", "message"}, {"value", *m}}));
  }
  return m && read ? 0 : 1;
}

int run_validate_response(const std::string& response_template, bool lenient,
                          const std::vector<std::string>& files) {
  auto t = load_template(response_template);
  if (!t) {
    print_diag(t.error());
    return 1;
  }
  int rc = 0;
  const std::vector<std::string> list = files.empty() ? std::vector<std::string>{"-"} : files;
  for (const auto& f : list) {
    response_parser_options o;
    o.lenient = lenient;
    response_parser p(*t, o, nullptr);
    std::string err;
    const bool ok = read_pieces(
        f, [&p](std::string_view piece) { p.push(piece); }, err);
    const auto m = p.finish();
    const std::string prefix = list.size() > 1 ? f + ": " : "";
    for (const auto& d : p.diagnostics()) print_diag(d, prefix);
    if (!ok) std::cerr << "E-IO " << err << '\n';
    if (!ok || !m) rc = 1;
  }
  return rc;
}

int run_view_response(const view_args& a, const std::string& response_template) {
  auto t = load_template(response_template);
  if (!t) {
    print_diag(t.error());
    return 1;
  }
  std::string text;
  if (!read_text(a.file, text)) return 1;
  response_parser_options o;
  o.lenient = a.decoder.lenient;
  response_parser p(*t, o, nullptr);
  p.push(text);
  const auto m = p.finish();
  for (const auto& d : p.diagnostics()) print_diag(d);
  if (!m) return 1;
  auto conv = response_to_conversation(*m);
  if (!conv) {
    print_diag(conv.error());
    return 1;
  }
  std::cout << render_view(*conv, {.debug = a.debug, .color = use_color(a.color)});
  return 0;
}

}  // namespace ocml::cli
