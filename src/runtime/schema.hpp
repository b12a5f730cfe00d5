// SPDX-License-Identifier: Apache-2.0
// JSON Schema validation of tool arguments (valijson, compiled once per tool).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml::detail {

/// A compiled JSON Schema.
class compiled_schema {
 public:
  /// Compiles `schema`; E-CALL-SCHEMA when valijson cannot.
  [[nodiscard]] static result<std::shared_ptr<const compiled_schema>> compile(const json& schema);
  ~compiled_schema();
  compiled_schema(const compiled_schema&) = delete;
  compiled_schema& operator=(const compiled_schema&) = delete;

  /// nullopt when `value` satisfies the schema, else the most specific failure:
  /// "at /location: ..." (a JSON pointer into the arguments).
  [[nodiscard]] std::optional<std::string> check(const json& value) const;

 private:
  compiled_schema();
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ocml::detail
