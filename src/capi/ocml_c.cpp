// SPDX-License-Identifier: Apache-2.0
// The C API (include/ocml/ocml.h): one thin file over the public C++ API, as fmt's fmt-c.
// Every entry point catches everything: no exception crosses into C; out of memory is an
// E-INTERNAL error for the call.
#include "ocml/ocml.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/format.hpp"
#include "ocml/format_decoder.hpp"
#include "ocml/json.hpp"
#include "ocml/version.hpp"

struct ocml_error {
  ocml::diagnostic d;
  std::string code;
  std::string text;
};

struct ocml_diagnostics {
  std::vector<ocml_error> items;
};

struct ocml_format {
  ocml::format f;
};

struct ocml_tokenizer {
  ocml::tokenizer t;
};

struct ocml_decoder {
  ocml::format_decoder d;
  bool takes_ids;
};

namespace {

ocml_error error_of(const ocml::diagnostic& d) {
  return {d, std::string(ocml::error_name(d.code)), d.to_string()};
}

// The error returned when even an error cannot be allocated: made when the library loads,
// never freed (ocml_error_free knows it), so a failed call never looks like a success.
const ocml_error g_out_of_memory =
    error_of(ocml::make_error(ocml::error_code::internal, "out of memory"));

ocml_error* make(const ocml::diagnostic& d) noexcept {
  try {
    return new ocml_error(error_of(d));
  } catch (...) {
    return const_cast<ocml_error*>(
        &g_out_of_memory);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  }
}

ocml_error* internal(const char* what) noexcept {
  try {
    return make(ocml::make_error(ocml::error_code::internal, what));
  } catch (...) {
    return const_cast<ocml_error*>(
        &g_out_of_memory);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  }
}

// Runs `body` (which returns an ocml_error* or nullptr), turning every exception into an
// error.
template <typename F>
ocml_error* guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return internal("out of memory");
  } catch (const std::exception& e) {
    return internal(e.what());
  } catch (...) {
    return internal("unknown exception");
  }
}

// Copies `s` into a malloc'd NUL-terminated buffer (freed with ocml_free).
char* copy_out(const std::string& s, size_t* len) {
  auto* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) throw std::bad_alloc();
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  if (len != nullptr) *len = s.size();
  return p;
}

template <typename T, typename U>
T* copy_array(const std::vector<U>& v) {
  auto* p = static_cast<T*>(std::malloc(v.empty() ? 1 : v.size() * sizeof(T)));
  if (p == nullptr) throw std::bad_alloc();
  for (std::size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  return p;
}

// The first error among `ds`, or the warnings into `*out` (when asked for).
ocml_error* split(const std::vector<ocml::diagnostic>& ds, ocml_diagnostics** out) {
  for (const auto& d : ds) {
    if (d.level == ocml::severity::error) return make(d);
  }
  if (out != nullptr) {
    auto* w = new ocml_diagnostics;
    for (const auto& d : ds) w->items.push_back(error_of(d));
    *out = w;
  }
  return nullptr;
}

ocml_error* null_argument(const char* name) {
  return make(ocml::make_error(ocml::error_code::invalid_json, std::string(name) + " is NULL"));
}

}  // namespace

extern "C" {

const char* ocml_version(void) {
  return ocml::version_string;
}

size_t ocml_dialect_count(void) {
  return ocml::dialects().size();
}
const char* ocml_dialect_name(size_t i) {
  const auto all = ocml::dialects();
  return i < all.size() ? all[i].name.data() : nullptr;  // names are NUL-terminated literals
}

const char* ocml_error_code(const ocml_error* e) {
  return e->code.c_str();
}
const char* ocml_error_message(const ocml_error* e) {
  return e->d.message.c_str();
}
const char* ocml_error_text(const ocml_error* e) {
  return e->text.c_str();
}
size_t ocml_error_offset(const ocml_error* e) {
  return e->d.offset;
}
size_t ocml_error_line(const ocml_error* e) {
  return e->d.line;
}
size_t ocml_error_column(const ocml_error* e) {
  return e->d.column;
}
int ocml_error_is_error(const ocml_error* e) {
  return e->d.level == ocml::severity::error ? 1 : 0;
}
void ocml_error_free(ocml_error* e) {
  if (e != &g_out_of_memory) delete e;
}

size_t ocml_diagnostics_count(const ocml_diagnostics* d) {
  return d == nullptr ? 0 : d->items.size();
}
const ocml_error* ocml_diagnostics_at(const ocml_diagnostics* d, size_t i) {
  return d == nullptr || i >= d->items.size() ? nullptr : &d->items[i];
}
void ocml_diagnostics_free(ocml_diagnostics* d) {
  delete d;
}

void ocml_free(void* p) {
  std::free(p);
}

ocml_error* ocml_format_find(const char* name, ocml_format** out) {
  return guarded([&]() -> ocml_error* {
    if (name == nullptr || out == nullptr) return null_argument("name or out");
    *out = nullptr;
    auto f = ocml::format::find(name);
    if (!f) return make(f.error());
    *out = new ocml_format{std::move(f).value()};
    return nullptr;
  });
}
void ocml_format_free(ocml_format* f) {
  delete f;
}
const char* ocml_format_name(const ocml_format* f) {
  return f->f.name().c_str();
}
int ocml_format_is_model(const ocml_format* f) {
  return f->f.is_model() ? 1 : 0;
}

ocml_error* ocml_render_json(const ocml_format* f, const char* request, size_t request_len,
                             char** text, size_t* len, ocml_diagnostics** warnings) {
  return guarded([&]() -> ocml_error* {
    if (f == nullptr || request == nullptr || text == nullptr) return null_argument("argument");
    *text = nullptr;
    if (warnings != nullptr) *warnings = nullptr;
    auto r = f->f.render_json({request, request_len});
    if (ocml_error* e = split(r.diagnostics, warnings)) return e;
    *text = copy_out(r.text, len);
    return nullptr;
  });
}

ocml_error* ocml_render_ids(const ocml_format* f, const ocml_tokenizer* tok, const char* request,
                            size_t request_len, const ocml_ids_options* options, uint32_t** ids,
                            int32_t** labels, size_t* count, ocml_diagnostics** warnings) {
  return guarded([&]() -> ocml_error* {
    if (f == nullptr || tok == nullptr || request == nullptr || ids == nullptr ||
        count == nullptr) {
      return null_argument("argument");
    }
    *ids = nullptr;
    if (labels != nullptr) *labels = nullptr;
    if (warnings != nullptr) *warnings = nullptr;
    const ocml_ids_options o = options != nullptr ? *options : ocml_ids_options{};
    ocml::token_render_options to;
    to.policy = o.hf_policy != 0 ? ocml::token_policy::hf : ocml::token_policy::harmony;
    to.training = o.training != 0;
    if (o.turns < OCML_TURNS_AUTOMATIC || o.turns > OCML_TURNS_KEEP_REASONING) {
      return make(ocml::make_error(ocml::error_code::invalid_json,
                                   "ocml_ids_options.turns: not an OCML_TURNS_* value"));
    }
    to.turns = o.last_turn_only != 0 ? ocml::trained_turns::last
                                     : static_cast<ocml::trained_turns>(o.turns);
    to.train_trailing_newline = o.train_trailing_newline != 0;
    to.strict = o.strict != 0;
    to.max_tokens = o.max_tokens;
    if (o.truncate < OCML_TRUNCATE_TURNS || o.truncate > OCML_TRUNCATE_RIGHT) {
      return make(ocml::make_error(ocml::error_code::invalid_json,
                                   "ocml_ids_options.truncate: not an OCML_TRUNCATE_* value"));
    }
    to.truncate = static_cast<ocml::truncation>(o.truncate);
    auto r = f->f.render_json_tokens({request, request_len}, tok->t, {}, to);
    auto all = r.diagnostics;
    all.insert(all.end(), r.tokens.diagnostics.begin(), r.tokens.diagnostics.end());
    if (!r.more_examples.empty()) {
      all.push_back(ocml::make_error(
          ocml::error_code::unrepresentable,
          "training this conversation under the chosen policy takes " +
              std::to_string(r.more_examples.size() + 1) +
              " examples; ocml_render_ids returns one (use OCML_TURNS_WHOLE to be told which "
              "turn, or the CLI's or Python's examples)"));
    }
    if (ocml_error* e = split(all, warnings)) return e;
    *ids = copy_array<uint32_t>(r.tokens.input_ids);
    if (labels != nullptr && to.training) *labels = copy_array<int32_t>(r.tokens.labels);
    *count = r.tokens.input_ids.size();
    return nullptr;
  });
}

ocml_error* ocml_parse(const ocml_format* f, const char* text, size_t text_len,
                       const ocml_parse_options* options, char** json, size_t* json_len,
                       ocml_diagnostics** warnings) {
  return guarded([&]() -> ocml_error* {
    if (f == nullptr || text == nullptr || json == nullptr) return null_argument("argument");
    *json = nullptr;
    if (warnings != nullptr) *warnings = nullptr;
    const ocml_parse_options o = options != nullptr ? *options : ocml_parse_options{};
    std::optional<std::uint64_t> seed;
    if (o.has_seed != 0) seed = o.seed;
    ocml::format_parse_options po;
    po.lenient = o.lenient != 0;
    po.completion = o.completion != 0;
    po.call_id_seed = seed;
    const ocml::parse_result r = f->f.parse({text, text_len}, po);
    if (ocml_error* e = split(r.diagnostics, warnings)) return e;
    *json = copy_out(ocml::dump_json(f->f.conversation_json(r.conversation, o.native == 0, seed)),
                     json_len);
    return nullptr;
  });
}

ocml_error* ocml_tokenizer_from_file_cached(const char* path, const char* encoding,
                                            const char* cache_dir, ocml_tokenizer** out) {
  return guarded([&]() -> ocml_error* {
    if (path == nullptr || out == nullptr) return null_argument("path or out");
    *out = nullptr;
    auto t = ocml::tokenizer::from_file(path, {.encoding = encoding != nullptr ? encoding : "",
                                               .cache_dir = cache_dir != nullptr ? cache_dir : ""});
    if (!t) return make(t.error());
    *out = new ocml_tokenizer{std::move(t).value()};
    return nullptr;
  });
}
ocml_error* ocml_tokenizer_from_file(const char* path, const char* encoding, ocml_tokenizer** out) {
  return ocml_tokenizer_from_file_cached(path, encoding, nullptr, out);
}
void ocml_tokenizer_free(ocml_tokenizer* t) {
  delete t;
}

ocml_error* ocml_tokenize(const ocml_tokenizer* t, const char* text, size_t len, int special,
                          uint32_t** ids, size_t* count) {
  return guarded([&]() -> ocml_error* {
    if (t == nullptr || text == nullptr || ids == nullptr || count == nullptr) {
      return null_argument("argument");
    }
    const auto v = t->t.encode(
        {text, len}, special != 0 ? ocml::special_tokens::all : ocml::special_tokens::none);
    *ids = copy_array<uint32_t>(v);
    *count = v.size();
    return nullptr;
  });
}

ocml_error* ocml_detokenize(const ocml_tokenizer* t, const uint32_t* ids, size_t count, char** text,
                            size_t* len) {
  return guarded([&]() -> ocml_error* {
    if (t == nullptr || (ids == nullptr && count != 0) || text == nullptr) {
      return null_argument("argument");
    }
    *text = nullptr;
    auto s = t->t.decode(std::span<const ocml::token_id>(ids, count));
    if (!s) return make(s.error());
    *text = copy_out(*s, len);
    return nullptr;
  });
}

ocml_error* ocml_decoder_new(const ocml_format* f, const ocml_decoder_options* options,
                             ocml_event_fn on_event, void* user, ocml_decoder** out) {
  return guarded([&]() -> ocml_error* {
    if (f == nullptr || on_event == nullptr || out == nullptr) return null_argument("argument");
    *out = nullptr;
    const ocml_decoder_options o = options != nullptr ? *options : ocml_decoder_options{};
    ocml::format_decoder_options fo;
    fo.events = o.openai != 0 ? ocml::stream_events::openai : ocml::stream_events::native;
    fo.lenient = o.lenient != 0;
    fo.completion = o.completion != 0;
    fo.tokens = o.tokens != nullptr ? &o.tokens->t : nullptr;
    if (o.has_seed != 0) fo.call_id_seed = o.seed;
    auto* d = new ocml_decoder{ocml::format_decoder(f->f, std::move(fo),
                                                    [on_event, user](std::string_view j) {
                                                      on_event(user, j.data(), j.size());
                                                    }),
                               o.tokens != nullptr};
    if (const ocml::diagnostic* e = d->d.error()) {
      ocml_error* err = make(*e);
      delete d;
      return err;
    }
    *out = d;
    return nullptr;
  });
}

namespace {
ocml_error* misuse(const ocml_decoder* d, bool ids) {
  if (d->takes_ids && !ids) {
    return make(ocml::make_error(ocml::error_code::invalid_json,
                                 "this decoder reads token IDs (it was made with a tokenizer)"));
  }
  if (!d->takes_ids && ids) {
    return make(ocml::make_error(ocml::error_code::invalid_json,
                                 "token IDs need a decoder made with a tokenizer"));
  }
  return make(ocml::make_error(ocml::error_code::invalid_json, "the decoder was finished"));
}
}  // namespace

ocml_error* ocml_decoder_push(ocml_decoder* d, const char* bytes, size_t len) {
  return guarded([&]() -> ocml_error* {
    if (d == nullptr || (bytes == nullptr && len != 0)) return null_argument("argument");
    return d->d.push({bytes, len}) ? nullptr : misuse(d, false);
  });
}

ocml_error* ocml_decoder_push_ids(ocml_decoder* d, const uint32_t* ids, size_t count) {
  return guarded([&]() -> ocml_error* {
    if (d == nullptr || (ids == nullptr && count != 0)) return null_argument("argument");
    return d->d.push_ids(std::span<const ocml::token_id>(ids, count)) ? nullptr : misuse(d, true);
  });
}

ocml_error* ocml_decoder_finish(ocml_decoder* d) {
  return guarded([&]() -> ocml_error* {
    if (d == nullptr) return null_argument("decoder");
    return d->d.finish() ? nullptr : misuse(d, d->takes_ids);
  });
}

void ocml_decoder_free(ocml_decoder* d) {
  delete d;
}

}  // extern "C"
