#include "ocml/render.hpp"
#include "dialects/openchatml/render_common.hpp"

namespace ocml {

result<std::string> render(const conversation& conv, const render_options& options,
                           std::vector<diagnostic>* warnings) {
  switch (options.dialect) {
    case dialect::ocml_2_2:
    case dialect::ocml_2_0:
      return detail::render_openchatml(conv, options, warnings);
    case dialect::harmony:
      return detail::render_harmony(conv, options, warnings);
  }
  return make_error(error_code::unrepresentable, "unknown dialect");
}

}  // namespace ocml
