// llmjson benchmark: one input, one measure, N times: what tests/bench/instructions.py hands to
// callgrind to count instructions, which the load of a shared machine does not change.
// SPDX-License-Identifier: MIT
//
// usage: llmjson_instructions MEASURE INPUT SIZE_BYTES REPEATS
//   MEASURE: extract (llmjson::extract with any_key({"orders"}), the benchmark's selector),
//            extract-text (the same with options::answer_value off: no value built),
//            partial, partial-sync, extract-plan (issue 33, on INPUT plan or reasoning-plan: a
//            stream in 16-byte
//            chunks reading its partial answer at every change, without or with sync() after
//            each chunk, and one extract with any_key({"steps"})),
//            memchr (counting `{` with memchr, bench.cpp's floor), index (issue 31's stage 1
//            alone: every block classified, its strings found, stage_one.hpp; index-lean: the
//            structure's six classes alone, with AVX2), nlohmann
//            (nlohmann::json::parse of the input's answer alone, or of the whole input when it is
//            one value), schema (inputs.hpp's typical_schema() judging the value of the input's
//            answer: INPUT typical), validator and whole-value (the input's answer read as one
//            value by the incremental validator, and by the whole-value reader that goes first:
//            issue 31's eighth stop)
//   INPUT:   mixed, nomark, prompt (the mixed trace, `<think>` opened by the prompt), clean, whole,
//   typical, prose, plan, reasoning-plan (issue 33), or a hostile family's name as
//            bench.cpp writes it (`{ repeated`, `fences`, ...)
// Prints the input's size. The instructions of one measure are those of a run with REPEATS = 3
// less those of a run with REPEATS = 1, halved: building the input costs the same in both.
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole_value.hpp>
#include <llmjson/llmjson.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/stream.hpp>

#include "inputs.hpp"
#include "stage_one.hpp"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace {

using namespace llmjson_bench;

/// The input named `name` of about `size` bytes, and the JSON that nlohmann is measured on.
std::optional<std::pair<std::string, std::string>> make(std::string_view name, std::size_t size) {
  if (name == "mixed") return std::pair{mixed(size, true), std::string(answer)};
  if (name == "nomark") return std::pair{mixed(size, false), std::string(answer)};
  if (name == "prompt") return std::pair{mixed_prompt_opened(size), std::string(answer)};
  if (name == "clean") return std::pair{clean(size), std::string(answer)};
  if (name == "whole") {
    std::string w = whole(size);
    return std::pair{w, w};
  }
  if (name == "typical") return std::pair{typical_reply(), typical_answer()};
  if (name == "plan") return std::pair{plan_answer(size), std::string()};
  if (name == "reasoning-plan") return std::pair{reasoning_then_plan(size), std::string()};
  if (name == "prose") return std::pair{prose(size), std::string()};
  for (const auto& [family, gen] : hostile())
    if (family == name) return std::pair{gen(size), std::string()};
  return std::nullopt;
}

std::size_t count_braces(std::string_view text) {
  std::size_t n = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  while ((p = static_cast<const char*>(std::memchr(p, '{', static_cast<std::size_t>(end - p))))) {
    ++n;
    ++p;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s extract|index|memchr|nlohmann|... INPUT SIZE_BYTES REPEATS\n",
                 argv[0]);
    return 2;
  }
  const std::string_view measure = argv[1];
  const auto input = make(argv[2], static_cast<std::size_t>(std::strtoull(argv[3], nullptr, 10)));
  const long repeats = std::strtol(argv[4], nullptr, 10);
  if (!input || repeats < 1 ||
      ((measure == "nlohmann" || measure == "schema" || measure == "validator" ||
        measure == "whole-value") &&
       input->second.empty())) {
    std::fprintf(stderr, "%s: no such input or measure\n", argv[0]);
    return 2;
  }
  const std::string& text = input->first;
  llmjson::options opts;
  opts.max_input_bytes = text.size() + 1;
  const llmjson::any_key sel({"orders"});
  std::optional<nlohmann::json> answer_value;
  std::optional<llmjson::schema> judge_storage;
  if (measure == "schema") {
    answer_value = nlohmann::json::parse(input->second);
    judge_storage.emplace(nlohmann::json::parse(typical_schema()));
  }
  const auto judge = [&](const nlohmann::json& v) {
    return static_cast<bool>((*judge_storage)(v));
  };
  std::size_t sink = 0;
  for (long r = 0; r < repeats; ++r) {
    if (measure == "extract" || measure == "extract-text") {
      llmjson::options o = opts;
      o.answer_value = measure == "extract";
      const auto result = llmjson::extract(text, sel, o);
      sink += result.has_value() ? 1U : 0U;
    } else if (measure == "partial" || measure == "partial-sync") {
      // Issue 33: 16-byte chunks, the partial read at every change (`partial-sync`: sync()
      // after each chunk, so it changes at nearly every one).
      llmjson::stream<llmjson::any_key> s(llmjson::any_key({"steps"}), opts);
      sink += read_partials(s, text, 16, measure == "partial-sync");
    } else if (measure == "extract-plan") {
      sink += llmjson::extract(text, llmjson::any_key({"steps"}), opts).has_value() ? 1U : 0U;
    } else if (measure == "schema") {
      // `typical_schema()` judging the input's answer, its value built once, before.
      sink += judge(*answer_value) ? 1U : 0U;
    } else if (measure == "validator") {
      llmjson::detail::validator v;
      v.reset(input->second, 512, /*quiet=*/true);
      sink += v.run_value(0, input->second.size());
    } else if (measure == "whole-value") {
      sink += llmjson::detail::whole_value_reader::of_thread()
                  .read(input->second, 0, input->second.size(), 512)
                  .end;
    } else if (measure == "memchr") {
      sink += count_braces(text);
    } else if (measure == "index") {
      sink += structural_index(text);
#if defined(LLMJSON_KERNEL_AVX2)
    } else if (measure == "index-lean") {
      sink += lean_structural_index(text);
#endif
    } else if (measure == "nlohmann") {
      sink += nlohmann::json::parse(input->second, nullptr, false).size();
    } else {
      std::fprintf(stderr, "%s: no such measure: %s\n", argv[0], argv[1]);
      return 2;
    }
  }
  std::printf("%zu %zu\n", text.size(), sink);
  return 0;
}
