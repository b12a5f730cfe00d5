// Command-line options the ocml and ocml-chat programs share.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "ocml/dialect.hpp"

namespace ocml::cli {

/// A required option (e.g. "--from") that accepts the names of ocml::dialects().
inline CLI::Option* add_dialect_option(CLI::App* app, const std::string& name, ocml::dialect& d,
                                       const std::string& help) {
  return app
      ->add_option_function<std::string>(
          name,
          [&d, name](const std::string& s) {
            auto p = ocml::parse_dialect(s);
            if (!p) {
              // Say what would have been understood: every name with its aliases.
              std::string known;
              for (const auto& info : ocml::dialects()) {
                known += known.empty() ? "" : ", ";
                known += info.name;
                for (const auto alias : info.aliases) known += "|" + std::string(alias);
              }
              throw CLI::ValidationError(name,
                                         "unknown dialect '" + s + "' (known: " + known + ")");
            }
            d = *p;
          },
          help)
      ->required();
}

/// The -d/--dialect option.
inline CLI::Option* add_dialect(CLI::App* app, ocml::dialect& d) {
  return add_dialect_option(app, "-d,--dialect", d, "markup dialect (see `ocml dialects`)");
}

}  // namespace ocml::cli
