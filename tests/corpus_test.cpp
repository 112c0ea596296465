// llmjson: every tests/corpus case through extract(), with its selector and policy
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/kernel.hpp>

#include "catch_compat.hpp"
#include "corpus_case.hpp"
#include "kernel_ops.hpp"
#include "read_file.hpp"
#include "same_result.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#if __has_include(<llmjson/schema.hpp>)
#include <llmjson/schema.hpp>
#define LLMJSON_CORPUS_HAS_SCHEMA 1
#endif

#ifndef LLMJSON_CORPUS_DIR
#error "LLMJSON_CORPUS_DIR must name tests/corpus"
#endif

namespace llmjson_tests::corpus_test {

namespace {

using llmjson_tests::read_file;

std::vector<std::filesystem::path> cases() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_CORPUS_DIR))
    if (e.path().extension() == ".txt") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// The case's extraction under `opts`: its selector (`keys`, `schema`, or none), or nothing
/// when it needs a selector this build lacks.
std::optional<llmjson::result<llmjson::extraction>> extract_case(const nlohmann::json& spec,
                                                                 const std::string& text,
                                                                 const llmjson::options& opts) {
  const nlohmann::json& sel = spec.at("select");
  if (sel.contains("keys"))
    return llmjson::extract(text, llmjson::any_key(sel["keys"].get<std::vector<std::string>>()),
                            opts);
  if (sel.contains("schema")) {
#ifdef LLMJSON_CORPUS_HAS_SCHEMA
    return llmjson::extract(text, llmjson::schema(sel["schema"]), opts);
#else
    return std::nullopt;
#endif
  }
  REQUIRE(sel.empty());
  return llmjson::extract(text, opts);
}

/// With `options::answer_value` off, the same result as `r` but for the values: none where the
/// selector judges the text (keys, none) and the policy compares no values (not `unique`), the
/// same as `r`'s where a schema judges values or `unique` compares them.
void check_text_only(const nlohmann::json& spec, const std::string& text, llmjson::options opts,
                     const llmjson::result<llmjson::extraction>& r) {
  opts.answer_value = false;
  const auto t = extract_case(spec, text, opts);
  REQUIRE(t.has_value());
  const bool by_value = spec.at("select").contains("schema");
  const llmjson::policy policy =
      opts.policy.value_or(by_value ? llmjson::policy::unique : llmjson::policy::first);
  INFO("answer_value off");
  CHECK(llmjson_test::differs(llmjson_test::without_values(r), llmjson_test::without_values(*t)) ==
        "");
  if (by_value || policy == llmjson::policy::unique) {
    CHECK(llmjson_test::differs(r, *t) == "");
  } else {
    for (const llmjson::candidate& c : *t ? (*t)->candidates : t->error().candidates)
      CHECK(c.json == nullptr);
    if (*t) CHECK((*t)->json().is_null());
  }
}

/// Runs one case; returns false when it needs a selector this build lacks.
bool run_case(const std::filesystem::path& txt, const nlohmann::json& spec,
              const std::string& text) {
  const llmjson::options opts = llmjson_tests::corpus_options(spec);
  const auto found = extract_case(spec, text, opts);
  if (!found) return false;
  const llmjson::result<llmjson::extraction>& r = *found;
  check_text_only(spec, text, opts, r);
  INFO("case " << txt.filename().string() << ": " << spec.value("why", ""));
  if (!spec.at("error").is_null()) {
    INFO("expected error " << spec["error"].get<std::string>());
    REQUIRE_FALSE(r.has_value());
    CHECK(llmjson::to_string(r.error().kind) == spec["error"].get<std::string>());
    CHECK_FALSE(r.error().message.empty());
  } else {
    INFO((r ? std::string("got ") + r->json().dump()
            : "error " + std::string(to_string(r.error().kind)) + ": " + r.error().message));
    REQUIRE(r.has_value());
    CHECK(r->json() == spec.at("expect"));
    // The answer's span is a slice of the text read (the prefill's last bytes, then the
    // output's) that parses to the value, once its raw line breaks and tabs are escaped.
    const llmjson::candidate& c = r->chosen();
    const std::string read = opts.prefill + text;
    const std::size_t at = opts.prefill.size() + c.offset - c.prefilled;
    CHECK(c.position() ==
          static_cast<std::ptrdiff_t>(at) - static_cast<std::ptrdiff_t>(opts.prefill.size()));
    CHECK(read.substr(at, c.text.size()) == c.text);
    // A view into the caller's text, unless a view lies in the prefill: then a copy it owns.
    if (c.storage == nullptr)
      CHECK((c.prefilled == 0 && c.text.data() >= text.data() &&
             c.text.data() + c.text.size() <= text.data() + text.size()));
    else
      CHECK((c.text.data() >= c.storage->data() &&
             c.text.data() + c.text.size() <= c.storage->data() + c.storage->size()));
    CHECK(c.raw_controls == !nlohmann::json::accept(c.text));
    CHECK(nlohmann::json::parse(llmjson::minify(c.text)) == *c.json);
  }
  return true;
}

}  // namespace

TEST_CASE("every corpus case gives its expected answer or error", "[corpus]") {
  const auto all = cases();
  REQUIRE(all.size() >= 40);
  std::size_t ran = 0;
  std::vector<std::string> skipped;
  for (const auto& txt : all) {
    auto expect = txt;
    expect.replace_extension(".expect.json");
    const std::string text = read_file(txt);
    const nlohmann::json spec = nlohmann::json::parse(read_file(expect));
    // Under every kernel: they must give the same answers (run_case's result does not depend
    // on the kernel, so the last one's is counted).
    bool run = false;
    for (llmjson::kernel k : llmjson::available_kernels()) {
      const llmjson_test::kernel_scope scope(k);
      INFO("kernel " << to_string(k));
      run = run_case(txt, spec, text);
    }
    if (run) {
      ++ran;
    } else {
      skipped.push_back(txt.filename().string());
    }
  }
  std::cout << "corpus: " << ran << " cases run, " << skipped.size() << " skipped\n";
  for (const auto& s : skipped)
    std::cout << "  skipped (needs the JSON Schema selector): " << s << "\n";
  if (!skipped.empty())
    WARN(skipped.size() << " corpus cases skipped: they need the JSON Schema selector");
  CHECK(ran + skipped.size() == all.size());
}

}  // namespace llmjson_tests::corpus_test
