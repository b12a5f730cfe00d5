// SPDX-License-Identifier: Apache-2.0
// Command-line options the ocml and ocml-chat programs share.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

#include "ocml/dialect.hpp"

namespace ocml::cli {

/// `model:PATH`: the tokenizer_config.json PATH is or holds.
inline std::string model_config_path(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return (std::filesystem::path(path) / "tokenizer_config.json").string();
  }
  return path;
}

/// A required option (e.g. "--from") that accepts the names of ocml::dialects(), and, where
/// `model_path` is given, `model:PATH` (a model's own templates: see docs/templates.md).
inline CLI::Option* add_dialect_option(CLI::App* app, const std::string& name, ocml::dialect& d,
                                       const std::string& help, std::string* model_path = nullptr) {
  return app
      ->add_option_function<std::string>(
          name,
          [&d, name, model_path](const std::string& s) {
            if (s.starts_with("model:")) {
              if (model_path == nullptr) {
                throw CLI::ValidationError(name, "this command takes a built-in dialect, not " + s);
              }
              *model_path = model_config_path(s.substr(6));
              return;
            }
            auto p = ocml::parse_dialect(s);
            if (!p) {
              // Say what would have been understood: every name with its aliases.
              std::string known;
              for (const auto& info : ocml::dialects()) {
                known += known.empty() ? "" : ", ";
                known += info.name;
                for (const auto alias : info.aliases) known += "|" + std::string(alias);
              }
              if (model_path != nullptr) known += ", model:PATH";
              throw CLI::ValidationError(name,
                                         "unknown dialect '" + s + "' (known: " + known + ")");
            }
            d = *p;
          },
          help)
      ->required();
}

/// The -d/--dialect option (with `model_path`: also -d model:PATH).
inline CLI::Option* add_dialect(CLI::App* app, ocml::dialect& d,
                                std::string* model_path = nullptr) {
  return add_dialect_option(app, "-d,--dialect", d,
                            model_path == nullptr
                                ? "markup dialect (see `ocml dialects`)"
                                : "markup dialect (see `ocml dialects`), or model:PATH (a "
                                  "tokenizer_config.json with both templates, or its directory)",
                            model_path);
}

}  // namespace ocml::cli
