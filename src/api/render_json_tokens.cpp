// SPDX-License-Identifier: Apache-2.0
// render_json_tokens: a JSON conversation, read as render_json reads it, to token IDs.
#include <algorithm>
#include <iterator>

#include "api/render_json.hpp"
#include "api/render_tokens.hpp"
#include "ocml/token_render.hpp"

namespace ocml {

bool json_token_result::ok() const noexcept {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const diagnostic& d) { return d.level == severity::error; });
}

json_token_result render_json_tokens(std::string_view json_text, const json_render_options& given,
                                     const tokenizer& tok,
                                     const token_render_options& token_options) {
  json_token_result r;
  const json_render_options options = detail::request_options_of(json_text, given, &r.diagnostics);
  const std::size_t request_warnings = r.diagnostics.size();  // the request's kwargs
  detail::prepared_json p = detail::prepare_json(json_text, options);
  if (!p.conv) {
    r.diagnostics.push_back(p.conv.error());
    return r;
  }
  if (token_options.training) {
    auto xs = detail::render_examples_of(std::move(*p.conv), options.render, tok, token_options);
    if (xs) {
      r.diagnostics.insert(r.diagnostics.end(), xs->front().diagnostics.begin(),
                           xs->front().diagnostics.end());
      xs->front().diagnostics.clear();
      r.tokens = std::move(xs->front());
      r.more_examples.assign(std::make_move_iterator(xs->begin() + 1),
                             std::make_move_iterator(xs->end()));
    } else {
      r.diagnostics.push_back(xs.error());
    }
  } else if (auto seq = render_tokens(*p.conv, options.render, tok, token_options)) {
    r.diagnostics.insert(r.diagnostics.end(), seq->diagnostics.begin(), seq->diagnostics.end());
    seq->diagnostics.clear();
    r.tokens = std::move(*seq);
  } else {
    r.diagnostics.push_back(seq.error());
  }
  for (std::size_t i = request_warnings; i < r.diagnostics.size(); ++i) {
    p.locate(r.diagnostics[i], json_text);
  }
  return r;
}

}  // namespace ocml
