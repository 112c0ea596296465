// llmjson: the record of one attempt: what the adapter returned and what extraction made of it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_RECORD_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_RECORD_HPP_INCLUDED

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/result.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

/// The outcome an extraction error stands for. Does not throw.
constexpr attempt_outcome outcome_of(error_kind k) noexcept {
  switch (k) {
    case error_kind::empty: return attempt_outcome::empty_content;
    case error_kind::no_json: return attempt_outcome::no_json;
    case error_kind::truncated: return attempt_outcome::truncated;
    case error_kind::no_match: return attempt_outcome::no_match;
    case error_kind::ambiguous: return attempt_outcome::ambiguous;
    case error_kind::too_large: return attempt_outcome::too_large;
  }
  return attempt_outcome::no_json;
}

/// What one attempt's finder found in a message: the answer, or the extraction error and the
/// text its views point into.
template <class Out>
struct found {
  std::optional<Out> value;
  std::optional<llmjson::error> extraction;
  std::shared_ptr<const std::string> text;
};

/// Returns the chosen candidate of `x` as an owned `answer`.
answer make_answer(extraction&& x);

/// The answer of an extraction, owned, or its error.
result<answer> to_answer(result<extraction>&& r);

/// Records in `a` the cut after the answer of `r`, if any (policy `first` takes an answer before
/// a cut): `truncation`, and a `message` that says so.
void record_cut_after_answer(const result<extraction>& r, attempt& a);

/// Records in `a` what became of one extraction (`r`), and returns what was found; `text` is
/// the content the error's views point into.
template <class Out>
found<Out> record_extraction(result<Out>&& r, attempt& a, std::shared_ptr<const std::string> text) {
  if (r) {
    a.outcome = attempt_outcome::ok;
    return {std::move(*r), std::nullopt, nullptr};
  }
  // The error is moved out once and read from the copy: reading `r.error()` member by member
  // made g++ -O2 warn (-Wnull-dereference) through the variant's get_if.
  llmjson::error e = std::move(r).error();
  a.outcome = outcome_of(e.kind);
  a.message = e.message;
  a.truncation = e.truncation;
  return {std::nullopt, std::move(e), std::move(text)};
}

/// Records in `a` what the adapter returned: an `api_error` or a `bad_response` as it is (the
/// latter's usage too), a message's reasoning, finish_reason, role and usage, which
/// `find_in(message&)` then looks for the answer in.
template <class Out, class FindIn>
std::optional<found<Out>> take_completion(completion&& c, attempt& a, FindIn find_in) {
  if (auto* api = std::get_if<llmjson::api_error>(&c)) {
    a.outcome = attempt_outcome::api_error;
    a.status = api->status;
    a.raw = std::move(api->message);
    a.message = one_line(a.raw);
    return std::nullopt;
  }
  if (auto* bad = std::get_if<bad_response>(&c)) {
    a.outcome = attempt_outcome::bad_response;
    a.usage = bad->usage;
    a.message = one_line(bad->message);
    a.raw = std::move(bad->raw.empty() ? bad->message : bad->raw);
    return std::nullopt;
  }
  message& m = std::get<message>(c);
  // Copies: the message itself is `complete`'s answer.
  a.reasoning = m.reasoning;
  a.finish_reason = m.finish_reason;
  a.role = m.role;
  a.usage = m.usage;
  return find_in(m);
}

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/retry/record-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_RETRY_RECORD_HPP_INCLUDED
