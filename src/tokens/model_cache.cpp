// SPDX-License-Identifier: Apache-2.0
#include "tokens/model_cache.hpp"

#include <simdjson.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/read_file.hpp"
#include "interchange/json_escape.hpp"
#include "interchange/simd_json.hpp"
#include "tokens/load.hpp"

namespace ocml::detail {

namespace {

constexpr std::array<char, 8> kMagic = {'O', 'C', 'M', 'L', 'T', 'O', 'K', '\n'};
// Bumped whenever bpe_model's tables or their meaning change.
constexpr std::uint32_t kFormat = 1;
constexpr std::uint32_t kByteOrder = 0x01020304;

struct header {
  std::array<char, 8> magic = kMagic;
  std::uint32_t format = kFormat;
  std::uint32_t byte_order = kByteOrder;
  source_key source;
  std::uint64_t payload_size = 0;
  std::uint64_t payload_hash = 0;
};
static_assert(std::is_trivially_copyable_v<header>);

class table_writer {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void text(std::string_view s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  template <typename T>
  void items(const T* data, std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    u64(n);
    raw(data, n * sizeof(T));
  }
  template <typename T>
  void items(const std::vector<T>& v) {
    items(v.data(), v.size());
  }
  // Spans as a flat list of 32-bit numbers (a pair is not trivially copyable).
  void spans(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& v) {
    std::vector<std::uint32_t> flat;
    flat.reserve(v.size() * 2);
    for (const auto& [offset, length] : v) {
      flat.push_back(offset);
      flat.push_back(length);
    }
    items(flat);
  }
  std::string out;

 private:
  void raw(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
};

// Reads the payload of a cache file straight into the tables (no copy of the file in
// memory), hashing it as it goes; every length is bounded by what is left of the payload.
class table_reader {
 public:
  table_reader(int fd, std::uint64_t payload_size) : fd_(fd), left_(payload_size) {
    XXH3_64bits_reset(&state_);
  }
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool text(std::string& s) {
    std::uint64_t n = 0;
    if (!u64(n) || n > left_) return false;
    s.resize(n);
    return raw(s.data(), n);
  }
  template <typename T>
  bool items(std::vector<T>& v) {
    std::uint64_t n = 0;
    if (!u64(n) || n > left_ / sizeof(T)) return false;
    v.resize(n);
    return raw(v.data(), n * sizeof(T));
  }
  bool spans(std::vector<std::pair<std::uint32_t, std::uint32_t>>& v) {
    std::vector<std::uint32_t> flat;
    if (!items(flat) || flat.size() % 2 != 0) return false;
    v.resize(flat.size() / 2);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = {flat[2 * i], flat[2 * i + 1]};
    return true;
  }
  /// All of the payload read, and its hash is `expected`.
  [[nodiscard]] bool done(std::uint64_t expected) {
    return left_ == 0 && XXH3_64bits_digest(&state_) == expected;
  }

 private:
  bool raw(void* p, std::size_t n) {
    if (n > left_) return false;
    auto* at = static_cast<char*>(p);
    for (std::size_t got = 0; got < n;) {
      const ssize_t r = ::read(fd_, at + got, n - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      got += static_cast<std::size_t>(r);
    }
    XXH3_64bits_update(&state_, at, n);
    left_ -= n;
    return true;
  }
  int fd_;
  std::uint64_t left_;
  XXH3_state_t state_{};
};

void append_key(std::string& out, std::string_view key) {
  escaped_buffer b;
  b.escape(key);
  out += '"';
  out += b.view();
  out += "\":";
}

// The source without model.vocab and model.merges: what the loader reads besides the tables.
std::string configuration_of(std::string_view text) {
  simdjson::dom::element root;
  simdjson::dom::object object;
  if (parse_document(text).get(root) != simdjson::SUCCESS || root.get(object)) return {};
  std::string out = "{";
  for (auto [key, value] : object) {
    if (out.size() > 1) out += ',';
    append_key(out, key);
    simdjson::dom::object model;
    if (key != "model" || value.get(model) != simdjson::SUCCESS) {
      out += simdjson::to_string(value);
      continue;
    }
    out += '{';
    bool first = true;
    for (auto [k, v] : model) {
      if (k == "vocab" || k == "merges") continue;
      if (!first) out += ',';
      first = false;
      append_key(out, k);
      out += simdjson::to_string(v);
    }
    out += '}';
  }
  out += '}';
  return out;
}

bool spans_within(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& spans,
                  std::size_t size) {
  return std::all_of(spans.begin(), spans.end(),
                     [size](const auto& s) { return std::uint64_t{s.first} + s.second <= size; });
}

// Every index a table holds points inside the tables, and every lookup finds an end: what
// encoding and decoding rely on without checking.
bool tables_valid(const bpe_model& m) {
  const std::size_t ids = m.spans.size();
  const auto is_id = [ids](std::uint64_t id) { return id < ids; };
  if (m.arena.size() < kArenaPadding || !spans_within(m.spans, m.arena.size() - kArenaPadding) ||
      !spans_within(m.key_spans, m.keys.size()) || m.ordinary_count > ids) {
    return false;
  }
  const std::size_t slots = m.by_bytes.size();
  if (slots == 0 || (slots & (slots - 1)) != 0 || m.by_bytes_mask != slots - 1) return false;
  std::size_t empty = 0;
  for (const std::uint64_t s : m.by_bytes) {
    if (s == ~std::uint64_t{0}) {
      ++empty;
    } else if (!is_id(s & 0xFFFFFFFFu)) {
      return false;
    }
  }
  if (empty == 0) return false;
  for (const token_id t : m.byte_token) {
    if (t != kNoToken && !is_id(t)) return false;
    if (t == kNoToken && !m.char_level) return false;  // byte-level: every byte has a token
  }
  if (m.unk != kNoToken && !is_id(m.unk)) return false;
  if (m.unigram && (m.scores.size() < m.ordinary_count || m.trie_token.empty() ||
                    std::any_of(m.trie_token.begin(), m.trie_token.end(),
                                [&](token_id t) { return t != kNoToken && !is_id(t); }))) {
    return false;
  }
  return std::is_sorted(m.word_joiners.begin(), m.word_joiners.end());
}

}  // namespace

source_key key_of_source(std::string_view text) noexcept {
  const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return {text.size(), h.low64, h.high64};
}

std::optional<source_key> key_of_file(int fd, std::uint64_t max_bytes) {
  XXH3_state_t state{};
  XXH3_128bits_reset(&state);
  constexpr std::size_t kChunk = std::size_t{1} << 20;     // stays in cache
  const std::unique_ptr<char[]> buffer(new char[kChunk]);  // NOLINT(*-avoid-c-arrays)
  std::uint64_t size = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.get(), kChunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    size += static_cast<std::uint64_t>(n);
    if (size > max_bytes) return std::nullopt;
    XXH3_128bits_update(&state, buffer.get(), static_cast<std::size_t>(n));
  }
  const XXH128_hash_t h = XXH3_128bits_digest(&state);
  return source_key{size, h.low64, h.high64};
}

std::string cache_file_name(const source_key& key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "tokenizer-";
  for (const std::uint64_t part : {key.high, key.low}) {
    for (int shift = 60; shift >= 0; shift -= 4) name += kHex[(part >> shift) & 0xF];
  }
  return name + ".ocmltok";
}

std::string write_model_cache(const bpe_model& m, std::string_view text) {
  const std::string config = configuration_of(text);
  if (config.empty()) return {};
  table_writer w;
  w.text(config);
  w.text(m.arena);
  w.spans(m.spans);
  w.text(m.keys);
  w.spans(m.key_spans);
  w.items(m.by_bytes);
  w.items(m.merges.slots());
  w.items(m.byte_token.data(), m.byte_token.size());
  w.items(m.unindexed);
  w.items(m.scores);
  w.items(m.trie.slots());
  w.items(m.trie_token);
  w.items(m.word_joiners);
  double unk_score = m.unk_score;
  std::uint64_t score_bits = 0;
  std::memcpy(&score_bits, &unk_score, sizeof score_bits);
  for (const std::uint64_t v : {std::uint64_t{m.ordinary_count}, std::uint64_t{m.unk}, score_bits,
                                std::uint64_t{m.split_at_words}, std::uint64_t{m.unigram}}) {
    w.u64(v);
  }
  header h;
  h.source = key_of_source(text);
  h.payload_size = w.out.size();
  h.payload_hash = XXH3_64bits(w.out.data(), w.out.size());
  std::string file(sizeof h, '\0');
  std::memcpy(file.data(), &h, sizeof h);
  return file + w.out;
}

std::shared_ptr<bpe_model> read_model_cache(int fd, const source_key& key) {
  header h;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) < sizeof h ||
      static_cast<std::uint64_t>(st.st_size) > kMaxFileBytes ||
      ::read(fd, &h, sizeof h) != sizeof h) {
    return nullptr;
  }
  if (h.magic != kMagic || h.format != kFormat || h.byte_order != kByteOrder ||
      !(h.source == key) || h.payload_size != static_cast<std::uint64_t>(st.st_size) - sizeof h) {
    return nullptr;
  }
  auto m = std::make_shared<bpe_model>();
  table_reader r(fd, h.payload_size);
  std::string config;
  std::vector<u64_map::slot> merges;
  std::vector<u64_map::slot> trie;
  std::vector<token_id> byte_token;
  std::array<std::uint64_t, 5> scalars{};
  bool ok = r.text(config) && r.text(m->arena) && r.spans(m->spans) && r.text(m->keys) &&
            r.spans(m->key_spans) && r.items(m->by_bytes) && r.items(merges) &&
            r.items(byte_token) && r.items(m->unindexed) && r.items(m->scores) && r.items(trie) &&
            r.items(m->trie_token) && r.items(m->word_joiners);
  for (std::uint64_t& v : scalars) ok = ok && r.u64(v);
  if (!ok || !r.done(h.payload_hash) || byte_token.size() != m->byte_token.size()) return nullptr;
  std::copy(byte_token.begin(), byte_token.end(), m->byte_token.begin());
  m->by_bytes_mask = m->by_bytes.empty() ? 0 : m->by_bytes.size() - 1;
  const std::size_t ids = m->spans.size();
  m->ordinary_count = scalars[0];
  m->unk = static_cast<token_id>(scalars[1]);
  std::memcpy(&m->unk_score, &scalars[2], sizeof m->unk_score);
  m->split_at_words = scalars[3] != 0;
  m->unigram = scalars[4] != 0;
  // A merge joins two IDs into a third; a trie edge leads to a node the trie has.
  const std::size_t nodes = m->trie_token.size();
  if (!m->merges.adopt(std::move(merges),
                       [ids](std::uint64_t pair, std::uint64_t merged) {
                         return (pair >> 32) < ids && (pair & 0xFFFFFFFFu) < ids &&
                                (merged & 0xFFFFFFFFu) < ids;
                       }) ||
      !m->trie.adopt(std::move(trie),
                     [nodes](std::uint64_t, std::uint64_t child) { return child < nodes; })) {
    return nullptr;
  }
  auto loaded = load_tokenizer_json(config, m);
  if (!loaded || !tables_valid(**loaded)) return nullptr;
  return std::move(*loaded);
}

}  // namespace ocml::detail
