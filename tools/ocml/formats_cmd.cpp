// SPDX-License-Identifier: Apache-2.0
// `ocml formats`: the dialects and the curated response templates, and which response
// template a model folder parses with.
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "ocml/curated.hpp"
#include "ocml/derive.hpp"
#include "ocml/dialect.hpp"
#include "ocml/format.hpp"
#include "ocml/json.hpp"
#include "ocml/template.hpp"

namespace ocml::cli {

namespace {

json strings(const std::vector<std::string>& v) {
  json a = json::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

}  // namespace

int run_formats(const formats_args& a) {
  if (!a.print.empty()) {
    for (const auto& t : curated_templates()) {
      if (t.name == a.print) {
        std::cout << t.text;
        return 0;
      }
    }
    std::cerr << "E-JSON-INPUT no curated response template named '" << a.print
              << "' (ocml formats lists them)\n";
    return 1;
  }
  if (!a.explain.empty()) {
    auto f = format::find(a.explain.starts_with("model:") ? a.explain : "model:" + a.explain);
    if (!f) {
      print_diag(f.error());
      return 1;
    }
    const response_choice c = f->response_source();
    if (a.as_json) {
      std::cout << dump_json(json{{"kind", c.kind}, {"name", c.name}, {"why", c.why}}, 2) << '\n';
    } else {
      std::cout << "response template: " << c.kind << (c.name.empty() ? "" : " " + c.name) << '\n'
                << "why: " << c.why << '\n';
    }
    return c.kind == "none" ? 1 : 0;
  }
  if (a.as_json) {
    json out = {{"dialects", json::array()}, {"curated", json::array()}};
    for (const auto& d : dialects()) out["dialects"].push_back(std::string(d.name));
    for (const auto& t : curated_templates()) {
      out["curated"].push_back({{"name", t.name},
                                {"file", t.file},
                                {"family", t.family},
                                {"source", t.source},
                                {"all", strings(t.all)},
                                {"none", strings(t.none)}});
    }
    std::cout << dump_json(out, 2) << '\n';
    return 0;
  }
  std::cout << "dialects (-d NAME):\n";
  for (const auto& d : dialects()) std::cout << "  " << d.name << '\t' << d.summary << '\n';
  std::cout << "curated response templates (-d model:PATH without its own; first match):\n";
  for (const auto& t : curated_templates()) {
    std::cout << "  " << t.name << '\t' << t.family << "\t[" << curated_reason(t) << "]\n";
  }
  return 0;
}

int run_template_derive(const std::string& path, bool quiet) {
  // (`-d model:PATH` uses the template with the extensions: they read stray prose and
  // broken calls better; the printed one is the portable one when it verifies.)
  namespace fs = std::filesystem;
  fs::path file = path;
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "tokenizer_config.json";
  auto chat = model_template::from_file(file.string());
  if (!chat) {
    print_diag(chat.error());
    return 1;
  }
  auto d = derive_response_template(*chat);
  if (!d) {
    print_diag(d.error());
    return 1;
  }
  if (!quiet) {
    for (const auto& f : d->found) std::cerr << "found: " << f << '\n';
    for (const auto& v : d->verified) std::cerr << "verified: " << v << '\n';
  }
  // What loads in transformers too when it verifies without ocml's extensions; else the
  // template with them, said on stderr.
  if (!d->portable.is_null()) {
    std::cout << dump_json(d->portable, 2) << '\n';
    return 0;
  }
  if (!quiet) {
    std::cerr << "note: this syntax needs ocml's x-ocml-* extensions (transformers' loader "
                 "refuses those keys)\n";
  }
  std::cout << dump_json(d->response_template, 2) << '\n';
  return 0;
}

}  // namespace ocml::cli
