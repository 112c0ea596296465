// llmjson: minify and pretty, a JSON text laid out again with every token kept as written
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_JSON_TEXT_HPP_INCLUDED
#define LLMJSON_JSON_TEXT_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <llmjson/detail/config.hpp>

namespace llmjson {

// Why not nlohmann's dump: a value re-serialized through nlohmann::json is not what the model
// wrote. Its objects sort their keys, `1.10` prints as `1.1`, an integer beyond 64 bits becomes
// a double (`15511210043330985984000000` prints as `1.5511210043330986e+25`) and `\u00e9`
// prints as `é`. These two functions move white space only (and escape the raw line breaks and tabs
// of a string, which JSON forbids): the answer's text
// (`extraction::text()`, `answer::text`, `candidate::text`) laid out again, byte for byte
// otherwise.

/// Returns `json`, a JSON text, with the white space between its tokens removed: one line, every
/// token (key order, number literals, string escapes) exactly as written.
///
/// Meant for valid JSON (a valid candidate's text). A raw line feed, carriage return or tab inside
/// a string is written as its escape (`\n`, `\r`, `\t`): the text of a candidate valid with raw
/// controls (`candidate::raw_controls`) comes out as the JSON it means. On any other text it
/// removes the JSON white space (space, tab, line feed, carriage return) outside double-quoted
/// strings and keeps every other byte. Linear time; allocates the result; throws only
/// `std::bad_alloc`.
///
/// **Example**: `llmjson::minify("{ \"b\": 1.10,\r\n\t\"a\": [ ] }")` is `{"b":1.10,"a":[]}`.
[[nodiscard]] std::string minify(std::string_view json);

/// Appends `minify(json)` to `out`, in place: a caller that writes many answers into one buffer
/// (a batch's output lines) makes no string for each. `json` may be a part of `out`. On x86-64
/// both forms read 64 bytes a step (SSE2). Throws only `std::bad_alloc`, and then leaves `out`
/// as it was.
void minify(std::string_view json, std::string& out);

/// Returns `json`, a JSON text, laid out on several lines: each member and element on its own
/// line, indented by `indent` spaces per level, `": "` after each key, empty `{}` and `[]` kept
/// whole. The layout of `nlohmann::json::dump(indent)`, with the tokens as written (`minify` of
/// the result is `minify(json)`; raw line feeds, carriage returns and tabs in strings escaped).
///
/// Same input conditions and costs as `minify`.
///
/// **Example**: `llmjson::pretty("{\"b\":[1.10,{}]}")` is
/// `"{\n  \"b\": [\n    1.10,\n    {}\n  ]\n}"`.
[[nodiscard]] std::string pretty(std::string_view json, std::size_t indent = 2);

/// Returns `text` fit for one line of a log or a terminal, as the library's messages show the
/// model's text: valid UTF-8 (U+FFFD for each byte of an ill-formed sequence), control characters
/// written as `\n`, `\t`, `\r` or `\xhh`. Linear time; allocates the result; throws only
/// `std::bad_alloc`.
///
/// **Example**: `llmjson::one_line("a\nb")` is the four characters `a\nb` (a backslash, then `n`).
[[nodiscard]] std::string one_line(std::string_view text);

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/text/json_text-inl.hpp>
#endif

#endif  // LLMJSON_JSON_TEXT_HPP_INCLUDED
