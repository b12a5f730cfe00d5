// SPDX-License-Identifier: Apache-2.0
// ocml._ocml.Decoder: ocml::format_decoder, its events gathered per call into one JSON array
// text (ocml/__init__.py json.loads it once per push).
#include <memory>
#include <mutex>

#include "common.hpp"
#include "ocml/format_decoder.hpp"

namespace ocml::python {

namespace {

class stream_decoder {
 public:
  stream_decoder(const format& f, format_decoder_options o)
      : d_(f, std::move(o), [this](std::string_view j) {
          out_ += out_.empty() ? '[' : ',';
          out_.append(j);
        }) {}

  [[nodiscard]] const diagnostic* error() const noexcept { return d_.error(); }

  // Each call runs with the GIL released; the mutex makes two Python threads pushing to one
  // decoder take turns.
  std::string push(std::string_view bytes, bool takes_ids) {
    const std::lock_guard lock(mu_);
    check(takes_ids, false);
    d_.push(bytes);
    return take();
  }
  std::string push_ids(std::span<const token_id> ids, bool takes_ids) {
    const std::lock_guard lock(mu_);
    check(takes_ids, true);
    d_.push_ids(ids);
    return take();
  }
  std::string finish() {
    const std::lock_guard lock(mu_);
    if (finished_) throw py::value_error("the decoder was finished");
    finished_ = true;
    d_.finish();
    return take();
  }

 private:
  void check(bool takes_ids, bool ids) const {
    if (finished_) throw py::value_error("the decoder was finished");
    if (ids && !takes_ids) throw py::type_error("token IDs need a decoder made with a tokenizer");
    if (!ids && takes_ids) {
      throw py::type_error("this decoder reads token IDs (it was made with a tokenizer)");
    }
  }
  std::string take() {
    std::string s = out_.empty() ? std::string("[]") : std::move(out_) + ']';
    out_.clear();
    return s;
  }

  std::mutex mu_;
  std::string out_;
  bool finished_ = false;
  format_decoder d_;  // last: its sink writes out_
};

struct py_decoder {
  std::unique_ptr<stream_decoder> d;
  bool takes_ids = false;
};

}  // namespace

void bind_decoder(py::module_& m) {
  py::class_<py_decoder>(m, "Decoder")
      .def(py::init([](const format& f, const std::string& events, bool lenient, bool completion,
                       const tokenizer* tok, std::string prefix, std::string tools,
                       std::optional<std::uint64_t> seed) {
             if (events != "events" && events != "openai") {
               throw py::value_error("events must be 'events' or 'openai', not '" + events + "'");
             }
             format_decoder_options o{
                 .events = events == "openai" ? stream_events::openai : stream_events::native,
                 .lenient = lenient,
                 .completion = completion,
                 .tokens = tok,
                 .prefix = std::move(prefix),
                 .tools = std::move(tools),
                 .call_id_seed = seed};
             py_decoder p{std::make_unique<stream_decoder>(f, std::move(o)), tok != nullptr};
             if (const diagnostic* e = p.d->error()) raise(*e);
             return p;
           }),
           py::arg("format"), py::arg("events") = "events", py::arg("lenient") = false,
           py::arg("completion") = false, py::arg("tokenizer") = nullptr, py::arg("prefix") = "",
           py::arg("tools") = "", py::arg("seed") = py::none(),
           py::keep_alive<1, 6>())  // the tokenizer outlives the decoder
      .def(
          "push",
          [](py_decoder& p, const py::object& data) {
            // The events' JSON as bytes: an event may carry input bytes that are not UTF-8.
            std::string out;
            if (py::isinstance<py::str>(data) || py::isinstance<py::bytes>(data)) {
              py::object owner;
              const std::string_view bytes = text_of(data, owner);
              py::gil_scoped_release nogil;
              out = p.d->push(bytes, p.takes_ids);
            } else {
              const std::vector<token_id> ids = ids_of(data);
              py::gil_scoped_release nogil;
              out = p.d->push_ids(ids, p.takes_ids);
            }
            return py::bytes(out);
          },
          py::arg("data"))
      .def("finish", [](py_decoder& p) {
        std::string out;
        {
          py::gil_scoped_release nogil;
          out = p.d->finish();
        }
        return py::bytes(out);
      });
}

}  // namespace ocml::python
