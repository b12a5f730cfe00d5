// SPDX-License-Identifier: Apache-2.0
// ocml::decoder: the dialect's streaming decoder, from the codec registry.
#include "dialects/registry.hpp"

namespace ocml {

bool spans_reported(dialect /*d*/) noexcept {
  return true;  // every decoder reports spans through the shared emitter
}

struct decoder::impl {
  std::unique_ptr<detail::stream_decoder> d;
};

decoder::decoder(decoder_options options, sink on_event) : impl_(std::make_unique<impl>()) {
  const auto make = detail::codec_of(options.dialect).make_decoder;
  impl_->d = make(std::move(options), std::move(on_event));
}
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
