/* SPDX-License-Identifier: Apache-2.0 */
/* ocml/ocml.h - ocml's C API (C11; also valid C++). Link the shared library libocml-c
 * (`pkg-config --cflags --libs ocml-c`; CMake: ocml::c).
 *
 * Usage guide
 * -----------
 * Every object is opaque and made by a function that returns an `ocml_error*`: NULL on
 * success, else an error the caller frees with ocml_error_free. The caller owns every
 * buffer and object it receives and frees it with the matching call (ocml_free for text
 * and arrays, ocml_*_free for objects). No C++ exception crosses this boundary; out of
 * memory is an E-INTERNAL error for that call.
 *
 *   ocml_format* f = NULL;
 *   ocml_error* e = ocml_format_find("qwen3", &f);          // or "model:/models/Qwen3-8B"
 *   if (e) { fprintf(stderr, "%s\n", ocml_error_text(e)); ocml_error_free(e); return 1; }
 *   const char* req = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
 *                     "\"add_generation_prompt\":true}";
 *   char* text = NULL; size_t len = 0; ocml_diagnostics* warnings = NULL;
 *   e = ocml_render_json(f, req, strlen(req), &text, &len, &warnings);
 *   ...
 *   ocml_free(text); ocml_diagnostics_free(warnings); ocml_format_free(f);
 *
 * Requests and parsed conversations are JSON text (OpenAI chat form, or ocml's native
 * form): the same requests as `ocml render --jsonl` takes, the same output as `ocml parse`
 * writes. Streaming: ocml_decoder_new takes a callback that receives each event as JSON
 * text (the format's own events or OpenAI chunks) and the caller's user data.
 *
 * Threads: formats and tokenizers are immutable and may be used from any number of threads
 * at once; a decoder is used by one thread at a time. */
#ifndef OCML_OCML_H
#define OCML_OCML_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define OCML_C_API __attribute__((visibility("default")))
#else
#define OCML_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ocml_format ocml_format;
typedef struct ocml_tokenizer ocml_tokenizer;
typedef struct ocml_decoder ocml_decoder;
typedef struct ocml_error ocml_error;
typedef struct ocml_diagnostics ocml_diagnostics;

/* ---- version ---------------------------------------------------------------------- */

/* "0.3.0": the library's version (include/ocml/version.hpp). */
OCML_C_API const char* ocml_version(void);

/* The built-in dialects: their number, and the name of the i-th ("ocml-2.2", "chatml", …;
 * NULL past the end), each a name ocml_format_find takes. */
OCML_C_API size_t ocml_dialect_count(void);
OCML_C_API const char* ocml_dialect_name(size_t i);

/* ---- errors and warnings ---------------------------------------------------------- */

/* "E-JSON-INPUT" (docs/errors.md). */
OCML_C_API const char* ocml_error_code(const ocml_error* e);
/* The detail, e.g. "messages[0].role 'bot' is not a role". */
OCML_C_API const char* ocml_error_message(const ocml_error* e);
/* "E-JSON-INPUT 1:26 messages[0].role 'bot' is not a role" (warnings: "warning: " before
 * the message). */
OCML_C_API const char* ocml_error_text(const ocml_error* e);
/* Byte offset into the input, and its 1-based line and column (line 0: no position). */
OCML_C_API size_t ocml_error_offset(const ocml_error* e);
OCML_C_API size_t ocml_error_line(const ocml_error* e);
OCML_C_API size_t ocml_error_column(const ocml_error* e);
/* 1 for an error, 0 for a warning. */
OCML_C_API int ocml_error_is_error(const ocml_error* e);
OCML_C_API void ocml_error_free(ocml_error* e);

/* The warnings of a call that succeeded (lenient recoveries, what a format cannot hold). */
OCML_C_API size_t ocml_diagnostics_count(const ocml_diagnostics* d);
/* The i-th, owned by `d` (do not free it). */
OCML_C_API const ocml_error* ocml_diagnostics_at(const ocml_diagnostics* d, size_t i);
OCML_C_API void ocml_diagnostics_free(ocml_diagnostics* d);

/* Frees text and arrays the library returned. NULL is allowed. */
OCML_C_API void ocml_free(void* p);

/* ---- formats ---------------------------------------------------------------------- */

/* A dialect ("chatml", "qwen3", "harmony", "ocml-2.2", … and aliases) or "model:PATH" (a
 * model folder or its tokenizer_config.json). Errors: E-JSON-INPUT (unknown name, a config
 * without a chat template), E-IO, E-TEMPLATE-SYNTAX, E-RESPONSE-TEMPLATE. */
OCML_C_API ocml_error* ocml_format_find(const char* name, ocml_format** out);
OCML_C_API void ocml_format_free(ocml_format* f);
/* "chatml", or "model:PATH" as given (owned by f). */
OCML_C_API const char* ocml_format_name(const ocml_format* f);
/* 1 for a model format, 0 for a dialect. */
OCML_C_API int ocml_format_is_model(const ocml_format* f);

/* ---- render ----------------------------------------------------------------------- */

/* Renders a JSON request ({"messages": [...], "tools": [...], "add_generation_prompt":
 * true, "chat_template_kwargs": {...}} or ocml's native form) to the format's text.
 * `*text` is NUL-terminated; `*len` is its length (the text may hold NUL bytes). `warnings`
 * may be NULL (they are dropped then). */
OCML_C_API ocml_error* ocml_render_json(const ocml_format* f, const char* request,
                                        size_t request_len, char** text, size_t* len,
                                        ocml_diagnostics** warnings);

/* How training trains a conversation's turns (docs/training.md). A call returns one
 * sequence: a conversation that the policy splits into several examples is
 * E-RENDER-UNREPRESENTABLE naming the count (OCML_TURNS_WHOLE never splits; it refuses a
 * turn the whole conversation does not hold as the model sampled it). */
enum {
  OCML_TURNS_AUTOMATIC = 0,
  OCML_TURNS_PER_TURN = 1,
  OCML_TURNS_WHOLE = 2,
  OCML_TURNS_LAST = 3,
  OCML_TURNS_KEEP_REASONING = 4
};

/* How a sequence longer than ocml_ids_options.max_tokens is cut: the oldest whole user
 * turns dropped (the system prompt and tools stay; E-LIMIT-EXCEEDED when the last turn alone
 * is too long), the last max_tokens tokens kept, or the first. */
enum { OCML_TRUNCATE_TURNS = 0, OCML_TRUNCATE_LEFT = 1, OCML_TRUNCATE_RIGHT = 2 };

/* How ocml_render_ids tokenizes. Zero-initialize, then set what you need. */
typedef struct ocml_ids_options {
  int training;               /* labels on the assistant's sampled turns, -100 elsewhere */
  int last_turn_only;         /* train only the turns after the last user message */
  int turns;                  /* OCML_TURNS_*: how turns are trained (0: automatic) */
  int train_trailing_newline; /* also train the newline after the stop token */
  int hf_policy;              /* encode the text whole (transformers) instead of harmony's way */
  int strict;                 /* a control token the vocabulary lacks is an error */
  size_t max_tokens;          /* at most this many tokens (0: all), cut as `truncate` says */
  int truncate;               /* OCML_TRUNCATE_*: how (0: whole old turns) */
} ocml_ids_options;

/* The request as token IDs and, with `options->training`, labels (`*labels` NULL
 * otherwise); `*count` is the length of both. `options` may be NULL. */
OCML_C_API ocml_error* ocml_render_ids(const ocml_format* f, const ocml_tokenizer* tok,
                                       const char* request, size_t request_len,
                                       const ocml_ids_options* options, uint32_t** ids,
                                       int32_t** labels, size_t* count,
                                       ocml_diagnostics** warnings);

/* ---- parse ------------------------------------------------------------------------ */

typedef struct ocml_parse_options {
  int native;     /* ocml's native JSON instead of {"messages": [...]} in OpenAI form */
  int lenient;    /* recover from malformed input, with warnings */
  int completion; /* the text is a completion after the generation prompt */
  int has_seed;   /* call ids for calls without one reproducible from `seed` */
  uint64_t seed;
} ocml_parse_options;

/* Parses a transcript (or a model's completion) to JSON text (NUL-terminated). `options`
 * may be NULL. */
OCML_C_API ocml_error* ocml_parse(const ocml_format* f, const char* text, size_t text_len,
                                  const ocml_parse_options* options, char** json, size_t* json_len,
                                  ocml_diagnostics** warnings);

/* ---- tokens ----------------------------------------------------------------------- */

/* A tokenizer.json or .tiktoken file; `encoding` ("o200k_harmony", …) may be NULL. */
OCML_C_API ocml_error* ocml_tokenizer_from_file(const char* path, const char* encoding,
                                                ocml_tokenizer** out);
/* The same through the tokenizer cache in the folder `cache_dir` (NULL or "": none): a
 * tokenizer.json loaded once is kept there as its built tables, and loading the same bytes
 * again reads them (checked, never trusted; writing is best effort). */
OCML_C_API ocml_error* ocml_tokenizer_from_file_cached(const char* path, const char* encoding,
                                                       const char* cache_dir, ocml_tokenizer** out);
OCML_C_API void ocml_tokenizer_free(ocml_tokenizer* t);
/* Encodes text, every special token recognized (`special` 1) or none (0). */
OCML_C_API ocml_error* ocml_tokenize(const ocml_tokenizer* t, const char* text, size_t len,
                                     int special, uint32_t** ids, size_t* count);
/* The bytes the IDs stand for (NUL-terminated). E-TOKEN-UNKNOWN for an ID outside the
 * vocabulary. */
OCML_C_API ocml_error* ocml_detokenize(const ocml_tokenizer* t, const uint32_t* ids, size_t count,
                                       char** text, size_t* len);

/* ---- streaming -------------------------------------------------------------------- */

/* Receives one event as JSON text (valid during the call) and the caller's user data. */
typedef void (*ocml_event_fn)(void* user, const char* json, size_t len);

typedef struct ocml_decoder_options {
  int openai; /* OpenAI chat.completion.chunk objects instead of the format's events */
  int lenient;
  int completion;
  int has_seed;
  uint64_t seed;
  const ocml_tokenizer* tokens; /* push IDs (ocml_decoder_push_ids) read with this; it must
                                   outlive the decoder. NULL: push bytes */
} ocml_decoder_options;

/* A streaming decoder; `options` may be NULL. Chunking never changes the events. */
OCML_C_API ocml_error* ocml_decoder_new(const ocml_format* f, const ocml_decoder_options* options,
                                        ocml_event_fn on_event, void* user, ocml_decoder** out);
/* Feeds bytes (a decoder without a tokenizer) or IDs (with one). The events they complete
 * reach the callback before the call returns. Errors only for misuse (E-JSON-INPUT: the
 * wrong input kind, a finished decoder); the input's own errors are diagnostic events. */
OCML_C_API ocml_error* ocml_decoder_push(ocml_decoder* d, const char* bytes, size_t len);
OCML_C_API ocml_error* ocml_decoder_push_ids(ocml_decoder* d, const uint32_t* ids, size_t count);
/* Ends the input: the last events (E-STREAM-TRUNCATED inside a message, as an event). */
OCML_C_API ocml_error* ocml_decoder_finish(ocml_decoder* d);
OCML_C_API void ocml_decoder_free(ocml_decoder* d);

#ifdef __cplusplus
}
#endif

#endif /* OCML_OCML_H */
