// SPDX-License-Identifier: Apache-2.0
// ocml._ocml.Tokenizer: a tokenizer.json or .tiktoken file, encode/decode with NumPy arrays.
#include <mutex>
#include <optional>

#include "common.hpp"

namespace ocml::python {

namespace {

special_tokens special_of(const std::string& s) {
  if (s == "all") return special_tokens::all;
  if (s == "none") return special_tokens::none;
  throw py::value_error("special must be 'all' or 'none', not '" + s + "'");
}

}  // namespace

void bind_tokens(py::module_& m) {
  py::class_<tokenizer>(m, "Tokenizer")
      .def_static(
          "from_file",
          [](const std::string& path, const std::string& encoding, const std::string& cache_dir) {
            result<tokenizer> t = make_error(error_code::internal, "");
            {
              py::gil_scoped_release nogil;
              t = tokenizer::from_file(path, {.encoding = encoding, .cache_dir = cache_dir});
            }
            if (!t) raise(t.error());
            return std::move(t).value();
          },
          py::arg("path"), py::arg("encoding") = "", py::arg("cache_dir") = "")
      .def_property_readonly("name", [](const tokenizer& t) { return std::string(t.name()); })
      .def_property_readonly("vocab_size", &tokenizer::vocab_size)
      .def(
          "id_of",
          [](const tokenizer& t, const std::string& special) -> std::optional<token_id> {
            return t.id_of(special);
          },
          py::arg("token"))
      .def(
          "encode",
          [](const tokenizer& t, const py::object& text, const std::string& special) {
            const special_tokens allowed = special_of(special);
            py::object owner;
            const std::string_view bytes = text_of(text, owner);
            std::vector<token_id> ids;
            {
              py::gil_scoped_release nogil;
              ids = t.encode(bytes, allowed);
            }
            return int32_array(ids);
          },
          py::arg("text"), py::arg("special") = "all")
      .def(
          "encode_batch",
          [](const tokenizer& t, const py::list& texts, const std::string& special,
             std::size_t jobs) {
            const special_tokens allowed = special_of(special);
            std::vector<py::object> owners;
            const auto views = texts_of(texts, owners);
            std::vector<std::vector<token_id>> out(views.size());
            std::optional<diagnostic> failure;  // the first item that failed (out of memory)
            std::mutex mu;
            {
              py::gil_scoped_release nogil;
              parallel_for(
                  views.size(), jobs, [&](std::size_t i) { out[i] = t.encode(views[i], allowed); },
                  [&](std::size_t, const diagnostic& d) {
                    const std::lock_guard lock(mu);
                    if (!failure) failure = d;
                  });
            }
            if (failure) raise(*failure);
            py::list result(out.size());
            for (std::size_t i = 0; i < out.size(); ++i) result[i] = int32_array(out[i]);
            return result;
          },
          py::arg("texts"), py::arg("special") = "all", py::arg("jobs") = 0)
      .def(
          "decode",
          [](const tokenizer& t, const py::object& ids_arg) {
            const std::vector<token_id> ids = ids_of(ids_arg);
            result<std::string> text = std::string();
            {
              py::gil_scoped_release nogil;
              text = t.decode(ids);
            }
            if (!text) raise(text.error());
            // Bytes that are not UTF-8 (a cut character) are replaced, as transformers does.
            return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
                text->data(), static_cast<Py_ssize_t>(text->size()), "replace"));
          },
          py::arg("ids"))
      .def(
          "token_bytes",
          [](const tokenizer& t, token_id id) {
            if (id >= t.vocab_size() || (t.token_bytes(id).empty() && !t.is_special(id))) {
              throw py::value_error("token ID " + std::to_string(id) + " is not in the vocabulary");
            }
            const std::string_view b = t.token_bytes(id);
            return py::bytes(b.data(), b.size());
          },
          py::arg("id"));
}

}  // namespace ocml::python
