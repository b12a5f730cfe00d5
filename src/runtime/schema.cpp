// SPDX-License-Identifier: Apache-2.0
#include "runtime/schema.hpp"

// Without this valijson prints and calls abort() on a schema it cannot compile.
#define VALIJSON_USE_EXCEPTIONS 1

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace ocml::detail {

namespace {

// valijson's context ("<root>", "[location]", "[0]") as a JSON pointer ("/location/0").
std::string pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const auto& c : context) {
    if (c == "<root>") continue;
    std::string part = c;
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') {
      part = part.substr(1, part.size() - 2);
    }
    if (part.size() >= 2 && part.front() == '"' && part.back() == '"') {
      part = part.substr(1, part.size() - 2);
    }
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

}  // namespace

struct compiled_schema::impl {
  nlohmann::json document;  // valijson keeps references into the schema document
  valijson::Schema schema;
};

compiled_schema::compiled_schema() : impl_(std::make_unique<impl>()) {}
compiled_schema::~compiled_schema() = default;

result<std::shared_ptr<const compiled_schema>> compiled_schema::compile(const json& schema) {
  std::shared_ptr<compiled_schema> s(new compiled_schema());
  try {
    s->impl_->document = nlohmann::json(schema);  // values already depth-bounded
    valijson::SchemaParser parser;
    const valijson::adapters::NlohmannJsonAdapter adapter(s->impl_->document);
    parser.populateSchema(adapter, s->impl_->schema);
  } catch (const std::exception& e) {
    return make_error(error_code::call_schema, std::string("tool schema: ") + e.what());
  }
  return std::shared_ptr<const compiled_schema>(std::move(s));
}

std::optional<std::string> compiled_schema::check(const json& value) const {
  const nlohmann::json target(value);
  const valijson::adapters::NlohmannJsonAdapter adapter(target);
  valijson::Validator validator;
  valijson::ValidationResults results;
  if (validator.validate(impl_->schema, adapter, &results)) return std::nullopt;
  // The deepest error is the most specific one ("required" at the root says less than
  // "wrong type" at /location/lat).
  valijson::ValidationResults::Error e, best;
  bool any = false;
  while (results.popError(e)) {
    if (!any || e.context.size() > best.context.size()) best = e;
    any = true;
  }
  if (!any) return std::string("the arguments do not match the schema");
  return "at " + pointer(best.context) + ": " + best.description;
}

}  // namespace ocml::detail
