// llmjson: the umbrella header, every public header of the library but schema.hpp,
// schema_of.hpp and openai.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_LLMJSON_HPP_INCLUDED
#define LLMJSON_LLMJSON_HPP_INCLUDED

// <llmjson/schema.hpp> (the JSON Schema selector, with its compiler and regex engine) is left
// out: it is 40% of this header's compile time, in every translation unit that includes it.
// Include it where you use llmjson::schema. <llmjson/schema_of.hpp> (LLMJSON_DEFINE_TYPE and
// schema_of<T>()) is left out too: it would add 15% to this header's compile time, and so is
// <llmjson/openai.hpp> (the provider's request and reply), which includes it.

#include <llmjson/adapter.hpp>
#include <llmjson/candidate.hpp>
#include <llmjson/enum_names.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/feedback.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/kernel.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/retry.hpp>
#include <llmjson/retry_types.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/select.hpp>
#include <llmjson/stream.hpp>
#include <llmjson/verdict.hpp>
#include <llmjson/version.hpp>

#endif  // LLMJSON_LLMJSON_HPP_INCLUDED
