// llmjson: the bodies of detail/retry/wording.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_WORDING_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_WORDING_INL_HPP_INCLUDED

#include <cstddef>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/retry/wording.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

LLMJSON_INLINE void record_current_exception(attempt& a) {
  try {
    throw;
  } catch (const std::exception& e) {
    a.raw = e.what();
    a.message = "the adapter or selector threw: " + one_line(a.raw);
  } catch (...) {
    a.message = "the adapter or selector threw an exception not derived from std::exception";
  }
}

LLMJSON_INLINE void rethrow_with_attempts(std::vector<attempt>&& attempts) {
  // Made before `attempts` is moved: the arguments of a call are evaluated in any order.
  auto nested = [&] {
    std::string what = attempts.empty()
                           ? std::string("an attempt threw, not retried")
                           : "attempt " + std::to_string(attempts.back().number) +
                                 " threw, not retried [" + describe_attempts(attempts) +
                                 "]: " + attempts.back().message;
    return attempt_exception(std::move(attempts), std::move(what));
  };
  try {
    throw;
  } catch (attempts_record& r) {
    if (r.attempts().empty()) {
      attempts_access::fill(r, std::move(attempts));
      throw;
    }
    throw nested();
  } catch (...) {
    throw nested();
  }
}

LLMJSON_INLINE std::string describe_attempt(const attempt& a) {
  std::string s(to_string(a.outcome));
  if (a.outcome == attempt_outcome::api_error) return s + ", HTTP " + std::to_string(a.status);
  if (a.outcome == attempt_outcome::bad_response || a.outcome == attempt_outcome::exception)
    return s;
  return s + ", finish_reason \"" + one_line(a.finish_reason) + "\"";
}

LLMJSON_INLINE std::string describe_attempts(const std::vector<attempt>& as) {
  std::string s;
  for (const auto& a : as) {
    if (!a.called()) continue;
    if (!s.empty()) s += "; ";
    s += std::to_string(a.number) + ": " + describe_attempt(a);
  }
  return s;
}

LLMJSON_INLINE std::string count_attempts(std::size_t n) { return count_of(n, "attempt"); }

LLMJSON_INLINE std::string reasoning_at_length_note(const attempt& a) {
  const std::string same_again =
      ", and the same request tends to fail the same way (raise max_tokens)";
  if (a.empty_at_length() && a.reasoning.empty())
    return "; empty with finish_reason \"length\": the token budget was likely spent on "
           "reasoning" +
           same_again;
  if (a.empty_at_length())
    return "; empty with finish_reason \"length\" after " + count_of(a.reasoning.size(), "byte") +
           " of reasoning: the token budget went to reasoning" + same_again;
  return "; cut inside the reasoning with finish_reason \"length\": the token budget went to "
         "reasoning" +
         same_again;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_WORDING_INL_HPP_INCLUDED
