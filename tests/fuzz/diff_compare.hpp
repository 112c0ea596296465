// llmjson fuzz targets: the library against the reference implementation (tests/reference/) on
// one input, the comparison of diff_fuzz (whose header comment says what is compared and how the
// input is read), shared with kernel_fuzz
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_FUZZ_DIFF_COMPARE_HPP_INCLUDED
#define LLMJSON_TESTS_FUZZ_DIFF_COMPARE_HPP_INCLUDED

#include <llmjson/extract.hpp>
#include <llmjson/stream.hpp>

#include "../reference/reference.hpp"
#include "../same_result.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmjson_diff {

namespace ref = llmjson_ref;

struct setup {
  std::string_view text;
  std::vector<std::string> keys;
  llmjson::options lib;
  ref::options ref;
  unsigned char header[3] = {0, 0, 0};
  bool has_header = false;
};

const char* const prefills[8] = {"",  "",          "",        "",
                                 "{", "```json\n", "<think>", "Here are my reasoning steps:\n"};

// needs wt-regions: llmjson::options::reasoning_off and llmjson::reasoning_format are added by
// the regions work, not yet in main. Until they land, `requires` finds no member and this switches
// nothing off on either side; once they do, it switches the same format off in the library and in
// the reference (llmjson::reasoning_format's enumerators are in ref::reasoning_format's order).
template <class Options>
bool switch_off(Options& lib, ref::options& r, std::size_t format) {
  if constexpr (requires { lib.reasoning_off; }) {                        // needs wt-regions
    using lib_format = typename decltype(lib.reasoning_off)::value_type;  // needs wt-regions
    lib.reasoning_off.push_back(static_cast<lib_format>(format));         // needs wt-regions
    r.reasoning_off.push_back(static_cast<ref::reasoning_format>(format));
    return true;
  } else {
    return false;
  }
}

inline const std::vector<std::vector<std::string>>& key_sets() {
  static const std::vector<std::vector<std::string>> sets = {
      {}, {"a"}, {"id"}, {"orders", "helm"}, {"a", "b"}, {"name"}, {"\xC3\xA9"}, {""}, {"a\"b"}};
  return sets;
}

// Caller marker pairs: one plain, one longer than a built-in opener at the same position (the
// longest marker wins: tests/reference/README.md, 6), one that shares a prefix with a harmony
// token.
inline const std::vector<std::vector<llmjson::marker_pair>>& marker_sets() {
  static const std::vector<std::vector<llmjson::marker_pair>> sets = {
      {},
      {{"<scratch>", "</scratch>"}},
      {{"<think>>", "<<end>"}},
      {{"<scratch>", "</scratch>"}, {"<|channel|>x", "<|stop|>"}, {"<think>", "<<end>"}}};
  return sets;
}

inline setup decode_input(const std::uint8_t* data, std::size_t size) {
  setup s;
  s.text = std::string_view(reinterpret_cast<const char*>(data), size);
  if (size == 0 || data[0] >= 0x08) return s;
  s.has_header = true;
  const unsigned char opt = size > 1 ? data[1] : 0;
  const unsigned char key = size > 2 ? data[2] : 0;
  s.header[0] = data[0];
  s.header[1] = opt;
  s.header[2] = key;
  s.text = s.text.substr(size < 3 ? size : 3);
  static constexpr llmjson::output_start starts[] = {
      llmjson::output_start::unknown, llmjson::output_start::reasoning,
      llmjson::output_start::answer, llmjson::output_start::unknown};
  s.lib.start = starts[opt & 3];
  s.lib.reasoning_regions = (opt & 4) == 0;
  s.lib.reasoning_markers = marker_sets()[(opt >> 3) & 3];
  s.lib.prefill = s.ref.prefill = prefills[s.header[0] & 7];
  const std::size_t read = s.lib.prefill.size() + s.text.size();  // too_large counts both
  switch ((opt >> 5) & 3) {
    case 1: s.lib.max_input_bytes = 64; break;
    case 2: s.lib.max_input_bytes = read; break;
    case 3: s.lib.max_input_bytes = read == 0 ? 0 : read - 1; break;
    default: break;
  }
  s.keys = key_sets()[key % key_sets().size()];
  s.ref.start = s.lib.start == llmjson::output_start::reasoning ? ref::output_start::reasoning
                : s.lib.start == llmjson::output_start::answer  ? ref::output_start::answer
                                                                : ref::output_start::unknown;
  s.ref.reasoning_regions = s.lib.reasoning_regions;
  for (const auto& p : s.lib.reasoning_markers) s.ref.markers.push_back({p.open, p.close});
  s.ref.max_input_bytes = s.lib.max_input_bytes;
  if (opt & 0x80) switch_off(s.lib, s.ref, (key / 9) % ref::reasoning_format_count);
  return s;
}

inline std::string shown(std::string_view t, std::size_t most = 400) {
  std::string out;
  for (std::size_t i = 0; i < t.size() && i < most; ++i) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (t.size() > most) out += "...(" + std::to_string(t.size()) + " bytes)";
  return out;
}

inline std::string_view lib_source(llmjson::source s) { return llmjson::to_string(s); }
inline std::string_view ref_source(ref::source s) {
  return s == ref::source::scan ? "prose" : ref::to_string(s);
}

inline void print_both(const setup& s, const llmjson::scan_result& lib, const ref::scan_result& r) {
  std::fprintf(stderr, "  text: \"%s\"\n", shown(s.text).c_str());
  if (!s.ref.prefill.empty())
    std::fprintf(stderr, "  prefill: \"%s\" (positions below are in the output)\n",
                 shown(s.ref.prefill).c_str());
  for (ref::reasoning_format f : s.ref.reasoning_off)
    std::fprintf(stderr, "  reasoning format %u switched off\n", static_cast<unsigned>(f));
  if (s.has_header)
    std::fprintf(
        stderr, "  header: %02X %02X %02X (start %s, regions %s, %zu caller pairs, limit %zu)\n",
        s.header[0], s.header[1], s.header[2], std::string(llmjson::to_string(s.lib.start)).c_str(),
        s.lib.reasoning_regions ? "on" : "off", s.lib.reasoning_markers.size(),
        s.lib.max_input_bytes);
  std::string keys;
  for (const auto& k : s.keys) keys += " \"" + shown(k) + "\"";
  std::fprintf(stderr, "  keys:%s\n", keys.empty() ? " (any object)" : keys.c_str());
  std::fprintf(stderr, "  library:\n");
  for (const auto& c : lib.candidates)
    std::fprintf(stderr, "    [%td,%td) %s%s%s%s \"%s\"\n", c.position(),
                 c.position() + static_cast<std::ptrdiff_t>(c.text.size()),
                 std::string(lib_source(c.source)).c_str(), c.valid ? "" : " invalid",
                 c.raw_controls ? " raw" : "", c.in_reasoning ? " reasoning" : "",
                 shown(c.text, 80).c_str());
  if (lib.truncation)
    std::fprintf(stderr, "    cut@%td%s\n", lib.truncation->position(),
                 lib.truncation->reasoning ? " reasoning" : "");
  std::fprintf(stderr, "  reference:\n");
  for (const auto& c : r.candidates)
    std::fprintf(stderr, "    [%td,%td) %s%s%s%s \"%s\"\n", r.position(c.begin), r.position(c.end),
                 std::string(ref_source(c.src)).c_str(), c.valid ? "" : " invalid",
                 c.raw_controls ? " raw" : "", c.in_reasoning ? " reasoning" : "",
                 shown(r.span(c), 80).c_str());
  if (r.truncation.truncated)
    std::fprintf(stderr, "    cut@%td%s\n", r.position(r.truncation.offset),
                 r.truncation.reasoning ? " reasoning" : "");
}

inline long report_budget() {
  static const long budget = [] {
    const char* e = std::getenv("LLMJSON_DIFF_REPORT");
    return e ? std::atol(e) : 0L;
  }();
  return budget;
}

/// Reports a disagreement: aborts, or with LLMJSON_DIFF_REPORT prints it and tells the caller to
/// stop comparing this input.
inline bool disagree(const char* what, const setup& s, const llmjson::scan_result& lib,
                     const ref::scan_result& r) {
  static long reported = 0;
  std::fprintf(stderr, "llmjson differs from the reference: %s\n", what);
  print_both(s, lib, r);
  if (++reported > report_budget()) std::abort();
  return false;
}

inline const char* policy_name(ref::policy p) {
  switch (p) {
    case ref::policy::first: return "first";
    case ref::policy::first_no_fallback: return "first (no fallback)";
    case ref::policy::unique: return "unique";
    case ref::policy::last: return "last";
  }
  return "?";
}

template <class Sel>
bool compare_outcome(const setup& s, const Sel& sel, ref::policy p, const ref::outcome& want,
                     const ref::result& r, const llmjson::scan_result& lib) {
  llmjson::options o = s.lib;
  o.policy = p == ref::policy::unique ? llmjson::policy::unique
             : p == ref::policy::last ? llmjson::policy::last
                                      : llmjson::policy::first;
  o.fallback = p != ref::policy::first_no_fallback;
  const auto got = llmjson::extract(s.text, sel, o);
  char what[160];
  if (want.error == ref::error_kind::none) {
    const ref::candidate& c = r.scan.candidates[want.index];
    const std::ptrdiff_t cb = r.scan.position(c.begin), ce = r.scan.position(c.end);
    if (!got) {
      std::snprintf(what, sizeof what, "policy %s: the reference chose [%td,%td), llmjson: %s",
                    policy_name(p), cb, ce,
                    std::string(llmjson::to_string(got.error().kind)).c_str());
      return disagree(what, s, lib, r.scan);
    }
    const llmjson::candidate& g = got->chosen();
    const std::ptrdiff_t ge = g.position() + static_cast<std::ptrdiff_t>(g.text.size());
    if (g.position() != cb || ge != ce || got->fallback != want.fallback ||
        g.raw_controls != c.raw_controls) {
      std::snprintf(what, sizeof what,
                    "policy %s: the reference chose [%td,%td)%s%s, llmjson [%td,%td)%s%s",
                    policy_name(p), cb, ce, want.fallback ? " (fallback)" : "",
                    c.raw_controls ? " (raw controls)" : "", g.position(), ge,
                    got->fallback ? " (fallback)" : "", g.raw_controls ? " (raw controls)" : "");
      return disagree(what, s, lib, r.scan);
    }
    if (got->truncation.has_value() != r.scan.truncation.truncated ||
        (got->truncation &&
         got->truncation->position() != r.scan.position(r.scan.truncation.offset))) {
      std::snprintf(what, sizeof what, "policy %s: the answer's truncation differs",
                    policy_name(p));
      return disagree(what, s, lib, r.scan);
    }
    return true;
  }
  const std::string want_kind(ref::to_string(want.error));
  if (got) {
    std::snprintf(
        what, sizeof what, "policy %s: the reference says %s, llmjson chose [%td,%td)",
        policy_name(p), want_kind.c_str(), got->chosen().position(),
        got->chosen().position() + static_cast<std::ptrdiff_t>(got->chosen().text.size()));
    return disagree(what, s, lib, r.scan);
  }
  const std::string got_kind(llmjson::to_string(got.error().kind));
  if (got_kind != want_kind) {
    std::snprintf(what, sizeof what, "policy %s: the reference says %s, llmjson %s", policy_name(p),
                  want_kind.c_str(), got_kind.c_str());
    return disagree(what, s, lib, r.scan);
  }
  if (want.error == ref::error_kind::truncated &&
      (!got.error().truncation ||
       got.error().truncation->position() != r.scan.position(r.scan.truncation.offset))) {
    std::snprintf(what, sizeof what, "policy %s: truncated, but the cut's offset differs",
                  policy_name(p));
    return disagree(what, s, lib, r.scan);
  }
  return true;
}

/// The continuations tried after a settled answer: each could be what the model writes next.
inline std::vector<std::string> continuations(std::string_view rest) {
  std::string reversed(rest.rbegin(), rest.rend());
  return {std::string(),
          std::string(rest),
          reversed,
          "</think>",
          "<think>",
          "}",
          "]",
          "\"",
          "\n```\n",
          "\n```json\n{\"a\": 2}\n```\n",
          "<|end|>{\"a\": 3}",
          "<|channel|>final<|message|>{\"a\": 4}",
          " {\"a\": 5, \"orders\": 1} [\"x\"]",
          std::string(rest.substr(0, rest.size() / 2)) + "</think>" + reversed};
}

template <class Sel>
bool compare_stream(const setup& s, const Sel& sel, llmjson::policy p, const ref::result& r,
                    const llmjson::scan_result& lib) {
  llmjson::options o = s.lib;
  o.policy = p;
  const auto whole = llmjson::extract(s.text, sel, o);
  llmjson::stream<Sel> st(sel, o);
  // Chunk sizes from a hash of the text: 1-byte runs, small and large chunks.
  std::uint64_t h = 1469598103934665603u;
  h += static_cast<unsigned>(p);
  for (char c : s.text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  std::size_t at = 0, settled_after = 0;
  std::optional<std::ptrdiff_t> settled;
  char what[200];
  // completed(), read after some chunks: each entry as it first appeared (offset, length,
  // verdict, reasoning), to hold against finish(), since nothing later may change it.
  struct shown_entry {
    std::ptrdiff_t position;
    std::size_t size;
    bool qualifies, in_reasoning;
    std::string message;
  };
  std::vector<shown_entry> shown_entries;
  bool shrank = false;  // completed() lost entries: only a resource limit crossed later may
  while (at < s.text.size()) {
    h = h * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::size_t kind = (h >> 60) & 3;
    std::size_t n = kind == 0 ? 1 : kind == 1 ? 1 + ((h >> 40) & 7) : 1 + ((h >> 32) & 255);
    n = std::min(n, s.text.size() - at);
    st.feed(s.text.substr(at, n));
    at += n;
    if ((h >> 20) & 1) st.sync();
    if ((h >> 21) & 1) {
      const auto done = st.completed();
      shrank = shrank || done.size() < shown_entries.size();
      for (std::size_t k = shown_entries.size(); k < done.size(); ++k) {
        const llmjson::candidate& c = done[k];
        if (c.prefilled == 0 && c.text != st.text().substr(c.offset, c.text.size()))
          return disagree("a view of completed() is not the text at its offset", s, lib, r.scan);
        shown_entries.push_back(
            {c.position(), c.text.size(), c.qualifies, c.in_reasoning, c.message});
      }
    }
    if (const llmjson::candidate* c = st.settled(); c && !settled) {
      if (p != llmjson::policy::first)
        return disagree("the stream settled under a policy other than first", s, lib, r.scan);
      settled = c->position();
      settled_after = at;
    }
  }
  const auto got = st.finish();
  if (const std::string d = llmjson_test::differs(got, whole); !d.empty()) {
    std::snprintf(what, sizeof what, "policy %s: the stream's finish() differs from extract(): %s",
                  std::string(llmjson::to_string(p)).c_str(), d.c_str());
    return disagree(what, s, lib, r.scan);
  }
  // A resource limit crossed later takes everything back, as documented: nothing to hold.
  const bool limit_crossed = !whole && whole.error().kind == llmjson::error_kind::too_large;
  if (shrank && !limit_crossed)
    return disagree("the stream's completed() shrank, and no resource limit was crossed", s, lib,
                    r.scan);
  if (!shown_entries.empty() && !limit_crossed) {
    const auto& all = whole ? whole->candidates : whole.error().candidates;
    for (std::size_t k = 0; k < shown_entries.size(); ++k) {
      const shown_entry& e = shown_entries[k];
      if (k >= all.size() || all[k].position() != e.position || all[k].text.size() != e.size ||
          all[k].qualifies != e.qualifies || all[k].in_reasoning != e.in_reasoning ||
          all[k].message != e.message) {
        std::snprintf(what, sizeof what,
                      "the stream's completed() showed entry %zu (at %td), and finish() lists "
                      "something else there",
                      k, e.position);
        return disagree(what, s, lib, r.scan);
      }
    }
  }
  if (!settled) return true;
  // Settled: the text so far, followed by anything (within the size limit), gives that answer.
  const std::string_view prefix = s.text.substr(0, settled_after);
  for (const std::string& more : continuations(s.text.substr(settled_after))) {
    const std::string text = std::string(prefix) + more;
    if (text.size() + o.prefill.size() > o.max_input_bytes) continue;
    const auto then = llmjson::extract(text, sel, o);
    if (!then || then->chosen().position() != *settled) {
      std::snprintf(what, sizeof what,
                    "the stream settled on the candidate at %td after %zu bytes, but with \"%s\" "
                    "after them extract() says %s",
                    *settled, settled_after, shown(more, 60).c_str(),
                    then ? ("the one at " + std::to_string(then->chosen().position())).c_str()
                         : std::string(llmjson::to_string(then.error().kind)).c_str());
      return disagree(what, s, lib, r.scan);
    }
  }
  return true;
}

template <class Sel>
void compare(const setup& s, const Sel& sel) {
  const ref::result r = ref::extract(s.text, s.keys, s.ref);
  const llmjson::scan_result lib = llmjson::candidates(s.text, s.lib);
  const auto& want = r.scan.candidates;
  char what[160];
  for (std::size_t i = 0; i < want.size() || i < lib.candidates.size(); ++i) {
    if (i >= want.size() || i >= lib.candidates.size()) {
      std::snprintf(what, sizeof what, "%zu candidates in llmjson, %zu in the reference",
                    lib.candidates.size(), want.size());
      if (!disagree(what, s, lib, r.scan)) return;
    }
    const llmjson::candidate& g = lib.candidates[i];
    const ref::candidate& c = want[i];
    const bool same = g.position() == r.scan.position(c.begin) && g.text == r.scan.span(c) &&
                      g.valid == c.valid && g.raw_controls == c.raw_controls &&
                      g.in_reasoning == c.in_reasoning && lib_source(g.source) == ref_source(c.src);
    if (!same) {
      std::snprintf(what, sizeof what,
                    "candidate %zu differs (span, validity, raw controls, reasoning or source)", i);
      if (!disagree(what, s, lib, r.scan)) return;
    }
  }
  const bool lib_cut = lib.truncation.has_value();
  if (lib_cut != r.scan.truncation.truncated ||
      (lib_cut && (lib.truncation->position() != r.scan.position(r.scan.truncation.offset) ||
                   lib.truncation->reasoning != r.scan.truncation.reasoning))) {
    if (!disagree("the cut differs", s, lib, r.scan)) return;
  }
  for (auto [p, o] :
       {std::pair{ref::policy::first, &r.first},
        std::pair{ref::policy::first_no_fallback, &r.first_no_fallback},
        std::pair{ref::policy::unique, &r.unique}, std::pair{ref::policy::last, &r.last}}) {
    if (!compare_outcome(s, sel, p, *o, r, lib)) return;
  }
  for (llmjson::policy p : {llmjson::policy::first, llmjson::policy::unique})
    if (!compare_stream(s, sel, p, r, lib)) return;
}

}  // namespace llmjson_diff

#endif  // LLMJSON_TESTS_FUZZ_DIFF_COMPARE_HPP_INCLUDED
