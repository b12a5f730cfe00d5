// ocml::decoder: picks the dialect's streaming decoder.
#include "core/stream_decoder.hpp"
#include "dialects/chatml/chatml.hpp"
#include "dialects/gabgpt/gabgpt.hpp"
#include "dialects/ocml01/ocml01.hpp"
#include "dialects/pcml/pcml.hpp"

namespace ocml {

struct decoder::impl {
  std::unique_ptr<detail::stream_decoder> d;
};

namespace {
std::unique_ptr<detail::stream_decoder> make(decoder_options o, decoder::sink s) {
  switch (o.dialect) {
    case dialect::ocml_2_2:
    case dialect::ocml_2_0:
    case dialect::harmony:
      return detail::make_openchatml_decoder(std::move(o), std::move(s));
    case dialect::chatml:
      return detail::chatml::make_decoder(std::move(o), std::move(s));
    case dialect::pcml:
      return detail::pcml::make_decoder(std::move(o), std::move(s));
    case dialect::gabgpt:
      return detail::gabgpt::make_decoder(std::move(o), std::move(s));
    case dialect::ocml_0_1:
      return detail::ocml01::make_decoder(std::move(o), std::move(s));
  }
  return detail::make_openchatml_decoder(std::move(o), std::move(s));
}
}  // namespace

decoder::decoder(decoder_options options, sink on_event)
    : impl_(std::make_unique<impl>(impl{make(std::move(options), std::move(on_event))})) {}
decoder::~decoder() = default;
decoder::decoder(decoder&&) noexcept = default;
decoder& decoder::operator=(decoder&&) noexcept = default;
void decoder::push(std::string_view bytes) {
  impl_->d->push(bytes);
}
void decoder::finish() {
  impl_->d->finish();
}
bool decoder::failed() const noexcept {
  return impl_->d->failed();
}
std::size_t decoder::offset() const noexcept {
  return impl_->d->offset();
}

}  // namespace ocml
