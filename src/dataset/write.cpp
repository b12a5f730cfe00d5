// SPDX-License-Identifier: Apache-2.0
// NumPy .npy and Megatron indexed-dataset files of packed rows.
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "ocml/dataset.hpp"

namespace ocml {

namespace {

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

// A file written whole or not at all: to PATH.tmp, renamed over PATH once closed.
class out_file {
 public:
  explicit out_file(std::string path) : path_(std::move(path)) {
    f_.reset(std::fopen((path_ + ".tmp").c_str(), "wb"));
    if (!f_) fail();
  }
  void write(const void* data, std::size_t n) {
    if (ok() && n > 0 && std::fwrite(data, 1, n, f_.get()) != n) fail();
  }
  template <typename T>
  void put(T v) {  // little-endian hosts only (checked at compile time below)
    write(&v, sizeof v);
  }
  [[nodiscard]] result<bool> close() {
    if (f_ && std::fclose(f_.release()) != 0) fail();
    if (ok() && std::rename((path_ + ".tmp").c_str(), path_.c_str()) != 0) fail();
    if (!ok()) {
      std::remove((path_ + ".tmp").c_str());
      return make_error(error_code::io_error, "cannot write " + path_ + ": " + error_);
    }
    return true;
  }

 private:
  [[nodiscard]] bool ok() const noexcept { return error_.empty(); }
  void fail() {
    if (ok()) error_ = std::strerror(errno != 0 ? errno : EIO);
  }
  std::string path_;
  std::unique_ptr<std::FILE, file_closer> f_;
  std::string error_;
};

static_assert(std::endian::native == std::endian::little, "the files are little-endian");

// An int32 .npy header (format 1.0) for C-order `rows` x `cols`, padded to 64 bytes.
void npy_header(out_file& f, std::size_t rows, std::size_t cols) {
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     ", " + std::to_string(cols) + "), }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  f.write("\x93NUMPY\x01\x00", 8);
  f.put(static_cast<std::uint16_t>(dict.size()));
  f.write(dict.data(), dict.size());
}

// One .npy of `rows` x `cols` int32, row r filled by fill(r, its cols values).
template <typename Fill>
result<bool> write_npy(const std::string& path, std::size_t rows, std::size_t cols, Fill fill) {
  out_file f(path);
  npy_header(f, rows, cols);
  std::vector<std::int32_t> row(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    fill(r, row);
    f.write(row.data(), row.size() * sizeof(std::int32_t));
  }
  return f.close();
}

}  // namespace

result<bool> write_npy_dataset(const example_set& xs,
                               const std::vector<std::vector<std::size_t>>& rows,
                               const dataset_write_options& o, const std::string& prefix) {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::size_t n = 0;
    for (const std::size_t e : rows[r]) n += xs.ids(e).size();
    if (n > o.seq_len) {
      return make_error(error_code::limit_exceeded,
                        "row " + std::to_string(r) + " holds " + std::to_string(n) +
                            " tokens, more than seq_len " + std::to_string(o.seq_len));
    }
  }
  const auto concat = [&](std::size_t r, std::vector<std::int32_t>& out, std::int32_t pad,
                          auto&& part) {
    std::size_t at = 0;
    for (const std::size_t e : rows[r]) {
      const auto p = part(e);
      std::copy(p.begin(), p.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
      at += p.size();
    }
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(at), out.end(), pad);
  };
  auto ok = write_npy(prefix + ".input_ids.npy", rows.size(), o.seq_len,
                      [&](std::size_t r, std::vector<std::int32_t>& out) {
                        concat(r, out, o.pad_id, [&](std::size_t e) { return xs.ids(e); });
                      });
  if (ok) {
    ok = write_npy(prefix + ".labels.npy", rows.size(), o.seq_len,
                   [&](std::size_t r, std::vector<std::int32_t>& out) {
                     concat(r, out, -100, [&](std::size_t e) { return xs.labels(e); });
                   });
  }
  if (ok) {
    ok = write_npy(prefix + ".position_ids.npy", rows.size(), o.seq_len,
                   [&](std::size_t r, std::vector<std::int32_t>& out) {
                     std::fill(out.begin(), out.end(), 0);
                     std::size_t at = 0;
                     for (const std::size_t e : rows[r]) {
                       const std::size_t n = xs.ids(e).size();
                       for (std::size_t i = 0; i < n; ++i) {
                         out[at + i] = static_cast<std::int32_t>(i);
                       }
                       at += n;
                     }
                   });
  }
  std::size_t widest = 0;
  for (const auto& row : rows) widest = std::max(widest, row.size());
  if (ok) {
    ok = write_npy(prefix + ".example_lens.npy", rows.size(), widest,
                   [&](std::size_t r, std::vector<std::int32_t>& out) {
                     std::fill(out.begin(), out.end(), 0);
                     for (std::size_t i = 0; i < rows[r].size(); ++i) {
                       out[i] = static_cast<std::int32_t>(xs.ids(rows[r][i]).size());
                     }
                   });
  }
  return ok;
}

namespace {

// One Megatron indexed dataset: `part(e)` of each example, rows as documents.
template <typename Part>
result<bool> write_megatron(const example_set& xs,
                            const std::vector<std::vector<std::size_t>>& rows,
                            const std::string& prefix, Part part) {
  out_file bin(prefix + ".bin");
  std::vector<std::int32_t> lengths;
  std::vector<std::int64_t> pointers;
  std::vector<std::int64_t> documents{0};
  std::int64_t at = 0;
  for (const auto& row : rows) {
    for (const std::size_t e : row) {
      const auto p = part(e);
      bin.write(p.data(), p.size() * sizeof(std::int32_t));
      lengths.push_back(static_cast<std::int32_t>(p.size()));
      pointers.push_back(at);
      at += static_cast<std::int64_t>(p.size() * sizeof(std::int32_t));
    }
    documents.push_back(static_cast<std::int64_t>(lengths.size()));
  }
  auto ok = bin.close();
  if (!ok) return ok;
  out_file idx(prefix + ".idx");
  idx.write("MMIDIDX\x00\x00", 9);
  idx.put(std::uint64_t{1});  // version
  idx.put(std::uint8_t{4});   // dtype code: int32
  idx.put(static_cast<std::uint64_t>(lengths.size()));
  idx.put(static_cast<std::uint64_t>(documents.size()));
  idx.write(lengths.data(), lengths.size() * sizeof(std::int32_t));
  idx.write(pointers.data(), pointers.size() * sizeof(std::int64_t));
  idx.write(documents.data(), documents.size() * sizeof(std::int64_t));
  return idx.close();
}

}  // namespace

result<bool> write_megatron_dataset(const example_set& xs,
                                    const std::vector<std::vector<std::size_t>>& rows,
                                    const std::string& prefix) {
  auto ok = write_megatron(xs, rows, prefix, [&](std::size_t e) { return xs.ids(e); });
  if (ok) {
    ok = write_megatron(xs, rows, prefix + ".labels", [&](std::size_t e) { return xs.labels(e); });
  }
  return ok;
}

}  // namespace ocml
