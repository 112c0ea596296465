// llmjson: the umbrella header, every public header of the library
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_LLMJSON_HPP_INCLUDED
#define LLMJSON_LLMJSON_HPP_INCLUDED

#include <llmjson/adapter.hpp>
#include <llmjson/candidate.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/retry.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/select.hpp>
#include <llmjson/verdict.hpp>
#include <llmjson/version.hpp>

#endif  // LLMJSON_LLMJSON_HPP_INCLUDED
