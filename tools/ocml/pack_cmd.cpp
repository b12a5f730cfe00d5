// SPDX-License-Identifier: Apache-2.0
#include "pack_cmd.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>

#include "batch.hpp"
#include "io.hpp"
#include "ocml/dataset.hpp"
#include "ocml/json.hpp"

namespace ocml::cli {

namespace {

constexpr std::size_t kMaxSeqLen = std::size_t{1} << 24;

// The int32 array `key` of an example line; E-JSON-INPUT naming what is wrong.
result<std::vector<std::int32_t>> int_array(const json& line, const char* key, bool labels) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_array()) {
    return make_error(error_code::invalid_json, std::string("no \"") + key + "\" array");
  }
  std::vector<std::int32_t> out;
  out.reserve(it->size());
  for (const json& v : *it) {
    const bool id = v.is_number_unsigned() && v.get<std::uint64_t>() <= 0x7fffffffU;
    const bool masked = labels && v.is_number_integer() && v.get<std::int64_t>() == -100;
    if (!id && !masked) {
      return make_error(error_code::invalid_json,
                        std::string("\"") + key + "\" holds " + v.dump() +
                            (labels ? ", not a token ID or -100" : ", not a token ID"));
    }
    out.push_back(static_cast<std::int32_t>(v.get<std::int64_t>()));
  }
  return out;
}

// The row as one JSON line: IDs, labels, positions restarting per example, cu_seqlens and
// the input line numbers of its examples.
std::string row_line(const example_set& xs, const std::vector<std::size_t>& row,
                     const std::vector<std::size_t>& line_of) {
  json ids = json::array();
  json labels = json::array();
  json positions = json::array();
  json cu = json::array({0});
  json lines = json::array();
  std::size_t at = 0;
  for (const std::size_t e : row) {
    const auto x = xs.ids(e);
    const auto l = xs.labels(e);
    for (std::size_t i = 0; i < x.size(); ++i) {
      ids.push_back(x[i]);
      labels.push_back(l[i]);
      positions.push_back(i);
    }
    at += x.size();
    cu.push_back(at);
    lines.push_back(line_of[e]);
  }
  return dump_json(json{{"input_ids", std::move(ids)},
                        {"labels", std::move(labels)},
                        {"position_ids", std::move(positions)},
                        {"cu_seqlens", std::move(cu)},
                        {"lines", std::move(lines)}});
}

}  // namespace

CLI::App* add_pack_command(CLI::App& app, pack_args& a) {
  auto* pack = app.add_subcommand(
      "pack",
      "pack training examples (render --ids --training --jsonl lines) into rows of "
      "--seq-len tokens by first-fit decreasing");
  pack->add_option("--seq-len", a.seq_len, "tokens a row holds")
      ->required()
      ->check(CLI::Range(std::size_t{1}, kMaxSeqLen));
  pack->add_option("--format", a.format,
                   "jsonl (a row a line: input_ids, labels, position_ids, cu_seqlens, lines), "
                   "npy (PREFIX.input_ids/labels/position_ids/example_lens.npy, rows padded "
                   "to --seq-len) or megatron (PREFIX.bin/.idx and PREFIX.labels.bin/.idx)")
      ->check(CLI::IsMember({"jsonl", "npy", "megatron"}));
  pack->add_option("-o,--output", a.output,
                   "jsonl: the output file (default: stdout); npy, megatron: the files' prefix");
  pack->add_option("--pad-id", a.pad_id, "npy: the ID padding a row (its label is -100)")
      ->check(CLI::Range(0, std::numeric_limits<std::int32_t>::max()));
  pack->add_option("file", a.file, "input file, - for stdin");
  pack->callback([&a] {
    if (a.format != "jsonl" && a.output.empty()) {
      throw CLI::RequiredError("--output (the prefix of the " + a.format + " files)");
    }
  });
  return pack;
}

int run_pack(const pack_args& a) {
  input in;
  std::string error;
  if (!in.open(a.file, error)) {
    std::cerr << "E-IO " << error << '\n';
    return 1;
  }
  // Every line is read (a bad one is reported and counted, the others go on).
  example_set xs;
  std::vector<std::size_t> line_of;
  std::size_t lines = 0;
  std::size_t failed = 0;
  std::size_t trained = 0;
  line_source src(in.bytes());
  std::vector<batch_line> block;
  const auto fail = [&](std::size_t n, const diagnostic& d) {
    ++failed;
    std::cerr << "line " << n << ": " << d.to_string() << '\n';
  };
  while (src.next_block(block, 4096, std::size_t{16} << 20)) {
    for (const batch_line& l : block) {
      const std::size_t n = ++lines;
      auto j = parse_json_text(l.text);
      if (!j) {
        fail(n, j.error());
        continue;
      }
      if (!j->is_object() || j->contains("error")) {
        fail(n, make_error(error_code::invalid_json,
                           j->is_object() ? "an error object, not an example (render's "
                                            "failure for that line)"
                                          : "a line must be an example object"));
        continue;
      }
      auto ids = int_array(*j, "input_ids", false);
      if (!ids) {
        fail(n, ids.error());
        continue;
      }
      if (ids->empty()) {
        fail(n, make_error(error_code::invalid_json, "an example without tokens"));
        continue;
      }
      std::vector<std::int32_t> labels;
      if (j->contains("labels")) {
        auto l = int_array(*j, "labels", true);
        if (!l) {
          fail(n, l.error());
          continue;
        }
        labels = std::move(*l);
      }
      if (ids->size() > a.seq_len) {
        fail(n, make_error(error_code::limit_exceeded,
                           "the example holds " + std::to_string(ids->size()) +
                               " tokens, more than --seq-len " + std::to_string(a.seq_len) +
                               " (render with --max-tokens to fit it)"));
        continue;
      }
      auto added = xs.add(*ids, labels);
      if (!added) {
        fail(n, added.error());
        continue;
      }
      for (const std::int32_t v : labels) trained += v != -100 ? 1 : 0;
      line_of.push_back(n);
    }
  }
  auto rows = pack_first_fit_decreasing(xs.lengths(), a.seq_len);
  if (!rows) {
    std::cerr << rows.error().to_string() << '\n';
    return 1;
  }
  result<bool> written = true;
  if (a.format == "npy") {
    written = write_npy_dataset(xs, *rows, {.seq_len = a.seq_len, .pad_id = a.pad_id}, a.output);
  } else if (a.format == "megatron") {
    written = write_megatron_dataset(xs, *rows, a.output);
  } else {
    std::ofstream file;
    if (!a.output.empty()) {
      file.open(a.output, std::ios::binary);
      if (!file) written = make_error(error_code::io_error, "cannot write " + a.output);
    }
    std::ostream& out = a.output.empty() ? std::cout : file;
    for (std::size_t r = 0; written && r < rows->size(); ++r) {
      out << row_line(xs, (*rows)[r], line_of) << '\n';
    }
    out.flush();
    if (written && !out) written = make_error(error_code::io_error, "cannot write the rows");
  }
  if (!written) {
    std::cerr << written.error().to_string() << '\n';
    return 1;
  }
  const std::size_t capacity = rows->size() * a.seq_len;
  char filled[32];
  std::snprintf(filled, sizeof filled, "%.1f%%",
                capacity == 0
                    ? 0.0
                    : 100.0 * static_cast<double>(xs.tokens()) / static_cast<double>(capacity));
  std::cerr << "examples: " << xs.size() << ", tokens: " << xs.tokens()
            << ", trained tokens: " << trained << ", rows: " << rows->size() << " of " << a.seq_len
            << " tokens, filled: " << filled << '\n';
  if (failed > 0) std::cerr << "lines: " << lines << ", failed: " << failed << '\n';
  return failed > 0 ? 1 : 0;
}

}  // namespace ocml::cli
