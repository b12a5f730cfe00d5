// SPDX-License-Identifier: Apache-2.0
// What the binding's files share: diagnostics as Python tuples, byte/str/ID arguments, and
// the thread pool of the batch forms. Every call that does work releases the GIL around it;
// Python objects are made only with the GIL held.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/tokens.hpp"

namespace ocml::python {

namespace py = pybind11;

/// (code, severity, offset, line, column, message): the Python side makes ocml.Error and
/// ocml.OcmlWarning of it. A message may quote input bytes that are not UTF-8: they are
/// shown as \x escapes. Made with the GIL held.
using diag_tuple = py::tuple;

/// `s` as a Python str, bytes that are not UTF-8 as \x escapes (never an exception).
[[nodiscard]] inline py::str lossless_str(std::string_view s) {
  PyObject* o =
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

/// Text ocml produced (a render, a conversion) as a Python str: bytes that are not UTF-8 (a
/// lenient conversion keeps the input's) as surrogate escapes, so
/// `s.encode("utf-8", "surrogateescape")` gives the bytes back exactly.
[[nodiscard]] inline py::str text_str(std::string_view s) {
  PyObject* o =
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

[[nodiscard]] inline diag_tuple to_tuple(const diagnostic& d) {
  return py::make_tuple(std::string(error_name(d.code)),
                        d.level == severity::error ? "error" : "warning", d.offset, d.line,
                        d.column, lossless_str(d.message));
}

[[nodiscard]] inline std::vector<diag_tuple> to_tuples(const std::vector<diagnostic>& ds) {
  std::vector<diag_tuple> out;
  out.reserve(ds.size());
  for (const auto& d : ds) out.push_back(to_tuple(d));
  return out;
}

/// A diagnostic thrown as a C++ exception; the module's translator raises it as the
/// matching `ocml.Error` subclass (made by `ocml._error_of`).
struct error_exception {
  diagnostic diag;
};

[[noreturn]] inline void raise(const diagnostic& d) {
  throw error_exception{d};
}

/// `r`'s value, or its error raised as the matching `ocml.Error`.
template <typename T>
T value_or_raise(result<T>&& r) {
  if (!r) raise(r.error());
  return std::move(r).value();
}

/// A static loader (`from_text`, `from_file`) run with the GIL released; its error raised.
template <typename Load>
auto released(Load load) {
  return [load](const std::string& arg) {
    decltype(load(arg)) t = make_error(error_code::internal, "");
    {
      py::gil_scoped_release nogil;
      t = load(arg);
    }
    return value_or_raise(std::move(t));
  };
}

/// The bytes of a `str` (UTF-8) or `bytes` argument, valid while `owner` lives.
[[nodiscard]] inline std::string_view text_of(const py::object& o, py::object& owner) {
  if (py::isinstance<py::bytes>(o)) {
    owner = o;
    char* data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(owner.ptr(), &data, &size);
    return {data, static_cast<std::size_t>(size)};
  }
  if (py::isinstance<py::str>(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o.ptr(), &size);
    if (data == nullptr) throw py::error_already_set();
    owner = o;
    return {data, static_cast<std::size_t>(size)};
  }
  throw py::type_error("expected str or bytes");
}

/// Token IDs from a NumPy array or any sequence of ints (copied once, no per-ID object
/// kept).
[[nodiscard]] inline std::vector<token_id> ids_of(const py::object& o) {
  const auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(o);
  if (!a) throw py::type_error("expected a sequence of token IDs");
  if (a.ndim() != 1) throw py::value_error("token IDs must be one-dimensional");
  std::vector<token_id> ids;
  ids.reserve(static_cast<std::size_t>(a.size()));
  const std::int64_t* p = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    if (p[i] < 0 || p[i] > static_cast<std::int64_t>(UINT32_MAX)) {
      throw py::value_error("token ID out of range: " + std::to_string(p[i]));
    }
    ids.push_back(static_cast<token_id>(p[i]));
  }
  return ids;
}

/// A NumPy int32 array holding `v` (one copy).
template <typename T>
[[nodiscard]] py::array_t<std::int32_t> int32_array(const std::vector<T>& v) {
  py::array_t<std::int32_t> a(static_cast<py::ssize_t>(v.size()));
  std::int32_t* out = a.mutable_data();
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<std::int32_t>(v[i]);
  return a;
}

/// The number of worker threads a batch uses: `jobs`, or every core when 0.
[[nodiscard]] std::size_t job_count(std::size_t jobs) noexcept;

/// Runs `work(i)` for i in [0, n) on `jobs` threads (the caller has released the GIL). An
/// item whose work throws (out of memory: E-LIMIT-EXCEEDED) gets `failed(i, why)` instead;
/// every other item runs, and no exception leaves a thread.
void parallel_for(std::size_t n, std::size_t jobs, const std::function<void(std::size_t)>& work,
                  const std::function<void(std::size_t, const diagnostic&)>& failed);

/// The text of every item of a batch, each a str or bytes (kept alive by `owners`).
[[nodiscard]] std::vector<std::string_view> texts_of(const py::list& items,
                                                     std::vector<py::object>& owners);

void bind_tokens(py::module_& m);
void bind_decoder(py::module_& m);
void bind_templates(py::module_& m);

}  // namespace ocml::python
