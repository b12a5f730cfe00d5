// SPDX-License-Identifier: Apache-2.0
// token_decoder: token IDs into a dialect's byte decoder. Control-token IDs go in as they
// are spelled; the bytes of ordinary IDs go in as content: in the 2.x family (harmony too)
// escaped as the renderer escapes a body, so that text spelling a control token stays
// text. Escape bytes are counted out of the events' spans again.
#include <algorithm>

#include "core/forge.hpp"
#include "dialects/registry.hpp"
#include "ocml/render.hpp"
#include "ocml/token_decoder.hpp"
#include "tokens/model.hpp"

namespace ocml {

struct token_decoder::impl {
  const tokenizer& tok;
  decoder_options opt;
  decoder::sink sink;
  std::vector<token_id> controls;  // the dialect's control tokens' IDs
  std::span<const std::string_view> spellings;
  std::string_view dialect;
  bool escapes = false;
  std::string pending;                // ordinary bytes not yet given to the decoder
  std::vector<std::size_t> inserted;  // decoder offsets of escape bytes ocml added
  std::size_t fed = 0;                // bytes given to the decoder
  std::size_t index = 0;              // tokens seen
  bool warned_spelling = false;
  decoder inner;

  // Harmony's inner decoder reads the 2.x escapes that ordinary bytes are written with.
  static decoder_options with_escapes(decoder_options o) {
    o.openchatml_escapes = true;
    return o;
  }

  impl(const tokenizer& t, const decoder_options& o, decoder::sink s)
      : tok(t),
        opt(o),
        sink(std::move(s)),
        inner(with_escapes(o), [this](const event& e) { forward(e); }) {
    const auto& codec = detail::codec_of(o.dialect);
    spellings = codec.info.tokens;
    dialect = codec.info.name;
    escapes = codec.family == "openchatml";
    for (const std::string_view t2 : spellings) {
      if (const auto id = tok.id_of(t2)) controls.push_back(*id);
    }
  }

  // A decoder offset as an offset in the text the IDs stand for.
  [[nodiscard]] std::size_t text_offset(std::size_t o) const {
    return o - static_cast<std::size_t>(std::lower_bound(inserted.begin(), inserted.end(), o) -
                                        inserted.begin());
  }

  void forward(const event& e) {
    if (inserted.empty()) {
      sink(e);
      return;
    }
    event m = e;
    m.offset = text_offset(e.offset);
    m.span = {text_offset(e.span.begin), text_offset(e.span.end)};
    sink(m);
  }

  void feed(std::string_view piece, std::string_view escaped) {
    // escape_body only inserts bytes: walk both to find where.
    for (std::size_t i = 0, j = 0; j < escaped.size(); ++j) {
      if (i < piece.size() && piece[i] == escaped[j]) {
        ++i;
      } else {
        inserted.push_back(fed + j);
      }
    }
    inner.push(escaped);
    fed += escaped.size();
  }

  // Gives pending bytes to the decoder: all of them when `all`, else what no later byte
  // can change the escaping of (up to a '<' that may begin a control token's spelling).
  void flush(bool all) {
    if (pending.empty()) return;
    if (!escapes) {
      if (!warned_spelling) {
        if (const auto t = detail::spelled_token(pending, spellings); !t.empty()) {
          warned_spelling = true;
          report(error_code::unexpected_token, severity::warning,
                 "ordinary tokens spell '" + std::string(t) + "', which " + std::string(dialect) +
                     " has no escape for: read as markup");
        }
      }
      if (all || pending.size() > 64) {  // a spelling may straddle tokens: keep a tail
        const std::size_t keep = all ? 0 : 32;
        const std::string_view out(pending.data(), pending.size() - keep);
        inner.push(out);
        fed += out.size();
        pending.erase(0, out.size());
      }
      return;
    }
    std::size_t cut = pending.size();
    if (!all) {
      const std::size_t lt = pending.rfind('<');
      if (lt != std::string::npos && pending.size() - lt <= 16) cut = lt;
    }
    if (cut == 0) return;
    const std::string head = pending.substr(0, cut);
    feed(head, escape_body(head));
    pending.erase(0, cut);
  }

  void report(error_code code, severity level, std::string message) {
    diagnostic d = make_error(code, std::move(message));
    d.level = level;
    d.offset = text_offset(fed) + pending.size();
    event e;
    e.kind = event_kind::diagnostic;
    e.offset = d.offset;
    e.diag = &d;
    e.span = {e.offset, e.offset};
    sink(e);
  }

  void push(token_id id) {
    const std::size_t at = index++;
    const std::string_view bytes = tok.token_bytes(id);
    const severity level = opt.lenient ? severity::warning : severity::error;
    if (bytes.empty()) {
      report(error_code::token_unknown, level,
             "token " + std::to_string(at) + ": ID " + std::to_string(id) +
                 " is not in the vocabulary");
      return;
    }
    if (std::find(controls.begin(), controls.end(), id) != controls.end()) {
      flush(true);
      inner.push(bytes);
      fed += bytes.size();
      return;
    }
    if (tok.is_special(id)) {
      report(error_code::unexpected_token, level,
             "token " + std::to_string(at) + ": special token " + std::string(bytes) + " (ID " +
                 std::to_string(id) + ") is not one of " + std::string(dialect) +
                 "'s control tokens (not decoded)");
      return;
    }
    pending.append(bytes);
    flush(false);
  }
};

token_decoder::token_decoder(const tokenizer& tok, const decoder_options& options,
                             decoder::sink on_event)
    : impl_(std::make_unique<impl>(tok, options, std::move(on_event))) {}
token_decoder::~token_decoder() = default;
token_decoder::token_decoder(token_decoder&&) noexcept = default;
token_decoder& token_decoder::operator=(token_decoder&&) noexcept = default;

void token_decoder::push_tokens(std::span<const token_id> ids) {
  for (const token_id id : ids) impl_->push(id);
}

void token_decoder::finish() {
  impl_->flush(true);
  impl_->inner.finish();
}

parse_result parse_tokens(std::span<const token_id> ids, const tokenizer& tok,
                          const decoder_options& options) {
  collector c;
  decoder_options o = options;
  o.stream_arguments = false;  // one shot: nobody listens to a call's progress
  token_decoder d(tok, o, [&c](const event& e) { c(e); });
  d.push_tokens(ids);
  d.finish();
  return c.take();
}

}  // namespace ocml
