// SPDX-License-Identifier: Apache-2.0
// The Unigram model (SentencePiece's, as Hugging Face tokenizers runs it): a piece is cut
// into the vocabulary entries whose scores sum highest (Viterbi over the entries each
// character begins); a character no entry begins alone is the unk token, scored 10 below
// the lowest entry, and adjacent ones are one unk token; with byte_fallback a run of them
// is its bytes' <0xNN> tokens when the vocabulary has them all.
#include <cstdint>
#include <vector>

#include "tokens/model.hpp"
#include "tokens/unicode.hpp"

namespace ocml::detail {

namespace {

// The best segmentation of the piece's first `end` bytes found so far: its score, where its
// last entry begins, and that entry (the unk token for an unknown character).
struct unigram_path {
  double score = 0;
  std::size_t from = 0;
  token_id id = kNoToken;
  bool reached = false;
};

// Appends the IDs of piece[from, to), which the path made one unk token: its bytes'
// <0xNN> tokens (byte_fallback, when the vocabulary has every one), else the unk token.
void unigram_unknown(const bpe_model& m, std::string_view run, std::vector<token_id>& out) {
  if (m.byte_fallback) {
    const std::size_t before = out.size();
    bool all = true;
    for (std::size_t k = 0; k < run.size() && all; ++k) {
      const token_id t = byte_fallback_token(m, static_cast<unsigned char>(run[k]));
      all = t != kNoToken;
      out.push_back(t);
    }
    if (all) return;
    out.resize(before);
  }
  out.push_back(m.unk);
}

}  // namespace

void build_unigram_trie(bpe_model& m) {
  m.trie = u64_map();
  m.trie_token.assign(1, kNoToken);
  for (token_id id = 0; id < m.ordinary_count; ++id) {
    const std::string_view key = m.key_of(id);
    if (key.empty() || m.find_bytes(key) != id) continue;  // the first of equal spellings
    std::uint64_t node = 0;
    for (const char c : key) {
      const std::uint64_t edge = node << 8 | static_cast<unsigned char>(c);
      if (const auto child = m.trie.find(edge)) {
        node = *child;
        continue;
      }
      const std::uint64_t next = m.trie_token.size();
      m.trie.insert(edge, next);
      m.trie_token.push_back(kNoToken);
      node = next;
    }
    m.trie_token[node] = id;
  }
}

void encode_unigram(const bpe_model& m, std::string_view piece, std::vector<token_id>& out) {
  const std::size_t n = piece.size();
  if (n == 0) return;
  thread_local std::vector<unigram_path> best;
  best.assign(n + 1, unigram_path{});
  best[0].reached = true;
  const auto* b = reinterpret_cast<const unsigned char*>(piece.data());
  for (std::size_t at = 0; at < n;) {
    const double here = best[at].score;
    const std::size_t ch = unicode::decode(b + at, b + n).len;
    bool single = false;  // an entry is this character alone
    std::uint64_t node = 0;
    for (std::size_t k = at; k < n; ++k) {
      const auto child = m.trie.find(node << 8 | b[k]);
      if (!child) break;
      node = *child;
      const token_id id = m.trie_token[node];
      if (id == kNoToken) continue;
      const std::size_t len = k + 1 - at;
      unigram_path& to = best[at + len];
      const double score = here + m.scores[id];
      // The first best wins a tie: entries in order of length, starts left to right.
      if (!to.reached || score > to.score) to = {score, at, id, true};
      if (len == ch) single = true;
    }
    if (!single) {
      unigram_path& to = best[at + ch];
      const double score = here + m.unk_score;
      if (!to.reached || score > to.score) to = {score, at, m.unk, true};
    }
    at += ch;
  }
  // Back from the end; adjacent unk entries are one run.
  thread_local std::vector<std::pair<std::size_t, std::size_t>> cuts;  // [from, to) of each
  cuts.clear();
  for (std::size_t end = n; end > 0;) {
    const std::size_t from = best[end].from;
    const bool unk = best[end].id == m.unk;
    if (unk && !cuts.empty() && best[cuts.back().second].id == m.unk && cuts.back().first == end) {
      cuts.back().first = from;  // fused with the unk run after it
    } else {
      cuts.emplace_back(from, end);
    }
    end = from;
  }
  for (std::size_t k = cuts.size(); k-- > 0;) {
    const auto [from, to] = cuts[k];
    const token_id id = best[to].id;
    if (id == m.unk) {
      // A run of unknown characters: one vocabulary entry if it spells one (the
      // reference looks the fused text up), else its bytes or the unk token.
      const token_id whole = m.find_bytes(piece.substr(from, to - from));
      if (whole != kNoToken) {
        out.push_back(whole);
      } else {
        unigram_unknown(m, piece.substr(from, to - from), out);
      }
    } else {
      out.push_back(id);
    }
  }
}

}  // namespace ocml::detail
