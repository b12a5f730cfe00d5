// SPDX-License-Identifier: Apache-2.0
// Display policy (2.2 §4-5, §11).
#include <gtest/gtest.h>

#include "support.hpp"

namespace {

TEST(Display, UserViewHidesEverythingButUserFinalAndPreambles) {
  const auto r = ocml::parse(
      "<|start|>system<|message|>sys<|end|><|start|>developer<|message|>dev<|end|>"
      "<|start|>user<|message|>question<|end|>"
      "<|start|>assistant<|channel|>analysis<|message|>secret thoughts<|end|>"
      "<|start|>assistant intent=preamble<|channel|>commentary<|message|>plan<|end|>"
      "<|start|>assistant<|channel|>commentary<|message|>raw commentary<|end|>"
      "<|start|>assistant to=functions.f<|channel|>commentary<|message|>{}<|call|>"
      "<|start|>tool name=functions.f<|channel|>commentary<|message|>tool out<|end|>"
      "<|start|>assistant<|channel|>final<|message|>answer<|return|>",
      {});
  ASSERT_TRUE(r.ok());
  const std::string user = ocml::render_view(r.conversation, {});
  EXPECT_EQ(user, "user: question\n\nassistant: plan\n\nassistant: answer\n\n");
  for (const char* hidden : {"sys", "dev", "secret", "raw commentary", "tool out", "{}"}) {
    EXPECT_EQ(user.find(hidden), std::string::npos) << hidden;
  }
  const std::string debug = ocml::render_view(r.conversation, {.debug = true});
  EXPECT_NE(debug.find("[hidden assistant/analysis] secret thoughts"), std::string::npos);
  EXPECT_NE(debug.find("[shown assistant/commentary intent=preamble] plan"), std::string::npos);
  EXPECT_NE(debug.find("[hidden functions.f/commentary] tool out"), std::string::npos);
}

}  // namespace
