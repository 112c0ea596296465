// llmjson: fuzz target: a stream's partial answer (rules §8) on any bytes, fed in any chunks
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/partial_answer.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/schema_of.hpp>
#include <llmjson/stream.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

void require(bool ok, const char* property) {
  if (!ok) {
    std::fprintf(stderr, "llmjson property violated: %s\n", property);
    std::abort();
  }
}

/// The reference tokens of a JSON pointer (`/a/0/b~1c` → a, 0, b/c).
std::vector<std::string> tokens_of(std::string_view pointer) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < pointer.size();) {
    ++at;  // the '/'
    std::string token;
    for (; at < pointer.size() && pointer[at] != '/'; ++at) {
      if (pointer[at] == '~' && at + 1 < pointer.size()) {
        token += pointer[at + 1] == '1' ? '/' : '~';
        ++at;
      } else {
        token += pointer[at];
      }
    }
    out.push_back(std::move(token));
  }
  return out;
}

/// Rules §8, the promise: what `shown` shows complete is in `answer`, equal. `path` is the open
/// path below `shown` (from `open`); at its end, `shown` is the value still being written: a
/// string that `answer`'s begins with, or an array or object whose members and elements shown
/// are complete.
bool kept(const nlohmann::json& shown, const nlohmann::json& answer,
          const std::vector<std::string>& path, std::size_t depth) {
  if (shown.is_string())  // the string being written: the answer's begins with it
    return depth == path.size() && answer.is_string() &&
           answer.get_ref<const std::string&>().rfind(shown.get_ref<const std::string&>(), 0) == 0;
  const bool open_here = depth == path.size();
  if (shown.is_object()) {
    if (!answer.is_object()) return false;
    for (const auto& [key, value] : shown.items()) {
      const auto it = answer.find(key);
      if (it == answer.end()) return false;
      const bool on_path = !open_here && path[depth] == key;
      if (on_path ? !kept(value, *it, path, depth + 1) : value != *it) return false;
    }
    return true;
  }
  if (shown.is_array()) {
    if (!answer.is_array() || answer.size() < shown.size()) return false;
    for (std::size_t i = 0; i < shown.size(); ++i) {
      const bool on_path = !open_here && path[depth] == std::to_string(i);
      if (on_path ? !kept(shown[i], answer[i], path, depth + 1) : shown[i] != answer[i])
        return false;
    }
    return true;
  }
  return false;  // a scalar is never open: shown only complete, compared by its container
}

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

/// A small schema: `a` a short string, `b` integers, `a` required.
const llmjson::schema& small_schema() {
  static const llmjson::schema s(nlohmann::json::parse(R"({
    "type": "object",
    "properties": {"a": {"type": "string", "maxLength": 5},
                   "b": {"type": "array", "items": {"type": "integer"}}},
    "required": ["a"]})"));
  return s;
}

/// Up to two keys from the input: its first quoted words of 1 to 8 bytes (`a` when none).
std::vector<std::string> keys_of(std::string_view text) {
  std::vector<std::string> keys;
  for (std::size_t at = text.find('"'); at != std::string_view::npos && keys.size() < 2;) {
    const std::size_t end = text.find('"', at + 1);
    if (end == std::string_view::npos) break;
    const std::string_view word = text.substr(at + 1, end - at - 1);
    if (!word.empty() && word.size() <= 8 && word.find('\\') == std::string_view::npos) {
      keys.emplace_back(word);
      at = text.find('"', end + 1);
    } else {
      at = end;
    }
  }
  if (keys.empty()) keys.emplace_back("a");
  return keys;
}

/// The stream's partials on `text` in chunks from `seed` (`sync()` after each when `sync`),
/// checked: against the text read again (`detail::partial_so_far`), the version contract, and
/// the promise against finish()'s answer.
template <class S>
void check(const S& sel, const llmjson::options& opts, std::string_view text, std::uint32_t seed,
           bool sync) {
  llmjson::stream<S> s(sel, opts);
  std::vector<llmjson::partial_answer> shown;
  std::uint64_t version = 0;
  std::optional<llmjson::partial_answer> last;
  // A read can cost the text so far (the oracle always, the partial where it reads the text
  // again: a whole output that is a JSON prefix...), so reading after every chunk is quadratic:
  // after every chunk up to about 4 KB; past it, every few chunks, so that one input costs about
  // 2^24 bytes of partials and 2^23 of oracle (the corpus's 200 KB trace: about 150 partials
  // and 80 oracle reads), or one input would take minutes under the sanitizers.
  const std::size_t chunks_in = text.size() / 8 + 1;
  const std::size_t every_partial = 1 + text.size() * chunks_in / (std::size_t{2} << 24);
  const std::size_t every_oracle = 1 + text.size() * chunks_in / (std::size_t{2} << 23);
  std::size_t chunks = 0;
  std::uint64_t read_version = 0;  // the version at the last partial() read
  for (std::size_t at = 0; at < text.size();) {
    seed = seed * 1103515245u + 12345u;
    const std::size_t n = 1 + (seed >> 16) % 16;
    s.feed(text.substr(at, n));
    at += n;
    if (sync) s.sync();
    require(s.partial_version() >= version, "partial_version() went down");
    version = s.partial_version();
    ++chunks;
    if (chunks % every_partial != 0 && at < text.size()) continue;
    const bool changed = version != read_version;
    read_version = version;
    const std::optional<llmjson::partial_answer> p = s.partial();
    if (!changed) require(same(p, last), "partial() changed with the same version");
    last = p;
    if (chunks % every_oracle == 0) {
      const std::string_view read = llmjson::detail::stream_probe::text_read(s);
      require(same(p, llmjson::detail::partial_so_far(read, sel, opts)),
              "the partial differs from the text read again");
    }
    if (!p) continue;
    require(!p->final, "a partial before the end is final");
    if (shown.empty() || shown.back().value != p->value || shown.back().open != p->open ||
        shown.back().offset != p->offset)
      shown.push_back(*p);
  }
  const llmjson::result<llmjson::extraction> r = s.finish();
  const std::optional<llmjson::partial_answer> end = s.partial();
  require(s.partial_version() != version, "the version did not change at the end");
  if (!r) {
    require(!end, "a partial after an error");
    return;
  }
  require(end && end->final && end->value == r->json(),
          "after finish() the partial is not the answer");
  if (r->fallback) return;  // never a partial; nothing to hold to
  const llmjson::candidate& answer = r->chosen();
  for (const llmjson::partial_answer& p : shown) {
    if (p.position() != answer.position()) continue;
    const std::vector<std::string> path = p.open ? tokens_of(*p.open) : std::vector<std::string>{};
    if (!p.open) {
      require(p.value == r->json(), "a complete partial of the answer's candidate differs from it");
    } else {
      require(kept(p.value, r->json(), path, 0),
              "the answer lost or changed what a partial showed complete");
    }
  }
}

}  // namespace

// Input: the first byte chooses the start (bit 0: unknown or answer), the selector (bits 1-2:
// any_object, any_key with the input's first quoted words, a small schema, decode<T> of a
// LLMJSON_DEFINE_TYPE struct), whether sync() follows each chunk (bit 3), and the chunking's
// seed; the rest is the model's output. It is fed in chunks of 1 to 16 bytes, the partial answer
// read after each (every few chunks on a large input).
// Properties: no crash, hang or sanitizer report; partial_version() never goes down, and an equal
// version gives the same partial (every field); the partial equals the one made by reading the
// text so far again (`detail::partial_so_far`; both read after every chunk up to about 4 KB,
// every few chunks past it);
// a partial is never `final` before the end; after finish() the partial is the answer (its value,
// `final`), or none when finish() gives an error; and the promise: every partial shown from the
// answer's candidate (same position) before the end shows complete only what the answer holds,
// equal (a complete candidate's value is the answer's).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t first = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  llmjson::options opts;
  if (first & 1) opts.start = llmjson::output_start::answer;
  const bool sync = (first & 8) != 0;
  switch ((first >> 1) & 3) {
    case 0: check(llmjson::any_object{}, opts, text, first, sync); break;
    case 1: check(llmjson::any_key(keys_of(text)), opts, text, first, sync); break;
    case 2: check(small_schema(), opts, text, first, sync); break;
    default: check(llmjson::decode<plan>{}, opts, text, first, sync); break;
  }
  return 0;
}
