// llmjson: every tests/corpus case through extract(), with its selector and policy
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/kernel.hpp>

#include "catch_compat.hpp"
#include "corpus_case.hpp"
#include "kernel_ops.hpp"
#include "read_file.hpp"

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

/// Runs one case; returns false when it needs a selector this build lacks.
bool run_case(const std::filesystem::path& txt, const nlohmann::json& spec,
              const std::string& text) {
  const llmjson::options opts = llmjson_tests::corpus_options(spec);
  const nlohmann::json& sel = spec.at("select");
  llmjson::result<llmjson::extraction> r = llmjson::extract(text, opts);
  if (sel.contains("keys")) {
    r = llmjson::extract(text, llmjson::any_key(sel["keys"].get<std::vector<std::string>>()), opts);
  } else if (sel.contains("schema")) {
#ifdef LLMJSON_CORPUS_HAS_SCHEMA
    r = llmjson::extract(text, llmjson::schema(sel["schema"]), opts);
#else
    return false;
#endif
  } else {
    REQUIRE(sel.empty());
  }
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
