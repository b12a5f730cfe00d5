// SPDX-License-Identifier: Apache-2.0
// ocml/dataset.hpp - training examples packed into fixed-length sequences, and the binary
// files a trainer memory-maps (NumPy .npy, Megatron's indexed dataset .bin/.idx).
//
//   ocml::example_set xs;
//   const std::vector<std::int32_t> ids = {1, 2, 3}, labels = {-100, 2, 3};
//   auto a = xs.add(ids, labels);                 // an example: IDs and labels
//   auto b = xs.add(std::vector<std::int32_t>{4, 5}, {});  // none trained
//   auto rows = ocml::pack_first_fit_decreasing(xs.lengths(), 4);
//   // *rows == {{0}, {1}}: 3 + 2 > 4, so each example is a row of its own
//   auto ok = ocml::write_npy_dataset(xs, *rows, {.seq_len = 4}, "out/train");
//   // out/train.input_ids.npy, .labels.npy, .position_ids.npy, .example_lens.npy
//
// The layouts are documented in docs/training.md ("Datasets").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ocml/error.hpp"

namespace ocml {

/// Training examples held back to back (no allocation per example): IDs and labels of
/// equal length (labels -100 where not trained).
class example_set {
 public:
  /// Appends an example; `labels` empty means none trained (all -100). E-LIMIT-EXCEEDED
  /// when `labels` is neither empty nor as long as `ids`.
  ///
  ///   ocml::example_set xs;
  ///   const std::vector<std::int32_t> ids = {9707, 11}, labels = {-100, 11};
  ///   auto i = xs.add(ids, labels);  // 0
  [[nodiscard]] result<std::size_t> add(std::span<const std::int32_t> ids,
                                        std::span<const std::int32_t> labels);
  [[nodiscard]] std::size_t size() const noexcept { return starts_.size() - 1; }
  [[nodiscard]] std::size_t tokens() const noexcept { return ids_.size(); }
  /// Example `i`'s IDs and labels.
  [[nodiscard]] std::span<const std::int32_t> ids(std::size_t i) const noexcept;
  [[nodiscard]] std::span<const std::int32_t> labels(std::size_t i) const noexcept;
  /// Every example's length, in order.
  [[nodiscard]] std::vector<std::size_t> lengths() const;

 private:
  std::vector<std::int32_t> ids_;
  std::vector<std::int32_t> labels_;
  std::vector<std::size_t> starts_{0};
};

/// Packs examples of the given lengths into rows of at most `seq_len` tokens by first-fit
/// decreasing: longest first (ties in input order), each into the first row it fits, a
/// new row when none has room. O(n log n). A row lists its examples in the order they
/// were placed. E-LIMIT-EXCEEDED names the first example longer than `seq_len`.
///
///   const std::vector<std::size_t> lengths = {3, 1, 2};
///   auto rows = ocml::pack_first_fit_decreasing(lengths, 4);  // {{0, 1}, {2}}
[[nodiscard]] result<std::vector<std::vector<std::size_t>>> pack_first_fit_decreasing(
    std::span<const std::size_t> lengths, std::size_t seq_len);

/// How packed rows are written.
struct dataset_write_options {
  /// Each row's length in the .npy arrays (padded to it).
  std::size_t seq_len = 0;
  /// The ID written into padding (its label is -100, its position 0).
  std::int32_t pad_id = 0;
};

/// Writes `rows` of `xs` as NumPy arrays (little-endian int32, C order, format 1.0):
/// `PREFIX.input_ids.npy`, `PREFIX.labels.npy` and `PREFIX.position_ids.npy`, each
/// [rows, seq_len], positions restarting at 0 with each example; and
/// `PREFIX.example_lens.npy`, [rows, most examples in a row], each row's example lengths
/// followed by zeros (cu_seqlens of a row: 0 and the running sums of its nonzero lengths).
///
///   ocml::example_set xs;  // filled with add()
///   auto rows = ocml::pack_first_fit_decreasing(xs.lengths(), 4096);
///   auto ok = ocml::write_npy_dataset(xs, *rows, {.seq_len = 4096}, "train");
[[nodiscard]] result<bool> write_npy_dataset(const example_set& xs,
                                             const std::vector<std::vector<std::size_t>>& rows,
                                             const dataset_write_options& options,
                                             const std::string& prefix);

/// Writes `rows` of `xs` in Megatron-LM's indexed-dataset layout (`.bin` the int32 IDs back
/// to back; `.idx` the "MMIDIDX" header, version 1, dtype code 4, then each sequence's
/// length and byte offset and the document index): `PREFIX.bin/.idx` holds the IDs and
/// `PREFIX.labels.bin/.idx` the labels, each example a sequence and each packed row a
/// document, unpadded.
///
///   ocml::example_set xs;  // filled with add()
///   auto rows = ocml::pack_first_fit_decreasing(xs.lengths(), 4096);
///   auto ok = ocml::write_megatron_dataset(xs, *rows, "train");
[[nodiscard]] result<bool> write_megatron_dataset(const example_set& xs,
                                                  const std::vector<std::vector<std::size_t>>& rows,
                                                  const std::string& prefix);

}  // namespace ocml
