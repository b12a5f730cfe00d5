// SPDX-License-Identifier: Apache-2.0
// ocml/template.hpp - a model's own chat template (Jinja2), rendered as transformers renders
// it: Python Jinja2's ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks,
// loopcontrols and `{% generation %}`, `tojson` as json.dumps(ensure_ascii=False),
// raise_exception and strftime_now.
//
//   auto t = ocml::chat_template::compile(R"({% for m in messages %}<|{{ m.role }}|>{{ m.content }}
//   {% endfor %})");
//   auto text = t->render({{"messages", {{{"role", "user"}, {"content", "Hi"}}}}});
//   // *text == "<|user|>Hi\n"
//
// A compiled template is immutable: render it from any number of threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml {

namespace tmpl {
struct program;
}

/// Bounds on one render (a template is code: it may loop or recurse without end).
struct template_limits {
  std::size_t max_output = std::size_t{64} << 20;  ///< bytes of output
  std::size_t max_steps = 10'000'000;              ///< loop iterations and calls, in all
  std::size_t max_depth = 100;  ///< nested macro calls (Python's limit is ~1000 frames)
  /// The largest string (bytes) or list (items × 16 bytes) an operation may build: checked
  /// before it is built (`'a' * 10**10`, `center`, `indent`, `replace`, `+`, `join`, …).
  std::size_t max_value = std::size_t{64} << 20;
};

struct template_render_options {
  /// What strftime_now formats, as "YYYY-MM-DDTHH:MM:SS" (empty: the local time now).
  std::string now;
  template_limits limits;
  /// When set, receives the [from, to) byte spans of the output that each `{% generation %}`
  /// block at the top level wrote (not in a macro or a captured block): what transformers'
  /// return_assistant_tokens_mask marks.
  std::vector<std::pair<std::size_t, std::size_t>>* generation_spans = nullptr;
};

struct template_json_options;

class chat_template {
 public:
  /// Compiles template text. Errors: E-TEMPLATE-SYNTAX with line:column.
  ///
  ///   auto t = ocml::chat_template::compile("{{ bos_token }}{{ messages[0].content }}");
  [[nodiscard]] static result<chat_template> compile(std::string_view source);

  /// Renders with `variables` (a JSON object: messages, tools, add_generation_prompt, …).
  /// Errors: E-TEMPLATE-RAISED (the template's raise_exception message),
  /// E-TEMPLATE-UNDEFINED, E-TEMPLATE-TYPE, E-TEMPLATE-SECURITY, E-LIMIT-EXCEEDED.
  ///
  ///   auto text = chat.render({{"messages", ocml::json::array()}, {"bos_token", "<s>"}});
  [[nodiscard]] result<std::string> render(const json& variables,
                                           const template_render_options& options = {}) const;

 private:
  friend class model_template;
  friend result<std::string> render_template_json(const chat_template& t,
                                                  std::string_view json_text,
                                                  const template_json_options& options);
  std::shared_ptr<const tmpl::program> prog_;
};

/// How an OpenAI chat request becomes a template's variables, as transformers'
/// apply_chat_template makes them.
struct template_json_options {
  /// Variables for every conversation (bos_token, eos_token, enable_thinking…); the
  /// conversation's own `chat_template_kwargs` are merged over them.
  json kwargs = json::object();
  bool add_generation_prompt = false;  ///< unless the conversation says
  /// Prefill, as transformers' `continue_final_message` (unless the conversation says): the
  /// text is cut right after the last message's content (its last text part when the
  /// content is a list), found by its last occurrence in the rendered text, so the model
  /// continues it. Not with add_generation_prompt (E-TEMPLATE-TYPE: transformers' ValueError).
  bool continue_final_message = false;
  template_render_options render;
};

/// The variables of an OpenAI chat request: `messages` (tool-call arguments that are JSON
/// strings parsed into objects), `tools` and `documents` (null when absent),
/// `add_generation_prompt`, then `kwargs`, then the request's `chat_template_kwargs`.
///
///   auto vars = ocml::template_variables(request_json, {.kwargs = {{"bos_token", "<s>"}}});
[[nodiscard]] result<json> template_variables(const json& request,
                                              const template_json_options& options = {});

/// A model's chat templates, from a `.jinja` file or a `tokenizer_config.json`: its
/// `chat_template` (a string, or a list of named templates), and its special tokens
/// (bos_token, eos_token…, strings or AddedToken objects), passed to the template as
/// transformers passes them.
///
///   auto m = ocml::model_template::from_file("tokenizer_config.json");
///   auto text = m->render_json(R"({"messages":[{"role":"user","content":"Hi"}]})", {});
class model_template {
 public:
  /// Errors: E-IO, E-JSON-INPUT (a config without a usable chat_template),
  /// E-TEMPLATE-SYNTAX.
  [[nodiscard]] static result<model_template> from_file(const std::string& path);
  /// From a file's text: JSON (a tokenizer_config.json) or template text.
  [[nodiscard]] static result<model_template> from_text(std::string_view text);
  /// The template transformers would pick: `tool_use` when the request has tools and the
  /// config names one, else `default` (or the only one).
  [[nodiscard]] const chat_template& select(bool has_tools) const;
  /// The template transformers would pick, or nullptr where it raises (a list of named
  /// templates with neither `default` nor, with tools, `tool_use`). A repeated name is its
  /// last template, as transformers reads the list into a dict.
  [[nodiscard]] const chat_template* find(bool has_tools) const;
  /// The special tokens as template variables ({"bos_token": "<s>", …}).
  [[nodiscard]] const json& special_tokens() const noexcept { return special_; }
  /// The templates' text, one after another (what a curated template's fingerprint reads).
  ///
  ///   auto m = ocml::model_template::from_text("{{ messages[0].content }}");
  ///   bool calls = m->source().find("<tool_call>") != std::string::npos;
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  /// Renders a JSON request: special tokens, then `options.kwargs`, then the request's
  /// chat_template_kwargs.
  [[nodiscard]] result<std::string> render_json(std::string_view json_text,
                                                const template_json_options& options) const;

 private:
  [[nodiscard]] std::string names() const;
  std::vector<std::pair<std::string, chat_template>> named_;
  json special_ = json::object();
  std::string source_;
};

/// render() of template_variables() of a JSON request's text.
[[nodiscard]] result<std::string> render_template_json(const chat_template& t,
                                                       std::string_view json_text,
                                                       const template_json_options& options = {});

}  // namespace ocml
