// llmjson: struct fence, a fenced code block of a model output (fences() is in scan.hpp)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_FENCE_HPP_INCLUDED
#define LLMJSON_FENCE_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace llmjson {

/// One fenced code block (```` ``` ```` or `~~~`), as extraction reads it (§2 Fences).
/// The views point into the caller's text and live as long as it does.
struct fence {
  std::string_view text;        ///< opening line through closing line (or its part's end)
  std::size_t offset = 0;       ///< byte offset of `text`
  std::string_view body;        ///< the lines between the opening and the closing line
  std::size_t body_offset = 0;  ///< byte offset of `body`
  std::string_view info;  ///< the info string, trimmed (`json`, `JSON`, `` ``): diagnostics only
  char fence_char = '`';  ///< '`' or '~'
  std::size_t fence_length = 3;  ///< how many of it open the fence (3 or more)
  std::size_t line = 1;          ///< 1-based line of the opening fence
  bool closed = false;           ///< false when the text ends before a closing line
};

/// A temporary `std::string`, const or not: a call that returns views into its text refuses
/// one (the views would dangle). A named string, a literal or a `string_view` is fine.
template <class S>
concept TemporaryString = !std::is_reference_v<S> && std::same_as<std::remove_cv_t<S>, std::string>;

}  // namespace llmjson

#endif  // LLMJSON_FENCE_HPP_INCLUDED
