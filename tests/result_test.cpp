// llmjson: result<T> holds a value or an error, with std::expected's member names
// SPDX-License-Identifier: MIT
#include <llmjson/result.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#endif

namespace llmjson_tests::result_test {

TEST_CASE("a result with a value", "[result]") {
  llmjson::result<int> r = 42;
  CHECK(r.has_value());
  CHECK(static_cast<bool>(r));
  CHECK(*r == 42);
  CHECK(r.value() == 42);
  CHECK(r.value_or(7) == 42);
}

TEST_CASE("a result with an error: value() throws bad_result_access carrying it", "[result]") {
  llmjson::error e;
  e.kind = llmjson::error_kind::ambiguous;
  e.message = "2 candidates qualify";
  llmjson::result<std::string> r = e;
  CHECK_FALSE(r.has_value());
  CHECK(r.error().kind == llmjson::error_kind::ambiguous);
  CHECK(r.value_or("none") == "none");
  try {
    (void)r.value();
    FAIL("value() did not throw");
  } catch (const llmjson::bad_result_access& ex) {
    CHECK(ex.error().message == "2 candidates qualify");
    CHECK(std::string(ex.what()) ==
          "llmjson: result holds an error (ambiguous): 2 candidates qualify");
  }
}

TEST_CASE("error kinds have stable names that parse back", "[result]") {
  using k = llmjson::error_kind;
  STATIC_REQUIRE(enum_names_check::round_trips<k>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<k>());
  STATIC_REQUIRE(llmjson::to_string(k::no_json) == "no_json");
  STATIC_REQUIRE(llmjson::from_string<k>("too_large") == k::too_large);
  STATIC_REQUIRE_FALSE(llmjson::from_string<k>("unknown").has_value());
  for (auto kind : {k::empty, k::no_json, k::truncated, k::no_match, k::ambiguous, k::too_large})
    CHECK(llmjson::from_string<k>(llmjson::to_string(kind)) == kind);
}

TEST_CASE("arrow and moves reach the value", "[result]") {
  llmjson::result<std::string> r = std::string("abc");
  CHECK(r->size() == 3);
  std::string moved = *std::move(r);
  CHECK(moved == "abc");
}

#if defined(__unix__) || defined(__APPLE__)
namespace {

/// Runs `f` in a child process with stderr in a pipe: what it wrote, and whether it died of
/// SIGABRT.
template <class F>
std::pair<std::string, bool> run_aborting(F f) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    f();
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buffer[256];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    out.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {out, WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT};
}

}  // namespace

TEST_CASE("* and -> on an error abort with the error's kind and message, in every build",
          "[result]") {
  llmjson::error e;
  e.kind = llmjson::error_kind::no_json;
  e.message = "no JSON candidate in 12 bytes";
  const llmjson::result<std::string> r = e;
  const std::string expected =
      "llmjson: *r or r-> on a result without a value: test the result first, or call value(), "
      "which throws\nllmjson: result holds an error (no_json): no JSON candidate in 12 bytes\n";
  SECTION("*") {
    const auto [out, aborted] = run_aborting([&] { std::fputs((*r).c_str(), stdout); });
    CHECK(aborted);
    CHECK(out == expected);
  }
  SECTION("->") {
    const auto [out, aborted] = run_aborting([&] { std::printf("%zu", r->size()); });
    CHECK(aborted);
    CHECK(out == expected);
  }
  SECTION("* of a moved result") {
    llmjson::result<std::string> moved = e;
    const auto [out, aborted] =
        run_aborting([&] { std::fputs(std::string(*std::move(moved)).c_str(), stdout); });
    CHECK(aborted);
    CHECK(out == expected);
  }
}
#endif

}  // namespace llmjson_tests::result_test
