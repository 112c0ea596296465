// llmjson: reasoning regions and parts (section 2 of the rules), found by one plain search
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_REGIONS_HPP_INCLUDED
#define LLMJSON_DETAIL_REGIONS_HPP_INCLUDED

#include <algorithm>
#include <array>
#include <bitset>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/detail/find.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// One part of the output: a reasoning region's text, or a stretch of answer text between
/// markers. Parts are read as texts of their own; markers belong to no part.
struct part {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool region = false;        ///< a reasoning region
  bool closed = true;         ///< regions: a closing marker ends it (else it runs to the end)
  bool by_prompt = false;     ///< regions: the prompt opened it (no opening marker in the text)
  std::size_t marker_at = 0;  ///< regions: where its marker starts (the opening one, or the
                              ///< closing one when the prompt opened it; the start of the text
                              ///< when neither is there)
  std::string_view marker;    ///< regions: that marker as written (`<think>`, `</think>`,
                              ///< `<|channel|>analysis`); empty when there is none
};

/// The built-in tag pairs (section 2). ASCII letters match case-insensitively.
inline constexpr std::array<std::array<std::string_view, 2>, 8> builtin_tag_pairs{{
    {"<think>", "</think>"},
    {"<thinking>", "</thinking>"},
    {"<reasoning>", "</reasoning>"},
    {"[THINK]", "[/THINK]"},
    {"<|START_THINKING|>", "<|END_THINKING|>"},
    {"<|begin_of_thought|>", "<|end_of_thought|>"},
    {"<seed:think>", "</seed:think>"},
    {"\xE2\x97\x81think\xE2\x96\xB7", "\xE2\x97\x81/think\xE2\x96\xB7"},  // ◁think▷ ◁/think▷
}};

/// gpt-oss harmony's special tokens.
enum class harmony : unsigned char { start, channel, message, constrain, end, call, ret, count };
inline constexpr std::array<std::string_view, 7> harmony_tokens{
    "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>",
    "<|end|>",   "<|call|>",    "<|return|>"};

constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// Whether `text` holds `marker` at `i`, ASCII letters compared case-insensitively.
constexpr bool marker_at(std::string_view text, std::size_t i, std::string_view marker) noexcept {
  if (marker.empty() || text.size() - i < marker.size()) return false;
  for (std::size_t k = 0; k < marker.size(); ++k)
    if (ascii_lower(text[i + k]) != ascii_lower(marker[k])) return false;
  return true;
}

/// Finds the regions and parts of `text[start, end)`, section 2 of the rules. One left-to-right
/// search; the already-open rule looks ahead at most to the first opening marker, so every byte
/// is looked at at most twice. Does not look at fences, frames or strings: markers are a chat
/// template's tokens, wherever they stand.
class region_finder {
 public:
  region_finder(std::string_view text, const options& opts)
      : text_(text), opts_(opts), starts_(text, first_bytes(opts)) {
    auto add = [&](std::string_view m) {
      if (m.size() == 1) {
        short_[static_cast<unsigned char>(ascii_lower(m[0]))] = true;
      } else if (m.size() > 1) {
        pairs_.set(pair_index(m[0], m[1]));
      }
    };
    for (std::size_t p = 0; p < pair_count(); ++p) {
      if (open_of(p).empty() || close_of(p).empty()) continue;
      add(open_of(p));
      add(close_of(p));
    }
    for (const auto& h : harmony_tokens) add(h);
  }

  /// Returns the parts of `[start, text.size())` in order; empty parts are left out.
  std::vector<part> parts(std::size_t start) {
    std::vector<part> out;
    const std::size_t n = text_.size();
    auto answer = [&](std::size_t b, std::size_t e) {
      if (b < e) out.push_back(part{b, e, false, true, false, 0, {}});
    };
    if (!opts_.reasoning_regions) {
      answer(start, n);
      return out;
    }
    std::size_t i = start;
    std::size_t scan_from = start;  // no marker starts in [start, scan_from)
    if (opts_.start != output_start::answer) {
      // A region the prompt opened: through the first closing marker that counts.
      const match close = opts_.start == output_start::reasoning
                              ? first_closer(start)
                              : already_open_closer(start, scan_from);
      if (close.kind != mk::none) {
        out.push_back(
            part{start, close.at, true, true, true, close.at, text_.substr(close.at, close.len)});
        i = close.at + close.len;
      } else if (opts_.start == output_start::reasoning) {
        out.push_back(part{start, n, true, false, true, start, {}});
        return out;
      }
    }
    std::size_t answer_from = i;
    i = std::max(i, scan_from);
    for (;;) {
      const match m = next_marker(i, n);
      if (m.kind == mk::none) break;
      const std::size_t after = m.at + m.len;
      if (m.kind == mk::tag_close) {  // a closing tag outside a region is text
        i = m.at + 1;
        continue;
      }
      answer(answer_from, m.at);
      if (m.kind == mk::tag_open) {
        const match c = find_closer_of(m.pair, after);
        if (c.kind == mk::none) {
          out.push_back(part{after, n, true, false, false, m.at, text_.substr(m.at, m.len)});
          return out;
        }
        out.push_back(part{after, c.at, true, true, false, m.at, text_.substr(m.at, m.len)});
        i = answer_from = c.at + c.len;
        continue;
      }
      if (m.kind == mk::harmony_token && m.pair == static_cast<std::size_t>(harmony::channel) &&
          !is_final(after)) {
        const std::size_t name_end = channel_name_end(after);
        const std::string_view marker = text_.substr(m.at, name_end - m.at);
        const match c = harmony_region_end(after);
        if (c.kind == mk::none) {
          out.push_back(part{after, n, true, false, false, m.at, marker});
          return out;
        }
        out.push_back(part{after, c.at, true, true, false, m.at, marker});
        // <|end|>, <|call|>, <|return|> belong to the region; <|start|>, <|channel|> are read next.
        i = answer_from = ends_message(c) ? c.at + c.len : c.at;
        continue;
      }
      i = answer_from = after;  // any other harmony token cuts the text
    }
    answer(answer_from, n);
    return out;
  }

 private:
  enum class mk : unsigned char { none, tag_open, tag_close, harmony_token };
  struct match {
    mk kind = mk::none;
    std::size_t pair = 0;  // tags: index into the pairs (built-in first); harmony: the token
    std::size_t at = 0;
    std::size_t len = 0;
  };

  [[nodiscard]] std::size_t pair_count() const noexcept {
    return builtin_tag_pairs.size() + opts_.reasoning_markers.size();
  }
  [[nodiscard]] std::string_view open_of(std::size_t p) const noexcept {
    return p < builtin_tag_pairs.size()
               ? builtin_tag_pairs[p][0]
               : opts_.reasoning_markers[p - builtin_tag_pairs.size()].open;
  }
  [[nodiscard]] std::string_view close_of(std::size_t p) const noexcept {
    return p < builtin_tag_pairs.size()
               ? builtin_tag_pairs[p][1]
               : opts_.reasoning_markers[p - builtin_tag_pairs.size()].close;
  }

  /// The longest marker at `i`; built-in before the caller's at equal length.
  [[nodiscard]] match marker_here(std::size_t i) const noexcept {
    match best;
    // Most bytes a marker starts with (`[`, `<`) start no marker: two bytes tell.
    if (!short_[static_cast<unsigned char>(ascii_lower(text_[i]))] &&
        (i + 1 == text_.size() || !pairs_.test(pair_index(text_[i], text_[i + 1]))))
      return best;
    auto consider = [&](mk kind, std::size_t index, std::string_view m) {
      if (m.size() > best.len && marker_at(text_, i, m)) best = match{kind, index, i, m.size()};
    };
    for (std::size_t p = 0; p < pair_count(); ++p) {
      if (open_of(p).empty() || close_of(p).empty()) continue;
      consider(mk::tag_open, p, open_of(p));
      consider(mk::tag_close, p, close_of(p));
    }
    for (std::size_t h = 0; h < harmony_tokens.size(); ++h)
      consider(mk::harmony_token, h, harmony_tokens[h]);
    return best;
  }

  static std::size_t pair_index(char a, char b) noexcept {
    return static_cast<std::size_t>(static_cast<unsigned char>(ascii_lower(a))) << 8 |
           static_cast<unsigned char>(ascii_lower(b));
  }

  /// The first marker that starts in `[i, end)`.
  [[nodiscard]] match next_marker(std::size_t i, std::size_t end) const noexcept {
    for (; (i = starts_.next(i, end)) < end; ++i) {
      const match m = marker_here(i);
      if (m.kind != mk::none) return m;
    }
    return {};
  }

  /// Every byte a marker can start with, in both cases for letters.
  static std::string first_bytes(const options& opts) {
    std::string out;
    auto add = [&](std::string_view m) {
      if (m.empty()) return;
      out += m[0];
      if (m[0] >= 'a' && m[0] <= 'z') out += static_cast<char>(m[0] - 'a' + 'A');
      if (m[0] >= 'A' && m[0] <= 'Z') out += static_cast<char>(m[0] - 'A' + 'a');
    };
    for (const auto& p : builtin_tag_pairs) add(p[0]), add(p[1]);
    for (const auto& h : harmony_tokens) add(h);
    for (const auto& p : opts.reasoning_markers)
      if (!p.open.empty() && !p.close.empty()) add(p.open), add(p.close);
    return out;
  }

  [[nodiscard]] static bool is_name_byte(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  [[nodiscard]] std::size_t channel_name_end(std::size_t i) const noexcept {
    while (i < text_.size() && is_name_byte(text_[i])) ++i;
    return i;
  }
  /// Whether the channel name at `i` is `final` (ASCII case-insensitively).
  [[nodiscard]] bool is_final(std::size_t i) const noexcept {
    return channel_name_end(i) - i == 5 && marker_at(text_, i, "final");
  }
  [[nodiscard]] static bool ends_message(const match& m) noexcept {
    const auto h = static_cast<harmony>(m.pair);
    return h == harmony::end || h == harmony::call || h == harmony::ret;
  }
  [[nodiscard]] static bool is_harmony(const match& m, harmony h) noexcept {
    return m.kind == mk::harmony_token && m.pair == static_cast<std::size_t>(h);
  }
  [[nodiscard]] bool opens_region(const match& m, std::size_t after) const noexcept {
    return m.kind == mk::tag_open || (is_harmony(m, harmony::channel) && !is_final(after));
  }

  /// The first closing tag of pair `p` at or after `i`.
  [[nodiscard]] match find_closer_of(std::size_t p, std::size_t i) const noexcept {
    const std::string_view close = close_of(p);
    if (close.empty()) return {};
    const char c0 = close[0], c1 = ascii_lower(c0) == c0 && c0 >= 'a' && c0 <= 'z'
                                       ? static_cast<char>(c0 - 'a' + 'A')
                                       : ascii_lower(c0);
    const char both[2] = {c0, c1};
    const byte_finder first(text_, std::string_view(both, 2));
    for (const std::size_t n = text_.size(); (i = first.next(i, n)) < n; ++i)
      if (marker_at(text_, i, close)) return match{mk::tag_close, p, i, close.size()};
    return {};
  }

  /// Where a harmony message that is reasoning ends: through `<|end|>`, `<|call|>` or
  /// `<|return|>`, or up to `<|start|>` or `<|channel|>`, whichever comes first.
  [[nodiscard]] match harmony_region_end(std::size_t i) const noexcept {
    const byte_finder angle(text_, "<");
    for (const std::size_t n = text_.size(); (i = angle.next(i, n)) < n; ++i) {
      for (std::size_t h = 0; h < harmony_tokens.size(); ++h) {
        if (h == static_cast<std::size_t>(harmony::message) ||
            h == static_cast<std::size_t>(harmony::constrain))
          continue;
        if (marker_at(text_, i, harmony_tokens[h]))
          return match{mk::harmony_token, h, i, harmony_tokens[h].size()};
      }
    }
    return {};
  }

  /// output_start::reasoning: the first closing tag of any pair, or harmony `<|end|>`/`<|call|>`.
  [[nodiscard]] match first_closer(std::size_t i) const noexcept {
    for (;;) {
      const match m = next_marker(i, text_.size());
      if (m.kind == mk::none || m.kind == mk::tag_close || is_harmony(m, harmony::end) ||
          is_harmony(m, harmony::call))
        return m;
      i = m.at + 1;
    }
  }

  /// The already-open rule: the first closing tag before any opening marker, or the first
  /// harmony `<|end|>`/`<|call|>` before any opening marker and any other harmony token.
  /// `first_marker`: where the first marker starts (the end of the text when there is none).
  [[nodiscard]] match already_open_closer(std::size_t i, std::size_t& first_marker) const noexcept {
    bool other_harmony = false;
    first_marker = text_.size();
    for (;;) {
      const match m = next_marker(i, text_.size());
      if (first_marker == text_.size()) first_marker = m.kind == mk::none ? text_.size() : m.at;
      if (m.kind == mk::none || opens_region(m, m.at + m.len)) return {};
      if (m.kind == mk::tag_close) return m;
      if ((is_harmony(m, harmony::end) || is_harmony(m, harmony::call)) && !other_harmony) return m;
      other_harmony = true;
      i = m.at + m.len;
    }
  }

  std::string_view text_;
  const options& opts_;
  byte_finder starts_;             // the next byte a marker can start with
  std::bitset<65536> pairs_;       // the first two bytes of every marker, ASCII-lowercased
  std::array<bool, 256> short_{};  // the bytes of one-byte markers (a caller's), lowercased
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_REGIONS_HPP_INCLUDED
