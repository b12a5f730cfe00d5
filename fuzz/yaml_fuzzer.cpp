// SPDX-License-Identifier: Apache-2.0
// The YAML document header: parsing never crashes or hangs; a parsed header renders and
// parses back to itself.
#include <simdjson.h>

#include "core/document_header.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ocml::document_header h;
  ocml::detail::yaml_error err;
  if (!ocml::detail::parse_document_header(text, h, err)) return 0;
  const std::string rendered = ocml::detail::render_document_header(h);
  std::string_view body(rendered);
  body.remove_prefix(4);  // "---\n"
  body.remove_suffix(4);  // "---\n"
  ocml::document_header again;
  ocml::fuzz::check(ocml::detail::parse_document_header(body, again, err));
  // YAML cannot hold invalid UTF-8 (it becomes U+FFFD, however many bytes were bad):
  // the header must come back unchanged when the input was valid UTF-8.
  // (Key order is not compared: version and model are always written first.)
  if (simdjson::validate_utf8(text.data(), text.size())) {
    const auto a = nlohmann::json::parse(ocml::dump_json(ocml::to_native_json({h, {}, {}, {}})));
    const auto b =
        nlohmann::json::parse(ocml::dump_json(ocml::to_native_json({again, {}, {}, {}})));
    ocml::fuzz::check(a == b);
  }
  return 0;
}
