// llmjson: the bodies of feedback.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_FEEDBACK_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_FEEDBACK_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/diagnose.hpp>
#include <llmjson/detail/scan/engine.hpp>
#include <llmjson/detail/scan/positions.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/feedback.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson {

namespace detail {

/// The most bytes of one quoted piece of an instruction (a reason, a key, a marker).
inline constexpr std::size_t feedback_piece_bytes = 80;
/// The most places an instruction names; the others are counted (`and 4 more`).
inline constexpr std::size_t feedback_places = 3;

/// `s` on one line (control characters escaped, invalid UTF-8 replaced), at most `most` bytes
/// (`most` >= 4): cut at a code point with `...` when longer. Reads at most a few times `most`
/// bytes of `s`, however long it is.
inline std::string clip(std::string_view s, std::size_t most) {
  // one_line never shortens: a longer raw prefix is cut below anyway.
  const std::size_t read = most * 4 + 4;
  std::string line = one_line(s.substr(0, std::min(s.size(), read)));
  if (line.size() <= most) return line;
  std::size_t n = most - 3;
  while (n > 0 && (static_cast<unsigned char>(line[n]) & 0xC0) == 0x80) --n;
  line.resize(n);
  line += "...";
  return line;
}

/// `line 3 col 18`: how an instruction names a place of the reply.
inline std::string place(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line) + " col " + std::to_string(column);
}

/// How to fix what `reason` names, when it is known: `remove it` for a trailing comma.
inline std::string_view fix_for(std::string_view reason) noexcept {
  struct rule {
    std::string_view says, fix;
  };
  static constexpr rule rules[] = {
      {"single quotes", "use double quotes"}, {"raw line break", "write \\n instead"},
      {"raw tab", "write \\t instead"},       {"raw control character", "escape it as \\u00XX"},
      {"trailing comma", "remove it"},        {"comments are not JSON", "remove the comment"},
      {"duplicate key", "keep one of them"},
  };
  for (const rule& r : rules)
    if (reason.find(r.says) != std::string_view::npos) return r.fix;
  return {};
}

/// A malformed candidate, or a near miss: its place, its reason and how to fix it.
inline std::string describe_malformed(std::size_t line, std::size_t column,
                                      std::string_view reason) {
  constexpr std::string_view prefix = "malformed: ";
  if (reason.substr(0, prefix.size()) == prefix) reason.remove_prefix(prefix.size());
  // The validator's reasons name the place of the fault (`line 7 col 18: trailing comma`).
  std::string out = reason.substr(0, 5) == "line " ? std::string() : place(line, column) + ": ";
  out += clip(reason, feedback_piece_bytes);
  if (auto fix = fix_for(reason); !fix.empty()) {
    out += " (";
    out += fix;
    out += ")";
  }
  return out;
}

/// `intro` then the places (at most `feedback_places`, each made by `name(i)` for
/// i < `count`, separated by `sep`, then `and N more`), then `outro`, within
/// `max_feedback_bytes`.
template <class Name>
std::string list_places(std::string_view intro, std::size_t count, Name name, std::string_view sep,
                        std::string_view outro) {
  constexpr std::size_t more_room = 32;  // `; and 18446744073709551615 more`
  std::string out(intro);
  std::size_t shown = 0;
  while (shown < count && shown < feedback_places) {
    std::string piece = name(shown);
    const std::size_t sep_size = shown ? sep.size() : 0;
    if (out.size() + sep_size + piece.size() + more_room + outro.size() > max_feedback_bytes) break;
    if (shown) out += sep;
    out += piece;
    ++shown;
  }
  if (shown < count) {
    if (shown) out += sep;
    out += "and " + std::to_string(count - shown) + " more";
  }
  out += outro;
  return out;
}

/// The instruction for `e`, knowing the `finish_reason` of the reply ("" when unknown).
inline instruction instruct(const llmjson::error& e, std::string_view finish_reason) {
  const bool at_length = finish_reason == "length";
  const bool length_possible = at_length || finish_reason.empty();
  instruction out;
  switch (e.kind) {
    case error_kind::empty: out.text = "Your reply was empty. Reply with the JSON answer."; break;
    case error_kind::too_large:
      out.text = "Your reply was too long to read. Reply with the JSON answer only, briefly.";
      break;
    case error_kind::truncated: {
      out.raise_budget = length_possible;
      if (e.truncation && e.truncation->reasoning) {
        if (at_length) {
          out.text =
              "You ran out of tokens while reasoning, before writing the answer: reason "
              "more briefly and write the answer.";
        } else {
          out.text = std::string("Your reply ended inside the reasoning, before any answer: ") +
                     (length_possible ? "reason more briefly and write the answer."
                                      : "end the reasoning and write the answer.");
        }
        break;
      }
      std::string where =
          e.truncation ? ": " + clip(e.truncation->message, 2 * feedback_piece_bytes) : "";
      if (at_length) {
        out.text = "Your reply was cut at the token limit" + where +
                   ". Reply more briefly, with the JSON answer only.";
      } else if (length_possible) {
        out.text =
            "Your reply was cut" + where + ". Reply more briefly, with the JSON answer only.";
      } else {
        out.text = "Your reply ended before the JSON did" + where +
                   ". Reply with the complete JSON answer.";
      }
      break;
    }
    case error_kind::no_json: {
      // The malformed candidates of the answer text and the near misses, in document order
      // (each list is): the first few of each are kept, and all are counted.
      struct fault {
        std::size_t offset, line, column;
        std::string_view reason;
      };
      std::vector<fault> faults;
      std::size_t count = 0;
      const candidate* in_reasoning = nullptr;
      for (const candidate& c : e.candidates) {
        if (c.in_reasoning) {
          if (!in_reasoning) in_reasoning = &c;
        } else if (!c.valid && count++ < feedback_places) {
          faults.push_back({c.offset, c.line, c.column, c.message});
        }
      }
      for (const near_miss& m : e.near_misses) {  // at most max_near_misses
        ++count;
        faults.push_back({m.offset, m.line, m.column, m.message});
      }
      std::stable_sort(faults.begin(), faults.end(),
                       [](const fault& a, const fault& b) { return a.offset < b.offset; });
      if (!faults.empty()) {
        out.text = list_places(
            "Your reply is not valid JSON: ", count,
            [&](std::size_t i) {
              return describe_malformed(faults[i].line, faults[i].column, faults[i].reason);
            },
            "; ", ". Reply with the corrected JSON only.");
      } else if (in_reasoning) {
        out.text = "Your reply has JSON only inside the reasoning (" +
                   clip(region_label(*in_reasoning), feedback_piece_bytes / 2) +
                   "), which is not read as the answer: write the JSON answer after the "
                   "reasoning.";
      } else {
        out.text = "Your reply has no JSON. Reply with the JSON answer only.";
      }
      break;
    }
    case error_kind::no_match: {
      // The closest first: valid values outside any frame, then malformed ones (meant as JSON),
      // then values inside something bigger. The near misses (maybe the answer the model meant,
      // `{'a': 1}`) come right after the first valid value, so that they are named. Values
      // inside the reasoning are not answers.
      struct place_of {
        const candidate* c = nullptr;
        const near_miss* m = nullptr;
      };
      std::vector<place_of> close;
      auto add = [&](auto keep) {
        for (const candidate& c : e.candidates)
          if (!c.in_reasoning && keep(c)) close.push_back({&c, nullptr});
      };
      add([](const candidate& c) { return c.valid && !c.enclosed; });
      const std::size_t misses_at = std::min<std::size_t>(close.size(), 1);
      for (std::size_t k = 0; k < e.near_misses.size(); ++k)
        close.insert(close.begin() + static_cast<std::ptrdiff_t>(misses_at + k),
                     place_of{nullptr, &e.near_misses[k]});
      add([](const candidate& c) { return !c.valid; });
      add([](const candidate& c) { return c.valid && c.enclosed; });
      out.text = list_places(
          "Your JSON is not the expected answer: ", close.size(),
          [&](std::size_t i) -> std::string {
            if (const near_miss* m = close[i].m)
              return describe_malformed(m->line, m->column, m->message);
            const candidate& c = *close[i].c;
            if (!c.valid) return describe_malformed(c.line, c.column, c.message);
            return "the value at " + place(c.line, c.column) + ": " +
                   (c.message.empty() ? std::string("does not qualify")
                                      : clip(c.message, feedback_piece_bytes));
          },
          "; ", ". Reply with one corrected JSON value.");
      break;
    }
    case error_kind::ambiguous: {
      std::vector<const candidate*> fit;
      for (const candidate& c : e.candidates)
        if (c.qualifies) fit.push_back(&c);
      out.text = list_places(
          "Your reply has " + std::to_string(fit.size()) + " JSON values that fit, at ", fit.size(),
          [&](std::size_t i) { return place(fit[i]->line, fit[i]->column); }, ", ",
          ": give exactly one JSON answer, with no drafts or examples.");
      break;
    }
  }
  if (out.text.size() > max_feedback_bytes) out.text = clip(out.text, max_feedback_bytes);
  return out;
}

/// What an empty reply at the token limit is told.
inline constexpr std::string_view empty_at_length_text =
    "You ran out of tokens while reasoning and wrote no answer: reason more briefly and write "
    "the answer.";

/// The outcomes whose attempt may carry an instruction.
constexpr bool instructed(attempt_outcome o) noexcept {
  switch (o) {
    case attempt_outcome::empty_content:
    case attempt_outcome::no_json:
    case attempt_outcome::truncated:
    case attempt_outcome::no_match:
    case attempt_outcome::ambiguous:
    case attempt_outcome::too_large: return true;
    default: return false;
  }
}

/// How many bytes of the answer text one place of an excerpt keeps on each side of it, at most.
inline constexpr std::size_t excerpt_context_bytes = 320;
/// The most pieces of text an excerpt keeps (each cut between them is said).
inline constexpr std::size_t excerpt_pieces = 16;

/// The reasoning regions of `text` as extraction reads it with `o` (the engine's parts: its own
/// detection of `<think>`, harmony analysis, regions the prompt opened...), markers included, in
/// document order.
inline std::vector<std::pair<std::size_t, std::size_t>> reasoning_spans(std::string_view text,
                                                                        const options& o) {
  options opts = o;
  opts.max_candidates = std::numeric_limits<std::size_t>::max();
  opts.max_open_frames = std::numeric_limits<std::size_t>::max();
  engine reader(opts);
  std::vector<fence_span> fences;  // unused: asking only for fences skips the frame scan
  std::vector<part_span> parts;
  reader.collect_fences(fences, /*only=*/true);
  reader.collect_parts(parts);
  reader.advance(text, /*ended=*/true);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].region) continue;
    const std::size_t from = std::min(parts[k].begin, parts[k].marker_at);
    const std::size_t to = k + 1 < parts.size() ? parts[k + 1].begin : text.size();
    if (from < to) out.emplace_back(from, std::min(to, text.size()));
  }
  return out;
}

/// The places of `text` an instruction for `e` may name, the most useful first: the faults of
/// malformed candidates and near misses (and where they start), the values named, where a cut
/// value opened; then the end of the text (where an answer usually is, and where a cut is) and
/// its start.
inline std::vector<std::size_t> excerpt_places(std::string_view text, const llmjson::error* e,
                                               const options& o) {
  std::vector<std::size_t> out;
  if (e) {
    validator v;
    const std::size_t depth = std::min(o.max_depth, max_depth_limit);
    std::size_t malformed = 0, valid = 0;
    for (const candidate& c : e->candidates) {
      if (c.in_reasoning || c.offset >= text.size()) continue;
      if (!c.valid && malformed++ < feedback_places) {
        std::size_t at = c.offset;
        std::string why;
        // A span that starts in the prefill lies in the content from 0 (its bytes there).
        // A frame's raw line breaks and tabs are no fault (rules §3): its message names the one.
        diagnose(v, text, depth, c.offset,
                 std::min(text.size(), c.offset + c.text.size() - c.prefilled), at, why,
                 c.source == source::prose);
        out.push_back(at);
        out.push_back(c.offset);
      } else if (c.valid && valid++ < feedback_places) {
        out.push_back(c.offset);
      }
    }
    for (const near_miss& m : e->near_misses) out.push_back(m.offset);
    if (e->truncation) out.push_back(e->truncation->offset);
  }
  out.push_back(text.size());
  out.push_back(0);
  return out;
}

/// `68,123`.
inline std::string with_commas(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (k && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

LLMJSON_INLINE std::string reply_excerpt(std::string_view text, const llmjson::error* e,
                                         const options& o) {
  if (is_blank(text)) return {};
  using range = std::pair<std::size_t, std::size_t>;
  const std::vector<range> reasoning = reasoning_spans(text, o);
  // The answer text: all but the reasoning.
  std::vector<range> answer;
  std::size_t answer_bytes = 0, at = 0;
  for (const range& r : reasoning) {
    if (r.first > at) answer.emplace_back(at, r.first);
    at = std::max(at, r.second);
  }
  if (at < text.size()) answer.emplace_back(at, text.size());
  for (const range& r : answer) answer_bytes += r.second - r.first;

  // A code point's first byte at or before `i`.
  auto code_point_start = [&](std::size_t i) {
    while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
    return i;
  };
  std::vector<range> kept;
  if (answer_bytes <= max_excerpt_bytes) {
    kept = answer;
  } else {
    // Windows around the places, whole lines where the lines are short, within the budget.
    std::vector<range> windows;
    std::size_t budget = max_excerpt_bytes;
    for (std::size_t p : excerpt_places(text, e, o)) {
      if (budget == 0) break;
      const std::size_t side = std::min(excerpt_context_bytes, budget / 2);
      std::size_t lo = p > side ? p - side : 0, hi = std::min(text.size(), p + side);
      if (const std::size_t nl = text.substr(lo, p - lo).find('\n');
          lo > 0 && nl != std::string_view::npos)
        lo += nl + 1;
      if (const std::size_t nl = text.substr(p, hi - p).rfind('\n');
          hi < text.size() && nl != std::string_view::npos)
        hi = p + nl + 1;
      lo = code_point_start(lo);
      hi = code_point_start(hi);
      if (hi <= lo) continue;
      budget -= std::min(budget, hi - lo);
      windows.emplace_back(lo, hi);
    }
    std::sort(windows.begin(), windows.end());
    // The windows' answer text: each window less the reasoning in it.
    for (const range& w : windows)
      for (const range& a : answer) {
        const std::size_t b = std::max(w.first, a.first), x = std::min(w.second, a.second);
        if (b < x) kept.emplace_back(b, x);
      }
    std::sort(kept.begin(), kept.end());
    std::vector<range> merged;
    for (const range& r : kept) {
      if (!merged.empty() && r.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, r.second);
      else
        merged.push_back(r);
    }
    kept = std::move(merged);
  }
  // Many short pieces (a reply of many small reasoning regions) would make many notes: the
  // first and the last pieces are kept, the others cut.
  if (kept.size() > excerpt_pieces) {
    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(excerpt_pieces / 2),
               kept.end() - static_cast<std::ptrdiff_t>(excerpt_pieces / 2));
  }

  // The pieces, and a note for each cut: how many bytes, whether only reasoning, and where the
  // next piece is in the reply (the instruction's places are the reply's).
  auto only_reasoning = [&](std::size_t b, std::size_t x) {
    for (const range& a : answer)
      if (std::max(a.first, b) < std::min(a.second, x)) return false;
    return true;
  };
  position_finder positions(text);
  std::string out;
  std::size_t pos = 0;
  auto note = [&](std::size_t b, std::size_t x) {
    out += "[... " + with_commas(x - b) + " bytes " +
           (only_reasoning(b, x) ? "of reasoning " : "") + "cut";
    std::size_t column = 0;
    if (x < text.size()) {
      std::size_t line = 0;
      std::tie(line, column) = positions.at(x);
      out += "; resuming at " + place(line, column);
    }
    out += " ...]";
    // A note between whole lines has a line of its own.
    if (column == 1 && (b == 0 || text[b - 1] == '\n' || text[b - 1] == '\r')) out += '\n';
  };
  for (const range& r : kept) {
    if (r.first > pos) note(pos, r.first);
    out.append(text.substr(r.first, r.second - r.first));
    pos = r.second;
  }
  if (pos < text.size()) note(pos, text.size());
  return out;
}

LLMJSON_INLINE std::string attempt_feedback(const attempt& a, const llmjson::error* e) {
  if (a.outcome == attempt_outcome::empty_content)
    return a.finish_reason == "length" ? std::string(empty_at_length_text) : std::string();
  if (!instructed(a.outcome) || !e) return {};
  return instruct(*e, a.finish_reason).text;
}

}  // namespace detail

LLMJSON_INLINE instruction feedback(const llmjson::error& e) { return detail::instruct(e, {}); }

LLMJSON_INLINE instruction feedback(const llmjson::attempt& a) {
  instruction out;
  if (!detail::instructed(a.outcome) || a.feedback.empty()) return out;
  out.text = a.feedback;
  const bool length_possible = a.finish_reason == "length" || a.finish_reason.empty();
  out.raise_budget =
      a.reasoning_at_length() || (a.outcome == attempt_outcome::truncated && length_possible);
  return out;
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_RETRY_FEEDBACK_INL_HPP_INCLUDED
