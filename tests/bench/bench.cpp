// llmjson benchmark: extract() on generated model outputs, against memchr and nlohmann in the
// same run, with the peak memory of one call.
// SPDX-License-Identifier: MIT
//
// Sizes are the (10 MB traces, 64 MB prose, 8 MB hostile inputs) divided by the
// environment variable LLMJSON_BENCH_SCALE (default 1; CI runs with 64). tests/bench/table.py
// turns `--benchmark_format=json` output into the README's table.
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/stream.hpp>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "inputs.hpp"
#include "stage_one.hpp"

// ---------------------------------------------------------------------------------------------
// A counting allocator: the peak of live heap bytes, for one call at a time.

namespace {
std::size_t live_bytes = 0;
std::size_t peak_bytes = 0;
constexpr std::size_t header = alignof(std::max_align_t);
}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n + header);
  if (!p) throw std::bad_alloc();
  *static_cast<std::size_t*>(p) = n;
  live_bytes += n;
  if (live_bytes > peak_bytes) peak_bytes = live_bytes;
  return static_cast<char*>(p) + header;
}
// Not inlined: g++ 12 would read the size before the block as an out-of-bounds access of the
// caller's array (-Warray-bounds).
[[gnu::noinline]] void operator delete(void* p) noexcept {
  if (!p) return;
  char* base = static_cast<char*>(p) - header;
  std::size_t n = 0;
  std::memcpy(&n, base, sizeof n);  // the size operator new wrote before the block
  live_bytes -= n;
  std::free(base);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }
// The nothrow forms too (std::stable_sort's buffer comes from one): each delete above must
// only ever see a block of this operator new, also where a sanitizer runtime replaces the rest.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { operator delete(p); }

namespace {

using namespace llmjson_bench;

std::size_t scale() {
  const char* s = std::getenv("LLMJSON_BENCH_SCALE");
  const long v = s ? std::strtol(s, nullptr, 10) : 1;
  return v > 0 ? static_cast<std::size_t>(v) : 1;
}

constexpr std::size_t mb = std::size_t{1} << 20;

/// The number of `{` in `text`, counted with memchr.
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

/// Counts `{` with memchr: the floor any scanner of the bytes is measured against.
void run_memchr(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(count_braces(text));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

/// Issue 31's stage 1 alone (stage_one.hpp): every block classified, its strings found. What a
/// scan driven by a structural index spends before its frames read a bracket.
void run_index(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(llmjson_bench::structural_index(text));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

#if defined(LLMJSON_KERNEL_AVX2)
/// `run_index` with the structure's six classes alone (`lean_structural_index`), where the
/// kernel that runs is AVX2; it must count what `structural_index` counts.
void run_index_lean(benchmark::State& state, const std::string& text) {
  if (llmjson::detail::kernels::active() != llmjson::detail::kernels::id::avx2) {
    state.SkipWithError("the AVX2 kernel does not run here");
    return;
  }
  if (llmjson_bench::lean_structural_index(text) != llmjson_bench::structural_index(text)) {
    state.SkipWithError("the lean index counts other brackets than classify's");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(llmjson_bench::lean_structural_index(text));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}
#endif

/// The options of a measure: the whole text within `max_input_bytes`; with `raised`, the
/// frame and candidate limits at the text's size too, so that no limit stops the work early.
llmjson::options options_for(const std::string& text, bool raised) {
  llmjson::options opts;
  opts.max_input_bytes = text.size() + 1;
  if (raised) {
    opts.max_open_frames = text.size();
    opts.max_candidates = text.size();
  }
  return opts;
}

/// With raised limits the measure must do the whole work: a `too_large` result says it did not.
template <class R>
bool stopped_early(benchmark::State& state, const R& r, bool raised) {
  if (!raised || r.has_value() || r.error().kind != llmjson::error_kind::too_large) return false;
  state.SkipWithError("too_large: a resource limit stopped the scan");
  return true;
}

/// The candidates of `text`, counted in four: in reasoning or outside it, valid or malformed,
/// as counters of the measure (table.py shows them beside the figures).
void count_candidates(benchmark::State& state, const std::string& text,
                      const llmjson::options& opts) {
  double counts[2][2] = {{0, 0}, {0, 0}};  // [in reasoning][valid]
  for (const llmjson::candidate& c : llmjson::candidates(text, opts).candidates)
    ++counts[c.in_reasoning ? 1 : 0][c.valid ? 1 : 0];
  state.counters["reasoning_valid"] = counts[1][1];
  state.counters["reasoning_malformed"] = counts[1][0];
  state.counters["answer_valid"] = counts[0][1];
  state.counters["answer_malformed"] = counts[0][0];
}

void run_extract(benchmark::State& state, const std::string& text, bool raised = false) {
  const llmjson::any_key sel({"orders"});
  const llmjson::options opts = options_for(text, raised);
  count_candidates(state, text, opts);
  // The peak memory of one call, before timing.
  const std::size_t before = live_bytes;
  peak_bytes = live_bytes;
  {
    auto r = llmjson::extract(text, sel, opts);
    if (stopped_early(state, r, raised)) return;
    benchmark::DoNotOptimize(r);
  }
  const double peak = static_cast<double>(peak_bytes - before);
  {
    // Which resource limit, if any, stopped the scan (table.py marks the row): 1 for
    // options::max_candidates, 2 for options::max_open_frames, 0 for none.
    auto r = llmjson::extract(text, sel, opts);
    const bool limit = !r && r.error().kind == llmjson::error_kind::too_large;
    state.counters["stopped_at"] =
        !limit                                                                    ? 0
        : r.error().message.find("options::max_open_frames") != std::string::npos ? 2
                                                                                  : 1;
  }
  for (auto _ : state) {
    auto r = llmjson::extract(text, sel, opts);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
  state.counters["peak_MB"] = peak / static_cast<double>(mb);
  state.counters["peak_per_byte"] = peak / static_cast<double>(text.size());
  state.counters["input_MB"] = static_cast<double>(text.size()) / static_cast<double>(mb);
}

/// `extract` with `options::answer_value` off: the answer's text alone, as `llmjson --keys`
/// prints it (no value built).
void run_extract_text(benchmark::State& state, const std::string& text) {
  const llmjson::any_key sel({"orders"});
  llmjson::options opts = options_for(text, false);
  opts.answer_value = false;
  for (auto _ : state) {
    auto r = llmjson::extract(text, sel, opts);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

/// The same text through llmjson::stream, fed in chunks of `chunk` bytes (with `sync()` after
/// every feed when `sync`), then finish().
void run_stream(benchmark::State& state, const std::string& text, std::size_t chunk, bool sync,
                bool raised = false) {
  const llmjson::any_key sel({"orders"});
  const llmjson::options opts = options_for(text, raised);
  const std::string_view view = text;
  auto once = [&] {
    llmjson::stream<llmjson::any_key> s(sel, opts);
    for (std::size_t at = 0; at < view.size(); at += chunk) {
      s.feed(view.substr(at, chunk));
      if (sync) s.sync();
    }
    auto r = s.finish();
    benchmark::DoNotOptimize(r);
    return r.has_value() || r.error().kind != llmjson::error_kind::too_large;
  };
  if (raised && !once()) {
    state.SkipWithError("too_large: a resource limit stopped the stream");
    return;
  }
  for (auto _ : state) once();
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
  state.counters["input_MB"] = static_cast<double>(text.size()) / static_cast<double>(mb);
}

/// The floor of an extraction that must build values (issue 20): `memchr` over the text, as
/// `run_memchr`, plus `nlohmann::json::parse` of exactly the spans whose values the API builds
/// (the valid candidates outside reasoning: those in reasoning get none). The spans are found
/// before timing.
void run_floor(benchmark::State& state, const std::string& text) {
  const llmjson::scan_result scan = llmjson::candidates(text, options_for(text, false));
  std::vector<std::string_view> spans;
  std::size_t span_bytes = 0;
  for (const llmjson::candidate& c : scan.candidates) {
    if (!c.valid || c.in_reasoning) continue;
    spans.push_back(c.text);
    span_bytes += c.text.size();
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(count_braces(text));
    for (const std::string_view span : spans) {
      auto v = nlohmann::json::parse(span.begin(), span.end(), nullptr, false);
      benchmark::DoNotOptimize(v);
    }
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
  state.counters["values"] = static_cast<double>(spans.size());
  state.counters["value_MB"] = static_cast<double>(span_bytes) / static_cast<double>(mb);
}

void run_nlohmann(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    auto v = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    benchmark::DoNotOptimize(v);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

/// `llmjson::minify` of `text` (the tool prints every answer so), appended to one string.
void run_minify(benchmark::State& state, const std::string& text) {
  std::string out;
  for (auto _ : state) {
    out.clear();
    llmjson::minify(text, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}

/// A schema judging `value` (built once, before): what `extract` with a schema selector adds to
/// the scan for each candidate it judges, besides building the candidate's value.
void run_schema(benchmark::State& state, const std::string& schema, const std::string& value) {
  const llmjson::schema judge(nlohmann::json::parse(schema));
  const nlohmann::json v = nlohmann::json::parse(value);
  for (auto _ : state) {
    const llmjson::verdict verdict = judge(v);
    benchmark::DoNotOptimize(verdict);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(value.size()));
}

/// Keeps an input for as long as the benchmarks run (and frees it at exit).
const std::string* keep(std::string text) {
  static std::deque<std::string> inputs;  // a deque never moves what it holds
  inputs.push_back(std::move(text));
  return &inputs.back();
}

/// Registers the measurements of one input: `extract/NAME`, `memchr/NAME`, `floor/NAME` (see
/// `run_floor`), `index/NAME` and `index-lean/NAME` (`run_index`) with `floor`, and `nlohmann/NAME`
/// on `json` (the answer alone, or the whole output) when given. Returns the kept text, for the
/// stream's measures of the same bytes.
const std::string* add(const std::string& name, std::string text, std::string json = {},
                       bool floor = false) {
  const std::string* t = keep(std::move(text));
  benchmark::RegisterBenchmark(("extract/" + name).c_str(), [t](benchmark::State& s) {
    run_extract(s, *t);
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("memchr/" + name).c_str(), [t](benchmark::State& s) {
    run_memchr(s, *t);
  })->Unit(benchmark::kMillisecond);
  if (floor) {
    benchmark::RegisterBenchmark(("floor/" + name).c_str(), [t](benchmark::State& s) {
      run_floor(s, *t);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("index/" + name).c_str(), [t](benchmark::State& s) {
      run_index(s, *t);
    })->Unit(benchmark::kMillisecond);
#if defined(LLMJSON_KERNEL_AVX2)
    benchmark::RegisterBenchmark(("index-lean/" + name).c_str(), [t](benchmark::State& s) {
      run_index_lean(s, *t);
    })->Unit(benchmark::kMillisecond);
#endif
  }
  if (!json.empty()) {
    const std::string* j = keep(std::move(json));
    benchmark::RegisterBenchmark(("nlohmann/" + name).c_str(), [j](benchmark::State& s) {
      run_nlohmann(s, *j);
    })->Unit(benchmark::kMillisecond);
  }
  return t;
}

/// Registers the stream's measures of an input kept by `add` (issue 16: every shape against
/// one extract() of the same text): `stream/1-byte chunks/NAME`, `stream/4096-byte
/// chunks/NAME`, `stream/1-byte chunks, sync/NAME`, and the `extra` chunk sizes.
void add_stream(const std::string& name, const std::string* t,
                std::initializer_list<std::size_t> extra = {}) {
  struct way {
    std::size_t chunk;
    bool sync;
  };
  std::vector<way> ways{{1, false}, {4096, false}, {1, true}};
  for (const std::size_t chunk : extra) ways.push_back({chunk, false});
  for (const way w : ways) {
    const std::string label = std::to_string(w.chunk) + "-byte chunks" + (w.sync ? ", sync" : "");
    benchmark::RegisterBenchmark(
        ("stream/" + label + "/" + name).c_str(),
        [t, w](benchmark::State& s) { run_stream(s, *t, w.chunk, w.sync); })
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t k = scale();
  // Each stream measure follows the extract() of the same text (issue 11: the mixed trace
  // within 3x of one call; issue 16: every shape).
  for (const std::size_t size : {std::size_t{1}, std::size_t{10}}) {
    const std::string tag = std::to_string(size) + " MB";
    // Issue 20: the mixed trace's drafts lie in <think> (few values to build); without the
    // markers they are answer text, and their values are built (against the floor).
    const std::string* m = add("mixed " + tag, mixed(size * mb / k, true), {}, true);
    if (size == 1) add_stream("mixed " + tag, m, {16});
    const std::string* n = add("mixed, no markers " + tag, mixed(size * mb / k, false), {}, true);
    if (size == 1) add_stream("mixed, no markers " + tag, n);
    // The same trace with `<think>` opened by the prompt (only `</think>` in the text).
    if (size == 10) add("mixed, prompt opened " + tag, mixed_prompt_opened(size * mb / k));
    const std::string* c = add("clean " + tag, clean(size * mb / k), {}, true);
    if (size == 1) add_stream("clean " + tag, c);
  }
  {
    std::string w = whole(10 * mb / k);
    std::string copy = w;
    add("whole value 10 MB", std::move(w), std::move(copy));
  }
  add_stream("whole value 1 MB", add("whole value 1 MB", whole(mb / k)));
  const std::string* typical = add("typical 1.3 KB", typical_reply(), typical_answer());
  // minify, the last step of the tool's batch (issue 31 §4): an answer, a long value as models
  // write it (one element a line), and the same laid out by nlohmann's dump(2).
  for (const auto& [name, json] : {std::pair{std::string("typical answer"), keep(typical_answer())},
                                   std::pair{std::string("whole value 1 MB"), keep(whole(mb / k))},
                                   std::pair{std::string("whole value 1 MB, indented"),
                                             keep(nlohmann::json::parse(whole(mb / k)).dump(2))}}) {
    benchmark::RegisterBenchmark(("minify/" + name).c_str(), [t = json](benchmark::State& s) {
      run_minify(s, *t);
    })->Unit(benchmark::kMicrosecond);
  }
  add_stream("typical 1.3 KB", typical);
  benchmark::RegisterBenchmark("schema/typical answer", [](benchmark::State& s) {
    run_schema(s, typical_schema(), typical_answer());
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("extract, answer_value off/typical 1.3 KB",
                               [typical](benchmark::State& s) { run_extract_text(s, *typical); })
      ->Unit(benchmark::kMillisecond);
  add_stream("prose 1 MB", add("prose 1 MB", prose(mb / k)));
  add_stream("reasoning then answer 1 MB",
             add("reasoning then answer 1 MB", reasoning_then_answer(mb / k)));
  add("prose 64 MB", prose(64 * mb / k));
  for (const auto& [name, make] : hostile()) {
    add_stream(name + " 2 MB", add(name + " 2 MB", make(2 * mb / k)));
    add(name + " 8 MB", make(8 * mb / k));
  }
  // The stream's linearity (issue 16): prose frames that never close, then objects, fed in
  // 16-byte chunks with sync() after each. The limits are raised to the text's size so that
  // no resource limit stops the work early; extract() on the same texts, same limits.
  for (const std::size_t size : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
    const std::string name = "open {'x, then objects " + std::to_string(size) + " MB";
    const std::string* t = keep(open_frames_then_objects(size * mb / k));
    benchmark::RegisterBenchmark(("extract/" + name).c_str(), [t](benchmark::State& s) {
      run_extract(s, *t, true);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("stream/16-byte chunks, sync/" + name).c_str(),
                                 [t](benchmark::State& s) { run_stream(s, *t, 16, true, true); })
        ->Unit(benchmark::kMillisecond);
  }
  // Issue 33: the partial answer of a 64 KB plan, fed in 16-byte chunks and read at every
  // change (without sync(): the stream reads every 64 bytes to 4 KB; with sync() after each
  // chunk: at nearly every chunk), against one extract() of the same text.
  // Issue 33 §1 Cost: also a 50 KB `<think>`, then a 2 KB plan in a ```json fence.
  for (const auto& input :
       {std::pair{std::string("plan answer 64 KB"),
                  keep(plan_answer(64 * 1024 / std::min<std::size_t>(k, 16)))},
        std::pair{std::string("50 KB reasoning, 2 KB plan"),
                  keep(reasoning_then_plan(52 * 1024 / std::min<std::size_t>(k, 16)))}}) {
    const std::string& name = input.first;
    const std::string* t = input.second;
    benchmark::RegisterBenchmark(("extract/" + name).c_str(), [t](benchmark::State& s) {
      for (auto _ : s) {
        auto r = llmjson::extract(*t, llmjson::any_key({"steps"}));
        benchmark::DoNotOptimize(r);
      }
      s.SetBytesProcessed(s.iterations() * static_cast<std::int64_t>(t->size()));
    })->Unit(benchmark::kMillisecond);
    for (const bool sync : {false, true}) {
      benchmark::RegisterBenchmark(
          (std::string("partial/16-byte chunks") + (sync ? ", sync" : "") +
           ", read at every change/" + name)
              .c_str(),
          [t, sync](benchmark::State& s) {
            std::size_t reads = 0;
            for (auto _ : s) {
              llmjson::stream<llmjson::any_key> st(llmjson::any_key({"steps"}));
              reads = read_partials(st, *t, 16, sync);
              benchmark::DoNotOptimize(reads);
            }
            s.SetBytesProcessed(s.iterations() * static_cast<std::int64_t>(t->size()));
            s.counters["partials_read"] = static_cast<double>(reads);
            llmjson::stream<llmjson::any_key> probe(llmjson::any_key({"steps"}));
            read_partials(probe, *t, 16, sync);
            s.counters["read_again"] =
                static_cast<double>(llmjson::detail::stream_probe::rereads(probe));
          })
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
