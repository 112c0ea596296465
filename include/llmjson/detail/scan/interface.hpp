// llmjson: the scan wing's interface to the other wings: all that selection and the retry
// wrapper use of the scan, besides the public headers
// SPDX-License-Identifier: MIT
//
// The rooms. `detail/scan/` is the scan (sections 1 to 4 of tests/corpus/README.md): it may use
// the text room (`detail/text/`) and the public headers, nothing of another wing. The selection
// wing (`detail/select/`, sections 5 and 6) and the retry wing (`detail/retry/`) include of the
// scan only this header (with the public ones: `<llmjson/scan.hpp>`, `<llmjson/candidate.hpp>`);
// every other file of `detail/scan/` is the scan's own, free to change. Light: besides the
// scanner's declaration and relocate.hpp (candidates alone), it parses no scan internals; with
// LLMJSON_SEPARATE_COMPILATION its bodies (interface-inl.hpp) are compiled once, beside the
// scanner's.
#ifndef LLMJSON_DETAIL_SCAN_INTERFACE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_INTERFACE_HPP_INCLUDED

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/relocate.hpp>  // views_into_output: a candidate's views into a copy
#include <llmjson/detail/scan/scanner.hpp>   // the scan of a whole text, or of one fed in pieces
#include <llmjson/options.hpp>

namespace llmjson::detail {

// --- A candidate the scan found valid, and its text -----------------------------------------

/// Builds the value of a valid candidate outside reasoning that has none yet (a scan for
/// selection builds none: judging, and the answer, ask for them). Returns whether it has one; the
/// scan checked that nlohmann can hold its numbers, so it always has (otherwise the candidate
/// becomes malformed, with nlohmann's reason). Nothing for one in reasoning or not valid.
bool ensure_value(candidate& c);

/// The name nlohmann's `type_name()` gives the value of a valid `span`: `object`, `array`,
/// `string`, `boolean`, `null`, `number`.
const char* valid_json_type(std::string_view span) noexcept;

/// Whether the valid object `span` has one of `keys` at its top level (keys unescaped, compared
/// byte for byte). Reads the span once and builds nothing but a key with a backslash.
bool has_top_level_key(std::string_view span, const std::vector<std::string>& keys);

/// Whether the valid object `span` surely lacks every one of `keys` (unescaped) at its top level:
/// it has no backslash, so every key in it is written as it is, and none of them, quoted, is
/// written anywhere in it. False when it may have one, and when one is over 32 bytes. A search
/// for a backslash, then one for each key: linear in the span.
bool surely_lacks_keys(std::string_view span, std::span<const std::string> keys) noexcept;

// --- Reasoning regions ----------------------------------------------------------------------

/// Whether `marker`, the opening marker of a candidate's reasoning region, is stripped harmony's
/// (gpt-oss served without its special tokens: the leading word `analysis` alone).
bool opens_stripped_harmony(std::string_view marker) noexcept;

/// The reasoning regions of `text` as extraction reads it with `opts` (`<think>`, harmony
/// analysis, a region the prompt opened...), markers included, as [begin, end) in document order.
std::vector<std::pair<std::size_t, std::size_t>> reasoning_regions(std::string_view text,
                                                                   const options& opts);

// --- Places in the text ---------------------------------------------------------------------

/// Where the validator finds the fault of `c`, a malformed candidate of `text` outside reasoning
/// (read with `opts`; the bytes of it in the prefill aside), or `c.offset` when it finds none.
std::size_t fault_offset(std::string_view text, const candidate& c, const options& opts);

/// {line, column} of each of `offsets` (ascending, each at most `text.size()`) in `text`, counted
/// as candidates' are: one walk over the text.
std::vector<std::pair<std::size_t, std::size_t>> line_columns(
    std::string_view text, const std::vector<std::size_t>& offsets);

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/scan/interface-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCAN_INTERFACE_HPP_INCLUDED
