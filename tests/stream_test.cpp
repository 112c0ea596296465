// llmjson: stream — any chunking gives what extract() gives; the settled answer never changes
// SPDX-License-Identifier: MIT
#include <llmjson/kernel.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/stream.hpp>

#include "catch_compat.hpp"
#include "corpus_case.hpp"
#include "kernel_ops.hpp"
#include "read_file.hpp"
#include "reasoning_forms.hpp"
#include "same_result.hpp"
#include "sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#ifndef LLMJSON_CORPUS_DIR
#error "LLMJSON_CORPUS_DIR must name tests/corpus"
#endif

namespace llmjson_tests::stream_test {

namespace {

using json = nlohmann::json;

using llmjson_tests::read_file;

/// Chunk sizes: fixed, then a deterministic irregular pattern.
std::vector<std::size_t> chunking(std::size_t total, std::size_t kind) {
  std::vector<std::size_t> sizes;
  unsigned state = static_cast<unsigned>(kind) * 2654435761u + 1;
  for (std::size_t at = 0; at < total;) {
    std::size_t n = kind;
    if (kind == 0) {
      state = state * 1103515245u + 12345u;
      n = 1 + (state >> 16) % 37;
    }
    n = std::min(n, total - at);
    sizes.push_back(n);
    at += n;
  }
  return sizes;
}

struct fed {
  std::optional<std::size_t> settled_at;  // offset of the settled candidate, if any
  std::size_t settled_after = 0;          // bytes fed when it settled
};

/// The candidates a result lists, answer or error.
const std::vector<llmjson::candidate>& listed(const llmjson::result<llmjson::extraction>& r) {
  return r ? r->candidates : r.error().candidates;
}

/// Whether every view of `c` lies in `text` (the stream's current buffer).
bool views_into(const llmjson::candidate& c, std::string_view text) {
  auto inside = [&](std::string_view v) {
    return v.empty() ||
           (v.data() >= text.data() && v.data() + v.size() <= text.data() + text.size());
  };
  return inside(c.text) && inside(c.info) && inside(c.marker);
}

/// The stream's text read: its prefill (kept just before `text()`), then `text()`.
std::string_view read_of(std::string_view text, const llmjson::options& opts) {
  return std::string_view(text.data() - opts.prefill.size(), opts.prefill.size() + text.size());
}

/// Where a candidate starts in the text read.
std::size_t read_at(const llmjson::candidate& c, const llmjson::options& opts) {
  return opts.prefill.size() + c.offset - c.prefilled;
}

/// What `completed()` promises, checked as the text arrives: it only grows, each entry is
/// already what `finish()` lists at its index, and it never shows a candidate that a later
/// closing marker could still make reasoning. A check per new entry: linear in the text.
struct completed_watch {
  struct entry {
    llmjson::candidate c;  // its views are re-pointed into the final text to compare
    std::size_t info_at = 0, marker_at = 0;
  };
  std::vector<entry> entries;  // copies, made when each entry first appeared
  llmjson::options opts;       // its prefill: views start there

  template <class S>
  void look(const llmjson::stream<S>& s) {
    const auto c = s.completed();
    CHECK(c.size() >= entries.size());
    const std::string_view now = read_of(s.text(), opts);
    for (std::size_t k = entries.size(); k < c.size(); ++k) {
      CHECK(views_into(c[k], now));
      CHECK(c[k].text == now.substr(read_at(c[k], opts), c[k].text.size()));
      auto at = [&](std::string_view v) {
        return v.empty() ? std::size_t{0} : static_cast<std::size_t>(v.data() - now.data());
      };
      entries.push_back({c[k], at(c[k].info), at(c[k].marker)});
    }
  }
  /// At the end: the entries are the final list's first ones, field by field.
  void compare(const llmjson::result<llmjson::extraction>& final_result,
               std::string_view final_text) const {
    const std::string_view read = read_of(final_text, opts);
    if (!final_result && final_result.error().kind == llmjson::error_kind::too_large) {
      CHECK(entries.empty());  // only a limit crossed later may take them back (none here)
      return;
    }
    const auto& all = listed(final_result);
    REQUIRE(entries.size() <= all.size());
    std::vector<llmjson::candidate> mine, head;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      llmjson::candidate c = entries[k].c;
      c.text = read.substr(read_at(c, opts), c.text.size());
      if (!c.info.empty()) c.info = read.substr(entries[k].info_at, c.info.size());
      if (!c.marker.empty()) c.marker = read.substr(entries[k].marker_at, c.marker.size());
      // The answer's value is built when it is chosen (a fallback, which never qualified,
      // had none while it was only completed).
      if (final_result && k == final_result->index && final_result->fallback && !c.json)
        c.json = all[k].json;
      mine.push_back(std::move(c));
      head.push_back(all[k]);
    }
    const std::string d = llmjson_test::differs(mine, head);
    INFO("completed() then finish(): " << d);
    CHECK(d.empty());
  }
};

/// Feeds `text` in the chunks of `kind` (syncing after each, so settlement is checked at
/// every boundary) and compares finish() with extract().
template <class S>
void same_as_extract(std::string_view text, const S& sel, const llmjson::options& opts,
                     std::size_t kind, fed* out = nullptr, bool watch_completed = false) {
  const auto expected = llmjson::extract(text, sel, opts);
  llmjson::stream<S> s(sel, opts);
  std::size_t at = 0;
  fed f;
  completed_watch w;
  w.opts = opts;
  for (std::size_t n : chunking(text.size(), kind)) {
    s.feed(text.substr(at, n));
    at += n;
    s.sync();
    if (const llmjson::candidate* c = s.settled(); c && !f.settled_at) {
      f.settled_at = c->offset;
      f.settled_after = at;
    }
    if (const llmjson::candidate* c = s.settled()) CHECK(views_into(*c, read_of(s.text(), opts)));
    if (watch_completed) w.look(s);
  }
  const auto got = s.finish();
  if (watch_completed) w.compare(got, s.text());
  INFO("chunks of " << kind << ": " << llmjson_test::differs(got, expected));
  CHECK(llmjson_test::differs(got, expected).empty());
  if (f.settled_at) {
    // Settled means: this text followed by anything gives that answer. Nothing followed too.
    REQUIRE(expected.has_value());
    CHECK(expected->chosen().offset == *f.settled_at);
  }
  if (out) *out = f;
}

template <class S>
void every_chunking(std::string_view text, const S& sel, const llmjson::options& opts) {
  for (std::size_t kind : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7},
                           std::size_t{64}, std::size_t{4096}, std::size_t{0}})
    same_as_extract(text, sel, opts, kind);
  // completed() read after every chunk makes candidates earlier than the stream would: the
  // result must not change, and completed() must keep its promise.
  for (std::size_t kind : {std::size_t{3}, std::size_t{0}})
    same_as_extract(text, sel, opts, kind, nullptr, true);
}

/// When the stream settles on `text` fed whole (synced), the offset; else nothing.
template <class S = llmjson::any_object>
std::optional<std::size_t> settles(std::string_view text, const S& sel = S{},
                                   const llmjson::options& opts = {}) {
  llmjson::stream<S> s(sel, opts);
  s.feed(text);
  s.sync();
  const llmjson::candidate* c = s.settled();
  return c ? std::optional<std::size_t>(c->offset) : std::nullopt;
}

}  // namespace

TEST_CASE("every corpus case: any chunking finishes exactly as extract()", "[stream]") {
  // Under every kernel: the stream searches chunk by chunk what extract() searches at once, so
  // the kernels' edges (short blocks, a block ending at the text's end) differ between the two.
  // With LLMJSON_TEST_SWEEP_STEP, a case under one kernel in that many (each case under some).
  std::size_t kernel_index = 0;
  for (llmjson::kernel k : llmjson::available_kernels()) {
    const llmjson_test::kernel_scope scope(k);
    INFO("kernel " << to_string(k));
    std::size_t cases = 0;
    for (const auto& e : std::filesystem::directory_iterator(LLMJSON_CORPUS_DIR)) {
      if (e.path().extension() != ".txt") continue;
      if (!in_sweep(cases++, kernel_index)) continue;
      auto spec_path = e.path();
      spec_path.replace_extension(".expect.json");
      const std::string text = read_file(e.path());
      const json spec = json::parse(read_file(spec_path));
      llmjson::options opts = llmjson_tests::corpus_options(spec);
      INFO(e.path().filename().string());
      const json& sel = spec.at("select");
      if (sel.contains("keys")) {
        every_chunking(text, llmjson::any_key(sel["keys"].get<std::vector<std::string>>()), opts);
      } else if (sel.contains("schema")) {
        every_chunking(text, llmjson::schema(sel["schema"]), opts);
      } else {
        every_chunking(text, llmjson::any_object{}, opts);
      }
      // With policy first, the settled answer (if any) is the answer.
      opts.policy = llmjson::policy::first;
      every_chunking(text, llmjson::any_object{}, opts);
    }
    CHECK(cases >= 71);
    ++kernel_index;
  }
}

TEST_CASE("options reach the stream as they reach extract()", "[stream]") {
  const std::string text =
      "{\"a\": 1}</think>\n<SCRATCH>{\"b\": 2}</SCRATCH>{\"c\": 3}\n[{\"d\": 4}";
  for (bool regions : {true, false})
    for (auto start : {llmjson::output_start::unknown, llmjson::output_start::reasoning,
                       llmjson::output_start::answer}) {
      llmjson::options opts;
      opts.reasoning_regions = regions;
      opts.start = start;
      opts.reasoning_markers = {{"<scratch>", "</scratch>"}};
      every_chunking(text, llmjson::any_object{}, opts);
      every_chunking(std::string_view("\xEF\xBB\xBF  {\"a\": [1, 2]}  "), llmjson::any_object{},
                     opts);
    }
  llmjson::options small;
  small.max_input_bytes = 10;
  every_chunking(std::string_view("{\"a\": 12345}"), llmjson::any_object{}, small);
  every_chunking(std::string_view("  \n "), llmjson::any_object{}, {});
  every_chunking(std::string_view(""), llmjson::any_object{}, {});
}

TEST_CASE("the settled answer: each condition, a case that settles and one that must not",
          "[stream][settled]") {
  const llmjson::options answer_start{.start = llmjson::output_start::answer};
  SECTION("closed, with only prose-like frames open around it") {
    CHECK(settles("Plan: {\"a\": 1} and more", llmjson::any_object{}, answer_start) == 6u);
    CHECK(settles("{note: {\"a\": 1} and more", llmjson::any_object{}, answer_start) == 7u);
    // A JSON-like frame or a bracket frame around it could still own it.
    CHECK_FALSE(settles("x {\"k\": {\"a\": 1} and", llmjson::any_object{}, answer_start));
    CHECK_FALSE(settles("x [{\"a\": 1}, ", llmjson::any_object{}, answer_start));
    // Not yet closed.
    CHECK_FALSE(settles("x {\"a\": 1", llmjson::any_object{}, answer_start));
  }
  SECTION("not in a fence body that may still be one whole value") {
    CHECK_FALSE(settles("x\n```json\n{\"a\": 1}", llmjson::any_object{}, answer_start));
    CHECK_FALSE(settles("x\n```json\n{\"a\": 1}\n", llmjson::any_object{}, answer_start));
    // A body that is no valid JSON prefix cannot become one value.
    CHECK(settles("x\n```\nnote {\"a\": 1} and", llmjson::any_object{}, answer_start) == 11u);
    CHECK(settles("x\n```json\n{\"a\": 1}\n```\n", llmjson::any_object{}, answer_start) == 10u);
  }
  SECTION("not exposed to the already-open rule") {
    // By default a later </think> could still make all of it reasoning.
    CHECK_FALSE(settles("Plan: {\"a\": 1} and more"));
    CHECK(settles("<think>x</think>Plan: {\"a\": 1} and more") == 22u);
    CHECK(settles("Plan: {\"a\": 1} and <think>") == 6u);  // an opening marker: no closer counts
    // The prompt opened the reasoning: settled once it closes.
    const llmjson::options opened{.start = llmjson::output_start::reasoning};
    CHECK_FALSE(settles("{\"a\": 1} and more", llmjson::any_object{}, opened));
    CHECK(settles("{\"a\": 1}</think>{\"a\": 2} and", llmjson::any_object{}, opened) == 16u);
  }
  SECTION("not in an open reasoning region, and never a candidate in one") {
    CHECK_FALSE(settles("<think>{\"a\": 1} and"));
    CHECK(settles("<think>{\"a\": 1}</think> {\"a\": 2} x") == 24u);
  }
  SECTION("neither the whole output nor the answer part may still be one value") {
    CHECK_FALSE(settles("{\"a\": 1}", llmjson::any_object{}, answer_start));
    CHECK_FALSE(settles("{\"a\": 1}   \n", llmjson::any_object{}, answer_start));
    CHECK(settles("{\"a\": 1} x", llmjson::any_object{}, answer_start) == 0u);
    CHECK_FALSE(settles("<think>x</think>{\"a\": 1}"));
    CHECK(settles("<think>x</think>{\"a\": 1} x") == 16u);
  }
  SECTION("policies unique and last never settle; a non-qualifying candidate does not either") {
    const llmjson::options unique{.policy = llmjson::policy::unique,
                                  .start = llmjson::output_start::answer};
    const llmjson::options last{.policy = llmjson::policy::last,
                                .start = llmjson::output_start::answer};
    CHECK_FALSE(settles("Plan: {\"a\": 1} and more", llmjson::any_object{}, unique));
    CHECK_FALSE(settles("Plan: {\"a\": 1} and more", llmjson::any_object{}, last));
    CHECK_FALSE(settles("Plan: {\"b\": 1} and more", llmjson::any_key({"a"}), answer_start));
    CHECK(settles("{\"b\": 1} then {\"a\": 2} x", llmjson::any_key({"a"}), answer_start) == 14u);
  }
}

TEST_CASE("the stream owns its text: views survive growth, and finish() views live with it",
          "[stream]") {
  llmjson::stream s(llmjson::any_key({"a"}),
                    llmjson::options{.start = llmjson::output_start::answer});
  s.feed("x {\"a\": 1} ");
  s.sync();
  REQUIRE(s.settled());
  CHECK(s.settled()->text == "{\"a\": 1}");
  for (int i = 0; i < 2000; ++i) s.feed("more text that makes the buffer move. ");
  s.sync();
  REQUIRE(s.completed().size() == 1);
  CHECK(s.completed()[0].text == "{\"a\": 1}");
  CHECK(s.completed()[0].text.data() == s.text().data() + 2);
  auto r = s.finish();
  REQUIRE(r);
  CHECK(r->chosen().text.data() == s.text().data() + 2);
  CHECK(s.size() == s.text().size());
}

TEST_CASE("every accessor returns views into the current buffer, whatever was called before",
          "[stream][views]") {
  // Issue 16: 1-byte feeds grow the buffer many times; settled(), completed() and seen() read
  // after any feed (with or without sync) must point into the buffer as it is now. Under
  // AddressSanitizer a stale view is a heap-use-after-free; here it is also a view outside
  // text(), or bytes that differ from the text at the candidate's offset.
  const std::string text = "Answer: {\"a\": 1} and then a long explanation " +
                           std::string(3000, 'z') + " and {\"b\": [1, 2]} more " +
                           std::string(3000, 'y');
  const std::string_view all = text;
  auto current = [](const llmjson::candidate& c, std::string_view now) {
    return views_into(c, now) && c.text == now.substr(c.offset, c.text.size());
  };
  for (bool sync : {false, true}) {
    for (bool ask_between : {false, true}) {
      INFO("sync " << sync << ", accessors read after every feed " << ask_between);
      llmjson::stream s(llmjson::any_key({"a"}),
                        llmjson::options{.start = llmjson::output_start::answer});
      bool text_ok = true, settled_ok = true, completed_ok = true, seen_ok = true;
      bool settled_once = false;
      for (std::size_t k = 0; k < all.size(); ++k) {
        s.feed(all.substr(k, 1));
        if (sync) s.sync();
        text_ok = text_ok && s.text() == all.substr(0, k + 1);
        if (!ask_between && k % 97 != 0) continue;  // views made long before, read now
        if (const llmjson::candidate* c = s.settled()) {
          settled_once = true;
          settled_ok = settled_ok && current(*c, s.text()) && c->text == "{\"a\": 1}";
        }
        for (const llmjson::candidate& c : s.completed())
          completed_ok = completed_ok && current(c, s.text());
        for (const llmjson::candidate& c : s.seen()) seen_ok = seen_ok && current(c, s.text());
      }
      CHECK(text_ok);
      CHECK(settled_ok);
      CHECK(completed_ok);
      CHECK(seen_ok);
      CHECK(settled_once);
      CHECK(s.completed().size() == 2);
      auto r = s.finish();
      REQUIRE(r);
      CHECK(r->chosen().text.data() == s.text().data() + 8);
    }
  }
}

TEST_CASE("a chunk taken from the stream's own text is appended whole when the buffer moves",
          "[stream][views]") {
  llmjson::stream s(llmjson::any_object{});
  s.feed("ab {\"a\": 1} cd ");
  std::string expected(s.text());
  for (int k = 0; k < 12; ++k) {  // each feed doubles the text: the buffer moves every time
    const std::string_view own = s.text();
    expected += std::string(own);
    s.feed(own);
  }
  CHECK(s.text() == expected);
  auto r = s.finish();
  REQUIRE(r);
  CHECK(r->chosen().offset == 3);
  CHECK(r->candidates.size() == 4096);
  CHECK(llmjson_test::differs(r, llmjson::extract(expected)).empty());
}

TEST_CASE("completed() holds back what a later closing marker could make reasoning",
          "[stream][completed]") {
  // Issue 16: under output_start::unknown, `</think>` after a draft makes the draft reasoning
  // (the already-open rule). completed() promised that nothing later can change its entries,
  // so before any marker it shows none; seen() shows them, as drafts.
  llmjson::stream s(llmjson::any_object{});
  s.feed("Draft: {\"a\": 1} hmm, let me think again.\n");
  s.sync();
  CHECK(s.completed().empty());
  CHECK_FALSE(s.settled());
  REQUIRE(s.seen().size() == 1);
  CHECK(s.seen()[0].qualifies);
  CHECK_FALSE(s.seen()[0].in_reasoning);
  s.feed("</think>\n{\"b\": 2} done");
  s.sync();
  REQUIRE(s.completed().size() == 2);
  CHECK(s.completed()[0].in_reasoning);
  CHECK_FALSE(s.completed()[0].qualifies);
  CHECK(s.completed()[0].message == "inside the reasoning before </think>");
  CHECK(s.completed()[1].text == "{\"b\": 2}");
  REQUIRE(s.settled());
  CHECK(s.settled()->text == "{\"b\": 2}");
  // An opening marker first: no closing marker can reach back, so the entries are final.
  llmjson::stream t(llmjson::any_object{});
  t.feed("<think>plan</think> Draft: {\"a\": 1} and");
  t.sync();
  CHECK(t.completed().size() == 1);
}

TEST_CASE("stripped harmony: nothing settles while a later byte could change the reading",
          "[stream][settled][completed]") {
  // A text that begins with `analysis` and holds no harmony token: a later assistantfinal
  // would make all before it reasoning. Under output_start::answer too (it decides the start
  // whatever the caller says of the prompt).
  const llmjson::options answer_start{.start = llmjson::output_start::answer};
  CHECK_FALSE(settles("analysis {\"a\": 1} and more", llmjson::any_object{}, answer_start));
  CHECK_FALSE(settles("Analysis: {\"a\": 1} and more"));
  // Once it applies, a later harmony token would cancel it: still nothing settles.
  CHECK_FALSE(settles("analysis x assistantfinal {\"a\": 1} and more", llmjson::any_object{},
                      answer_start));
  // A harmony token rules it out for good: the usual conditions apply again.
  CHECK(settles("Analysis: {\"a\": 1} and <|start|> more", llmjson::any_object{}, answer_start) ==
        10u);
  CHECK(settles("{\"a\": 1} analysis x assistantfinal", llmjson::any_object{}, answer_start) == 0u);

  llmjson::stream s(llmjson::any_object{}, answer_start);
  s.feed("analysis The user wants {\"a\": 1}. ");
  s.sync();
  CHECK_FALSE(s.settled());
  CHECK(s.completed().empty());
  REQUIRE(s.seen().size() == 1);
  CHECK_FALSE(s.seen()[0].in_reasoning);  // read as the text so far says: ordinary text
  s.feed("assistantfinal {\"a\": 2} done");
  s.sync();
  CHECK_FALSE(s.settled());
  CHECK(s.completed().empty());
  REQUIRE(s.seen().size() == 2);  // read again: the draft is reasoning now
  CHECK(s.seen()[0].in_reasoning);
  CHECK(s.seen()[0].message ==
        "inside the analysis before assistantfinal (harmony without its special tokens)");
  CHECK(s.seen()[1].text == "{\"a\": 2}");
  auto r = s.finish();
  REQUIRE(r);
  CHECK(r->chosen().text == "{\"a\": 2}");
}

TEST_CASE("stripped harmony and <details>: every chunking, every start, as extract()", "[stream]") {
  const std::vector<std::string> texts{
      "analysisThe user {\"a\": 1}assistantcommentary{\"q\": 2}assistantfinal{\"a\": 3}",
      " \r\n Analysis {\"a\": 1} </think> AssistantFinal <think>{\"c\": 1}</think>{\"b\": 2}",
      "analysis {\"a\": 1} assistantfinal {\"b\": 2}<|end|>",
      "analysis {\"a\": 1} </think> {\"b\": 2} <|en",
      "analysis {\"a\": [1, assistantfinal {\"b\": 2}",
      "\xEF\xBB\xBF analysis\n```json\n{\"a\":1}\n```assistantfinal```json\n{\"b\":2}\n```",
      "analysis",
      "ana",
      "<details type=\"reasoning\" done=\"true\">\n{\"a\": 1}\n</details>\n{\"a\": 2}",
      "<details<details type=\"reasoning\"><details>{\"a\": 1}</details>{\"a\": 2}",
      "<details type=\"reasoning\"\n{\"a\": 1}",
      "{\"a\": 1}</details>{\"b\": 2}</scratchpad>{\"c\": 3}",
      "<think>\n```json\n{\"t\": \"Q3</think>",
  };
  for (const std::string& text : texts)
    for (auto start : {llmjson::output_start::unknown, llmjson::output_start::reasoning,
                       llmjson::output_start::answer}) {
      INFO(text);
      llmjson::options opts;
      opts.start = start;
      every_chunking(text, llmjson::any_object{}, opts);
    }
}

TEST_CASE("a resource limit crossed later takes back the settled answer and completed()",
          "[stream][completed]") {
  // Issue 16: the promise of settled() and completed() holds within the resource limits. A
  // text that crosses one is too_large, as extract() says on it, and the stream says so too.
  const llmjson::options opts{.policy = llmjson::policy::first,
                              .start = llmjson::output_start::answer,
                              .max_candidates = 16};
  std::string text = "Plan: {\"a\": 1} then ";
  llmjson::stream s(llmjson::any_object{}, opts);
  s.feed(text);
  s.sync();
  REQUIRE(s.settled());
  CHECK(s.completed().size() == 1);
  for (int k = 0; k < 40; ++k) {
    s.feed("{} ");
    text += "{} ";
  }
  s.sync();
  CHECK_FALSE(s.settled());
  CHECK(s.completed().empty());
  CHECK(s.seen().empty());
  auto r = s.finish();
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::too_large);
  CHECK(llmjson_test::differs(r, llmjson::extract(text, llmjson::any_object{}, opts)).empty());
  // The size limit likewise.
  llmjson::stream u(
      llmjson::any_object{},
      llmjson::options{.max_input_bytes = 64, .start = llmjson::output_start::answer});
  u.feed("Plan: {\"a\": 1} then more");
  u.sync();
  REQUIRE(u.settled());
  u.feed(std::string(64, ' '));
  CHECK_FALSE(u.settled());
  CHECK(u.completed().empty());
}

TEST_CASE("open prose-like frames, then prose with objects, synced every 16 bytes",
          "[stream][linear]") {
  // Issue 16: each read walked every open prose-like frame, so syncing after every chunk was
  // quadratic (1 MB: 4.2 s). Its time is measured by tests/bench (stream linearity family);
  // here the answer is checked in every chunking.
  std::string text;
  while (text.size() < 4096) text += "{'x ";
  while (text.size() < 16384) text += "some prose with an object {\"a\": 1} and more words. ";
  every_chunking(text, llmjson::any_key({"a"}),
                 {.policy = llmjson::policy::first, .start = llmjson::output_start::answer});
  every_chunking(text, llmjson::any_key({"a"}), {.policy = llmjson::policy::unique});
}

TEST_CASE("a stream over the size limit keeps nothing and finishes too_large", "[stream]") {
  llmjson::stream<> s(llmjson::any_object{}, llmjson::options{.max_input_bytes = 16});
  s.feed("{\"a\": 1} and more");
  s.feed(" text");
  CHECK(s.text().empty());
  CHECK(s.size() == 22);
  auto r = s.finish();
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::too_large);
  CHECK(r.error().message ==
        "the output is 22 bytes, over the limit of 16 (options::max_input_bytes)");
}

TEST_CASE("whole outputs: extract()'s one-pass fast path and the engine agree", "[stream]") {
  std::string deep(513, '[');
  deep += std::string(513, ']');
  std::string deep_ok(512, '[');
  deep_ok += std::string(512, ']');
  for (std::string text :
       {std::string("{\"a\": [1, {\"b\": null}], \"c\": -0.0e1, \"d\": \"\\u00e9\\ud83d\\ude00\"}"),
        std::string("  [1, 2, 3]  \n"), std::string("{\"a\":1,\"a\":2}"),
        std::string("{\"a\":1,\"\\u0061\":2}"), std::string("[1e400]"),
        std::string("{\"a\": \"\\ud800\"}"), std::string("\xEF\xBB\xBF\xEF\xBB\xBF{}"),
        std::string("\xEF\xBB\xBF {}"), std::string("{\"a\":1}\0junk", 12),
        std::string("[\"\xC3\x28\"]"), std::string("{\"a\": 1} trailing"), std::string("[1, 2"),
        std::string("{}"), std::string("[]"), deep, deep_ok}) {
    INFO(text.substr(0, 60));
    every_chunking(text, llmjson::any_object{}, {});
    every_chunking(text, llmjson::any_key({"a"}), {.policy = llmjson::policy::unique});
  }
}

TEST_CASE("an opener's value read at once and the frames read byte by byte agree", "[stream]") {
  // The frame scan records a value that starts a chain and closes valid within the bytes it was
  // given with one validator run (frame_scanner::quick); a stream fed a byte at a time never
  // has the value's end, so its frames read every byte: every_chunking compares the two. Each
  // text puts such a value where a chain starts: outside every frame, in a prose-like frame,
  // in a counted one, in a dead object or array, after a failed attempt, and at the limits.
  const std::vector<std::string> texts = {
      R"({"a": 1} and [{"b": 2}] and ["x", ["y"]] and [ {"c": 3} ] and { "d" : 4 })",
      R"({Note: {"a": 1} here} and {note ["a", "b"] and [{"c": 1}]})",
      R"({{x {"a": 1} }} {{{ {"b": [2]} }}})",
      R"({"a": x {"b": 2} } then {"c": 3} and {"a": x [1, {"b": 2}] })",
      R"(["a" x {"b": 1}] ok ["a" x ["b"] {"c": [3]}])",
      "{\"note\": \"line one\nline two\"} {\"a\": \"tab\there\"} {\"bad\": \"\x01\"}",
      R"({"a": 1e400} {"a": 12345678901234567890123} {"a": [-0.0e-0]})",
      R"({"a": 1, "a": 2} {"\u0061": 1, "a": 2} {"abcdefghij": 1, "abcdefghik": 2})",
      R"({"a": 1, {"b": 2} {"c": 3}} {"a": 1,} {"a": [1,]} ["a",] {"a": tru} {"a": "x)",
      "{\"a\":\n 1,\r\n \"b\": [\n2]\n}\n```\n{\"a\": 1,\n```\n\"b\": 2}",
      R"(<think>{"a": "</think>"}</think> {"a": "<think>"} {"b": 1})",
      R"({"a": {"b": {"c": {"d": 1}}}} [[[[{"e": 1}]]]] {x {"a": {"b": {"c": {"d": 1}}}}})",
      R"({"a": 1)",
      R"(see {"a": [1, 2, {"b": "}"}], "c": "]"} and {"d": "{\"e\": 1}"})",
  };
  for (const std::string& text : texts) {
    INFO(text);
    every_chunking(text, llmjson::any_key({"a"}), {});
    every_chunking(text, llmjson::any_key({"none"}), {});  // the fallback: not a piece
    every_chunking(text, llmjson::any_object{}, {.policy = llmjson::policy::unique});
    every_chunking(text, llmjson::any_object{}, {.max_depth = 3});
    every_chunking(text, llmjson::any_object{}, {.max_open_frames = 3});
    // Past the limit the stream takes back what completed() showed (a test below): the
    // chunkings alone here.
    for (std::size_t kind : {std::size_t{1}, std::size_t{3}, std::size_t{0}})
      same_as_extract(text, llmjson::any_object{}, {.max_candidates = 2}, kind);
    every_chunking(text, llmjson::any_object{}, {.max_depth = 0});
  }
}

TEST_CASE("fence bodies: extract()'s one-pass path for long bodies and the engine agree",
          "[stream]") {
  // extract() builds a body of 256 bytes or more in one nlohmann pass; a stream fed in chunks
  // reads it the usual way (every_chunking compares each chunking with extract()).
  const std::string pad = "\"pad\": \"" + std::string(300, 'x') + "\"";
  std::string deep(513, '[');
  deep += std::string(513, ']');
  std::string deep_ok(512, '[');
  deep_ok += std::string(512, ']');
  std::vector<std::string> bodies = {"{\"a\": [1, {\"b\": null}], " + pad + "}",
                                     "{\"a\": 1, " + pad + ", \"a\": 2}",
                                     "{\"a\": [1e400], " + pad + "}",
                                     "{\"a\": \"\\ud800\", " + pad + "}",
                                     "{\"a\": 1, " + pad + "} trailing",
                                     "{\"a\": 1, " + pad + ",}",
                                     "[\"\xC3\x28\", " + pad.substr(7) + "]",
                                     "{\"a\": 1, " + pad + "",
                                     deep,
                                     deep_ok,
                                     "[" + pad.substr(7) + "]\n\n  ",
                                     "{\"a\": 1, " + pad + "}\r\n"};
  for (const std::string& body : bodies) {
    for (std::string_view close : {"```", "   ```", "    ```", "~~~", "````", "``` x"}) {
      for (std::string_view eol : {"\n", "\r\n"}) {
        std::string text = "Here:";
        text += eol;
        text += "```json";
        text += eol;
        text += body;
        text += eol;
        text += close;
        text += eol;
        text += "and {\"a\": 2} after";
        INFO(text.substr(0, 40) << " ... " << close);
        every_chunking(text, llmjson::any_key({"a"}), {});
        every_chunking(text, llmjson::any_key({"a"}), {.policy = llmjson::policy::unique});
      }
    }
  }
}

TEST_CASE("a string that runs over raw line breaks holds the settlement back (rules v4)",
          "[stream][settled][control]") {
  const llmjson::options answer_start{.start = llmjson::output_start::answer};
  // `{"a": "x` then a line break: the string may still run (its frame is open), so nothing in
  // it settles, whatever it looks like; its closing quote and brace come later, and then the
  // frame is the answer, valid with raw controls.
  const std::string head = "Result: {\"a\": \"x\n{\\\"a\\\": 1} and {\\\"b\\\": 2}\n";
  CHECK_FALSE(settles(head, llmjson::any_object{}, answer_start));
  CHECK(settles(head + "\"}", llmjson::any_object{}, answer_start) == 8u);
  CHECK(settles(head + "\"} then", llmjson::any_object{}, answer_start) == 8u);
  CHECK(settles(head + "\"} then {\"c\": 3} x", llmjson::any_object{}, answer_start) == 8u);
  // With a form feed in the string the frame is malformed: the next object settles.
  const std::string fed = head + "\f\"} then {\"c\": 3} x";
  CHECK_FALSE(settles(head + "\f\"} then", llmjson::any_object{}, answer_start));
  CHECK(settles(fed, llmjson::any_object{}, answer_start) == fed.find("{\"c\""));
  // Under v2 a line break ended the string and `{"k": 1}` became a closed object: now it is
  // the string's text up to the quote before `k`, and the frame dies there.
  const std::string v2_piece = "Result: {\"a\": \"x\n{\"k\": 1} tail\"} then {\"c\": 3} x";
  CHECK(settles(v2_piece, llmjson::any_object{}, answer_start) == 38u);
  for (const std::string& t : {head, head + "\"}", head + "\"} then {\"c\": 3} x", fed, v2_piece,
                               std::string("x [\"one\n{\"a\": 1} more")}) {
    INFO(t);
    every_chunking(t, llmjson::any_object{}, answer_start);
    every_chunking(t, llmjson::any_key({"a", "c", "k"}), answer_start);
  }
  // A bracket frame's first string ended by a line break is no frame: what follows settles.
  CHECK(settles("x [\"one\n{\"a\": 1} more", llmjson::any_object{}, answer_start) == 8u);
}

TEST_CASE("the fallback is never a piece, however the text arrives", "[stream][fallback]") {
  const llmjson::options first{.policy = llmjson::policy::first};
  for (std::string_view t :
       {std::string_view("The call returned {'status': 404, 'h': {\"t\": \"j\"}}, so no."),
        std::string_view("{x: {\"id\": 7}}\n```json\n[\"id\"]\n```\n"),
        std::string_view("> {\n>   \"c\": {\"id\": 1}\n> }\n")}) {
    INFO(t);
    every_chunking(t, llmjson::any_key({"user_id"}), first);
  }
}

TEST_CASE("1 MB of raw line breaks in an open string, synced every 16 bytes, stays linear",
          "[stream][linear][control]") {
  // The frame stays open all along (its string may still run): each sync must not walk it
  // again. Quadratic work here would take minutes.
  const std::string text = "x {\"a\": \"" + std::string(std::size_t{1} << 20, '\n');
  llmjson::stream<> s(llmjson::any_object{}, {.start = llmjson::output_start::answer});
  for (std::size_t at = 0; at < text.size(); at += 16) {
    s.feed(std::string_view(text).substr(at, 16));
    s.sync();
    CHECK_FALSE(s.settled());
  }
  const auto r = s.finish();
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::truncated);
}

TEST_CASE("a candidate in reasoning has no value, in any chunking, for every form",
          "[stream][rule §2 Reasoning regions]") {
  for (const llmjson_test::reasoning_form& f : llmjson_test::reasoning_forms()) {
    for (const std::size_t chunk :
         {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{4096}, f.text.size()}) {
      INFO("chunks of " << chunk);
      llmjson::stream<llmjson::any_object> s({}, f.opts);
      std::string_view rest = f.text;
      for (; !rest.empty(); rest.remove_prefix(std::min(chunk, rest.size()))) {
        s.feed(rest.substr(0, chunk));
        s.sync();
        for (const llmjson::candidate& c : s.seen())
          if (c.in_reasoning) CHECK(c.json == nullptr);
      }
      const auto r = s.finish();
      REQUIRE(r);
      llmjson_test::check_drafts(r->candidates, f, /*selected=*/true);
      const auto whole = llmjson::extract(f.text, llmjson::any_object{}, f.opts);
      CHECK(llmjson_test::differs(r, whole).empty());
    }
  }
}

TEST_CASE("settled early, the later qualifying candidates are finish()'s, as extract() gives them",
          "[stream][settled]") {
  const llmjson::options answer_start{.start = llmjson::output_start::answer};
  const std::string text = "Plan: {\"a\": 1} and {\"a\": 2}, then {\"b\": 3} and {\"a\": 4}.";
  llmjson::stream<llmjson::any_key> s(llmjson::any_key({"a"}), answer_start);
  s.feed(std::string_view(text).substr(0, 20));
  s.sync();
  REQUIRE(s.settled());  // the answer is known; the later ones are not read yet
  CHECK(s.settled()->offset == 6u);
  s.feed(std::string_view(text).substr(20));
  const auto r = s.finish();
  REQUIRE(r);
  CHECK(r->index == 0);
  REQUIRE(r->later_qualifying.size() == 2);
  CHECK(r->candidates[r->later_qualifying[0]].text == "{\"a\": 2}");
  CHECK(r->candidates[r->later_qualifying[1]].text == "{\"a\": 4}");
  every_chunking(text, llmjson::any_key({"a"}), answer_start);
}

namespace {

/// Feeds `text` in two pieces, split at every byte (syncing between them), and compares
/// finish() with extract().
template <class S>
void every_split(std::string_view text, const S& sel, const llmjson::options& opts) {
  const auto expected = llmjson::extract(text, sel, opts);
  for (std::size_t k = 0; k <= text.size(); ++k) {
    llmjson::stream<S> s(sel, opts);
    s.feed(text.substr(0, k));
    s.sync();
    s.feed(text.substr(k));
    const auto got = s.finish();
    INFO("split at " << k << ": " << llmjson_test::differs(got, expected));
    CHECK(llmjson_test::differs(got, expected).empty());
  }
}

}  // namespace

TEST_CASE("rules v4 regions: every split at every byte, every chunking, as extract()",
          "[stream][regions]") {
  std::vector<std::string> texts{
      "<Thought>{\"a\": 1}</THOUGHT>{\"a\": 2}",
      "<longcat_think>{\"a\": 1}</longcat_think>{\"a\": 2}",
      "<|channel>thought\n{\"a\": 1}\n<channel|>{\"a\": 2}",
      "<|channel>final{\"a\": 1}<|channel>though",
      "{\"a\": 1}<channel|>{\"a\": 2}",
      "{\"a\": 1}</longcat_think>{\"a\": 2}</thought>",
      "Here is my thought process:\n{\"a\": 1}\nHere's my response:\n{\"a\": 2}",
      "Here's my thought process: {\"a\": 1} Here is my response: {\"a\": 2}",
      " \n\xEF\xBB\xBFHere is my thought process: {\"a\": 1}",
      "\xEF\xBB\xBF \n Here's my thought process: {\"a\": 1} Here's my respons",
      "here is my thought process: {\"a\": 1} Here is my response: {\"a\": 2}",
      "Here is my response: {\"a\": 1} Here is my thought process: {\"a\": 2}",
      "Here are my reasoning steps:\n{\"a\": 1}\n[BEGIN FINAL RESPONSE]\n{\"a\": 2}\n[END FINAL "
      "RESPONSE]\n<|end|>{\"a\": 3}",
      "Here are my reasoning steps: [BEGIN FINAL RESPONSE] {\"t\": \"[END FINAL RESPONSE]\"} "
      "[END FINAL RESPONS",
      "Thinking...\n{\"a\": 1}\n...done thinking.\n\n{\"a\": 2}</think>{\"a\": 3}",
      "Thinking...\n{\"a\": 1} ...done thinking",
      "Thinking..",
      "Thinking",
      "Here",
      "Thinking...x...done thinking.<think>{\"a\": 1}</think>{\"a\": 2}",
      "{\"a\": 1}<|end|>",
      "{\"a\": 1}<|end|>{\"a\": 2}<|end|><|call|>{\"a\": 3}<|sta",
      "{\"a\": 1}<|end|>{\"a\": 2}<|end|><|start|>{\"a\": 3}",
      "x {\"d\": 0}<|end|><|start|>assistant<|channel|>final<|message|>{\"a\": 1}",
      "{\"a\": 1}<|call|>{\"b\": 2}</think>{\"c\": 3}",
      "{\"a\": 1}<|end|>{\"b\": 2}</think>{\"c\": 3}<|return|>",
      "{\"a\": 1}<|end|><think><|constrain|></think>{\"b\": 2}",
      "analysis {\"a\": 1} assistantfinal {\"b\": 2}<|end|>",
      "analysis {\"a\": 1} assistantfinal {\"b\": 2}<|end|><|message|>",
  };
  // The v4 corpus cases of these rules.
  for (const char* name :
       {"31-apriel-reasoning-steps-final-response", "31-gemma4-channel-thought-then-answer",
        "31-granite-thought-process-response-phrases", "31-longcat-think-close-tag-only",
        "31-marco-o1-thought-tags-mixed-case", "31-ollama-thinking-done-thinking-transcript",
        "31-ollama-thinking-never-done-truncated", "31-phi3-trailing-end-token-after-fence"})
    texts.push_back(
        read_file(std::filesystem::path(LLMJSON_CORPUS_DIR) / (std::string(name) + ".txt")));
  std::vector<llmjson::options> all_opts(5);
  all_opts[1].start = llmjson::output_start::reasoning;
  all_opts[2].start = llmjson::output_start::answer;
  all_opts[3].reasoning_off = {llmjson::reasoning_format::apriel,
                               llmjson::reasoning_format::harmony};
  all_opts[4].reasoning_off = {llmjson::reasoning_format::granite,
                               llmjson::reasoning_format::gemma4_channel};
  for (const std::string& text : texts)
    for (const llmjson::options& opts : all_opts) {
      INFO(text << " (start " << to_string(opts.start) << ", " << opts.reasoning_off.size()
                << " formats off)");
      every_split(text, llmjson::any_object{}, opts);
      every_chunking(text, llmjson::any_object{}, opts);
    }
}

TEST_CASE("rules v4 regions: 1 MB of near misses fed in 64-byte chunks stays linear",
          "[stream][linear][regions]") {
  // A search that started again from the start of the text (or of a region) on every feed
  // would read 16 thousand times a megabyte here.
  auto rep = [](std::string_view unit, std::size_t bytes) {
    std::string s;
    while (s.size() < bytes) s += unit;
    return s;
  };
  constexpr std::size_t mb = 1 << 20;
  const std::vector<std::pair<std::string, std::string>> texts{
      {"Thinking..." + rep("...done thinkin ", mb) + "...done thinking.{\"a\": 1}", R"({"a":1})"},
      {"Here is my thought process:" + rep("Here's my respons", mb) +
           "Here's my response:{\"a\": 1}",
       R"({"a":1})"},
      {"{\"a\": 1}<|end|>" + rep("<|end|><|sta", mb), R"({"a":1})"},
      {"{\"a\": 1}<|end|>" + rep("<|end|><|sta", mb) + "<|start|>{\"a\": 2}", R"({"a":2})"},
      {"<|channel>thought" + rep("<channel", mb) + "<channel|>{\"a\": 1}", R"({"a":1})"},
  };
  for (const auto& [text, answer] : texts) {
    llmjson::stream<llmjson::any_object> s({}, {.policy = llmjson::policy::first});
    for (std::size_t at = 0; at < text.size(); at += 64) {
      s.feed(std::string_view(text).substr(at, 64));
      s.sync();
    }
    const auto r = s.finish();
    REQUIRE(r);
    CHECK(r->json().dump() == answer);
  }
}

}  // namespace llmjson_tests::stream_test
