// SPDX-License-Identifier: Apache-2.0
// JSON Schema -> harmony TypeScript, case by case (the full goldens are in
// harmony_reference_test.cpp).
#include <gtest/gtest.h>

#include "support.hpp"

using ocml::json;
using ocml::harmony::schema_to_typescript;

namespace {

TEST(TypeScript, Scalars) {
  EXPECT_EQ(schema_to_typescript(json{{"type", "integer"}}), "number");
  EXPECT_EQ(schema_to_typescript(json{{"type", "boolean"}}), "boolean");
  EXPECT_EQ(schema_to_typescript(json{{"type", json::array({"number", "string"})}}),
            "number | string");
  EXPECT_EQ(schema_to_typescript(json{{"type", "array"}}), "Array<any>");
  EXPECT_EQ(schema_to_typescript(json{{"type", "array"}, {"items", {{"type", "string"}}}}),
            "string[]");
  EXPECT_EQ(schema_to_typescript(json{{"enum", {"a"}}, {"type", "string"}}), "\"a\"");
  EXPECT_EQ(schema_to_typescript(json{{"type", "null"}}), "any");
  EXPECT_EQ(schema_to_typescript(json("x")), "any");
}

TEST(TypeScript, ObjectWithRequiredNullableAndDefaults) {
  const json s = json::parse(R"({"type":"object","properties":{
    "a":{"type":"string","description":"first"},
    "b":{"type":"number","nullable":true,"default":3},
    "c":{"type":"string","enum":["x","y"],"default":"x"}},"required":["a"]})");
  EXPECT_EQ(schema_to_typescript(s),
            "{\n// first\na: string,\nb?: number | null, // default: 3\n"
            "c?: \"x\" | \"y\", // default: x\n}");
}

TEST(TypeScript, NestedObjectIndents) {
  const json s = json::parse(
      R"({"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"boolean"}}}}})");
  EXPECT_EQ(schema_to_typescript(s), "{\no?: {\n    k?: boolean,\n    },\n}");
}

}  // namespace
