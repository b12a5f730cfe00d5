// SPDX-License-Identifier: Apache-2.0
// `ocml._ocml.ChatTemplate`, `ResponseTemplate` and a format made of them: the Jinja chat
// templates and the response templates ocml executes, for users who hold their own (or a
// folder's) instead of naming a dialect or a `model:` folder.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "common.hpp"
#include "ocml/format.hpp"
#include "ocml/json.hpp"
#include "ocml/response.hpp"
#include "ocml/template.hpp"

namespace ocml::python {

namespace {

/// A JSON value from the JSON text Python hands over (`null` when empty).
json json_arg(const std::string& text) {
  if (text.empty()) return nullptr;
  return value_or_raise(parse_json_text(text));
}

void bind_chat_template(py::module_& m) {
  py::class_<model_template>(m, "ChatTemplate")
      .def_static("from_text", released(&model_template::from_text), py::arg("text"))
      .def_static("from_file", released(&model_template::from_file), py::arg("path"))
      .def_property_readonly(
          "special_tokens",
          [](const model_template& t) { return py::bytes(dump_json(t.special_tokens())); })
      .def(
          "render_variables",
          [](const model_template& t, const std::string& variables, bool tools,
             const std::string& now) {
            result<std::string> out = make_error(error_code::internal, "");
            bool object = true;
            {
              py::gil_scoped_release nogil;
              const json vars = json_arg(variables);
              object = vars.is_object();
              // As render_json and transformers: a config's named templates without
              // "default" (or "tool_use", with tools) is an error, not the first of them.
              const chat_template* chosen = t.find(tools);
              if (object && chosen == nullptr) {
                out = make_error(error_code::template_type,
                                 "the config names no 'default' (or 'tool_use') template");
              } else if (object) {
                template_render_options o;
                o.now = now;
                out = chosen->render(vars, o);
              }
            }
            if (!object) throw py::type_error("variables must be a JSON object");
            return text_str(value_or_raise(std::move(out)));
          },
          py::arg("variables"), py::arg("tools") = false, py::arg("now") = "");
}

void bind_response_template(py::module_& m) {
  py::class_<response_template>(m, "ResponseTemplate")
      .def_static("from_text", released(&response_template::from_text), py::arg("text"))
      .def_static("from_file", released(&response_template::from_file), py::arg("path"))
      .def_property_readonly("fields", &response_template::fields)
      .def(
          "parse",
          // (the message as JSON bytes, or None when a strict parse failed; diagnostics)
          [](const response_template& t, const py::object& text, const std::string& prefix,
             const std::string& tools, bool lenient, bool openai,
             std::optional<std::uint64_t> seed) {
            py::object owner;
            const std::string_view bytes = text_of(text, owner);
            std::string out;
            std::vector<diagnostic> diags;
            bool ok = false;
            {
              py::gil_scoped_release nogil;
              const json tools_value = json_arg(tools);
              response_parser_options o;
              o.prefix = prefix;
              o.tools = tools_value.is_null() ? nullptr : &tools_value;
              o.lenient = lenient;
              response_parser p(t, o, nullptr);
              p.push(bytes);
              result<json> message = p.finish();
              diags = p.diagnostics();
              if (message) {
                ok = true;
                openai_options oo;
                oo.call_id_seed = seed;
                out = dump_json(openai ? response_to_openai(*message, oo) : *message);
              } else if (std::none_of(diags.begin(), diags.end(), [](const diagnostic& d) {
                           return d.level == severity::error;
                         })) {
                diags.push_back(message.error());
              }
            }
            py::object json_out = py::none();
            if (ok) json_out = py::bytes(out);
            return py::make_tuple(json_out, to_tuples(diags));
          },
          py::arg("text"), py::arg("prefix") = "", py::arg("tools") = "",
          py::arg("lenient") = false, py::arg("openai") = true, py::arg("seed") = py::none());
}

}  // namespace

void bind_templates(py::module_& m) {
  bind_chat_template(m);
  bind_response_template(m);
  m.def(
      "template_format",
      [](const model_template& chat, const response_template* response,
         const std::vector<std::string>& stop, const std::string& name, bool curated) {
        return format::from_templates(chat, response,
                                      {.name = name, .curated = curated, .stop = stop});
      },
      py::arg("chat"), py::arg("response") = nullptr, py::arg("stop") = std::vector<std::string>{},
      py::arg("name") = "template", py::arg("curated") = true);
}

}  // namespace ocml::python
