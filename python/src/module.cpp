// SPDX-License-Identifier: Apache-2.0
// The `ocml._ocml` extension: formats, render (text and IDs), parse, convert and their batch
// forms over the public C++ API. Requests and results cross as JSON text and NumPy arrays;
// ocml/__init__.py gives them their Python shape (dicts, errors, warnings).
#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <optional>
#include <thread>

#include "common.hpp"
#include "ocml/convert.hpp"
#include "ocml/format.hpp"
#include "ocml/json.hpp"
#include "ocml/response.hpp"
#include "ocml/token_decoder.hpp"
#include "ocml/version.hpp"

namespace ocml::python {

std::size_t job_count(std::size_t jobs) noexcept {
  const std::size_t cores = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  // A thread per core is all the work can use; a caller's number is bounded before any
  // thread is made (jobs=10**9 must not try to start a billion).
  return jobs == 0 ? cores : std::min(jobs, 4 * cores);
}

void parallel_for(std::size_t n, std::size_t jobs, const std::function<void(std::size_t)>& work,
                  const std::function<void(std::size_t, const diagnostic&)>& failed) {
  jobs = std::min(job_count(jobs), std::max<std::size_t>(n, 1));
  std::atomic<std::size_t> next{0};
  const auto run = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        work(i);
      } catch (const std::bad_alloc&) {
        failed(i, make_error(error_code::limit_exceeded, "out of memory for this item"));
      } catch (const std::exception& e) {
        failed(i, make_error(error_code::internal, e.what()));
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(jobs - 1);
  for (std::size_t j = 1; j < jobs; ++j) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
}

std::vector<std::string_view> texts_of(const py::list& items, std::vector<py::object>& owners) {
  std::vector<std::string_view> texts;
  texts.reserve(items.size());
  owners.resize(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) texts.push_back(text_of(items[i], owners[i]));
  return texts;
}

namespace {

// What a parse returns across the boundary: the JSON text of the conversation (OpenAI or
// native form) as bytes (a failed strict parse may hold the input's invalid UTF-8; Python
// decodes it only when there is no error), whether it parsed, and its diagnostics.
using parse_out = std::tuple<py::bytes, bool, std::vector<diag_tuple>>;
using render_out = std::pair<py::str, std::vector<diag_tuple>>;

struct parse_request {
  bool openai = true;
  format_parse_options options;
};

std::string conversation_json(const format& f, const conversation& c, const parse_request& r) {
  return dump_json(f.conversation_json(c, r.openai, r.options.call_id_seed));
}

std::tuple<std::string, bool, std::vector<diagnostic>> parse_one(const format& f,
                                                                 std::string_view text,
                                                                 const parse_request& r) {
  parse_result p = f.parse(text, r.options);
  return {conversation_json(f, p.conversation, r), p.ok(), std::move(p.diagnostics)};
}

parse_request parse_request_of(bool openai, bool lenient, bool completion, std::string prefix,
                               const std::string& tools_json, std::optional<std::uint64_t> seed) {
  parse_request r;
  r.openai = openai;
  r.options.lenient = lenient;
  r.options.completion = completion;
  r.options.prefix = std::move(prefix);
  r.options.call_id_seed = seed;
  if (!tools_json.empty()) {
    auto tools = parse_json_text(tools_json);
    if (!tools) raise(tools.error());
    r.options.tools = std::move(*tools);
  }
  return r;
}

token_render_options token_options_of(bool training, std::size_t max_tokens, bool last_turn_only,
                                      bool train_trailing_newline, bool strict,
                                      const std::string& policy, const std::string& turns,
                                      const std::string& truncate) {
  token_render_options o;
  if (policy == "hf") {
    o.policy = token_policy::hf;
  } else if (policy != "harmony") {
    throw py::value_error("policy must be 'harmony' or 'hf', not '" + policy + "'");
  }
  o.training = training;
  o.max_tokens = max_tokens;
  const auto t = trained_turns_of(turns);
  if (!t) {
    throw py::value_error(
        "turns must be 'automatic', 'per-turn', 'whole', 'last' or "
        "'keep-reasoning', not '" +
        turns + "'");
  }
  o.turns = last_turn_only ? trained_turns::last : *t;
  const auto cut = truncation_of(truncate);
  if (!cut)
    throw py::value_error("truncate must be 'turns', 'left' or 'right', not '" + truncate + "'");
  o.truncate = *cut;
  o.train_trailing_newline = train_trailing_newline;
  o.strict = strict;
  return o;
}

py::tuple ids_out(json_token_result&& r, bool training) {
  py::object labels = py::none();
  if (training) labels = int32_array(r.tokens.labels);
  auto diags = to_tuples(r.diagnostics);
  for (const auto& d : r.tokens.diagnostics) diags.push_back(to_tuple(d));
  py::list more;
  for (const token_sequence& x : r.more_examples) {
    more.append(py::make_tuple(int32_array(x.input_ids), int32_array(x.attention_mask),
                               int32_array(x.labels)));
  }
  return py::make_tuple(int32_array(r.tokens.input_ids), int32_array(r.tokens.attention_mask),
                        labels, diags, more);
}

void bind_format(py::module_& m) {
  py::class_<format>(m, "Format")
      .def(py::init(released(&format::find)), py::arg("name"))
      .def_property_readonly("name", &format::name)
      .def_property_readonly("is_model", &format::is_model)
      .def_property_readonly("dialect",
                             [](const format& f) -> std::optional<std::string> {
                               if (const auto d = f.dialect()) return std::string(dialect_name(*d));
                               return std::nullopt;
                             })
      .def("stop", &format::stop)
      .def_property_readonly("response_source",
                             [](const format& f) {
                               const response_choice c = f.response_source();
                               py::dict d;
                               d["kind"] = c.kind;
                               d["name"] = c.name;
                               d["why"] = c.why;
                               return d;
                             })
      .def("holds", &format::holds, py::call_guard<py::gil_scoped_release>())
      .def(
          "render_json",
          [](const format& f, const py::object& request, const std::string& now) {
            py::object owner;
            const std::string_view text = text_of(request, owner);
            json_render_result r;
            {
              py::gil_scoped_release nogil;
              r = f.render_json(text, {.now = now});
            }
            return render_out{text_str(r.text), to_tuples(r.diagnostics)};
          },
          py::arg("request"), py::arg("now") = "")
      .def(
          "render_batch",
          [](const format& f, const py::list& requests, const std::string& now, std::size_t jobs) {
            std::vector<py::object> owners;
            const auto texts = texts_of(requests, owners);
            std::vector<json_render_result> out(texts.size());
            format_render_options options;  // once for the batch, not once an item
            options.now = now;
            {
              py::gil_scoped_release nogil;
              parallel_for(
                  texts.size(), jobs,
                  [&](std::size_t i) { out[i] = f.render_json(texts[i], options); },
                  [&](std::size_t i, const diagnostic& d) { out[i].diagnostics = {d}; });
            }
            // The texts, and the diagnostics of the items that have any ({index: [...]}):
            // no object per item beyond its text.
            py::list texts_out(out.size());
            py::dict diags;
            for (std::size_t i = 0; i < out.size(); ++i) {
              texts_out[i] = text_str(out[i].text);
              if (!out[i].diagnostics.empty()) diags[py::int_(i)] = to_tuples(out[i].diagnostics);
            }
            return py::make_tuple(texts_out, diags);
          },
          py::arg("requests"), py::arg("now") = "", py::arg("jobs") = 0)
      .def(
          "render_ids",
          [](const format& f, const py::object& request, const tokenizer& tok, bool training,
             std::size_t max_tokens, bool last_turn_only, bool train_trailing_newline, bool strict,
             const std::string& policy, const std::string& turns, const std::string& truncate,
             const std::string& now) {
            const auto to =
                token_options_of(training, max_tokens, last_turn_only, train_trailing_newline,
                                 strict, policy, turns, truncate);
            py::object owner;
            const std::string_view text = text_of(request, owner);
            json_token_result r;
            {
              py::gil_scoped_release nogil;
              r = f.render_json_tokens(text, tok, {.now = now}, to);
            }
            return ids_out(std::move(r), training);
          },
          py::arg("request"), py::arg("tokenizer"), py::arg("training") = false,
          py::arg("max_tokens") = 0, py::arg("last_turn_only") = false,
          py::arg("train_trailing_newline") = false, py::arg("strict") = false,
          py::arg("policy") = "harmony", py::arg("turns") = "automatic",
          py::arg("truncate") = "turns", py::arg("now") = "")
      .def(
          "render_ids_batch",
          [](const format& f, const py::list& requests, const tokenizer& tok, bool training,
             std::size_t max_tokens, bool last_turn_only, bool train_trailing_newline, bool strict,
             const std::string& policy, const std::string& turns, const std::string& truncate,
             const std::string& now, std::size_t jobs) {
            const auto to =
                token_options_of(training, max_tokens, last_turn_only, train_trailing_newline,
                                 strict, policy, turns, truncate);
            std::vector<py::object> owners;
            const auto texts = texts_of(requests, owners);
            std::vector<json_token_result> out(texts.size());
            format_render_options options;
            options.now = now;
            {
              py::gil_scoped_release nogil;
              parallel_for(
                  texts.size(), jobs,
                  [&](std::size_t i) { out[i] = f.render_json_tokens(texts[i], tok, options, to); },
                  [&](std::size_t i, const diagnostic& d) {
                    out[i] = json_token_result{};
                    out[i].diagnostics = {d};
                  });
            }
            py::list result(out.size());
            for (std::size_t i = 0; i < out.size(); ++i) {
              result[i] = ids_out(std::move(out[i]), training);
            }
            return result;
          },
          py::arg("requests"), py::arg("tokenizer"), py::arg("training") = false,
          py::arg("max_tokens") = 0, py::arg("last_turn_only") = false,
          py::arg("train_trailing_newline") = false, py::arg("strict") = false,
          py::arg("policy") = "harmony", py::arg("turns") = "automatic",
          py::arg("truncate") = "turns", py::arg("now") = "", py::arg("jobs") = 0)
      .def(
          "parse",
          [](const format& f, const py::object& text, bool openai, bool lenient, bool completion,
             std::string prefix, const std::string& tools, std::optional<std::uint64_t> seed) {
            const auto r =
                parse_request_of(openai, lenient, completion, std::move(prefix), tools, seed);
            py::object owner;
            const std::string_view bytes = text_of(text, owner);
            std::tuple<std::string, bool, std::vector<diagnostic>> out;
            {
              py::gil_scoped_release nogil;
              out = parse_one(f, bytes, r);
            }
            return parse_out{py::bytes(std::get<0>(out)), std::get<1>(out),
                             to_tuples(std::get<2>(out))};
          },
          py::arg("text"), py::arg("openai") = true, py::arg("lenient") = false,
          py::arg("completion") = false, py::arg("prefix") = "", py::arg("tools") = "",
          py::arg("seed") = py::none())
      .def(
          "parse_ids",
          [](const format& f, const py::object& ids_arg, const tokenizer& tok, bool openai,
             bool lenient, bool completion, std::string prefix, const std::string& tools,
             std::optional<std::uint64_t> seed) {
            const auto r =
                parse_request_of(openai, lenient, completion, std::move(prefix), tools, seed);
            const std::vector<token_id> ids = ids_of(ids_arg);
            std::tuple<std::string, bool, std::vector<diagnostic>> out;
            {
              py::gil_scoped_release nogil;
              if (const auto d = f.dialect()) {
                decoder_options o{.dialect = *d, .lenient = lenient, .completion = completion};
                parse_result p = parse_tokens(ids, tok, o);
                out = {conversation_json(f, p.conversation, r), p.ok(), std::move(p.diagnostics)};
              } else {
                // A model's output: its text, then the response template.
                auto text = tok.decode(ids);
                if (!text) {
                  out = {std::string(), false, std::vector<diagnostic>{text.error()}};
                } else {
                  out = parse_one(f, *text, r);
                }
              }
            }
            return parse_out{py::bytes(std::get<0>(out)), std::get<1>(out),
                             to_tuples(std::get<2>(out))};
          },
          py::arg("ids"), py::arg("tokenizer"), py::arg("openai") = true,
          py::arg("lenient") = false, py::arg("completion") = false, py::arg("prefix") = "",
          py::arg("tools") = "", py::arg("seed") = py::none())
      .def(
          "parse_batch",
          [](const format& f, const py::list& items, bool openai, bool lenient, bool completion,
             std::optional<std::uint64_t> seed, std::size_t jobs) {
            const auto r = parse_request_of(openai, lenient, completion, "", "", seed);
            std::vector<py::object> owners;
            const auto texts = texts_of(items, owners);
            std::vector<std::tuple<std::string, bool, std::vector<diagnostic>>> out(texts.size());
            // One JSON array of every result (null where a parse failed: its partial
            // conversation is not returned), built without the GIL, each result freed once
            // copied; and the diagnostics of the items that have any ({index: [...]}):
            // Python makes the dicts with one json.loads, not one a line.
            std::string array;
            {
              py::gil_scoped_release nogil;
              parallel_for(
                  texts.size(), jobs, [&](std::size_t i) { out[i] = parse_one(f, texts[i], r); },
                  [&](std::size_t i, const diagnostic& d) {
                    out[i] = {std::string(), false, std::vector<diagnostic>{d}};
                  });
              std::size_t size = 2;
              for (const auto& o : out) size += std::get<0>(o).size() + 5;
              array.reserve(size);
              array += '[';
              for (std::size_t i = 0; i < out.size(); ++i) {
                if (i != 0) array += ',';
                array += std::get<1>(out[i]) ? std::string_view(std::get<0>(out[i])) : "null";
                std::string().swap(std::get<0>(out[i]));
              }
              array += ']';
            }
            py::dict diags;
            for (std::size_t i = 0; i < out.size(); ++i) {
              if (!std::get<2>(out[i]).empty()) diags[py::int_(i)] = to_tuples(std::get<2>(out[i]));
            }
            return py::make_tuple(py::bytes(array), diags);
          },
          py::arg("items"), py::arg("openai") = true, py::arg("lenient") = false,
          py::arg("completion") = false, py::arg("seed") = py::none(), py::arg("jobs") = 0);
}

}  // namespace

}  // namespace ocml::python

PYBIND11_MODULE(_ocml, m) {
  namespace py = pybind11;
  using namespace ocml::python;  // NOLINT(google-build-using-namespace)
  m.doc() = "ocml's C++ core (use the `ocml` package: it gives these their Python shape).";
  m.attr("version") = ocml::version_string;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const error_exception& e) {
      const py::object exc = py::module_::import("ocml").attr("_error_of")(to_tuple(e.diag));
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
    }
  });
  bind_tokens(m);
  bind_format(m);
  bind_decoder(m);
  bind_templates(m);
  m.def(
      "convert",
      [](const py::object& text, const std::string& from, const std::string& to, bool lenient,
         bool strict) {
        const auto a = ocml::parse_dialect(from);
        const auto b = ocml::parse_dialect(to);
        if (!a) throw py::value_error("unknown dialect '" + from + "'");
        if (!b) throw py::value_error("unknown dialect '" + to + "'");
        py::object owner;
        const std::string_view bytes = text_of(text, owner);
        ocml::convert_result r;
        {
          py::gil_scoped_release nogil;
          r = ocml::convert(bytes, {.from = *a, .to = *b, .lenient = lenient, .strict = strict});
        }
        return render_out{text_str(r.text), to_tuples(r.diagnostics)};
      },
      py::arg("text"), py::arg("source"), py::arg("target"), py::arg("lenient") = false,
      py::arg("strict") = false);
  m.def("dialects", [] {
    py::list out;
    for (const auto& d : ocml::dialects()) {
      py::dict x;
      x["name"] = std::string(d.name);
      x["summary"] = std::string(d.summary);
      x["aliases"] = std::vector<std::string>(d.aliases.begin(), d.aliases.end());
      x["tokens"] = std::vector<std::string>(d.tokens.begin(), d.tokens.end());
      x["stop"] = std::vector<std::string>(d.stop.begin(), d.stop.end());
      out.append(x);
    }
    return out;
  });
  m.def("error_names", [] {
    std::vector<std::string> names;
    for (std::size_t c = 1; c < ocml::error_code_count; ++c) {
      names.emplace_back(ocml::error_name(static_cast<ocml::error_code>(c)));
    }
    return names;
  });
}
