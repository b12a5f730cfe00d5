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
// Errors are `ocml::diagnostic`s: an `E-...` code (see error.hpp), byte offset, line:column.
#pragma once

#include "ocml/convert.hpp"
#include "ocml/decoder.hpp"
#include "ocml/dialect.hpp"
#include "ocml/display.hpp"
#include "ocml/error.hpp"
#include "ocml/events.hpp"
#include "ocml/gabgpt.hpp"
#include "ocml/generate.hpp"
#include "ocml/harmony.hpp"
#include "ocml/json.hpp"
#include "ocml/model.hpp"
#include "ocml/prompt.hpp"
#include "ocml/render.hpp"
#include "ocml/text_buffer.hpp"
#include "ocml/tools.hpp"
#include "ocml/version.hpp"
