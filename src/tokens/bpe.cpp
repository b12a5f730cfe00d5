// SPDX-License-Identifier: Apache-2.0
// Byte-pair merging: the lowest-ranked adjacent pair is merged first, the leftmost of equal
// ranks (Hugging Face's Word::merge_all and tiktoken's byte_pair_merge agree on this).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <queue>

#include "tokens/model.hpp"
#include "tokens/unicode.hpp"

namespace ocml::detail {

void u64_map::reserve(std::size_t n) {
  std::size_t cap = 16;
  while (cap < n * 2) cap <<= 1;
  std::vector<slot> old = std::move(slots_);
  slots_.assign(cap, slot{});
  mask_ = cap - 1;
  size_ = 0;
  for (const slot& s : old) {
    if (s.key != kEmpty) insert(s.key, s.value);
  }
}

void u64_map::insert(std::uint64_t key, std::uint64_t value) {
  put(key, value, false);  // the first insertion wins (the lowest rank)
}

void u64_map::assign(std::uint64_t key, std::uint64_t value) {
  put(key, value, true);
}

void u64_map::put(std::uint64_t key, std::uint64_t value, bool overwrite) {
  if ((size_ + 1) * 2 > slots_.size()) reserve(std::max<std::size_t>(16, size_ * 2 + 2));
  key = key == kEmpty ? kEmpty - 1 : key;
  for (std::size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
    slot& s = slots_[i];
    if (s.key == kEmpty) {
      s = {key, value};
      ++size_;
      return;
    }
    if (s.key == key) {
      if (overwrite) s.value = value;
      return;
    }
  }
}

std::uint64_t hash_bytes(std::string_view s) noexcept {
  // FNV-1a over 8-byte words, then a final mix: fast for the short pieces BPE looks up.
  std::uint64_t h = 0xcbf29ce484222325ULL ^ s.size();
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  std::uint64_t w = 0;
  std::memcpy(&w, s.data() + i, s.size() - i);
  h = (h ^ w) * 0x100000001b3ULL;
  return u64_map::hash(h);
}

token_id bpe_model::find_bytes(std::string_view s) const noexcept {
  if (by_bytes.empty()) return kNoToken;
  const std::uint64_t h = hash_bytes(s);
  const std::uint64_t tag = h >> 32;
  for (std::uint64_t i = h & by_bytes_mask;; i = (i + 1) & by_bytes_mask) {
    const std::uint64_t slot = by_bytes[i];
    if (slot == ~std::uint64_t{0}) return kNoToken;
    if ((slot >> 32) == tag) {
      const auto id = static_cast<token_id>(slot & 0xFFFFFFFFu);
      const std::string_view k = key_of(id);
      if (k.size() == s.size() && std::memcmp(k.data(), s.data(), k.size()) == 0) return id;
    }
  }
}

std::uint64_t bpe_model::next_serial() noexcept {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

void bpe_model::set_bytes(token_id id, std::string_view bytes) {
  if (id >= spans.size()) spans.resize(id + 1, {0, 0});
  spans[id] = {static_cast<std::uint32_t>(arena.size()), static_cast<std::uint32_t>(bytes.size())};
  arena.append(bytes);
}

void bpe_model::set_key(token_id id, std::string_view spelling) {
  if (id >= key_spans.size()) key_spans.resize(id + 1, {0, 0});
  key_spans[id] = {static_cast<std::uint32_t>(keys.size()),
                   static_cast<std::uint32_t>(spelling.size())};
  keys.append(spelling);
}

void bpe_model::finish() {
  arena.append(kArenaPadding, '\0');
  byte_token.fill(kNoToken);
  std::size_t cap = 16;
  while (cap < ordinary_count * 2) cap <<= 1;
  by_bytes.assign(cap, ~std::uint64_t{0});
  by_bytes_mask = cap - 1;
  for (token_id id = 0; id < ordinary_count && id < spans.size(); ++id) {
    const std::string_view b = key_of(id);
    if (id < unindexed.size() && unindexed[id] != 0) continue;
    if (b.empty() || find_bytes(b) != kNoToken) continue;  // the first ID of equal bytes wins
    const std::uint64_t h = hash_bytes(b);
    std::uint64_t i = h & by_bytes_mask;
    while (by_bytes[i] != ~std::uint64_t{0}) i = (i + 1) & by_bytes_mask;
    by_bytes[i] = (h >> 32) << 32 | id;
    if (b.size() == 1 && !char_level) byte_token[static_cast<unsigned char>(b[0])] = id;
  }
  index_added();
}

void bpe_model::index_added() {
  std::sort(added.begin(), added.end(), [](const added_token& a, const added_token& b) {
    return a.text.size() > b.text.size();
  });
  added_first.fill(false);
  is_added.assign(spans.size(), 0);
  added_by_hash = u64_map();
  added_by_hash.reserve(added.size());
  for (std::size_t i = 0; i < added.size(); ++i) added_by_hash.insert(hash_bytes(added[i].text), i);
  added_lengths.clear();
  for (const auto& a : added) {
    if (added_lengths.empty() || added_lengths.back() != a.text.size()) {
      added_lengths.push_back(a.text.size());
    }
    if (!a.text.empty()) added_first[static_cast<unsigned char>(a.text[0])] = true;
    if (a.id < is_added.size()) is_added[a.id] = 1;
  }
}

namespace {

struct pair_rank {
  std::uint32_t rank;
  token_id id;
};
constexpr pair_rank kNoMerge{0xFFFFFFFFu, kNoToken};

// Long pieces with tiktoken ranks: pairs of IDs already looked up, direct-mapped (a
// colliding pair replaces the older one), sized to the piece. A run of one character asks
// for the same few pairs a million times; random text rarely asks twice, and then a
// growing map would cost more than it saves.
class pair_cache {
 public:
  explicit pair_cache(std::size_t piece_size) {
    std::size_t cap = 256;
    while (cap < piece_size && cap < (std::size_t{1} << 16)) cap <<= 1;
    slots_.assign(cap, {~std::uint64_t{0}, 0});
    mask_ = cap - 1;
  }
  [[nodiscard]] const token_id* find(std::uint64_t key) const noexcept {
    const auto& s = slots_[u64_map::hash(key) & mask_];
    return s.first == key ? &s.second : nullptr;
  }
  void put(std::uint64_t key, token_id t) noexcept {
    slots_[u64_map::hash(key) & mask_] = {key, t};
  }

 private:
  std::vector<std::pair<std::uint64_t, token_id>> slots_;
  std::size_t mask_ = 0;
};

// The merge of two adjacent parts: `a` = piece[begin, mid), `b` = piece[mid, end).
struct ranker {
  const bpe_model& m;
  std::string_view piece;
  pair_cache* seen = nullptr;  ///< long pieces, tiktoken ranks
  pair_rank operator()(std::size_t begin, std::size_t end, token_id a, token_id b) const {
    if (m.rank_by_bytes) {
      const std::uint64_t key = static_cast<std::uint64_t>(a) << 32 | b;
      if (seen != nullptr) {
        if (const token_id* v = seen->find(key)) {
          return *v == kNoToken ? kNoMerge : pair_rank{*v, *v};
        }
      }
      const token_id t = m.find_bytes(piece.substr(begin, end - begin));
      if (seen != nullptr) seen->put(key, t);
      return t == kNoToken ? kNoMerge : pair_rank{t, t};
    }
    if (a == kNoToken || b == kNoToken) return kNoMerge;
    const auto v = m.merges.find(static_cast<std::uint64_t>(a) << 32 | b);
    if (!v) return kNoMerge;
    return {static_cast<std::uint32_t>(*v >> 32), static_cast<token_id>(*v & 0xFFFFFFFFu)};
  }
};

// Short pieces: arrays and a linear scan for the lowest rank (O(n²), no allocation).
// `init`: the n <= 64 symbols the piece starts as (byte-level: one a byte, so a symbol's
// index is its byte position, which tiktoken's ranks need).
void merge_short(const bpe_model& m, std::string_view piece, const token_id* init, std::size_t n,
                 std::vector<token_id>& out) {
  constexpr std::size_t kMax = 64;
  const ranker rank{m, piece};
  token_id ids[kMax];
  std::uint32_t starts[kMax + 1];
  pair_rank ranks[kMax];
  for (std::size_t i = 0; i < n; ++i) {
    ids[i] = init[i];
    starts[i] = static_cast<std::uint32_t>(i);
  }
  starts[n] = static_cast<std::uint32_t>(n);
  for (std::size_t i = 0; i + 1 < n; ++i)
    ranks[i] = rank(starts[i], starts[i + 2], ids[i], ids[i + 1]);
  while (n > 1) {
    std::size_t best = 0;
    for (std::size_t i = 1; i + 1 < n; ++i) {
      if (ranks[i].rank < ranks[best].rank) best = i;
    }
    if (ranks[best].id == kNoToken) break;
    ids[best] = ranks[best].id;
    std::memmove(ids + best + 1, ids + best + 2, (n - best - 2) * sizeof(token_id));
    std::memmove(starts + best + 1, starts + best + 2, (n - best - 1) * sizeof(std::uint32_t));
    std::memmove(ranks + best, ranks + best + 1, (n - best - 2) * sizeof(pair_rank));
    --n;
    if (best + 1 < n) ranks[best] = rank(starts[best], starts[best + 2], ids[best], ids[best + 1]);
    if (best > 0)
      ranks[best - 1] = rank(starts[best - 1], starts[best + 1], ids[best - 1], ids[best]);
  }
  out.insert(out.end(), ids, ids + n);
}

// The parts of a long piece: a linked list over byte positions (a part starts at `pos`
// and ends at next[pos]).
struct parts {
  const ranker& rank;
  std::uint32_t n;
  std::vector<token_id> ids;
  std::vector<std::uint32_t> next;
  std::vector<std::uint32_t> prev;
  std::vector<std::uint8_t> alive;

  parts(const ranker& r, const token_id* init, std::size_t count)
      : rank(r), n(static_cast<std::uint32_t>(count)), ids(n), next(n), prev(n), alive(n, 1) {
    for (std::uint32_t i = 0; i < n; ++i) {
      ids[i] = init[i];
      next[i] = i + 1;
      prev[i] = i - 1;  // wraps for 0: never read
    }
  }
  // A candidate merge: the part at `pos` with the next one, which then ended at `end` (if a
  // merge has changed either part since, the candidate is stale).
  struct cand {
    std::uint32_t rank;
    std::uint32_t pos;
    std::uint32_t end;
    token_id merged;
  };
  bool make(std::uint32_t pos, cand& c) const {
    const std::uint32_t mid = next[pos];
    if (mid >= n) return false;
    const pair_rank r = rank(pos, next[mid], ids[pos], ids[mid]);
    if (r.id == kNoToken) return false;
    c = {r.rank, pos, next[mid], r.id};
    return true;
  }
  [[nodiscard]] bool current(const cand& c) const {
    return alive[c.pos] != 0 && next[c.pos] < n && next[next[c.pos]] == c.end;
  }
  void apply(const cand& c) {
    ids[c.pos] = c.merged;
    alive[next[c.pos]] = 0;
    next[c.pos] = c.end;
    if (c.end < n) prev[c.end] = c.pos;
  }
  void emit(std::vector<token_id>& out) const {
    for (std::uint32_t i = 0; i < n; i = next[i]) out.push_back(ids[i]);
  }
};

// The general long-piece merge: a binary heap of candidates by (rank, position), stale
// ones skipped when popped. O(n log n) for any file.
void merge_heap(parts& p, std::vector<token_id>& out) {
  using cand = parts::cand;
  const auto later = [](const cand& x, const cand& y) {
    return x.rank != y.rank ? x.rank > y.rank : x.pos > y.pos;
  };
  std::vector<cand> heap;
  heap.reserve(p.n);
  cand c{};
  for (std::uint32_t i = 0; i + 1 < p.n; ++i) {
    if (p.make(i, c)) heap.push_back(c);
  }
  std::make_heap(heap.begin(), heap.end(), later);
  const auto push = [&](std::uint32_t pos) {
    if (p.make(pos, c)) {
      heap.push_back(c);
      std::push_heap(heap.begin(), heap.end(), later);
    }
  };
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const cand top = heap.back();
    heap.pop_back();
    if (!p.current(top)) continue;
    p.apply(top);
    push(top.pos);
    if (top.pos > 0) push(p.prev[top.pos]);
  }
  p.emit(out);
}

// The fast long-piece merge, for the files real BPE training makes: a merge's result only
// ever merges at a higher rank than its own. Candidates wait in one bucket per rank; the
// lowest rank's bucket is swept in position order (which is then the leftmost-first order,
// as no merge can make a candidate of the rank being swept). A run of one character (the
// adversarial case) merges level by level with no heap of a million entries. Returns false
// (nothing emitted) when the file breaks that order; merge_heap then does the piece.
bool merge_buckets(parts& p, std::vector<token_id>& out) {
  using cand = parts::cand;
  std::vector<std::vector<cand>> buckets;
  u64_map bucket_of;                 // rank -> index in buckets
  std::vector<std::uint32_t> ranks;  // min-heap of the ranks with waiting candidates
  const auto add = [&](const cand& c) {
    std::size_t b = 0;
    if (const auto at = bucket_of.find(c.rank)) {
      b = *at;
    } else {
      b = buckets.size();
      buckets.emplace_back();
      bucket_of.insert(c.rank, b);
      ranks.push_back(c.rank);
      std::push_heap(ranks.begin(), ranks.end(), std::greater<>());
    }
    buckets[b].push_back(c);
  };
  cand c{};
  for (std::uint32_t i = 0; i + 1 < p.n; ++i) {
    if (p.make(i, c)) add(c);
  }
  const auto by_pos = [](const cand& x, const cand& y) { return x.pos < y.pos; };
  while (!ranks.empty()) {
    std::pop_heap(ranks.begin(), ranks.end(), std::greater<>());
    const std::uint32_t r = ranks.back();
    ranks.pop_back();
    const std::vector<cand> sweep = [&] {
      auto v = std::move(buckets[*bucket_of.find(r)]);
      if (!std::is_sorted(v.begin(), v.end(), by_pos)) std::sort(v.begin(), v.end(), by_pos);
      return v;
    }();
    for (const cand& top : sweep) {
      if (!p.current(top)) continue;
      p.apply(top);
      for (const std::uint32_t pos : {top.pos, top.pos > 0 ? p.prev[top.pos] : p.n}) {
        if (pos >= p.n || !p.make(pos, c)) continue;
        if (c.rank <= r) return false;  // out of order: this file needs the heap
        add(c);
      }
    }
    // A rank swept is done: later candidates of it cannot come (they would be out of order).
  }
  p.emit(out);
  return true;
}

void merge_long(const bpe_model& m, std::string_view piece, const token_id* init, std::size_t n,
                std::vector<token_id>& out) {
  pair_cache seen(m.rank_by_bytes ? piece.size() : 0);
  const ranker rank{m, piece, &seen};
  {
    parts p(rank, init, n);
    if (merge_buckets(p, out)) return;
  }
  parts p(rank, init, n);
  merge_heap(p, out);
}

void merge(const bpe_model& m, std::string_view piece, const token_id* init, std::size_t n,
           std::vector<token_id>& out) {
  if (n <= 64) {
    merge_short(m, piece, init, n, out);
  } else {
    merge_long(m, piece, init, n, out);
  }
}

// The symbols a character-level piece starts as, as Hugging Face's BPE::merge_word makes
// them: each character's token; else (byte_fallback) its bytes' <0xNN> tokens; else the
// unk token (adjacent ones fused into one when fuse_unk), flushed at the next known
// character; else nothing (the character is dropped, as the reference drops it).
void char_symbols(const bpe_model& m, std::string_view piece, std::vector<token_id>& out) {
  out.clear();
  bool pending_unk = false;
  const auto* b = reinterpret_cast<const unsigned char*>(piece.data());
  for (std::size_t i = 0; i < piece.size();) {
    const std::size_t len = unicode::decode(b + i, b + piece.size()).len;
    const token_id id = m.find_bytes(piece.substr(i, len));
    if (id != kNoToken) {
      if (pending_unk) out.push_back(m.unk);
      pending_unk = false;
      out.push_back(id);
      i += len;
      continue;
    }
    if (m.byte_fallback) {
      const std::size_t before = out.size();
      bool all = true;
      for (std::size_t k = 0; k < len && all; ++k) {
        const token_id t = byte_fallback_token(m, b[i + k]);
        all = t != kNoToken;
        out.push_back(t);
      }
      if (all) {
        i += len;
        continue;
      }
      out.resize(before);
    }
    if (m.unk != kNoToken) {
      if (pending_unk && !m.fuse_unk) out.push_back(m.unk);
      pending_unk = true;
    }
    i += len;
  }
  if (pending_unk) out.push_back(m.unk);
}

}  // namespace

token_id byte_fallback_token(const bpe_model& m, unsigned char byte) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const char spelled[6] = {'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'};
  return m.find_bytes(std::string_view(spelled, 6));
}

void encode_piece(const bpe_model& m, std::string_view piece, std::vector<token_id>& out) {
  if (piece.empty()) return;
  if (m.unigram) {
    encode_unigram(m, piece, out);
    return;
  }
  if (m.char_level) {
    if (m.whole_piece_first) {
      if (const token_id id = m.find_bytes(piece); id != kNoToken) {
        out.push_back(id);
        return;
      }
    }
    thread_local std::vector<token_id> init;
    char_symbols(m, piece, init);
    merge(m, piece, init.data(), init.size(), out);
    return;
  }
  if (piece.size() == 1) {
    out.push_back(m.byte_token[static_cast<unsigned char>(piece[0])]);
    return;
  }
  if (m.whole_piece_first) {
    if (const token_id id = m.find_bytes(piece); id != kNoToken) {
      out.push_back(id);
      return;
    }
  }
  if (piece.size() <= 64) {
    token_id init[64];
    for (std::size_t i = 0; i < piece.size(); ++i) {
      init[i] = m.byte_token[static_cast<unsigned char>(piece[i])];
    }
    merge_short(m, piece, init, piece.size(), out);
  } else {
    std::vector<token_id> init(piece.size());
    for (std::size_t i = 0; i < piece.size(); ++i) {
      init[i] = m.byte_token[static_cast<unsigned char>(piece[i])];
    }
    merge_long(m, piece, init.data(), init.size(), out);
  }
}

}  // namespace ocml::detail
