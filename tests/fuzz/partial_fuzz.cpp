// llmjson: fuzz target: a stream's partial answer (rules §8) on any bytes, fed in any chunks
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/partial_answer.hpp>
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

}  // namespace

// Input: the first byte chooses the start (unknown or answer) and the chunking's seed, the rest is
// the model's output. It is fed in chunks of 1 to 16 bytes, the partial answer read after each
// (after every few on a long input).
// Properties: no crash, hang or sanitizer report; partial_version() never goes down and partial()
// changes only with it; a partial is never `final` before the end; after finish() the partial is
// the answer (its value, `final`), or none when finish() gives an error; and the promise: every
// partial shown from the answer's candidate (same position) before the end shows complete only
// what the answer holds, equal (a complete candidate's value is the answer's).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t first = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  llmjson::options opts;
  if (first & 1) opts.start = llmjson::output_start::answer;
  llmjson::stream s(llmjson::any_object{}, opts);
  std::vector<llmjson::partial_answer> shown;
  std::uint32_t seed = first;
  std::uint64_t version = 0;
  // A read costs a scan of the text so far: after every chunk up to 4 KB, on a larger seed (the
  // corpus's 200 KB trace) about a thousand reads, or one input would take minutes.
  const std::size_t every = 1 + text.size() / 4096;
  std::size_t chunks = 0;
  for (std::size_t at = 0; at < text.size();) {
    seed = seed * 1103515245u + 12345u;
    const std::size_t n = 1 + (seed >> 16) % 16;
    s.feed(text.substr(at, n));
    at += n;
    if (++chunks % every != 0) continue;
    s.sync();
    require(s.partial_version() >= version, "partial_version() went down");
    const bool changed = s.partial_version() != version;
    version = s.partial_version();
    const std::optional<llmjson::partial_answer> p = s.partial();
    if (!p) continue;
    require(!p->final, "a partial before the end is final");
    if (!changed && !shown.empty())
      require(shown.back().value == p->value, "partial() changed with the same version");
    if (shown.empty() || shown.back().value != p->value || shown.back().open != p->open ||
        shown.back().offset != p->offset)
      shown.push_back(*p);
  }
  const llmjson::result<llmjson::extraction> r = s.finish();
  const std::optional<llmjson::partial_answer> end = s.partial();
  if (!r) {
    require(!end, "a partial after an error");
    return 0;
  }
  require(end && end->final && end->value == r->json(),
          "after finish() the partial is not the answer");
  if (r->fallback) return 0;  // never a partial; nothing to hold to
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
  return 0;
}
