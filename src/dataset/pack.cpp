// SPDX-License-Identifier: Apache-2.0
// Examples held back to back, and first-fit-decreasing packing.
#include <algorithm>
#include <numeric>

#include "ocml/dataset.hpp"

namespace ocml {

result<std::size_t> example_set::add(std::span<const std::int32_t> ids,
                                     std::span<const std::int32_t> labels) {
  if (!labels.empty() && labels.size() != ids.size()) {
    return make_error(error_code::limit_exceeded, "an example has " + std::to_string(ids.size()) +
                                                      " IDs and " + std::to_string(labels.size()) +
                                                      " labels");
  }
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  if (labels.empty()) {
    labels_.resize(ids_.size(), -100);
  } else {
    labels_.insert(labels_.end(), labels.begin(), labels.end());
  }
  starts_.push_back(ids_.size());
  return size() - 1;
}

std::span<const std::int32_t> example_set::ids(std::size_t i) const noexcept {
  return {ids_.data() + starts_[i], starts_[i + 1] - starts_[i]};
}

std::span<const std::int32_t> example_set::labels(std::size_t i) const noexcept {
  return {labels_.data() + starts_[i], starts_[i + 1] - starts_[i]};
}

std::vector<std::size_t> example_set::lengths() const {
  std::vector<std::size_t> out(size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = starts_[i + 1] - starts_[i];
  return out;
}

result<std::vector<std::vector<std::size_t>>> pack_first_fit_decreasing(
    std::span<const std::size_t> lengths, std::size_t seq_len) {
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > seq_len) {
      return make_error(error_code::limit_exceeded,
                        "example " + std::to_string(i) + " holds " + std::to_string(lengths[i]) +
                            " tokens, more than the sequence length " + std::to_string(seq_len));
    }
  }
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
  // A max tree over the rows' free room. Rows not yet opened have all of seq_len free and
  // open in index order, so the leftmost leaf with room is the first row that fits.
  std::size_t leaves = 1;
  while (leaves < std::max<std::size_t>(lengths.size(), 1)) leaves *= 2;
  std::vector<std::size_t> room(2 * leaves, seq_len);
  std::vector<std::vector<std::size_t>> rows;
  for (const std::size_t e : order) {
    const std::size_t need = lengths[e];
    std::size_t node = 1;
    while (node < leaves) node = room[2 * node] >= need ? 2 * node : 2 * node + 1;
    const std::size_t row = node - leaves;
    if (row == rows.size()) rows.emplace_back();
    rows[row].push_back(e);
    room[node] -= need;
    for (node /= 2; node >= 1; node /= 2) {
      room[node] = std::max(room[2 * node], room[2 * node + 1]);
    }
  }
  return rows;
}

}  // namespace ocml
