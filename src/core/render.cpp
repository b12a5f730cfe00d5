#include <algorithm>

#include "dialects/chatml/chatml.hpp"
#include "dialects/gabgpt/gabgpt.hpp"
#include "dialects/ocml01/ocml01.hpp"
#include "dialects/openchatml/render_common.hpp"
#include "dialects/pcml/pcml.hpp"
#include "ocml/convert.hpp"
#include "ocml/render.hpp"

namespace ocml {

namespace {
bool has_embedded(const conversation& c) {
  return std::any_of(c.messages.begin(), c.messages.end(), [](const message& m) {
    return !m.reasoning.empty() || !m.tool_calls.empty();
  });
}
}  // namespace

result<std::string> render(const conversation& conv, const render_options& options,
                           std::vector<diagnostic>* warnings) {
  switch (options.dialect) {
    case dialect::ocml_2_2:
    case dialect::ocml_2_0:
      // The 2.x family writes reasoning and tool calls as messages of their own.
      if (has_embedded(conv)) return detail::render_openchatml(split_form(conv), options, warnings);
      return detail::render_openchatml(conv, options, warnings);
    case dialect::harmony:
      if (has_embedded(conv)) return detail::render_harmony(split_form(conv), options, warnings);
      return detail::render_harmony(conv, options, warnings);
    case dialect::chatml:
      return detail::chatml::render(conv, options, warnings);
    case dialect::pcml:
      return detail::pcml::render(conv, options, warnings);
    case dialect::gabgpt:
      return detail::gabgpt::render(conv, options, warnings);
    case dialect::ocml_0_1:
      return detail::ocml01::render(conv, options, warnings);
  }
  return make_error(error_code::unrepresentable, "unknown dialect");
}

}  // namespace ocml
