// llmjson: the bodies of every non-template function, for a program built with
// LLMJSON_SEPARATE_COMPILATION
// SPDX-License-Identifier: MIT
//
// Include this header in exactly one source file of a program whose every translation unit
// defines LLMJSON_SEPARATE_COMPILATION (see <llmjson/detail/config.hpp>). Without that macro the
// library is header-only and this file is not needed.
#ifndef LLMJSON_SRC_HPP_INCLUDED
#define LLMJSON_SRC_HPP_INCLUDED

#ifndef LLMJSON_SEPARATE_COMPILATION
#error "<llmjson/src.hpp> is for builds with LLMJSON_SEPARATE_COMPILATION defined everywhere"
#endif

#include <llmjson/llmjson.hpp>
#include <llmjson/openai.hpp>
#include <llmjson/partial.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/schema_of.hpp>

// The bodies, one -inl.hpp per public header that declares non-template functions.
#include <llmjson/detail/openai/openai-inl.hpp>
#include <llmjson/detail/retry/feedback-inl.hpp>
#include <llmjson/detail/retry/finders-inl.hpp>
#include <llmjson/detail/retry/record-inl.hpp>
#include <llmjson/detail/retry/retry_types-inl.hpp>
#include <llmjson/detail/retry/stop-inl.hpp>
#include <llmjson/detail/retry/wording-inl.hpp>
#include <llmjson/detail/scan/interface-inl.hpp>
#include <llmjson/detail/scan/scan-inl.hpp>
#include <llmjson/detail/scan/scanner-inl.hpp>
#include <llmjson/detail/schema/compiler-inl.hpp>
#include <llmjson/detail/schema/evaluator-inl.hpp>
#include <llmjson/detail/schema/messages-inl.hpp>
#include <llmjson/detail/schema/regex-inl.hpp>
#include <llmjson/detail/schema/schema-inl.hpp>
#include <llmjson/detail/schema/uri-inl.hpp>
#include <llmjson/detail/schema/values-inl.hpp>
#include <llmjson/detail/schema_of/partial-inl.hpp>
#include <llmjson/detail/schema_of/schema_of-inl.hpp>
#include <llmjson/detail/select/extract-inl.hpp>
#include <llmjson/detail/select/select-inl.hpp>
#include <llmjson/detail/text/json_text-inl.hpp>

#endif  // LLMJSON_SRC_HPP_INCLUDED
