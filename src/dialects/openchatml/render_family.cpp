// SPDX-License-Identifier: Apache-2.0
// The 2.x family's render entry (ocml-2.2, ocml-2.0, harmony): one message per call and
// per reasoning block.

#include "dialects/openchatml/render_common.hpp"
#include "interchange/shape.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail {

result<std::string> render_split_family(const conversation& c, const render_options& o,
                                        std::vector<diagnostic>* warnings) {
  const auto one = o.dialect == dialect::harmony ? render_harmony : render_openchatml;
  if (has_embedded(c)) return one(split_form(c), o, warnings);
  return one(c, o, warnings);
}

}  // namespace ocml::detail
