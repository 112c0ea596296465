// llmjson: runs the official JSON-Schema-Test-Suite (draft 7) through llmjson::schema
// SPDX-License-Identifier: MIT
#include <llmjson/schema.hpp>

#include "catch_compat.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#ifdef LLMJSON_SCHEMA_SUITE_DIR

namespace llmjson_tests::schema_suite_test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The only skips: remote references, format and content assertions (format, contentMediaType and
// contentEncoding are annotations here, as draft 7 makes them by default), and keywords beside
// $ref (a compile error here, ignored by draft 7).
struct skip_rule {
  std::string_view file;   // relative to the draft7 folder
  std::string_view group;  // a test group's description, or "*" for the whole file
  std::string_view reason;
  std::string_view expected_error;  // when not empty: the schema must fail to compile so
  // The schema compiles and the tests that expect "valid" run and pass; only those that expect
  // "invalid" are skipped (an annotation never makes a value invalid).
  bool runs_valid = false;
};
constexpr skip_rule skips[] = {
    {"refRemote.json", "*", "remote refs (http://localhost:1234/...)", "remote reference", false},
    {"definitions.json", "valid definition", "$ref to the remote draft-07 metaschema",
     "remote reference", false},
    {"definitions.json", "invalid definition", "$ref to the remote draft-07 metaschema",
     "remote reference", false},
    {"ref.json", "remote ref, containing refs itself", "$ref to the remote draft-07 metaschema",
     "remote reference", false},
    {"ref.json", "ref overrides any sibling keywords",
     "maxItems beside $ref: refused (draft 7 ignores it, later drafts apply it)",
     "a keyword beside \"$ref\" is refused", false},
    {"optional/ecmascript-regex.json", "*",
     "needs format \"regex\" as an assertion (format is an annotation)", "", false},
    {"optional/content.json", "*",
     "the tests that expect \"invalid\" (content assertions; contentMediaType and "
     "contentEncoding are annotations; the others pass)",
     "", true},
};

const skip_rule* find_skip(const std::string& file, const std::string& group) {
  for (const auto& s : skips) {
    if (s.file == file && (s.group == "*" || s.group == group)) return &s;
  }
  return nullptr;
}

struct tally {
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
};

}  // namespace

TEST_CASE("every draft7 test of the official suite passes, except the listed skips",
          "[schema][suite]") {
  const fs::path root = LLMJSON_SCHEMA_SUITE_DIR;
  REQUIRE(fs::is_directory(root));
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::string rel = fs::relative(e.path(), root).generic_string();
    files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 30);

  std::map<std::string, tally> per_keyword;
  std::vector<std::string> skip_lines;
  for (const auto& rel : files) {
    std::string keyword = fs::path(rel).stem().string();
    if (rel.rfind("optional/", 0) == 0) keyword = "optional/" + keyword;
    if (rel.rfind("optional/format/", 0) == 0) {
      skip_lines.push_back(rel + ": format assertions (format is an annotation)");
      continue;
    }
    std::ifstream in(root / rel);
    const json groups = json::parse(in, nullptr, false);
    INFO("file " << rel);
    REQUIRE(groups.is_array());
    tally& t = per_keyword[keyword];
    for (const auto& group : groups) {
      const std::string desc = group.at("description").get<std::string>();
      INFO("group \"" << desc << "\"");
      const auto compiled = llmjson::schema::compile(group.at("schema"));
      const std::string compile_error = compiled ? std::string() : compiled.error();
      const skip_rule* s = find_skip(rel, desc);
      if (s && s->runs_valid) {
        INFO("compile error: " << compile_error);
        CHECK(compiled);
        for (const auto& test : group.at("tests")) {
          if (!test.at("valid").get<bool>()) {
            ++t.skipped;
            continue;
          }
          const bool ok = compiled && (*compiled)(test.at("data")).ok;
          INFO("test \"" << test.at("description").get<std::string>() << "\": expected valid");
          CHECK(ok);
          ++(ok ? t.passed : t.failed);
        }
      }
      if (s) {
        if (!s->expected_error.empty()) {
          INFO("compile error: " << compile_error);
          CHECK_FALSE(compiled);
          CHECK(compile_error.find(s->expected_error) != std::string::npos);
        }
        if (!s->runs_valid) t.skipped += group.at("tests").size();
        std::string line = rel + (s->group == "*" ? std::string() : " / \"" + desc + "\"") + ": " +
                           std::string(s->reason);
        if (std::find(skip_lines.begin(), skip_lines.end(), line) == skip_lines.end())
          skip_lines.push_back(line);
        continue;
      }
      INFO("compile error: " << compile_error);
      CHECK(compiled);
      if (!compiled) {
        t.failed += group.at("tests").size();
        continue;
      }
      for (const auto& test : group.at("tests")) {
        const bool valid = test.at("valid").get<bool>();
        const llmjson::verdict v = (*compiled)(test.at("data"));
        INFO("test \"" << test.at("description").get<std::string>() << "\": expected "
                       << (valid ? "valid" : "invalid") << ", reason: " << v.message);
        CHECK(v.ok == valid);
        ++(v.ok == valid ? t.passed : t.failed);
        if (!v.ok) CHECK_FALSE(v.message.empty());
      }
    }
  }

  std::ostringstream report;
  report << "JSON-Schema-Test-Suite draft7 (" << root.string() << ")\n";
  tally total;
  for (const auto& [k, t] : per_keyword) {
    report << "  " << k << ": " << t.passed << " passed";
    if (t.failed != 0) report << ", " << t.failed << " FAILED";
    if (t.skipped != 0) report << ", " << t.skipped << " skipped";
    report << '\n';
    total.passed += t.passed;
    total.failed += t.failed;
    total.skipped += t.skipped;
  }
  report << "  total: " << total.passed << " passed, " << total.failed << " failed, "
         << total.skipped << " skipped\nskips:\n";
  for (const auto& s : skip_lines) report << "  " << s << '\n';
  std::cout << report.str() << std::flush;
  CHECK(total.failed == 0);
}

TEST_CASE("the README names every file and group of the suite that is skipped", "[schema][suite]") {
  // tests/corpus is beside the README's folder, tests/.
  const fs::path readme = fs::path(LLMJSON_CORPUS_DIR).parent_path().parent_path() / "README.md";
  std::ifstream in(readme, std::ios::binary);
  REQUIRE(in);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The README wraps its lines: compare with single spaces.
  std::replace(text.begin(), text.end(), '\n', ' ');
  for (const auto& s : skips) {
    const std::string named =
        s.group == "*" || s.file == "definitions.json" ||
                s.group == "remote ref, containing refs itself"
            ? "`" + std::string(s.file) + "`"
            : "`" + std::string(s.file) + "`'s \"" + std::string(s.group) + "\"";
    INFO("README.md should name " << named);
    if (s.file == "definitions.json" || s.group == "remote ref, containing refs itself") {
      CHECK(text.find("the groups that `$ref` the remote metaschema") != std::string::npos);
    } else {
      CHECK(text.find(named) != std::string::npos);
    }
  }
  CHECK(text.find("`optional/format/*`") != std::string::npos);
}

#else

TEST_CASE("the draft7 suite is not installed", "[schema][suite]") {
  // ctest reports this test as skipped (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
  std::cout << "SKIPPED: json-schema-test-suite not found (Debian: apt-get install "
               "json-schema-test-suite)\n";
  CHECK(true);
}

#endif

}  // namespace llmjson_tests::schema_suite_test
