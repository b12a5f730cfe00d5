// SPDX-License-Identifier: Apache-2.0
// ocml::tokenizer: added tokens split out, the file's normalizers, pre-tokenizing, then
// byte-pair merging of each piece (cached per thread).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/read_file.hpp"
#include "ocml/tokens.hpp"
#include "tokens/load.hpp"
#include "tokens/model.hpp"
#include "tokens/model_cache.hpp"
#include "tokens/unicode.hpp"

namespace ocml {

namespace {

using detail::bpe_model;

// Texts already encoded on this thread, for the model they were encoded with: pieces
// (words and indentation repeat: a hit costs one hash and a compare instead of a merge)
// and, when the caller asks to memoize, whole texts between added tokens.
struct ids_cache {
  std::uint64_t owner = 0;  // the model's serial
  detail::u64_map index;    // hash -> entry number
  struct entry {
    std::uint32_t text_at, text_len, ids_at, ids_len;
  };
  std::vector<entry> entries;
  std::string texts;
  std::vector<token_id> ids;

  void reset(const bpe_model& m) {
    owner = m.serial;
    index = {};
    entries.clear();
    texts.clear();
    ids.clear();
  }
  // Appends the remembered IDs of `text` under `key` (its hash) to `out`, or says none.
  bool answer(std::uint64_t& key, std::string_view text, std::vector<token_id>& out) const {
    for (;; ++key) {
      const auto hit = index.find(key);
      if (!hit) return false;
      const auto& e = entries[*hit];
      if (std::string_view(texts).substr(e.text_at, e.text_len) == text) {
        out.insert(out.end(), ids.begin() + e.ids_at, ids.begin() + e.ids_at + e.ids_len);
        return true;
      }
    }
  }
  // Remembers that `text` (under `key`, a slot `answer` left free) gave out[before, end).
  void remember(std::uint64_t key, std::string_view text, const std::vector<token_id>& out,
                std::size_t before) {
    index.insert(key, entries.size());
    entries.push_back(
        {static_cast<std::uint32_t>(texts.size()), static_cast<std::uint32_t>(text.size()),
         static_cast<std::uint32_t>(ids.size()), static_cast<std::uint32_t>(out.size() - before)});
    texts.append(text);
    ids.insert(ids.end(), out.begin() + static_cast<std::ptrdiff_t>(before), out.end());
  }
  std::size_t bytes() const noexcept { return texts.size() + ids.size() * sizeof(token_id); }
};

constexpr std::size_t kCachedPieceMax = 48;
constexpr std::size_t kCacheEntriesMax = 1 << 18;

void encode_piece_cached(const bpe_model& m, std::string_view piece, std::vector<token_id>& out) {
  if (piece.size() < 2 || piece.size() > kCachedPieceMax) {
    detail::encode_piece(m, piece, out);
    return;
  }
  thread_local ids_cache cache;
  if (cache.owner != m.serial || cache.entries.size() >= kCacheEntriesMax) cache.reset(m);
  std::uint64_t key = detail::hash_bytes(piece);
  if (cache.answer(key, piece, out)) return;
  const std::size_t before = out.size();
  detail::encode_piece(m, piece, out);
  cache.remember(key, piece, out, before);
}

// A SentencePiece-style piece cut before each "▁" that follows a character no merge joins
// to a "▁" (bpe_model::split_at_words), each word merged on its own.
void encode_words(const bpe_model& m, std::string_view piece, std::vector<token_id>& out) {
  constexpr std::string_view kMarker = "\xE2\x96\x81";
  std::size_t word = 0;
  for (std::size_t at = piece.find(kMarker, 1); at != std::string_view::npos;
       at = piece.find(kMarker, at + 1)) {
    std::size_t b = at - 1;  // the character before: not "▁", and not a joiner
    while (b > 0 && (static_cast<unsigned char>(piece[b]) & 0xC0) == 0x80) --b;
    const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
    const std::uint32_t cp = detail::unicode::decode(p + b, p + at).cp;
    if (cp == 0x2581 || std::binary_search(m.word_joiners.begin(), m.word_joiners.end(), cp)) {
      continue;
    }
    encode_piece_cached(m, piece.substr(word, at - word), out);
    word = at;
  }
  encode_piece_cached(m, piece.substr(word), out);
}

// The text between added tokens: normalized, pre-tokenized, merged. `at_origin`: it
// begins the input (Metaspace's prepend_scheme "first").
void encode_ordinary_into(const bpe_model& m, std::string_view text, std::vector<token_id>& out,
                          bool at_origin = true) {
  thread_local std::string normalized;
  thread_local std::string scratch;
  if (!m.normalizers.empty())
    text = detail::apply_normalizers(m.normalizers, text, normalized, scratch);
  if (!m.general) {
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t len = detail::next_piece(m.pre, text, i);
      encode_piece_cached(m, text.substr(i, len), out);
      i += len;
    }
    return;
  }
  thread_local detail::piece_list pieces;
  detail::pre_tokenize(m.pre_steps, text, at_origin, pieces);
  std::size_t begin = 0;
  for (const std::size_t end : pieces.ends) {
    const std::string_view piece = std::string_view(pieces.text).substr(begin, end - begin);
    if (m.split_at_words) {
      encode_words(m, piece, out);
    } else {
      encode_piece_cached(m, piece, out);
    }
    begin = end;
  }
}

// Memoized texts (encode_options::memoize): between these sizes (a lookup is one hash and
// one compare where encoding even a short text scans it and looks up each piece; 64 as the
// floor left harmony's short message bodies to be encoded anew, at 0.46 of the bare
// tokenizer's rate against 0.42), and this much memory a thread, forgotten at once when
// full.
constexpr std::size_t kMemoMin = 8;
constexpr std::size_t kMemoMax = std::size_t{1} << 20;
constexpr std::size_t kMemoBytes = std::size_t{32} << 20;

void encode_memoized(const bpe_model& m, std::string_view text, std::vector<token_id>& out,
                     bool at_origin) {
  if (text.size() < kMemoMin || text.size() > kMemoMax) {
    encode_ordinary_into(m, text, out, at_origin);
    return;
  }
  thread_local ids_cache memo;
  if (memo.owner != m.serial) memo.reset(m);
  // Metaspace's prepend_scheme "first" encodes a text at the origin differently.
  const std::uint64_t hash = detail::hash_bytes(text) ^ (at_origin ? 0x9E3779B97F4A7C15ULL : 0);
  std::uint64_t key = hash;  // answer() moves it on past colliding entries to a free slot
  if (memo.answer(key, text, out)) return;
  const std::size_t before = out.size();
  encode_ordinary_into(m, text, out, at_origin);
  // The entry fits in what is left, or the memo starts over (normalizing may make more
  // IDs than bytes: the size is known only now).
  const std::size_t entry = text.size() + (out.size() - before) * sizeof(token_id);
  if (entry > kMemoBytes) return;
  if (memo.bytes() + entry > kMemoBytes) {
    memo.reset(m);
    key = hash;  // every slot is free again
  }
  memo.remember(key, text, out, before);
}

// The text between added tokens, through the memo when asked.
void encode_between(const bpe_model& m, std::string_view text, std::vector<token_id>& out,
                    bool at_origin, bool memoize) {
  if (memoize) {
    encode_memoized(m, text, out, at_origin);
  } else {
    encode_ordinary_into(m, text, out, at_origin);
  }
}

// The first added token in `text` at or after `from` (leftmost, then longest).
std::pair<std::size_t, const detail::added_token*> find_added(const bpe_model& m,
                                                              std::string_view text,
                                                              std::size_t from) {
  for (std::size_t i = from; i < text.size(); ++i) {
    if (!m.added_first[static_cast<unsigned char>(text[i])]) continue;
    for (const std::size_t len : m.added_lengths) {  // longest first
      if (len > text.size() - i) continue;
      const std::string_view s = text.substr(i, len);
      const auto at = m.added_by_hash.find(detail::hash_bytes(s));
      if (!at) continue;
      if (m.added[*at].text == s) return {i, &m.added[*at]};
      for (const auto& a : m.added) {  // two texts of one hash: the index holds the first
        if (a.text == s) return {i, &a};
      }
    }
  }
  return {text.size(), nullptr};
}

}  // namespace

result<tokenizer> tokenizer::from_tokenizer_json(std::string_view json_text) {
  auto m = detail::load_tokenizer_json(json_text);
  if (!m) return m.error();
  return tokenizer(std::move(*m));
}

result<tokenizer> tokenizer::from_tiktoken(std::string_view ranks_text,
                                           const tokenizer_options& options) {
  auto m = detail::load_tiktoken(ranks_text, options.encoding);
  if (!m) return m.error();
  return tokenizer(std::move(*m));
}

namespace {

// Writes `bytes` as `dir`/`name` through a temporary file renamed into place, so that a
// reader never sees half a file; false (nothing left behind) when anything fails.
bool write_cache_file(const std::string& dir, const std::string& name, std::string_view bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  const std::string final_path = dir + "/" + name;
  // Unique to the process and the call: two threads loading one file write apart.
  static std::atomic<std::uint64_t> writes{0};
  const std::string temp = final_path + ".tmp" + std::to_string(::getpid()) + "." +
                           std::to_string(writes.fetch_add(1, std::memory_order_relaxed));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  const bool ok = ::close(fd) == 0 && done == bytes.size() &&
                  std::rename(temp.c_str(), final_path.c_str()) == 0;
  if (!ok) std::remove(temp.c_str());
  return ok;
}

struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

// The tokenizer.json at `path` from a valid cache file in `dir`, read without holding the
// source in memory (it is hashed in pieces); null on a miss.
std::shared_ptr<const detail::bpe_model> from_cache(const std::string& path,
                                                    const std::string& dir) {
  const fd_closer source{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  struct stat st {};
  if (source.fd < 0 || ::fstat(source.fd, &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  char head[64];
  const ssize_t n = ::pread(source.fd, head, sizeof head, 0);
  const std::string_view start(head, n > 0 ? static_cast<std::size_t>(n) : 0);
  const std::size_t first = start.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || start[first] != '{') return nullptr;  // not JSON
  const auto key = detail::key_of_file(source.fd, detail::kMaxFileBytes);
  if (!key) return nullptr;
  const std::string cache = dir + "/" + detail::cache_file_name(*key);
  const fd_closer file{::open(cache.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) return nullptr;
  return detail::read_model_cache(file.fd, *key);
}

}  // namespace

result<tokenizer> tokenizer::from_file(const std::string& path, const tokenizer_options& options) {
  if (!options.cache_dir.empty()) {
    if (auto m = from_cache(path, options.cache_dir)) return tokenizer(std::move(m));
  }
  std::string text;
  std::string why;
  if (!detail::read_file(path, text, &why)) {
    return make_error(error_code::io_error, "cannot read tokenizer file " + why);
  }
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    if (options.cache_dir.empty()) return from_tokenizer_json(text);
    // A miss: loaded from the text read, cached under the key of that text.
    auto m = detail::load_tokenizer_json(text);
    if (!m) return m.error();
    if (const std::string bytes = detail::write_model_cache(**m, text); !bytes.empty()) {
      (void)write_cache_file(options.cache_dir,
                             detail::cache_file_name(detail::key_of_source(text)), bytes);
    }
    return tokenizer(std::move(*m));
  }
  return from_tiktoken(text, options);
}

std::vector<token_id> tokenizer::encode_ordinary(std::string_view text) const {
  std::vector<token_id> out;
  out.reserve(text.size() / 3 + 4);
  encode_ordinary_into(*m_, text, out);
  return out;
}

void tokenizer::append_ordinary(std::string_view text, std::vector<token_id>& out) const {
  encode_ordinary_into(*m_, text, out);
}

std::vector<token_id> tokenizer::encode(std::string_view text, special_tokens allowed) const {
  std::vector<token_id> out;
  out.reserve(text.size() / 3 + 4);
  append(text, out, {.specials = allowed});
  return out;
}

void tokenizer::append(std::string_view text, std::vector<token_id>& out,
                       const encode_options& options) const {
  if (options.specials == special_tokens::none || m_->added.empty()) {
    encode_between(*m_, text, out, true, options.memoize);
    return;
  }
  std::size_t at = 0;
  while (at < text.size()) {
    const auto [hit, token] = find_added(*m_, text, at);
    if (hit > at) encode_between(*m_, text.substr(at, hit - at), out, at == 0, options.memoize);
    if (token == nullptr) break;
    out.push_back(token->id);
    at = hit + token->text.size();
  }
}

result<std::string> tokenizer::decode(std::span<const token_id> ids) const {
  // Two passes: the length (and unknown IDs), then one copy per token into place. Tokens
  // are short: a fixed 16-byte copy (the arena and the output have room past the end) is
  // one load and one store, where memcpy of a variable length is a call.
  const auto& spans = m_->spans;
  std::size_t size = 0;
  for (const token_id id : ids) {
    if (id >= spans.size() || spans[id].second == 0) {
      return make_error(error_code::token_unknown,
                        "token ID " + std::to_string(id) + " is not in the vocabulary");
    }
    size += spans[id].second;
  }
  std::string out(size + detail::kArenaPadding, '\0');
  char* p = out.data();
  const char* arena = m_->arena.data();
  for (const token_id id : ids) {
    const auto [at, len] = spans[id];
    if (len <= detail::kArenaPadding) {
      std::memcpy(p, arena + at, detail::kArenaPadding);
    } else {
      std::memcpy(p, arena + at, len);
    }
    p += len;
  }
  out.resize(size);
  if (m_->decode_first_token_spaces && !ids.empty() && m_->char_level) {
    // Metaspace: the first token's replacements are dropped (not its other spaces).
    const std::string_view key = m_->key_of(ids[0]);
    if (key.find(m_->decode_marker) != std::string_view::npos) {
      std::string first;
      for (std::size_t at = 0; at < key.size();) {
        if (key.compare(at, m_->decode_marker.size(), m_->decode_marker) == 0) {
          at += m_->decode_marker.size();
        } else {
          first.push_back(key[at++]);
        }
      }
      out.replace(0, spans[ids[0]].second, first);
    }
  }
  for (std::size_t k = 0; k < m_->decode_strip_leading && !out.empty() && out[0] == ' '; ++k) {
    out.erase(0, 1);
  }
  return out;
}

std::string_view tokenizer::token_bytes(token_id id) const noexcept {
  return m_->bytes_of(id);
}

std::optional<token_id> tokenizer::id_of(std::string_view special) const noexcept {
  const auto i = m_->added_by_hash.find(detail::hash_bytes(special));
  if (!i) return std::nullopt;
  if (m_->added[*i].text == special) return m_->added[*i].id;
  for (const auto& a : m_->added) {  // two texts of one hash: the index holds the first
    if (a.text == special) return a.id;
  }
  return std::nullopt;
}

bool tokenizer::is_special(token_id id) const noexcept {
  return id < m_->is_added.size() && m_->is_added[id] != 0;
}

std::size_t tokenizer::vocab_size() const noexcept {
  return m_->spans.size();
}

std::string_view tokenizer::name() const noexcept {
  return m_->name;
}

std::string token_text_decoder::push(token_id id) {
  if (!started_) {
    // The first token is decoded as decode() decodes it (Llama 2's Strip decoder drops its
    // leading space, Metaspace its replacements), the others by their bytes.
    started_ = true;
    const token_id one[] = {id};
    auto first = t_->decode(one);
    held_.append(first ? *first : std::string(t_->token_bytes(id)));
  } else {
    held_.append(t_->token_bytes(id));
  }
  // Keep back the bytes of a character the next token may complete.
  std::size_t cut = held_.size();
  for (std::size_t back = 1; back <= 3 && back <= held_.size(); ++back) {
    const auto c = static_cast<unsigned char>(held_[held_.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need > back) cut = held_.size() - back;
    break;
  }
  std::string out = held_.substr(0, cut);
  held_.erase(0, cut);
  return out;
}

std::string token_text_decoder::finish() {
  return std::exchange(held_, {});
}

}  // namespace ocml
