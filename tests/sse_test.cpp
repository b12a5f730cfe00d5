// SPDX-License-Identifier: Apache-2.0
// The server-sent-events reader: events split anywhere, CRLF, comments, multi-line data.
#include <gtest/gtest.h>

#include "runtime/sse.hpp"

namespace {

std::vector<std::string> read_all(std::string_view stream, std::size_t chunk) {
  std::vector<std::string> events;
  ocml::detail::sse_parser p([&events](std::string_view d) {
    events.emplace_back(d);
    return true;
  });
  for (std::size_t i = 0; i < stream.size(); i += chunk) {
    EXPECT_TRUE(p.feed(stream.substr(i, chunk)));
  }
  return events;
}

TEST(Sse, EventsInAnyChunking) {
  const std::string stream =
      ": keep-alive comment\r\n"
      "event: completion\r\n"
      "data: {\"a\":1}\r\n\r\n"
      "data:{\"b\":2}\n\n"
      "id: 7\n"
      "data: line one\n"
      "data: line two\n\n"
      "data: [DONE]\n\n"
      "data: unterminated";
  const std::vector<std::string> want = {"{\"a\":1}", "{\"b\":2}", "line one\nline two", "[DONE]"};
  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    EXPECT_EQ(read_all(stream, chunk), want) << "chunk " << chunk;
  }
}

TEST(Sse, SinkCanStopTheStream) {
  int seen = 0;
  ocml::detail::sse_parser p([&seen](std::string_view) { return ++seen < 2; });
  EXPECT_FALSE(p.feed("data: 1\n\ndata: 2\n\ndata: 3\n\n"));
  EXPECT_EQ(seen, 2);
  EXPECT_FALSE(p.feed("data: 4\n\n"));
  EXPECT_EQ(seen, 2);
}

TEST(Sse, EndlessLineIsRefused) {
  ocml::detail::sse_parser p([](std::string_view) { return true; });
  const std::string block(1 << 20, 'x');
  bool ok = true;
  for (int i = 0; i < 20 && ok; ++i) ok = p.feed(block);
  EXPECT_FALSE(ok);  // beyond max_line (16 MiB) without a newline
}

}  // namespace
