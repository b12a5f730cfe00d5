// SPDX-License-Identifier: Apache-2.0
// Uses ocml::http (the HTTP model) through the installed package: it links and constructs.
#include <iostream>
#include <ocml/http_engine.hpp>

int main() {
  ocml::http_engine engine({.endpoint = "http://127.0.0.1:9", .model = "m"});
  std::cout << "http ok\n";
  return 0;
}
