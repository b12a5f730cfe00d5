// SPDX-License-Identifier: Apache-2.0
// Synthetic OpenChatML transcripts for benchmarks: content full of '<' (code and HTML).
#pragma once

#include <cstddef>
#include <string>

namespace ocml::bench {

/// A transcript of about `bytes` bytes: user/analysis/final turns whose bodies are code
/// and HTML (a '<' every ~12 bytes), with escapes and a few JSON tool calls.
std::string make_transcript(std::size_t bytes);

/// One message whose body is `bytes` of code/HTML text.
std::string make_single_message(std::size_t bytes);

}  // namespace ocml::bench
