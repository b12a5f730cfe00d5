// SPDX-License-Identifier: Apache-2.0
// The interface every dialect's streaming decoder implements behind ocml::decoder.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "ocml/decoder.hpp"

namespace ocml::detail {

class stream_decoder {
 public:
  virtual ~stream_decoder() = default;
  virtual void push(std::string_view bytes) = 0;
  virtual void finish() = 0;
  [[nodiscard]] virtual bool failed() const noexcept = 0;
  [[nodiscard]] virtual std::size_t offset() const noexcept = 0;
};

}  // namespace ocml::detail
