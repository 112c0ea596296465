// llmjson: how retry messages name attempts and what went wrong
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_WORDING_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_WORDING_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <vector>

#include <llmjson/detail/config.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

/// Records the exception being handled in `a`: `message` one line, `raw` its `what()`. Call only
/// inside a handler.
void record_current_exception(attempt& a);

/// Throws the exception being handled again with the record of `attempts`: the same exception
/// when it is an `attempts_record` not filled in yet (filled in now), else an
/// `attempt_exception` that nests it. Call only inside a handler.
[[noreturn]] void rethrow_with_attempts(std::vector<attempt>&& attempts);

/// `empty_content, finish_reason "length"`: how messages name an attempt.
std::string describe_attempt(const attempt& a);

/// `1: empty_content, finish_reason "stop"; 2: ...` over the called attempts.
std::string describe_attempts(const std::vector<attempt>& as);

/// `3 attempts`: how messages count attempts.
std::string count_attempts(std::size_t n);

/// What `message` adds when the token limit stopped the model before any answer.
std::string reasoning_at_length_note(const attempt& a);

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/retry/wording-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_RETRY_WORDING_HPP_INCLUDED
