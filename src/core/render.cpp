// ocml::render: the dialect's renderer, from the codec registry.
#include "ocml/render.hpp"
#include "core/codec.hpp"
#include "core/scan.hpp"

namespace ocml {

namespace {

diagnostic refused(const char* why) {
  return make_error(error_code::unrepresentable, std::string("continue_final_message: ") + why);
}

}  // namespace

result<std::string> render(const conversation& conv, const render_options& options,
                           std::vector<diagnostic>* warnings) {
  const auto& codec = detail::codec_of(options.dialect);
  if (!options.continue_final_message) return codec.render(conv, options, warnings);
  // As transformers: render the whole conversation, then cut after the last occurrence of
  // the final message's content (in its written form: the 2.x family escapes it).
  if (options.add_generation_prompt) return refused("not with add_generation_prompt");
  if (conv.messages.empty() || conv.messages.back().role != role::assistant) {
    return refused("the last message is not the assistant's");
  }
  render_options o = options;
  o.continue_final_message = false;
  o.training = false;
  auto text = codec.render(conv, o, warnings);
  if (!text) return text;
  std::string_view content = conv.messages.back().content;
  while (!content.empty() && detail::is_space(content.front())) content.remove_prefix(1);
  while (!content.empty() && detail::is_space(content.back())) content.remove_suffix(1);
  const std::string written =
      codec.family == "openchatml" ? escape_body(content) : std::string(content);
  const std::size_t at = text->rfind(written);
  if (at == std::string::npos) return refused("the final message does not appear in the text");
  text->resize(at + written.size());
  return text;
}

}  // namespace ocml
