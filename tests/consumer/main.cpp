// SPDX-License-Identifier: Apache-2.0
// Parses, renders and projects one message through the installed public headers.
#include <iostream>
#include <ocml/ocml.hpp>

int main() {
  const auto r = ocml::parse("<|start|>user<|message|>Hi<|end|>", {});
  auto text = ocml::render(r.conversation, {.dialect = ocml::dialect::harmony});
  if (!r.ok() || !text.ok() || *text != "<|start|>user<|message|>Hi<|end|>") return 1;
  std::cout << ocml::dump_json(ocml::to_openai_json(r.conversation, {})) << '\n';
  return 0;
}
