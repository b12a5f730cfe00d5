// ocml::render: the dialect's renderer, from the codec registry.
#include "ocml/render.hpp"
#include "core/codec.hpp"

namespace ocml {

result<std::string> render(const conversation& conv, const render_options& options,
                           std::vector<diagnostic>* warnings) {
  return detail::codec_of(options.dialect).render(conv, options, warnings);
}

}  // namespace ocml
