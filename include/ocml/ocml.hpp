// SPDX-License-Identifier: Apache-2.0
// ocml - a C++ toolkit for LLM chat markup.
//
// Usage guide
// -----------
// Parse model output or a transcript (one-shot, or streaming in any chunking):
//
//   #include <ocml/ocml.hpp>
//   auto r = ocml::parse(text, {.dialect = ocml::dialect::harmony, .lenient = true});
//   for (const auto& d : r.diagnostics) std::cerr << d.to_string() << '\n';
//   for (const auto& m : r.conversation.messages) use(m.channel, m.content);
//
//   ocml::decoder dec({.dialect = ocml::dialect::ocml_2_2}, [](const ocml::event& e) {
//     if (e.kind == ocml::event_kind::content) std::cout << e.text;
//   });
//   while (auto chunk = next_chunk()) dec.push(*chunk);
//   dec.finish();
//
// Render a conversation (from OpenAI or native JSON) to markup:
//
//   auto conv = ocml::from_json(ocml::json::parse(input), ocml::json_format::automatic);
//   auto text = ocml::render(*conv, {.dialect = ocml::dialect::ocml_2_2});
//
// Project to OpenAI JSON, or to the lossless native JSON:
//
//   ocml::json openai = ocml::to_openai_json(r.conversation, {});
//   ocml::json native = ocml::to_native_json(r.conversation);
//
// A JSON request straight to a dialect's text, or to token IDs with training labels:
//
//   auto out = ocml::render_json(input, {.render = {.dialect = ocml::dialect::qwen3}});
//   auto tk = ocml::tokenizer::from_file("tokenizer.json");
//   auto seq = ocml::render_json_tokens(input, {.render = {.dialect = ocml::dialect::qwen3}},
//                                       *tk, {.training = true});
//
// One handle for a dialect or a model folder, the same request for both:
//
//   auto f = ocml::format::find("model:Qwen3-8B");  // or "qwen3"
//   auto prompt_text = f->render_json(input, {.add_generation_prompt = true,
//                                             .kwargs = {{"enable_thinking", false}}});
//   auto reply_conv = f->parse(output_text, {.prefix = prompt_text.text});
//
// Any model through its own templates (a hub folder's tokenizer_config.json):
//
//   auto chat = ocml::model_template::from_file("Qwen2.5-7B-Instruct/tokenizer_config.json");
//   auto p = chat->render_json(input, {.add_generation_prompt = true});
//   auto rt = ocml::response_template::from_file("Qwen3-8B/tokenizer_config.json");
//   auto msg = ocml::parse_response(*rt, output_text, {.prefix = *p});
//   auto as_conversation = ocml::response_to_conversation(*msg);
//
// Errors are `ocml::diagnostic`s: an `E-...` code (see error.hpp), byte offset, line:column.
// Libraries: ocml::markup (render, parse, convert, JSON: no ICU, PCRE2 or TLS) holds what
// the first three sections use; ocml::ocml adds tokens, templates and the runtime;
// ocml/http_engine.hpp is ocml::http's, and not included here. HACKING.md maps the rest.
#pragma once

#include "ocml/call_id.hpp"
#include "ocml/convert.hpp"
#include "ocml/decoder.hpp"
#include "ocml/dialect.hpp"
#include "ocml/display.hpp"
#include "ocml/error.hpp"
#include "ocml/events.hpp"
#include "ocml/format.hpp"
#include "ocml/gabgpt.hpp"
#include "ocml/generate.hpp"
#include "ocml/harmony.hpp"
#include "ocml/json.hpp"
#include "ocml/model.hpp"
#include "ocml/model_format.hpp"
#include "ocml/prompt.hpp"
#include "ocml/render.hpp"
#include "ocml/response.hpp"
#include "ocml/template.hpp"
#include "ocml/template_tokens.hpp"
#include "ocml/text_buffer.hpp"
#include "ocml/token_decoder.hpp"
#include "ocml/token_render.hpp"
#include "ocml/tokens.hpp"
#include "ocml/tools.hpp"
#include "ocml/version.hpp"
