// llmjson: struct fence, fences(): the fenced code blocks of a model output, as CommonMark has them
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_FENCE_HPP_INCLUDED
#define LLMJSON_FENCE_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace llmjson {

/// One fenced code block (```` ``` ```` or `~~~`), as CommonMark defines it at the top level.
/// The views point into the caller's text and live as long as it does.
struct fence {
  std::string_view text;        ///< the whole block: opening line through closing line (or end)
  std::size_t offset = 0;       ///< byte offset of `text`
  std::string_view body;        ///< the lines between the opening and the closing line
  std::size_t body_offset = 0;  ///< byte offset of `body`
  std::string_view info;  ///< the info string, trimmed (`json`, `JSON`, `` ``): diagnostics only
  char marker = '`';      ///< '`' or '~'
  std::size_t marker_length = 3;  ///< how many markers open the fence (3 or more)
  std::size_t line = 1;           ///< 1-based line of the opening fence
  bool closed = false;            ///< false when the text ends before a closing line
};

/// A temporary `std::string`, const or not: a call that returns views into its text refuses
/// one (the views would dangle). A named string, a literal or a `string_view` is fine.
template <class S>
concept TemporaryString = !std::is_reference_v<S> && std::same_as<std::remove_cv_t<S>, std::string>;

/// Returns every fenced code block of `text`, in document order.
///
/// A fence opens on a line with at most 3 spaces of indent, then 3 or more backticks or tildes,
/// then an info string (for backticks, one without backticks: ```` ```{"a":1}``` ```` is inline
/// code, not a fence). It closes at the next line with at most 3 spaces of indent, the same
/// character at least as many times, and only spaces or tabs after it; a fence that never closes
/// runs to the end of the text. Lines end at LF, CR or CRLF. Fences inside a fence's body are
/// part of the body (a ```` ```` ```` block can quote a ```` ```json ```` one).
///
/// Linear time. Allocates only the returned vector.
[[nodiscard]] std::vector<fence> fences(std::string_view text);

/// Fences of a temporary string would dangle: pass a named string or a `string_view`.
template <TemporaryString S>
std::vector<fence> fences(S&&) = delete;

}  // namespace llmjson

#include <llmjson/detail/fences.hpp>

#endif  // LLMJSON_FENCE_HPP_INCLUDED
