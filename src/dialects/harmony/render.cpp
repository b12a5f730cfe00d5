// SPDX-License-Identifier: Apache-2.0
// The harmony renderer: byte-identical to openai/harmony's text rendering.
#include <string>
#include <unordered_map>

#include "core/scan.hpp"
#include "dialects/openchatml/render_common.hpp"

namespace ocml::detail {

namespace {

// The call a tool reply answers, found in one pass over the messages (linear in messages
// and calls): by call id (the latest call with that id before the reply), else, for
// dialects without ids, by order (the n-th reply after a run of calls answers its n-th).
class reply_names {
 public:
  explicit reply_names(const std::vector<const message*>& msgs) : msgs_(msgs) {}

  /// The tool name of reply `k` (empty when no call matches).
  [[nodiscard]] std::string_view name_of(std::size_t k) const {
    const message& m = *msgs_[k];
    if (!m.name.empty()) return m.name;
    if (!m.call_id.empty()) {
      const auto it = by_id_.find(m.call_id);
      return it == by_id_.end() ? std::string_view{} : it->second;
    }
    const std::size_t block = k - replies_;  // where this run of replies began
    const std::size_t first = calls_end_ == block ? calls_begin_ : block;
    return first + replies_ < block ? std::string_view(msgs_[first + replies_]->recipient)
                                    : std::string_view{};
  }
  /// Message `k` was written: it joins the runs of calls and replies.
  void seen(std::size_t k) {
    const message& m = *msgs_[k];
    replies_ = m.role == role::tool ? replies_ + 1 : 0;
    if (m.role == role::assistant && !m.recipient.empty()) {
      if (calls_end_ != k) calls_begin_ = k;
      calls_end_ = k + 1;
      if (!m.call_id.empty()) by_id_[m.call_id] = m.recipient;  // views into the messages
    }
  }

 private:
  const std::vector<const message*>& msgs_;
  std::unordered_map<std::string_view, std::string_view> by_id_;
  std::size_t calls_begin_ = 0;
  std::size_t calls_end_ = static_cast<std::size_t>(-1);
  std::size_t replies_ = 0;  // tool replies right before the current message
};

// The first harmony control token `text` spells, or empty. Harmony has no escape: such
// content would be read back as structure (<|literal|> is no harmony token: it is text).
std::string_view harmony_spelling(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* c = find_token_candidate(p, end);
    if (c == end) break;
    const auto m = match_token(c, static_cast<std::size_t>(end - c));
    if (m.status == match_status::matched && m.tok != token::literal &&
        m.tok != token::endliteral) {
      return token_text(m.tok);
    }
    p = c + 1;
  }
  return {};
}

}  // namespace

std::string_view harmony_end(const message& m, bool sampled_last) {
  if (sampled_last && m.role == role::assistant && m.channel == "final") return "<|return|>";
  return m.role == role::assistant && !m.recipient.empty() ? "<|call|>" : "<|end|>";
}

result<std::string> render_harmony(const conversation& c, const render_options& o,
                                   std::vector<diagnostic>* warnings) {
  return render_harmony_marked(c, o, warnings, nullptr);
}

result<std::string> render_harmony_marked(const conversation& c, const render_options& o,
                                          std::vector<diagnostic>* warnings,
                                          std::vector<std::size_t>* ends) {
  std::string out;
  std::size_t filled = 0;  // ends[i] is known for i < filled
  if (ends != nullptr) ends->assign(c.messages.size(), 0);
  if (c.header.present) warn_dropped(warnings, "header", "a YAML document header", "harmony");
  const auto msgs = messages_to_render(c, o.drop_analysis);
  std::size_t size = 32;  // what the text will hold, near enough to grow it once
  for (const message* m : msgs) size += m->content.size() + 64;
  out.reserve(size);
  reply_names replies(msgs);
  for (std::size_t k = 0; k < msgs.size(); replies.seen(k++)) {
    const message& m = *msgs[k];
    const std::size_t at = static_cast<std::size_t>(msgs[k] - c.messages.data());
    const std::size_t begins = out.size();
    std::string err;
    out += "<|start|>";
    if (m.role == role::tool) {
      // Harmony writes a tool reply's author as the tool's name alone; a reply that has
      // only a call id takes the name of the call it answers.
      const std::string_view name = replies.name_of(k);
      if (name.empty()) {
        return make_error(error_code::unrepresentable,
                          message_path(at, "name") + ": a harmony tool message needs a name");
      }
      err = check_header_value("name", "tool name", name, at);
      // The author word is where harmony reads the role: a tool named like a role (or
      // `role:name`) would be read back as that role.
      if (err.empty() && (parse_role(name).has_value() || name.find(':') != std::string::npos)) {
        err = message_path(at, "name") + ": tool name '" + std::string(name) +
              "' would be read back as a role";
      }
      out += name;
    } else {
      out += role_name(m.role);
      if (!m.name.empty()) {
        err = check_header_value("name", "name", m.name, at);
        out += ':';
        out += m.name;
      }
    }
    if (!m.recipient.empty() && m.recipient != "all") {
      if (err.empty()) err = check_header_value("recipient", "recipient", m.recipient, at);
      out += " to=";
      out += m.recipient;
    }
    if (!m.channel.empty()) {
      if (err.empty()) err = check_header_value("channel", "channel", m.channel, at);
      out += "<|channel|>";
      out += m.channel;
    }
    if (!m.content_type.empty()) {
      if (err.empty()) {
        err = check_header_value("content_type", "content type", m.content_type, at);
      }
      if (err.empty() && m.channel.empty()) {
        // Harmony writes the type as a bare word, which only after a channel is a type:
        // before <|message|> alone it would be read as a recipient (fuzz finding 28).
        err = message_path(at, "content_type") + ": content type '" + m.content_type +
              "' needs a channel in harmony";
      }
      if (err.empty() && m.content_type.find('=') != std::string::npos) {
        err = message_path(at, "content_type") + ": content type '" + m.content_type +
              "' holds '=' (it would be read back as a header attribute)";
      }
      out += ' ';
      out += m.content_type;
    }
    if (!m.constrain.empty()) {
      if (err.empty()) err = check_header_value("constrain", "constrain type", m.constrain, at);
      out += " <|constrain|>";
      out += m.constrain;
    }
    if (!err.empty()) return make_error(error_code::unrepresentable, err);
    // Harmony has no call ids (replies answer calls by name and order) and writes a
    // preamble as commentary text: dropping them loses nothing the user wrote, so neither
    // is a warning (issue 14). Any other intent is.
    if (!m.intent.empty() && m.intent != "preamble") {
      warn_dropped(warnings, message_path(at, "intent"), "intent", "harmony");
    }
    if (!m.extra.empty()) {
      warn_dropped(warnings, message_path(at, "extra"), "extra header attributes", "harmony");
    }
    out += "<|message|>";
    if (o.openchatml_escapes) {
      escape_body_into(out, m.content);
    } else if (const std::string_view t = harmony_spelling(m.content); !t.empty()) {
      return make_error(error_code::unrepresentable,
                        message_path(at, "content") + " holds '" + std::string(t) +
                            "', which harmony text has no escape for (render to token IDs "
                            "writes it as ordinary tokens)");
    } else {
      out += m.content;
    }
    out += harmony_end(m, o.training && k + 1 == msgs.size());
    if (ends != nullptr) {
      // The messages the drop rule left out before this one end where it begins.
      for (; filled < at; ++filled) (*ends)[filled] = begins;
      (*ends)[filled++] = out.size();
    }
  }
  if (ends != nullptr) {
    for (; filled < c.messages.size(); ++filled) (*ends)[filled] = out.size();
  }
  if (o.add_generation_prompt) {
    out += "<|start|>";
    out += o.generation_role;
  }
  return out;
}

}  // namespace ocml::detail
