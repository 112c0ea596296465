// llmjson: fuzz target: candidates() and extract() against the reference implementation
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/stream.hpp>

#include "../reference/reference.hpp"
#include "../same_result.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// On every input, the library and tests/reference/reference.hpp (a second implementation of
// tests/corpus/README.md, written from the text) must agree on the candidates (spans, validity,
// reasoning membership, source), on the cut (its offset and whether it is a reasoning region) and,
// for a key selector, on the outcome of policies first (with and without the fallback), unique
// and last: the chosen span, the fallback flag, or the error kind and the cut it names.
//
// Input: a text, or a 3-byte header then a text. A first byte below 0x04 marks the header (LLM
// text never starts so; a text that does is tested behind a header): byte 1 picks the options,
// byte 2 the key set. Without a header: default options, any object.
//
// The stream is a third party: fed the text in chunks (their sizes drawn from the input), its
// finish() must equal extract() exactly, and whenever it says the answer is settled, extract()
// on the text so far followed by any continuation (a few are tried) must return that answer.
//
// LLMJSON_DIFF_REPORT=N in the environment prints the first N disagreements and goes on instead
// of aborting at the first (to survey what differs).

namespace {

namespace ref = llmjson_ref;

struct setup {
  std::string_view text;
  std::vector<std::string> keys;
  llmjson::options lib;
  ref::options ref;
  unsigned char header[3] = {0, 0, 0};
  bool has_header = false;
};

const std::vector<std::vector<std::string>>& key_sets() {
  static const std::vector<std::vector<std::string>> sets = {
      {}, {"a"}, {"id"}, {"orders", "helm"}, {"a", "b"}, {"name"}, {"\xC3\xA9"}, {""}, {"a\"b"}};
  return sets;
}

// Caller marker pairs: one plain, one longer than a built-in opener at the same position (C6),
// one that shares a prefix with a harmony token.
const std::vector<std::vector<llmjson::marker_pair>>& marker_sets() {
  static const std::vector<std::vector<llmjson::marker_pair>> sets = {
      {},
      {{"<scratch>", "</scratch>"}},
      {{"<think>>", "<<end>"}},
      {{"<scratch>", "</scratch>"}, {"<|channel|>x", "<|stop|>"}, {"<think>", "<<end>"}}};
  return sets;
}

setup decode_input(const std::uint8_t* data, std::size_t size) {
  setup s;
  s.text = std::string_view(reinterpret_cast<const char*>(data), size);
  if (size == 0 || data[0] >= 0x04) return s;
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
  switch ((opt >> 5) & 3) {
    case 1: s.lib.max_input_bytes = 64; break;
    case 2: s.lib.max_input_bytes = s.text.size(); break;
    case 3: s.lib.max_input_bytes = s.text.empty() ? 0 : s.text.size() - 1; break;
    default: break;
  }
  s.keys = key_sets()[key % key_sets().size()];
  s.ref.start = s.lib.start == llmjson::output_start::reasoning ? ref::output_start::reasoning
                : s.lib.start == llmjson::output_start::answer  ? ref::output_start::answer
                                                                : ref::output_start::unknown;
  s.ref.reasoning_regions = s.lib.reasoning_regions;
  for (const auto& p : s.lib.reasoning_markers) s.ref.markers.push_back({p.open, p.close});
  s.ref.max_input_bytes = s.lib.max_input_bytes;
  return s;
}

std::string shown(std::string_view t, std::size_t most = 400) {
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

std::string_view lib_source(llmjson::source s) { return llmjson::to_string(s); }
std::string_view ref_source(ref::source s) {
  return s == ref::source::scan ? "prose" : ref::to_string(s);
}

void print_both(const setup& s, const llmjson::scan_result& lib, const ref::scan_result& r) {
  std::fprintf(stderr, "  text: \"%s\"\n", shown(s.text).c_str());
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
    std::fprintf(stderr, "    [%zu,%zu) %s%s%s \"%s\"\n", c.offset, c.offset + c.text.size(),
                 std::string(lib_source(c.source)).c_str(), c.valid ? "" : " invalid",
                 c.in_reasoning ? " reasoning" : "", shown(c.text, 80).c_str());
  if (lib.truncation)
    std::fprintf(stderr, "    cut@%zu%s\n", lib.truncation->offset,
                 lib.truncation->reasoning ? " reasoning" : "");
  std::fprintf(stderr, "  reference:\n");
  for (const auto& c : r.candidates)
    std::fprintf(stderr, "    [%zu,%zu) %s%s%s \"%s\"\n", c.begin, c.end,
                 std::string(ref_source(c.src)).c_str(), c.valid ? "" : " invalid",
                 c.in_reasoning ? " reasoning" : "",
                 shown(s.text.substr(c.begin, c.end - c.begin), 80).c_str());
  if (r.truncation.truncated)
    std::fprintf(stderr, "    cut@%zu%s\n", r.truncation.offset,
                 r.truncation.reasoning ? " reasoning" : "");
}

long report_budget() {
  static const long budget = [] {
    const char* e = std::getenv("LLMJSON_DIFF_REPORT");
    return e ? std::atol(e) : 0L;
  }();
  return budget;
}

/// Reports a disagreement: aborts, or with LLMJSON_DIFF_REPORT prints it and tells the caller to
/// stop comparing this input.
bool disagree(const char* what, const setup& s, const llmjson::scan_result& lib,
              const ref::scan_result& r) {
  static long reported = 0;
  std::fprintf(stderr, "llmjson differs from the reference: %s\n", what);
  print_both(s, lib, r);
  if (++reported > report_budget()) std::abort();
  return false;
}

const char* policy_name(ref::policy p) {
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
    if (!got) {
      std::snprintf(what, sizeof what, "policy %s: the reference chose [%zu,%zu), llmjson: %s",
                    policy_name(p), c.begin, c.end,
                    std::string(llmjson::to_string(got.error().kind)).c_str());
      return disagree(what, s, lib, r.scan);
    }
    const llmjson::candidate& g = got->chosen();
    if (g.offset != c.begin || g.offset + g.text.size() != c.end ||
        got->fallback != want.fallback) {
      std::snprintf(what, sizeof what,
                    "policy %s: the reference chose [%zu,%zu)%s, llmjson [%zu,%zu)%s",
                    policy_name(p), c.begin, c.end, want.fallback ? " (fallback)" : "", g.offset,
                    g.offset + g.text.size(), got->fallback ? " (fallback)" : "");
      return disagree(what, s, lib, r.scan);
    }
    if (got->truncation.has_value() != r.scan.truncation.truncated ||
        (got->truncation && got->truncation->offset != r.scan.truncation.offset)) {
      std::snprintf(what, sizeof what, "policy %s: the answer's truncation differs",
                    policy_name(p));
      return disagree(what, s, lib, r.scan);
    }
    return true;
  }
  const std::string want_kind(ref::to_string(want.error));
  if (got) {
    std::snprintf(what, sizeof what, "policy %s: the reference says %s, llmjson chose [%zu,%zu)",
                  policy_name(p), want_kind.c_str(), got->chosen().offset,
                  got->chosen().offset + got->chosen().text.size());
    return disagree(what, s, lib, r.scan);
  }
  const std::string got_kind(llmjson::to_string(got.error().kind));
  if (got_kind != want_kind) {
    std::snprintf(what, sizeof what, "policy %s: the reference says %s, llmjson %s", policy_name(p),
                  want_kind.c_str(), got_kind.c_str());
    return disagree(what, s, lib, r.scan);
  }
  if (want.error == ref::error_kind::truncated &&
      (!got.error().truncation || got.error().truncation->offset != r.scan.truncation.offset)) {
    std::snprintf(what, sizeof what, "policy %s: truncated, but the cut's offset differs",
                  policy_name(p));
    return disagree(what, s, lib, r.scan);
  }
  return true;
}

/// The continuations tried after a settled answer: each could be what the model writes next.
std::vector<std::string> continuations(std::string_view rest) {
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
  std::optional<std::size_t> settled;
  char what[200];
  // completed(), read after some chunks: each entry as it first appeared (offset, length,
  // verdict, reasoning), to hold against finish(), since nothing later may change it.
  struct shown_entry {
    std::size_t offset, size;
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
        if (c.text != st.text().substr(c.offset, c.text.size()))
          return disagree("a view of completed() is not the text at its offset", s, lib, r.scan);
        shown_entries.push_back({c.offset, c.text.size(), c.qualifies, c.in_reasoning, c.message});
      }
    }
    if (const llmjson::candidate* c = st.settled(); c && !settled) {
      if (p != llmjson::policy::first)
        return disagree("the stream settled under a policy other than first", s, lib, r.scan);
      settled = c->offset;
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
      if (k >= all.size() || all[k].offset != e.offset || all[k].text.size() != e.size ||
          all[k].qualifies != e.qualifies || all[k].in_reasoning != e.in_reasoning ||
          all[k].message != e.message) {
        std::snprintf(what, sizeof what,
                      "the stream's completed() showed entry %zu (at %zu), and finish() lists "
                      "something else there",
                      k, e.offset);
        return disagree(what, s, lib, r.scan);
      }
    }
  }
  if (!settled) return true;
  // Settled: the text so far, followed by anything (within the size limit), gives that answer.
  const std::string_view prefix = s.text.substr(0, settled_after);
  for (const std::string& more : continuations(s.text.substr(settled_after))) {
    const std::string text = std::string(prefix) + more;
    if (text.size() > o.max_input_bytes) continue;
    const auto then = llmjson::extract(text, sel, o);
    if (!then || then->chosen().offset != *settled) {
      std::snprintf(what, sizeof what,
                    "the stream settled on the candidate at %zu after %zu bytes, but with \"%s\" "
                    "after them extract() says %s",
                    *settled, settled_after, shown(more, 60).c_str(),
                    then ? ("the one at " + std::to_string(then->chosen().offset)).c_str()
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
    const bool same = g.offset == c.begin && g.offset + g.text.size() == c.end &&
                      g.valid == c.valid && g.in_reasoning == c.in_reasoning &&
                      lib_source(g.source) == ref_source(c.src);
    if (!same) {
      std::snprintf(what, sizeof what,
                    "candidate %zu differs (span, validity, reasoning or source)", i);
      if (!disagree(what, s, lib, r.scan)) return;
    }
  }
  const bool lib_cut = lib.truncation.has_value();
  if (lib_cut != r.scan.truncation.truncated ||
      (lib_cut && (lib.truncation->offset != r.scan.truncation.offset ||
                   lib.truncation->reasoning != r.scan.truncation.reasoning))) {
    if (!disagree("the cut differs", s, lib, r.scan)) return;
  }
  for (auto [p, o] :
       {std::pair{ref::policy::first, &r.first},
        std::pair{ref::policy::first_no_fallback, &r.first_no_fallback},
        std::pair{ref::policy::unique, &r.unique}, std::pair{ref::policy::last, &r.last}})
    if (!compare_outcome(s, sel, p, *o, r, lib)) return;
  for (llmjson::policy p : {llmjson::policy::first, llmjson::policy::unique})
    if (!compare_stream(s, sel, p, r, lib)) return;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const setup s = decode_input(data, size);
  if (s.keys.empty()) {
    compare(s, llmjson::any_object{});
  } else {
    compare(s, llmjson::any_key(s.keys));
  }
  return 0;
}

#ifdef LLMJSON_FUZZ_LIBFUZZER
// A generator of LLM-like text for libFuzzer: besides its own mutations, it inserts the pieces
// model outputs are made of (markers, fences on their own lines, JSON fragments, brackets of
// prose, CRLF, multi-byte UTF-8), cuts the text short as max_tokens does, and rewrites the
// options header. Inputs stay short (-max_len defaults to 4096 here) so the reference stays fast.

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

const std::vector<std::string_view>& pieces() {
  static const std::vector<std::string_view> p = {
      "<think>",
      "</think>",
      "<thinking>",
      "</THINKING>",
      "<reasoning>",
      "</reasoning>",
      "[THINK]",
      "[/THINK]",
      "<|START_THINKING|>",
      "<|END_THINKING|>",
      "<|begin_of_thought|>",
      "<|end_of_thought|>",
      "<seed:think>",
      "</seed:think>",
      "\xE2\x97\x81think\xE2\x96\xB7",
      "\xE2\x97\x81/think\xE2\x96\xB7",
      "<scratch>",
      "</scratch>",
      "<think>>",
      "<<end>",
      "<|channel|>",
      "<|channel|>analysis<|message|>",
      "<|channel|>final<|message|>",
      "<|channel|>commentary to=functions.f <|constrain|>json<|message|>",
      "<|end|>",
      "<|start|>assistant",
      "<|message|>",
      "<|return|>",
      "<|call|>",
      "<|constrain|>",
      "<|channel|>x",
      "<|stop|>",
      "\n```json\n",
      "\n```\n",
      "```",
      "\n~~~\n",
      "\n````\n",
      "\n   ```js\n",
      "{",
      "}",
      "[",
      "]",
      "\"",
      "\\",
      ":",
      ",",
      "{\"a\": 1}",
      "{\"id\": 2}",
      "{\"orders\": []}",
      "{\"name\": \"x\"}",
      "[1, 2]",
      "[\"a\", \"b\"]",
      "[{\"a\": 1}]",
      "{\"a\": ",
      "{\"a\":1,\"a\":2}",
      "{\"\\u0061\": 0}",
      "[1,]",
      "{'a': 1}",
      "1e400",
      "true",
      "null",
      "-",
      "\"\\ud800\"",
      "\\u00e9",
      "[1]",
      "[text](url)",
      "[ ]",
      "[[x]]",
      "{{name}}",
      "{Note: x}",
      "\\frac{a}{b}",
      "\r\n",
      "\n",
      " ",
      "\t",
      "\xEF\xBB\xBF",
      "\xC3\xA9",
      "\xF0\x9F\x98\x80",
      "\xE6\x9D\xB1",
      "\xC3",
      "\x00",
      "\f"};
  return p;
}

std::uint64_t next(std::uint64_t& state) {  // splitmix64
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Short inputs by default (the corpus holds a 200 KB case that would set libFuzzer's guess).
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], "-max_len=", 9) == 0) return 0;
  static std::vector<char*> args;
  static char max_len[] = "-max_len=4096";
  args.assign(*argv, *argv + *argc);
  args.insert(args.begin() + 1, max_len);
  args.push_back(nullptr);
  *argc += 1;
  *argv = args.data();
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  std::uint64_t state = seed;
  const std::uint64_t choice = next(state) % 8;
  if (choice < 3) return LLVMFuzzerMutate(data, size, max_size);
  if (choice < 6) {  // insert a piece (one to three of them)
    const std::uint64_t count = 1 + next(state) % 3;
    for (std::uint64_t k = 0; k < count; ++k) {
      const std::string_view piece = pieces()[next(state) % pieces().size()];
      if (size + piece.size() > max_size) break;
      const std::size_t at = size ? static_cast<std::size_t>(next(state) % (size + 1)) : 0;
      std::memmove(data + at + piece.size(), data + at, size - at);
      std::memcpy(data + at, piece.data(), piece.size());
      size += piece.size();
    }
    return size;
  }
  if (choice == 6 && size > 1) {  // cut short, as max_tokens does
    return 1 + static_cast<std::size_t>(next(state) % (size - 1));
  }
  // Set or change the options header.
  const bool has = size > 0 && data[0] < 0x04;
  if (!has) {
    if (size + 3 > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memmove(data + 3, data, size);
    size += 3;
  }
  data[0] = static_cast<std::uint8_t>(next(state) % 4);
  data[1] = static_cast<std::uint8_t>(next(state));
  data[2] = static_cast<std::uint8_t>(next(state));
  return size;
}
#endif  // LLMJSON_FUZZ_LIBFUZZER
