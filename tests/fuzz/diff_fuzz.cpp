// llmjson: fuzz target: candidates() and extract() against the reference implementation
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/stream.hpp>

#include "diff_compare.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// On every input, the library and tests/reference/reference.hpp (a second implementation of
// tests/corpus/README.md, rules v4, written from the text) must agree on the candidates (spans as
// positions in the output, negative in the prefill, and their text; validity, raw controls,
// reasoning membership, source), on the cut (its position and whether it is a reasoning region)
// and, for a key selector, on the outcome of policies first (with and without the fallback),
// unique and last: the chosen span, the fallback flag, or the error kind and the cut it names.
// Under unique, values are compared as exact decimals by both (the library after nlohmann's ==,
// whose doubles may round two different numbers alike), so policy unique is compared always.
//
// Input: a text, or a 3-byte header then a text. A first byte below 0x08 marks the header (LLM
// text never starts so; a text that does is tested behind a header): byte 0 picks the prefill
// (0-3: none, so the v3 seeds keep their meaning; 4 `{`, 5 "```json\n", 6 `<think>`, 7
// "Here are my reasoning steps:\n"), byte 1 the options (bit 7: one reasoning format switched off,
// which one by byte 2 / 9), byte 2 the key set (byte 2 % 9). Without a header: default options,
// no prefill, any object.
//
// The stream is a third party: fed the text in chunks (their sizes drawn from the input), its
// finish() must equal extract() exactly, and whenever it says the answer is settled, extract()
// on the text so far followed by any continuation (a few are tried) must return that answer.
//
// LLMJSON_DIFF_REPORT=N in the environment prints the first N disagreements and goes on instead
// of aborting at the first (to survey what differs).

namespace {

using llmjson_diff::compare;
using llmjson_diff::decode_input;
using llmjson_diff::setup;

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
      "<think>", "</think>", "<thinking>", "</THINKING>", "<reasoning>", "</reasoning>", "[THINK]",
      "[/THINK]", "<|START_THINKING|>", "<|END_THINKING|>", "<|begin_of_thought|>",
      "<|end_of_thought|>", "<seed:think>", "</seed:think>", "\xE2\x97\x81think\xE2\x96\xB7",
      "\xE2\x97\x81/think\xE2\x96\xB7", "<scratch>", "</scratch>", "<think>>", "<<end>",
      "<|channel|>", "<|channel|>analysis<|message|>", "<|channel|>final<|message|>",
      "<|channel|>commentary to=functions.f <|constrain|>json<|message|>", "<|end|>",
      "<|start|>assistant", "<|message|>", "<|return|>", "<|call|>", "<|constrain|>",
      "<|channel|>x", "<|stop|>", "\n```json\n", "\n```\n", "```", "\n~~~\n", "\n````\n",
      "\n   ```js\n", "{", "}", "[", "]", "\"", "\\", ":", ",", "{\"a\": 1}", "{\"id\": 2}",
      "{\"orders\": []}", "{\"name\": \"x\"}", "[1, 2]", "[\"a\", \"b\"]", "[{\"a\": 1}]",
      "{\"a\": ", "{\"a\":1,\"a\":2}", "{\"\\u0061\": 0}", "[1,]", "{'a': 1}", "1e400", "true",
      "null", "-", "\"\\ud800\"", "\\u00e9", "[1]", "[text](url)", "[ ]", "[[x]]", "{{name}}",
      "{Note: x}", "\\frac{a}{b}", "\r\n", "\n", " ", "\t", "\xEF\xBB\xBF", "\xC3\xA9",
      "\xF0\x9F\x98\x80", "\xE6\x9D\xB1", "\xC3", "\x00", "\f",
      // Rules v4. Raw control characters inside strings (valid with raw controls, or not).
      "{\"note\": \"line one\nline two\"}", "{\"a\": \"x\r\ny\", \"b\": \"\t\"}",
      "[\"a\", \"b\tc\"]", "{\"a\": \"\f\"}", "{\"a\": \"\\\n\"}", "{\"a\": {\"k\ny\": 1}}",
      "{\"a\": \"x\ny\",}", "\"\n",
      // New tag pairs, Gemma 4's channel, and near misses of it.
      "<thought>", "</thought>", "<Thought>", "<longcat_think>", "</longcat_think>",
      "<|channel>thought", "<|channel>THOUGHT", "<|channel>", "<channel|>", "<|channel>final",
      // Phrase pairs (at the start only, byte for byte) and near misses.
      "Here is my thought process:", "Here's my thought process:", "Here is my response:",
      "Here's my response:", "here is my response:", "Here is My thought process:",
      "Here are my reasoning steps:", "here are my reasoning steps:", "[BEGIN FINAL RESPONSE]",
      "[END FINAL RESPONSE]", "[end final response]", "Thinking...", "thinking...",
      "...done thinking.", "...Done thinking.",
      // <|end|> with or without a harmony-only token after it (the already-open rule).
      "<|end|><|start|>assistant", "}<|end|>", "<|end|><|return|>", "<|call|><|constrain|>",
      // Equal answers for unique, and numbers equal as values.
      "{\"a\":1}", "{\"a\":1.0}", "{\"a\":10e-1}", "{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1}",
      "{\"a\":-0}", "{\"a\":0.0}", "{\"a\":true}", "{\"a\":\"\\u0031\"}", "{\"a\":\"1\"}",
      "[1e2, 100]"};
  return p;
}

/// The phrases that count only at the start of the text: a quarter of the insertions of one of
/// them go there.
bool starts_only(std::string_view piece) {
  return piece.substr(0, 5) == "Here " || piece.substr(0, 5) == "Here'" ||
         piece.substr(0, 5) == "here " || piece == "Thinking..." || piece == "thinking...";
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
      const bool header = size > 0 && data[0] < 0x08;
      const std::size_t start = header ? std::min<std::size_t>(size, 3) : 0;
      std::size_t at = size ? static_cast<std::size_t>(next(state) % (size + 1)) : 0;
      if (starts_only(piece) && next(state) % 4 == 0) at = start;
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
  const bool has = size > 0 && data[0] < 0x08;
  if (!has) {
    if (size + 3 > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memmove(data + 3, data, size);
    size += 3;
  }
  data[0] = static_cast<std::uint8_t>(next(state) % 8);
  data[1] = static_cast<std::uint8_t>(next(state));
  data[2] = static_cast<std::uint8_t>(next(state));
  return size;
}
#endif  // LLMJSON_FUZZ_LIBFUZZER
