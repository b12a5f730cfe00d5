// SPDX-License-Identifier: Apache-2.0
// ocml::render: the dialect's renderer, from the codec registry.
#include "ocml/render.hpp"
#include "core/message_path.hpp"
#include "core/scan.hpp"
#include "dialects/registry.hpp"
#include "interchange/shape.hpp"

namespace ocml {

namespace {

diagnostic refused(const char* why) {
  return make_error(error_code::unrepresentable, std::string("continue_final_message: ") + why);
}

result<std::string> render_shaped(const detail::codec& codec, const conversation& conv,
                                  const render_options& options, std::vector<diagnostic>* warnings);

}  // namespace

result<std::string> render(const conversation& conv, const render_options& options,
                           std::vector<diagnostic>* warnings) {
  const auto& codec = detail::codec_of(options.dialect);
  // Reshape here, not in the renderer, so that diagnostics name the caller's messages.
  detail::origin_map via_split;
  detail::origin_map via_group;
  conversation shaped;
  const conversation* c = &conv;
  if (codec.shape == detail::turn_shape::split && detail::has_embedded(conv)) {
    shaped = detail::split_form(conv, &via_split);
    c = &shaped;
  } else if (codec.shape == detail::turn_shape::grouped && !detail::is_grouped(conv)) {
    shaped = detail::grouped_form(conv, &via_split, &via_group);
    c = &shaped;
  }
  const std::size_t before = warnings != nullptr ? warnings->size() : 0;
  auto text = render_shaped(codec, *c, options, warnings);
  if (c == &conv) return text;
  const auto back = [&](diagnostic& d) {
    detail::relocate(d, via_group);
    detail::relocate(d, via_split);
  };
  if (warnings != nullptr) {
    for (std::size_t i = before; i < warnings->size(); ++i) back((*warnings)[i]);
  }
  if (text) return text;
  diagnostic d = text.error();
  back(d);
  return d;
}

namespace {

result<std::string> render_shaped(const detail::codec& codec, const conversation& conv,
                                  const render_options& options,
                                  std::vector<diagnostic>* warnings) {
  if (!options.continue_final_message) return codec.render(conv, options, warnings);
  // As transformers: render the whole conversation, then cut after the last occurrence of
  // the final message's content (in its written form: the 2.x family escapes it; harmony
  // does only when asked to).
  if (options.add_generation_prompt) return refused("not with add_generation_prompt");
  if (conv.messages.empty() || conv.messages.back().role != role::assistant) {
    return refused("the last message is not the assistant's");
  }
  render_options o = options;
  o.continue_final_message = false;
  o.training = false;
  auto text = codec.render(conv, o, warnings);
  if (!text) return text;
  // Where the final message's content begins: render once more with a marker in its place
  // (the text before it is the same), so the search below starts inside the content and
  // never finds its spelling in the markup after it (content "end" in "<|im_end|>").
  static constexpr std::string_view kMarker = "OCMLCONTINUEFINALMESSAGEMARKER";
  conversation marked = conv;
  marked.messages.back().content = kMarker;
  auto probe = codec.render(marked, o, nullptr);
  const std::size_t begin = probe ? probe->find(kMarker) : std::string::npos;
  if (begin == std::string::npos || text->compare(0, begin, *probe, 0, begin) != 0) {
    return refused("the final message's place in the text cannot be found");
  }
  std::string_view content = conv.messages.back().content;
  while (!content.empty() && detail::is_space(content.front())) content.remove_prefix(1);
  while (!content.empty() && detail::is_space(content.back())) content.remove_suffix(1);
  const bool escaped = detail::writes_escapes(codec, options.openchatml_escapes);
  const std::string written = escaped ? escape_body(content) : std::string(content);
  const std::size_t at = text->find(written, begin);
  if (at == std::string::npos) return refused("the final message does not appear in the text");
  text->resize(at + written.size());
  return text;
}

}  // namespace

}  // namespace ocml
