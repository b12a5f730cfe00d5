// SPDX-License-Identifier: Apache-2.0
// vLLM's POST /tokenize and /detokenize on the server's tokenizer.
#include "runtime/serve/tokenize.hpp"

#include <vector>

#include "ocml/json.hpp"
#include "runtime/serve/request.hpp"

namespace ocml::serve {

namespace {

constexpr std::size_t kMaxIds = std::size_t{1} << 22;

answer no_tokenizer() {
  return refuse(404, "this server has no tokenizer: start ocml serve with --tokenizer");
}

}  // namespace

answer tokenize(const serve_options& o, std::string_view text) {
  if (o.tokens == nullptr) return no_tokenizer();
  auto body = parse_json_text(text);
  if (!body || !body->is_object()) {
    return refuse(400, "the body must be a JSON object" +
                           (body ? std::string() : ": " + body.error().to_string()));
  }
  std::vector<token_id> ids;
  if (const auto p = body->find("prompt"); p != body->end()) {
    if (!p->is_string()) return refuse(400, "prompt must be a string", "prompt");
    ids = o.tokens->encode(p->get_ref<const std::string&>(), special_tokens::all);
  } else if (body->contains("messages")) {
    const bool gen = body->value("add_generation_prompt", true);
    const json_token_result r =
        o.format.render_json_tokens(text, *o.tokens, {.add_generation_prompt = gen}, {});
    for (const auto& d : r.diagnostics) {
      if (d.level == severity::error) return refuse(400, d.to_string(), "messages");
    }
    ids = r.tokens.input_ids;
  } else {
    return refuse(400, "the body needs `prompt` (a string) or `messages`");
  }
  const json out = {{"count", ids.size()}, {"tokens", ids}};
  return {200, dump_json(out)};
}

answer detokenize(const serve_options& o, std::string_view text) {
  if (o.tokens == nullptr) return no_tokenizer();
  auto body = parse_json_text(text);
  const json* tokens =
      body && body->is_object() && body->contains("tokens") ? &(*body)["tokens"] : nullptr;
  if (tokens == nullptr || !tokens->is_array() || tokens->size() > kMaxIds) {
    return refuse(400, "the body must be {\"tokens\": [IDS]}", "tokens");
  }
  std::vector<token_id> ids;
  ids.reserve(tokens->size());
  for (const auto& t : *tokens) {
    if (!t.is_number_unsigned() || t.get<std::uint64_t>() > 0xffffffffu) {
      return refuse(400, "each token must be a non-negative integer ID", "tokens");
    }
    ids.push_back(static_cast<token_id>(t.get<std::uint64_t>()));
  }
  auto decoded = o.tokens->decode(ids);
  if (!decoded) return refuse(400, decoded.error().to_string(), "tokens");
  const json out = {{"prompt", *decoded}};
  return {200, dump_json(out)};
}

}  // namespace ocml::serve
