// llmjson: the partial answer of a stream (rules §8) — healing case by case, qualifying for each
// selector kind, provisional or not, and the promise on every prefix of the corpus
// SPDX-License-Identifier: MIT
#include <llmjson/partial.hpp>
#include <llmjson/partial_answer.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/schema_of.hpp>
#include <llmjson/stream.hpp>

#include "catch_compat.hpp"
#include "corpus_case.hpp"
#include "promise.hpp"
#include "read_file.hpp"
#include "sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#ifndef LLMJSON_CORPUS_DIR
#error "LLMJSON_CORPUS_DIR must name tests/corpus"
#endif

namespace llmjson_tests::partial_test {

namespace {

using json = nlohmann::json;
using llmjson_tests::read_file;

/// The partial answer of `text` fed whole (then synced).
template <class S = llmjson::any_object>
std::optional<llmjson::partial_answer> partial_of(std::string_view text, S sel = S{},
                                                  llmjson::options opts = {}) {
  llmjson::stream<S> s(std::move(sel), std::move(opts));
  s.feed(text);
  s.sync();
  return s.partial();
}

/// The healed value and open path of `text` under `any_object`, checked.
void healed(std::string_view text, std::string_view value, std::optional<std::string> open) {
  INFO(text);
  const auto p = partial_of(text);
  REQUIRE(p);
  CHECK(p->value == json::parse(value));
  CHECK(p->open == open);
}

void none(std::string_view text, llmjson::options opts = {}) {
  INFO(text);
  CHECK_FALSE(partial_of(text, llmjson::any_object{}, std::move(opts)));
}

}  // namespace

TEST_CASE("healing: strings as written so far, an incomplete escape left out", "[partial]") {
  healed(R"({"a": "hel)", R"({"a": "hel"})", "/a");
  healed(R"({"a": ")", R"({"a": ""})", "/a");
  healed(R"({"a": "x\)", R"({"a": "x"})", "/a");
  healed(R"({"a": "x\n)", R"({"a": "x\n"})", "/a");
  healed(R"({"a": "x\u00)", R"({"a": "x"})", "/a");
  healed(R"({"a": "x\u0041)", R"({"a": "xA"})", "/a");
  healed(R"({"a": "x\ud83d)", R"({"a": "x"})", "/a");  // waits for its pair
  healed(R"({"a": "x\ud83d\u)", R"({"a": "x"})", "/a");
  healed(R"({"a": "x\ud83d\ude00)", "{\"a\": \"x\xF0\x9F\x98\x80\"}", "/a");
  healed("{\"a\": \"caf\xC3", R"({"a": "caf"})", "/a");  // a cut UTF-8 sequence
  healed("{\"a\": \"caf\xC3\xA9", "{\"a\": \"caf\xC3\xA9\"}", "/a");
  healed(R"({"a": "x", "b": "y)", R"({"a": "x", "b": "y"})", "/b");
  // A raw line feed in a frame's string: a string byte (rules §3), as if escaped.
  healed("Plan: {\"a\": \"one\ntwo", R"({"a": "one\ntwo"})", "/a");
}

TEST_CASE("healing: keys, members, numbers and literals in progress are left out", "[partial]") {
  healed(R"({"a": 1, "b)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b")", R"({"a": 1})", "");
  healed(R"({"a": 1, "b" )", R"({"a": 1})", "");
  healed(R"({"a": 1, "b":)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": )", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": -)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": -1.)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": 12)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": 1e5)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": 12 )", R"({"a": 1, "b": 12})", "");
  healed(R"({"a": 1, "b": tru)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": true)", R"({"a": 1, "b": true})", "");  // nothing extends it
  healed(R"({"a": 1, "b": nul)", R"({"a": 1})", "");
  healed(R"({"a": 1, "b": false)", R"({"a": 1, "b": false})", "");
  healed(R"({"a": 1,)", R"({"a": 1})", "");
  healed(R"({"a": [1, 2)", R"({"a": [1]})", "/a");
  healed(R"({"a": [1, 2,)", R"({"a": [1, 2]})", "/a");
  healed(R"({"a": [)", R"({"a": []})", "/a");
  healed(R"({)", R"({})", "");
  healed(R"({"a)", R"({})", "");
}

TEST_CASE("healing: nested containers and the open path", "[partial]") {
  healed(R"({"steps":[{"t":"ab)", R"({"steps":[{"t":"ab"}]})", "/steps/0/t");
  healed(R"({"steps":[{"t":"ab"},)", R"({"steps":[{"t":"ab"}]})", "/steps");
  healed(R"({"steps":[{"t":"ab"},{"t")", R"({"steps":[{"t":"ab"},{}]})", "/steps/1");
  healed(R"({"steps":[{"t":"ab"}])", R"({"steps":[{"t":"ab"}]})", "");
  healed(R"({"a":{"b":{"c":[["x)", R"({"a":{"b":{"c":[["x"]]}}})", "/a/b/c/0/0");
  healed(R"({"a/b":{"~k":")", R"({"a/b":{"~k":""}})", "/a~1b/~0k");
  healed(R"({"a":[[1],[2,)", R"({"a":[[1],[2]]})", "/a/1");
  // The first complete candidate comes first, in document order.
  const auto p = partial_of(R"(draft {"x": 1} then {"steps":[)");
  REQUIRE(p);
  CHECK(p->value == json{{"x", 1}});
  CHECK_FALSE(p->open);
  CHECK(p->complete());
  CHECK(p->qualifying == 2);
}

TEST_CASE("healing: whole output, parts, fences, harmony", "[partial]") {
  auto p = partial_of(R"(  {"a": "x)");
  REQUIRE(p);
  CHECK(p->source == llmjson::source::whole);
  CHECK(p->offset == 2);
  CHECK(p->value == json{{"a", "x"}});
  p = partial_of("<think>{\"draft\": 1}</think>\n{\"a\": [1, {\"b\": tr");
  REQUIRE(p);
  CHECK(p->source == llmjson::source::part);
  CHECK(p->value == json::parse(R"({"a": [1, {}]})"));
  CHECK(p->open == "/a/1");
  CHECK_FALSE(p->provisional);  // a marker was seen
  // A fence body that is a valid prefix owns all inside it: an array, no object qualifies.
  CHECK_FALSE(partial_of("Here it is:\n```json\n[{\"a\": 1}, {\"b\": \"x"));
  // A number that ends the text may still grow (`4` then `42`): not shown.
  CHECK_FALSE(partial_of("```json\n4", llmjson::any_object{}));
  CHECK_FALSE(partial_of("4", llmjson::schema(json{{"type", "integer"}})));
  CHECK(partial_of("```json\n4\n", llmjson::schema(json{{"type", "integer"}})));
  p = partial_of("Here it is:\n```json\n{\"a\": 1, \"b\": \"x");
  REQUIRE(p);
  CHECK(p->value == json::parse(R"({"a": 1, "b": "x"})"));
  CHECK(p->line == 3);
  CHECK(p->column == 1);
  p = partial_of(
      "<|channel|>analysis<|message|>{\"draft\": 1}<|end|><|start|>assistant<|channel|>final"
      "<|message|>{\"answer\": \"4");
  REQUIRE(p);
  CHECK(p->value == json{{"answer", "4"}});
  CHECK_FALSE(p->provisional);
  // A prose-like frame is never healed; what is inside it may be.
  none("{Note: this is not JSON");
  // A brace whose kind is not decided yet is a valid prefix: healed.
  p = partial_of("{Note: see {");
  REQUIRE(p);
  CHECK(p->value == json::object());
  CHECK(p->open == "");
  p = partial_of("{Note: see {\"a\": [1");
  REQUIRE(p);
  CHECK(p->value == json{{"a", json::array()}});
  // A root number or literal in progress: nothing yet.
  none("```json\n12");
  none("```json\n");
  p = partial_of("```json\n\"The answer is", llmjson::any_key({"x"}));
  CHECK_FALSE(p);
}

TEST_CASE("none inside reasoning", "[partial]") {
  none(R"(<think>{"a":1)");
  none(R"(<think>{"a":1})");
  none("<think>done</think><think>{\"a\": 1}");
  none("<|channel|>analysis<|message|>{\"a\": 1}");
  llmjson::options opts;
  opts.start = llmjson::output_start::reasoning;
  none(R"({"a": 1} and more)", opts);
  // Closed: what follows is the answer.
  auto p = partial_of(R"(<think>{"a":1}</think>{"b": [)");
  REQUIRE(p);
  CHECK(p->value == json{{"b", json::array()}});
}

TEST_CASE("provisional: the start unknown, starts-in answer, stripped harmony", "[partial]") {
  auto p = partial_of(R"(Sure: {"a": "x)");
  REQUIRE(p);
  CHECK(p->provisional);  // a later </think> would make it reasoning
  p = partial_of(R"({"a": "x)");
  REQUIRE(p);
  CHECK(p->provisional);
  llmjson::options answer;
  answer.start = llmjson::output_start::answer;
  p = partial_of(R"(Sure: {"a": "x)", llmjson::any_object{}, answer);
  REQUIRE(p);
  CHECK_FALSE(p->provisional);
  p = partial_of(R"({"a": "x)", llmjson::any_object{}, answer);
  REQUIRE(p);
  CHECK_FALSE(p->provisional);
  p = partial_of(R"(analysis I think {"a": 1} is it)", llmjson::any_object{}, answer);
  REQUIRE(p);
  CHECK(p->provisional);  // assistantfinal may still come
  // And it was reasoning: the partial is gone.
  llmjson::stream s(llmjson::any_object{});
  s.feed(R"(Sure: {"a": 1})");
  s.sync();
  REQUIRE(s.partial());
  CHECK(s.partial()->provisional);
  s.feed("</think>");
  s.sync();
  CHECK_FALSE(s.partial());
  s.feed(R"({"b": 2})");
  s.sync();
  REQUIRE(s.partial());
  CHECK_FALSE(s.partial()->provisional);
  CHECK(s.partial()->value == json{{"b", 2}});
}

TEST_CASE("qualifying: any_object and any_key", "[partial]") {
  CHECK_FALSE(partial_of(R"([1, {"a": 1}, [)"));  // an array: not an object; none inside
  CHECK_FALSE(partial_of(R"({"a": 1, "b)", llmjson::any_key({"b"})));
  auto p = partial_of(R"({"a": 1, "b":)", llmjson::any_key({"b"}));
  REQUIRE(p);  // a complete member key, its value not begun
  CHECK(p->value == json{{"a", 1}});
  p = partial_of(R"({"a": 1, "b": [)", llmjson::any_key({"b"}));
  REQUIRE(p);
  CHECK(p->value == json::parse(R"({"a": 1, "b": []})"));
  CHECK_FALSE(partial_of(R"({"a": {"b": 1)", llmjson::any_key({"b"})));  // not at the top
  // Policy last or unique: still the first, with the count.
  llmjson::options last;
  last.policy = llmjson::policy::last;
  p = partial_of(R"({"b": 1} {"b": 2} {"b": [)", llmjson::any_key({"b"}), last);
  REQUIRE(p);
  CHECK(p->value == json{{"b", 1}});
  CHECK(p->qualifying == 3);
}

namespace {
struct step {
  std::string t;
  int minutes = 0;
};
LLMJSON_DEFINE_TYPE(step, (t), (minutes))
struct plan {
  std::string title;
  std::vector<step> steps;
};
LLMJSON_DEFINE_TYPE(plan, (title), (steps))

struct partial_predicate {
  static constexpr bool judges_partial = true;
  bool operator()(const json& v) const { return v.is_object() && v.contains("ok"); }
};
struct complete_predicate {
  bool operator()(const json& v) const { return v.is_object() && v.contains("ok"); }
};
}  // namespace

TEST_CASE("qualifying: a schema judges the healed value", "[partial]") {
  const llmjson::schema s(json::parse(R"({
    "type": "object",
    "required": ["name", "tags", "kind"],
    "additionalProperties": false,
    "properties": {
      "name": {"type": "string", "minLength": 5, "pattern": "^[a-z]+$"},
      "kind": {"enum": ["apple", "banana"]},
      "n": {"type": "integer", "maximum": 3},
      "tags": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "string"}}
    }
  })"));
  llmjson::options first;
  first.policy = llmjson::policy::first;
  // required, minItems not applied; the string being written exempt.
  CHECK(partial_of(R"({"name": "A)", s, first));
  CHECK(partial_of(R"({"tags": ["x)", s, first));
  CHECK(partial_of(R"({"kind": "ban)", s, first));                 // may become "banana"
  CHECK_FALSE(partial_of(R"({"kind": "cherry)", s, first));        // never will
  CHECK_FALSE(partial_of(R"({"name": "Ab", "n)", s, first));       // complete: pattern applies
  CHECK_FALSE(partial_of(R"({"n": 4, "name)", s, first));          // maximum applies
  CHECK_FALSE(partial_of(R"({"tags": ["a", "b", "c)", s, first));  // maxItems applies
  CHECK_FALSE(partial_of(R"({"extra": ")", s, first));             // additionalProperties: false
  CHECK_FALSE(partial_of(R"({"name": 5, "x)", s, first));          // type applies
}

TEST_CASE("qualifying: decode<T> with missing members allowed, predicates opt in", "[partial]") {
  llmjson::options first;
  first.policy = llmjson::policy::first;
  auto p = partial_of(R"({"title": "Tr)", llmjson::decode<plan>{}, first);
  REQUIRE(p);
  CHECK(p->value == json{{"title", "Tr"}});
  p = partial_of(R"({"title": "Trip", "steps": [{"t": "pack", "minutes": 5}, {"t": "dr)",
                 llmjson::decode<plan>{}, first);
  REQUIRE(p);
  CHECK(p->open == "/steps/1/t");
  CHECK_FALSE(partial_of(R"({"title": 5, "steps": [)", llmjson::decode<plan>{}, first));
  CHECK_FALSE(partial_of(R"({"titel": ")", llmjson::decode<plan>{}, first));  // unknown key
  // The caller's check judges the complete T only.
  auto check = [](const plan& x) { return x.steps.size() >= 2; };
  CHECK(partial_of(R"({"title": "Trip", "steps": [)", llmjson::decode<plan>{check}, first));
  llmjson::stream s(llmjson::decode<plan>{check}, first);
  s.feed(R"({"title": "Trip", "steps": []})");
  const auto r = s.finish();
  CHECK_FALSE(r);
  CHECK_FALSE(s.partial());
  // A predicate is called on a healed value only when it says it may be.
  CHECK(partial_of(R"({"ok": [)", partial_predicate{}));
  CHECK_FALSE(partial_of(R"({"ok": [)", complete_predicate{}));
  CHECK(partial_of(R"({"ok": []} {"x)", complete_predicate{}));  // complete candidates do
}

TEST_CASE("the typed partial reads a stream's partial answer: value and open", "[partial]") {
  llmjson::stream s(llmjson::decode<plan>{});
  s.feed(
      R"(<think>a plan</think>{"title": "Trip", "steps": [{"t": "pack", "minutes": 5}, {"t": "dr)");
  s.sync();
  const auto p = s.partial();
  REQUIRE(p);
  const llmjson::partial<plan> typed(p->value, p->open);
  CHECK(typed->title == "Trip");
  CHECK(typed.state(&plan::title) == llmjson::member_state::complete);
  REQUIRE(typed->steps.size() == 2);
  CHECK(typed.complete_count(&plan::steps) == 1);
  CHECK(typed.at(&plan::steps, 1).state(&step::t) == llmjson::member_state::in_progress);
  CHECK(typed.at(&plan::steps, 1).state(&step::minutes) == llmjson::member_state::absent);
  const llmjson::partial<plan> same(*p);  // the constructor from a partial_answer
  CHECK(same->steps.size() == 2);
  CHECK(same.complete_count(&plan::steps) == 1);
}

TEST_CASE("after finish or stop the partial is the answer, and the version", "[partial]") {
  llmjson::stream s(llmjson::any_key({"b"}));
  CHECK(s.partial_version() == 0);
  CHECK_FALSE(s.partial());
  s.feed(R"(Draft: {"a": 1} answer: {"b": [1, 2)");
  s.sync();
  const auto v = s.partial_version();
  CHECK(v > 0);
  REQUIRE(s.partial());
  CHECK(s.partial()->value == json{{"b", {1}}});
  s.sync();  // nothing new: the same version
  CHECK(s.partial_version() == v);
  s.feed("]}");
  const auto r = s.finish();
  REQUIRE(r);
  CHECK(s.partial_version() != v);
  const auto p = s.partial();
  REQUIRE(p);
  CHECK(p->final);
  CHECK(p->complete());
  CHECK(p->value == r->json());
  CHECK(p->offset == r->chosen().offset);

  llmjson::stream t(llmjson::any_object{});
  t.feed(R"(<think>{"a": 1)");
  t.sync();
  CHECK_FALSE(t.partial());
  const auto e = t.stop();
  CHECK_FALSE(e);
  CHECK_FALSE(t.partial());
}

// --- The promise, on every prefix of every corpus case -----------------------------------

namespace {

struct promise_counts {
  std::size_t partials = 0;  // partials read
  std::size_t same = 0;      // finish() answered the candidate a partial showed
  std::size_t replaced = 0;  // a non-provisional partial replaced by another candidate
  std::size_t replaced_cases = 0;
};

std::vector<std::size_t> sizes_of(std::size_t total, unsigned seed) {
  std::vector<std::size_t> sizes;
  unsigned state = seed * 2654435761u + 7;
  for (std::size_t at = 0; at < total;) {
    std::size_t n = 1;
    if (seed != 0) {
      state = state * 1103515245u + 12345u;
      n = 1 + (state >> 16) % 23;
    }
    n = std::min(n, total - at);
    sizes.push_back(n);
    at += n;
  }
  return sizes;
}

/// Feeds `text` in chunks of `sizes`, reading the partial at every change, and checks the
/// promise against the answer of `finish()`.
template <class S>
void promise(const std::string& text, const S& sel, const llmjson::options& opts,
             const std::vector<std::size_t>& sizes, std::size_t every, promise_counts& counts) {
  llmjson::stream<S> s(sel, opts);
  std::vector<llmjson::partial_answer> shown;
  std::uint64_t version = 0;
  std::size_t at = 0, k = 0;
  // Regions of the whole text, to check a partial never starts inside reasoning.
  const auto regions = llmjson::detail::reasoning_regions(text, opts);
  for (const std::size_t n : sizes) {
    s.feed(std::string_view(text).substr(at, n));
    at += n;
    if (++k % every != 0 && at != text.size()) continue;
    s.sync();
    if (s.partial_version() == version) continue;
    version = s.partial_version();
    auto p = s.partial();
    if (!p) continue;
    ++counts.partials;
    CHECK_FALSE(p->final);
    if (!shown.empty() && shown.back().position() == p->position() &&
        shown.back().value == p->value && shown.back().open == p->open &&
        shown.back().provisional == p->provisional)
      continue;
    shown.push_back(std::move(*p));
  }
  const auto r = s.finish();
  const auto last = s.partial();
  if (!r) {
    CHECK_FALSE(last);
  } else {
    REQUIRE(last);
    CHECK(last->final);
    CHECK(last->value == r->json());
    CHECK(last->position() == r->chosen().position());
  }
  bool replaced = false;
  for (const auto& p : shown) {
    INFO("partial at " << p.position() << ": " << p.value.dump() << " open "
                       << p.open.value_or("(none)"));
    // The text (as far as it was written then) is in the final reading: never in a region
    // of the end either, unless a later byte made the start reasoning (provisional).
    if (!p.provisional && opts.prefill.empty()) {
      for (const auto& [b, e] : regions) {
        const bool inside = p.offset >= b && p.offset < e;
        CHECK_FALSE(inside);
      }
    }
    if (r && r->chosen().position() == p.position()) {
      ++counts.same;
      CHECK(kept(p.value, r->json(), p.open, ""));
    } else if (!p.provisional) {
      replaced = true;
      ++counts.replaced;
    }
  }
  if (replaced) ++counts.replaced_cases;
}

}  // namespace

TEST_CASE("the promise on every prefix of every corpus case, any chunking", "[partial]") {
  promise_counts counts;
  std::size_t cases = 0;
  std::vector<std::string> replacing;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_CORPUS_DIR)) {
    if (e.path().extension() != ".txt") continue;
    auto spec_path = e.path();
    spec_path.replace_extension(".expect.json");
    const std::string text = read_file(e.path());
    const json spec = json::parse(read_file(spec_path));
    llmjson::options opts = llmjson_tests::corpus_options(spec);
    INFO(e.path().filename().string());
    const json& sel = spec.at("select");
    // Every prefix (1-byte chunks, the partial read after each) on texts up to 8 KB; a larger
    // one (the 200 KB trace) after every 256th chunk (its every prefix would cost its length
    // squared: 40 GB read).
    const std::size_t every = text.size() <= 8192 ? 1 : 256;
    const std::size_t before = counts.replaced;
    for (unsigned seed : {0u, 1u, 2u}) {
      if (!in_sweep(cases, seed)) continue;  // LLMJSON_TEST_SWEEP_STEP: each case, fewer seeds
      const auto sizes = sizes_of(text.size(), seed);
      const std::size_t step = every;
      if (sel.contains("keys")) {
        promise(text, llmjson::any_key(sel["keys"].get<std::vector<std::string>>()), opts, sizes,
                step, counts);
      } else if (sel.contains("schema")) {
        promise(text, llmjson::schema(sel["schema"]), opts, sizes, step, counts);
      } else {
        promise(text, llmjson::any_object{}, opts, sizes, step, counts);
      }
      llmjson::options first = opts;
      first.policy = llmjson::policy::first;
      promise(text, llmjson::any_object{}, first, sizes, step, counts);
      // The caller says the output starts in answer text: the partials are not provisional.
      first.start = llmjson::output_start::answer;
      promise(text, llmjson::any_object{}, first, sizes, step, counts);
    }
    if (counts.replaced != before) replacing.push_back(e.path().filename().string());
    ++cases;
  }
  CHECK(cases >= 100);
  CHECK(counts.same * sweep_step() > 1000);
  std::printf(
      "partial promise: %zu corpus cases, %zu partials read, %zu shown again by finish()'s "
      "answer; a non-provisional partial replaced by another candidate %zu times, in %zu "
      "readings of %zu cases\n",
      cases, counts.partials, counts.same, counts.replaced, counts.replaced_cases,
      replacing.size());
  for (const auto& name : replacing) std::printf("  replaced in %s\n", name.c_str());
}

namespace {

/// Two partial answers are the same, field by field.
bool same(const std::optional<llmjson::partial_answer>& a,
          const std::optional<llmjson::partial_answer>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->value == b->value && a->open == b->open && a->open_string == b->open_string &&
         a->provisional == b->provisional && a->offset == b->offset &&
         a->prefilled == b->prefilled && a->line == b->line && a->column == b->column &&
         a->source == b->source && a->qualifying == b->qualifying && a->final == b->final;
}

std::string shown(const std::optional<llmjson::partial_answer>& p) {
  if (!p) return "none";
  return p->value.dump() + " open " + p->open.value_or("(none)") + " at " +
         std::to_string(p->offset) + "-" + std::to_string(p->prefilled) + " line " +
         std::to_string(p->line) + " col " + std::to_string(p->column) + " source " +
         std::to_string(static_cast<int>(p->source)) + " qualifying " +
         std::to_string(p->qualifying) + (p->provisional ? " provisional" : "");
}

struct oracle_counts {
  std::size_t reads = 0;    // partials compared with the oracle
  std::size_t rereads = 0;  // of them, made by reading the text again
  std::size_t kept = 0;     // feeds that read new bytes and left the version as it was
};

/// Feeds `text` in chunks of `sizes`; after each, the partial (read when the version changed,
/// else the one read last) equals the oracle's on the text so far (`partial_so_far`, the text
/// read again whole). With `sync` each chunk is read at once; without, only the version
/// contract is checked: an equal version, the same partial.
template <class S>
void against_oracle(const std::string& text, const S& sel, const llmjson::options& opts,
                    const std::vector<std::size_t>& sizes, bool sync, oracle_counts& counts) {
  llmjson::stream<S> s(sel, opts);
  std::uint64_t version = 0;
  std::optional<llmjson::partial_answer> last;
  std::size_t at = 0;
  for (const std::size_t n : sizes) {
    const std::size_t before = s.size();
    s.feed(std::string_view(text).substr(at, n));
    at += n;
    if (sync) s.sync();
    const bool changed = s.partial_version() != version;
    if (changed) {
      version = s.partial_version();
      last = s.partial();
    } else {
      CHECK(same(s.partial(), last));
      if (sync && s.size() > before) ++counts.kept;
    }
    if (!sync) continue;
    const auto oracle = llmjson::detail::partial_so_far(s.text(), sel, opts);
    ++counts.reads;
    if (!same(last, oracle)) {
      INFO("after " << at << " bytes: " << std::string_view(text).substr(0, at));
      INFO("stream: " << shown(last));
      INFO("oracle: " << shown(oracle));
      INFO("version changed: " << changed);
      FAIL("the partial differs from the text read again");
    }
  }
  counts.rereads += llmjson::detail::stream_probe::rereads(s);
}

}  // namespace

TEST_CASE("the partial equals the text read again, on every prefix of every corpus case",
          "[partial]") {
  oracle_counts counts;
  std::size_t cases = 0;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_CORPUS_DIR)) {
    if (e.path().extension() != ".txt") continue;
    auto spec_path = e.path();
    spec_path.replace_extension(".expect.json");
    const std::string text = read_file(e.path());
    if (text.size() > 8192) continue;  // every prefix read again whole: its length squared
    const json spec = json::parse(read_file(spec_path));
    const llmjson::options opts = llmjson_tests::corpus_options(spec);
    INFO(e.path().filename().string());
    const json& sel = spec.at("select");
    for (unsigned seed : {0u, 1u, 2u}) {
      if (!in_sweep(cases, seed)) continue;  // LLMJSON_TEST_SWEEP_STEP: each case, fewer seeds
      const auto sizes = sizes_of(text.size(), seed);
      for (const bool sync : {true, false}) {
        if (sel.contains("keys")) {
          against_oracle(text, llmjson::any_key(sel["keys"].get<std::vector<std::string>>()), opts,
                         sizes, sync, counts);
        } else if (sel.contains("schema")) {
          against_oracle(text, llmjson::schema(sel["schema"]), opts, sizes, sync, counts);
        } else {
          against_oracle(text, llmjson::any_object{}, opts, sizes, sync, counts);
        }
        llmjson::options answer = opts;
        answer.start = llmjson::output_start::answer;
        against_oracle(text, llmjson::decode<plan>{}, answer, sizes, sync, counts);
        against_oracle(text, llmjson::any_key({"a", "name", "steps"}), answer, sizes, sync, counts);
      }
    }
    ++cases;
  }
  CHECK(cases >= 100);
  CHECK(counts.reads * sweep_step() > 10000);
  CHECK(counts.kept * sweep_step() > 1000);  // reads that left the partial and its version alone
  // Most partials are made from the scan so far, not by reading the text again.
  CHECK(counts.rereads * 2 < counts.reads);
  std::printf(
      "partial oracle: %zu corpus cases, %zu partials compared; %zu made by reading the text "
      "again; %zu reads left the version as it was\n",
      cases, counts.reads, counts.rereads, counts.kept);
}

TEST_CASE("a partial costs its span: reasoning, then the answer in a part, a fence or prose",
          "[partial]") {
  std::string reasoning = "<think>";
  for (int i = 0; i < 100; ++i) reasoning += "The user wants a plan; list the steps. ";
  reasoning += "</think>\n";
  const std::string answer =
      R"({"title": "Trip", "steps": [{"t": "pack", "minutes": 5}, {"t": "drive", "minutes": 90}]})";
  for (const std::string& text :
       {reasoning + answer, reasoning + "Here it is:\n\n```json\n" + answer + "\n```\nDone.",
        reasoning + "Here it is: " + answer + " and that is all.",
        std::string("Sure. Here it is: ") + answer + " and that is all."}) {
    INFO(text);
    oracle_counts counts;
    against_oracle(text, llmjson::any_key({"steps"}), {}, sizes_of(text.size(), 0), true, counts);
    // Read again only where a marker or a fence line may be starting (`<`, a line's start).
    CHECK(counts.rereads <= 40);
    CHECK(counts.reads == text.size());
    // The reasoning's bytes and the prose around the answer leave the version alone.
    CHECK(counts.kept > (text.size() - answer.size()) / 2);
  }
}

TEST_CASE("the version: bytes that cannot change the partial leave it alone", "[partial]") {
  llmjson::stream s(llmjson::any_object{}, {.start = llmjson::output_start::answer});
  s.feed(R"(Here: {"a": 1})");
  s.sync();
  const auto v = s.partial_version();
  REQUIRE(s.partial());
  for (const char* more : {" and", " that is all", ".\n\n", "Nothing else."}) {
    s.feed(more);
    s.sync();
    CHECK(s.partial_version() == v);  // prose after a closed answer
  }
  s.feed(R"( {"b": )");
  s.sync();
  CHECK(s.partial_version() != v);  // a new candidate opened
  const auto w = s.partial_version();
  s.feed("2");
  s.sync();
  CHECK(s.partial_version() != w);  // a byte of the open candidate
  // Inside reasoning: no partial, whatever its bytes.
  llmjson::stream t(llmjson::any_object{});
  t.feed("<think>Let me think about it.");
  t.sync();
  const auto r = t.partial_version();
  t.feed(" {\"a\": 1} is a draft.\n\n  And more.");
  t.sync();
  CHECK(t.partial_version() == r);
  CHECK_FALSE(t.partial());
  t.feed("</think>{\"a\": 2}");
  t.sync();
  CHECK(t.partial_version() != r);
  REQUIRE(t.partial());
  CHECK(t.partial()->value == json{{"a", 2}});
  // A whole part that is a number: left out while it ends the text (a digit may follow), shown
  // once a byte ends it, though its span stays the same.
  llmjson::stream n(llmjson::schema(json{{"type", "integer"}}));
  n.feed("<think>x</think>\n4");
  n.sync();
  CHECK_FALSE(n.partial());
  n.feed("2");
  n.sync();
  CHECK_FALSE(n.partial());
  n.feed("\n");
  n.sync();
  REQUIRE(n.partial());
  CHECK(n.partial()->value == 42);
  CHECK(n.partial()->source == llmjson::source::part);
}

}  // namespace llmjson_tests::partial_test
