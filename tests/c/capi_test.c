/* SPDX-License-Identifier: Apache-2.0 */
/* The C API from C11 (-std=c11 -Wall -Wextra -Werror -pedantic): for every dialect and a
 * model format, render a request, parse the text back, and stream-decode it one byte at a
 * time and whole (the same events both ways); tokens, errors and misuse.
 *   capi_test MODEL_DIR TOKENIZER_JSON */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <ocml/ocml.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Fails the check and frees the error when `e` is not NULL. */
static int ok(ocml_error* e, const char* what) {
  if (e == NULL) return 1;
  fprintf(stderr, "%s: %s\n", what, ocml_error_text(e));
  ocml_error_free(e);
  ++failures;
  return 0;
}

/* A growing buffer the decoder's callback appends each event to, one per line. */
typedef struct {
  char* data;
  size_t len, cap;
  size_t events;
} sink;

static void on_event(void* user, const char* json, size_t len) {
  sink* s = (sink*)user;
  if (s->len + len + 2 > s->cap) {
    size_t cap = (s->cap + len + 2) * 2;
    char* p = (char*)realloc(s->data, cap);
    if (p == NULL) abort();
    s->data = p;
    s->cap = cap;
  }
  memcpy(s->data + s->len, json, len);
  s->len += len;
  s->data[s->len++] = '\n';
  s->data[s->len] = '\0';
  ++s->events;
}

/* Decodes `text` in chunks of `step` bytes (0: whole) into `out`. */
static int decode(const ocml_format* f, const char* text, size_t len, size_t step, int openai,
                  sink* out) {
  ocml_decoder_options o;
  ocml_decoder* d = NULL;
  size_t at = 0;
  memset(&o, 0, sizeof o);
  o.openai = openai;
  o.lenient = 1;
  o.has_seed = 1;
  o.seed = 7;
  if (!ok(ocml_decoder_new(f, &o, on_event, out, &d), "decoder_new")) return 0;
  if (step == 0) step = len == 0 ? 1 : len;
  while (at < len) {
    size_t n = len - at < step ? len - at : step;
    if (!ok(ocml_decoder_push(d, text + at, n), "push")) break;
    at += n;
  }
  ok(ocml_decoder_finish(d), "finish");
  /* Misuse is an error, not a crash: pushing after finish. */
  {
    ocml_error* e = ocml_decoder_push(d, "x", 1);
    CHECK(e != NULL);
    if (e != NULL) {
      CHECK(strcmp(ocml_error_code(e), "E-JSON-INPUT") == 0);
      ocml_error_free(e);
    }
  }
  ocml_decoder_free(d);
  return 1;
}

/* Checks that the events' spans tile [0, len): each begins where the last ended. Returns
 * the number of message_begin events. */
static size_t check_tiling(const sink* s, size_t len) {
  size_t cursor = 0, begins = 0;
  const char* p = s->data;
  while (p != NULL && *p != '\0') {
    const char* nl = strchr(p, '\n');
    const char* span = strstr(p, "\"span\":[");
    if (strstr(p, "\"event\":\"message_begin\"") != NULL &&
        strstr(p, "\"event\":\"message_begin\"") < nl) {
      ++begins;
    }
    if (span != NULL && span < nl) {
      unsigned long b = 0, e = 0;
      CHECK(sscanf(span, "\"span\":[%lu,%lu]", &b, &e) == 2);
      CHECK(b == cursor && e >= b);
      cursor = e;
    }
    p = nl == NULL ? NULL : nl + 1;
  }
  CHECK(cursor == len);
  return begins;
}

/* The number of chunks that carry a finish_reason. */
static size_t finishes(const sink* s) {
  size_t n = 0;
  const char* p = s->data;
  while (p != NULL && (p = strstr(p, "\"finish_reason\":\"")) != NULL) {
    ++n;
    ++p;
  }
  return n;
}

static const char* kRequest =
    "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
    "{\"role\":\"user\",\"content\":\"Weather in Paris? \\u00e9\"},"
    "{\"role\":\"assistant\",\"content\":\"Sunny, 21 \\u00b0C.\"}]}";

static void round_trip(const char* name) {
  ocml_format* f = NULL;
  char* text = NULL;
  char* json = NULL;
  size_t len = 0, json_len = 0;
  ocml_diagnostics* warnings = NULL;
  ocml_parse_options po;
  sink one = {NULL, 0, 0, 0}, whole = {NULL, 0, 0, 0}, chunks = {NULL, 0, 0, 0};
  if (!ok(ocml_format_find(name, &f), name)) return;
  if (ok(ocml_render_json(f, kRequest, strlen(kRequest), &text, &len, &warnings), name)) {
    CHECK(len > 0 && strlen(text) == len);
    CHECK(strstr(text, "Weather in Paris?") != NULL);
    memset(&po, 0, sizeof po);
    po.lenient = 1;
    if (ocml_format_is_model(f)) {
      /* A model's response template parses what the model generates: the answer. */
      const char* answer =
          "Sunny, 21 \xc2\xb0"
          "C.<|im_end|>";
      po.completion = 1;
      if (ok(ocml_parse(f, answer, strlen(answer), &po, &json, &json_len, NULL), name)) {
        CHECK(strstr(json, "Sunny") != NULL);
      }
      ocml_free(json);
      json = NULL;
      if (decode(f, answer, strlen(answer), 1, 1, &one) &&
          decode(f, answer, strlen(answer), 0, 1, &whole)) {
        /* Chunking may cut the deltas anywhere; one response ends either way. */
        CHECK(finishes(&one) == 1 && finishes(&whole) == 1);
        CHECK(strstr(whole.data, "Sunny") != NULL);
      }
    } else {
      if (ok(ocml_parse(f, text, len, &po, &json, &json_len, NULL), name)) {
        CHECK(strstr(json, "Sunny, 21") != NULL);
        CHECK(strstr(json, "\"messages\"") != NULL);
      }
      if (decode(f, text, len, 1, 0, &one) && decode(f, text, len, 0, 0, &whole) &&
          decode(f, text, len, 5, 1, &chunks)) {
        /* A byte at a time or whole: the spans tile the input, the same messages begin. */
        const size_t begins = check_tiling(&whole, len);
        CHECK(begins >= 2 && check_tiling(&one, len) == begins);
        CHECK(one.events >= whole.events);
        CHECK(chunks.events > 0 && strstr(chunks.data, "chat.completion.chunk") != NULL);
        CHECK(finishes(&chunks) == 1);
      }
    }
  }
  ocml_free(text);
  ocml_free(json);
  ocml_diagnostics_free(warnings);
  free(one.data);
  free(whole.data);
  free(chunks.data);
  ocml_format_free(f);
}

static void tokens(const char* tokenizer_path) {
  ocml_tokenizer* t = NULL;
  ocml_format* f = NULL;
  uint32_t* ids = NULL;
  int32_t* labels = NULL;
  size_t count = 0, n = 0, len = 0, i, trained = 0;
  char* text = NULL;
  ocml_ids_options o;
  const char* s = "Hi <|im_end|> \xc3\xa9";
  if (!ok(ocml_tokenizer_from_file(tokenizer_path, NULL, &t), "tokenizer")) return;
  if (ok(ocml_tokenize(t, s, strlen(s), 1, &ids, &n), "tokenize")) {
    if (ok(ocml_detokenize(t, ids, n, &text, &len), "detokenize")) {
      CHECK(len == strlen(s) && memcmp(text, s, len) == 0);
    }
  }
  ocml_free(ids);
  ocml_free(text);
  ids = NULL;
  {
    uint32_t bad = 4000000000u;
    ocml_error* e = ocml_detokenize(t, &bad, 1, &text, &len);
    CHECK(e != NULL && strcmp(ocml_error_code(e), "E-TOKEN-UNKNOWN") == 0);
    ocml_error_free(e);
  }
  memset(&o, 0, sizeof o);
  o.training = 1;
  if (ok(ocml_format_find("chatml", &f), "chatml") &&
      ok(ocml_render_ids(f, t, kRequest, strlen(kRequest), &o, &ids, &labels, &count, NULL),
         "render_ids")) {
    CHECK(count > 0 && labels != NULL);
    for (i = 0; i < count; ++i) trained += labels[i] != -100;
    CHECK(trained > 0 && trained < count);
  }
  ocml_free(ids);
  ocml_free(labels);
  ocml_format_free(f);
  ocml_tokenizer_free(t);
  {
    /* Through a cache folder: twice (a miss that writes the cache, then a hit), the same
     * IDs as without it. */
    char dir[] = "/tmp/ocml_capi_cacheXXXXXX";
    uint32_t* again = NULL;
    size_t n2 = 0;
    int round;
    CHECK(mkdtemp(dir) != NULL);
    if (!ok(ocml_tokenizer_from_file(tokenizer_path, NULL, &t), "tokenizer")) return;
    if (!ok(ocml_tokenize(t, s, strlen(s), 1, &ids, &n), "tokenize")) return;
    ocml_tokenizer_free(t);
    for (round = 0; round < 2; ++round) {
      ocml_tokenizer* c = NULL;
      if (!ok(ocml_tokenizer_from_file_cached(tokenizer_path, NULL, dir, &c), "cached")) break;
      if (ok(ocml_tokenize(c, s, strlen(s), 1, &again, &n2), "tokenize cached")) {
        CHECK(n2 == n && memcmp(again, ids, n * sizeof *ids) == 0);
      }
      ocml_free(again);
      again = NULL;
      ocml_tokenizer_free(c);
    }
    ocml_free(ids);
    {
      char cmd[128];
      snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
      CHECK(system(cmd) == 0);
    }
  }
}

static void errors(void) {
  ocml_format* f = NULL;
  char* text = NULL;
  size_t len = 0;
  const char* bad = "{\"messages\": [{\"role\": \"bot\", \"content\": \"x\"}]}";
  ocml_error* e = ocml_format_find("no-such-dialect", &f);
  CHECK(e != NULL && f == NULL);
  if (e != NULL) CHECK(strcmp(ocml_error_code(e), "E-JSON-INPUT") == 0);
  ocml_error_free(e);
  if (!ok(ocml_format_find("chatml", &f), "chatml")) return;
  e = ocml_render_json(f, bad, strlen(bad), &text, &len, NULL);
  CHECK(e != NULL && text == NULL);
  if (e != NULL) {
    CHECK(strcmp(ocml_error_code(e), "E-JSON-INPUT") == 0);
    CHECK(ocml_error_line(e) == 1 && ocml_error_column(e) > 1 && ocml_error_is_error(e));
    CHECK(strstr(ocml_error_text(e), "bot") != NULL);
  }
  ocml_error_free(e);
  e = ocml_render_json(NULL, bad, strlen(bad), &text, &len, NULL);
  CHECK(e != NULL);
  ocml_error_free(e);
  ocml_format_free(f);
}

int main(int argc, char** argv) {
  size_t i;
  char model[4096];
  if (argc < 3) {
    fprintf(stderr, "usage: capi_test MODEL_DIR TOKENIZER_JSON\n");
    return 2;
  }
  CHECK(strlen(ocml_version()) >= 5);
  CHECK(ocml_dialect_count() >= 8 && ocml_dialect_name(ocml_dialect_count()) == NULL);
  for (i = 0; i < ocml_dialect_count(); ++i) round_trip(ocml_dialect_name(i));
  snprintf(model, sizeof model, "model:%s", argv[1]);
  round_trip(model);
  tokens(argv[2]);
  errors();
  if (failures != 0)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("capi_test: every check passed (%u dialects and a model)\n",
           (unsigned)ocml_dialect_count());
  return failures == 0 ? 0 : 1;
}
