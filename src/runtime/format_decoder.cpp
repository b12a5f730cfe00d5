// SPDX-License-Identifier: Apache-2.0
// format_decoder: a dialect's decoder (bytes or IDs) or a model's response parser, its events
// written as JSON text or projected to OpenAI chunks.
#include "ocml/format_decoder.hpp"

#include "ocml/decoder.hpp"
#include "ocml/events.hpp"
#include "ocml/json.hpp"
#include "ocml/response.hpp"
#include "ocml/token_decoder.hpp"

namespace ocml {

struct format_decoder::impl {
  format f;
  format_decoder_options o;
  sink out;
  std::optional<diagnostic> failure;
  bool finished = false;
  json tools;
  std::optional<openai_chunk_writer> chunks;
  std::optional<projection> proj;
  std::optional<response_projection> rproj;
  std::optional<token_text_decoder> text;
  std::optional<whole_characters> whole;
  std::unique_ptr<decoder> dec;
  std::unique_ptr<token_decoder> tdec;
  std::unique_ptr<response_parser> rp;

  impl(format fmt, format_decoder_options opt, sink s)
      : f(std::move(fmt)), o(std::move(opt)), out(std::move(s)) {
    if (o.events == stream_events::openai) {
      chunks.emplace(writer_options{}, [this](std::string_view j) { out(j); });
    }
    if (const auto d = f.dialect()) {
      open_dialect(*d);
    } else {
      open_model();
    }
  }

  void open_dialect(dialect d) {
    const decoder_options dopt{.dialect = d, .lenient = o.lenient, .completion = o.completion};
    if (chunks) {
      proj.emplace(projection_options{.call_id_seed = o.call_id_seed},
                   [this](const delta& x) { (*chunks)(x); });
    }
    std::function<void(const event&)> on;
    if (proj) {
      on = [this](const event& e) { (*proj)(e); };  // the projection holds cut characters
    } else {
      whole.emplace([this](const event& e) { out(event_json_line(e)); });
      on = [this](const event& e) { (*whole)(e); };
    }
    if (o.tokens != nullptr) {
      tdec = std::make_unique<token_decoder>(*o.tokens, dopt, on);
    } else {
      dec = std::make_unique<decoder>(dopt, on);
    }
  }

  void open_model() {
    const response_template* t = f.response_template();
    if (t == nullptr) {
      failure = make_error(error_code::invalid_json,
                           f.name() + " has no response_template: its output cannot be parsed");
      return;
    }
    if (!o.tools.empty()) {
      auto parsed = parse_json_text(o.tools);
      if (!parsed) {
        failure = parsed.error();
        return;
      }
      tools = std::move(*parsed);
    }
    if (chunks) {
      rproj.emplace([this](const delta& x) { (*chunks)(x); },
                    projection_options{.call_id_seed = o.call_id_seed});
    }
    if (o.tokens != nullptr) text.emplace(*o.tokens);
    rp = std::make_unique<response_parser>(
        *t,
        response_parser_options{
            .prefix = o.prefix, .tools = tools.is_null() ? nullptr : &tools, .lenient = o.lenient},
        [this](const response_event& e) {
          if (rproj) {
            (*rproj)(e);
          } else {
            out(dump_json(response_event_json(e)));
          }
        });
  }

  [[nodiscard]] bool usable() const noexcept { return !failure && !finished; }
};

format_decoder::format_decoder(format f, format_decoder_options options, sink on_event)
    : impl_(std::make_unique<impl>(std::move(f), std::move(options), std::move(on_event))) {}
format_decoder::~format_decoder() = default;
format_decoder::format_decoder(format_decoder&&) noexcept = default;
format_decoder& format_decoder::operator=(format_decoder&&) noexcept = default;

const diagnostic* format_decoder::error() const noexcept {
  return impl_->failure ? &*impl_->failure : nullptr;
}

bool format_decoder::push(std::string_view bytes) {
  impl& x = *impl_;
  if (!x.usable() || x.o.tokens != nullptr) return false;
  if (x.rp) {
    x.rp->push(bytes);
  } else {
    x.dec->push(bytes);
  }
  return true;
}

bool format_decoder::push_ids(std::span<const token_id> ids) {
  impl& x = *impl_;
  if (!x.usable() || x.o.tokens == nullptr) return false;
  if (x.tdec) {
    x.tdec->push_tokens(ids);
  } else {
    for (const token_id id : ids) x.rp->push(x.text->push(id));
  }
  return true;
}

bool format_decoder::finish() {
  impl& x = *impl_;
  if (!x.usable()) return false;
  x.finished = true;
  if (x.rp) {
    if (x.text) x.rp->push(x.text->finish());
    (void)x.rp->finish();  // its diagnostics were events already
    if (x.chunks) x.chunks->finish(x.rproj->natural_finish());
    return true;
  }
  if (x.tdec) x.tdec->finish();
  if (x.dec) x.dec->finish();
  if (x.whole) x.whole->flush();
  if (x.proj) {
    x.proj->finish();
    x.chunks->finish(x.proj->natural_finish());
  }
  return true;
}

}  // namespace ocml
