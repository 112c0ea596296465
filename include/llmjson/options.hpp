// llmjson: policy and options, the knobs of extraction
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_OPTIONS_HPP_INCLUDED
#define LLMJSON_OPTIONS_HPP_INCLUDED

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/enum_names.hpp>

namespace llmjson {

/// How one answer is chosen among the qualifying candidates.
enum class policy {
  first,   ///< the first qualifying candidate in document order (fallback: the first valid one
           ///< that no frame encloses)
  unique,  ///< exactly one value qualifies (equal ones count once), else `ambiguous` /
           ///< `no_match`: never a guess
  last,    ///< the last qualifying candidate (self-correcting models)
};

/// Returns the policy's name: `"unique"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(policy p) noexcept {
  switch (p) {
    case policy::first: return "first";
    case policy::unique: return "unique";
    case policy::last: return "last";
  }
  return "unknown";
}

/// Every `policy`: `from_string<policy>("unique") == policy::unique`.
template <>
inline constexpr std::array enumerators<policy>{policy::first, policy::unique, policy::last};

/// The deepest nesting llmjson ever lets through, whatever `options::max_depth` says: nlohmann's
/// copy, `dump` and `==` recurse, and values much deeper than this overflow a thread's stack.
inline constexpr std::size_t max_depth_limit = 2048;

/// The longest output `extract` scans by default (64 MiB): `options::max_input_bytes`.
inline constexpr std::size_t default_max_input_bytes = std::size_t{64} << 20;

/// A reasoning region's markers of the caller's own, such as `<notes>` and `</notes>`.
/// Matched as the built-in ones are: a plain search, ASCII letters case-insensitively.
/// A pair with an empty side is left out (it would match everywhere).
struct marker_pair {
  std::string open;   ///< opens a region
  std::string close;  ///< closes it
};

/// What the caller knows of how its prompt leaves the start of the output. Whatever it says,
/// stripped harmony (an output that begins with `analysis`, holds `assistantfinal` after it and
/// no harmony token: gpt-oss with its special tokens removed) and the phrase pairs (an output
/// that begins with Granite's `Here is my thought process:`, Apriel's `Here are my reasoning
/// steps:` or Ollama's `Thinking...`) are read from the output: the text through the closing
/// word or phrase is reasoning and the answer text follows.
enum class output_start {
  /// The default: a closing marker before any opening one means the chat template opened the
  /// reasoning in the prompt, so the output starts inside it (the already-open rule; a harmony
  /// `<|end|>` or `<|call|>` only when a token only harmony uses, such as `<|start|>`, follows
  /// it).
  unknown,
  /// The prompt opened the reasoning (a template that prefills `<think>`): everything up to the
  /// first closing marker (of a tag pair other than `</details>`, or harmony `<|end|>` or
  /// `<|call|>`) is reasoning, and all of the output when there is none.
  reasoning,
  /// The output starts in answer text (no reasoning model, or reasoning sent apart): a closing
  /// marker before any opening one is text.
  answer,
};

/// Returns the name: `"unknown"`, `"reasoning"`, `"answer"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(output_start s) noexcept {
  switch (s) {
    case output_start::unknown: return "unknown";
    case output_start::reasoning: return "reasoning";
    case output_start::answer: return "answer";
  }
  return "unknown";
}

/// Every `output_start`: `from_string<output_start>("reasoning") == output_start::reasoning`.
template <>
inline constexpr std::array enumerators<output_start>{
    output_start::unknown, output_start::reasoning, output_start::answer};

/// A built-in reasoning format (§2 Reasoning regions), for `options::reasoning_off`: its markers
/// (and, for `apriel`, the `[END FINAL RESPONSE]` cut) become text.
enum class reasoning_format : unsigned char {
  think,             ///< `<think>`...`</think>`
  thinking,          ///< `<thinking>`...`</thinking>`
  reasoning,         ///< `<reasoning>`...`</reasoning>`
  think_brackets,    ///< `[THINK]`...`[/THINK]`
  command_r,         ///< `<|START_THINKING|>`...`<|END_THINKING|>`
  begin_of_thought,  ///< `<|begin_of_thought|>`...`<|end_of_thought|>`
  seed_think,        ///< `<seed:think>`...`</seed:think>`
  kimi,              ///< `◁think▷`...`◁/think▷`
  scratchpad,        ///< `<scratchpad>`...`</scratchpad>`
  thought,           ///< `<thought>`...`</thought>` (EXAONE Deep, Marco-o1's `<Thought>`)
  longcat_think,     ///< `<longcat_think>`...`</longcat_think>`
  gemma4_channel,    ///< Gemma 4's `<|channel>thought`...`<channel|>`
  details,           ///< Open WebUI's `<details type="reasoning">`...`</details>`
  harmony,           ///< gpt-oss harmony: its seven tokens (messages and cuts) become text
  stripped_harmony,  ///< `analysis`...`assistantfinal` (harmony without its special tokens)
  granite,           ///< `Here is my thought process:`...`Here is my response:` (Granite 3.2)
  apriel,  ///< `Here are my reasoning steps:`...`[BEGIN FINAL RESPONSE]`, `[END FINAL RESPONSE]`
  ollama,  ///< `Thinking...`...`...done thinking.` (an `ollama run` transcript)
};

/// Returns the format's name, its enumerator's: `"think_brackets"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(reasoning_format f) noexcept {
  switch (f) {
    case reasoning_format::think: return "think";
    case reasoning_format::thinking: return "thinking";
    case reasoning_format::reasoning: return "reasoning";
    case reasoning_format::think_brackets: return "think_brackets";
    case reasoning_format::command_r: return "command_r";
    case reasoning_format::begin_of_thought: return "begin_of_thought";
    case reasoning_format::seed_think: return "seed_think";
    case reasoning_format::kimi: return "kimi";
    case reasoning_format::scratchpad: return "scratchpad";
    case reasoning_format::thought: return "thought";
    case reasoning_format::longcat_think: return "longcat_think";
    case reasoning_format::gemma4_channel: return "gemma4_channel";
    case reasoning_format::details: return "details";
    case reasoning_format::harmony: return "harmony";
    case reasoning_format::stripped_harmony: return "stripped_harmony";
    case reasoning_format::granite: return "granite";
    case reasoning_format::apriel: return "apriel";
    case reasoning_format::ollama: return "ollama";
  }
  return "unknown";
}

/// Every `reasoning_format`: `from_string<reasoning_format>("kimi") == reasoning_format::kimi`.
template <>
inline constexpr std::array enumerators<reasoning_format>{reasoning_format::think,
                                                          reasoning_format::thinking,
                                                          reasoning_format::reasoning,
                                                          reasoning_format::think_brackets,
                                                          reasoning_format::command_r,
                                                          reasoning_format::begin_of_thought,
                                                          reasoning_format::seed_think,
                                                          reasoning_format::kimi,
                                                          reasoning_format::scratchpad,
                                                          reasoning_format::thought,
                                                          reasoning_format::longcat_think,
                                                          reasoning_format::gemma4_channel,
                                                          reasoning_format::details,
                                                          reasoning_format::harmony,
                                                          reasoning_format::stripped_harmony,
                                                          reasoning_format::granite,
                                                          reasoning_format::apriel,
                                                          reasoning_format::ollama};

/// Options of `extract`, `candidates` and the retry wrapper. Designated initializers read well:
/// `llmjson::options{.policy = llmjson::policy::unique, .fallback = false}`.
struct options {
  /// How to choose. Unset: the selector's own default — `unique` for typed decoders and JSON
  /// Schemas (strict selectors: exactly one should pass), `first` for key sets and predicates.
  std::optional<llmjson::policy> policy{};
  /// With `first`: when nothing qualifies, return the first valid candidate that no frame
  /// encloses (never a piece of something bigger: `candidate::enclosed`), flagged as a
  /// fallback; with none such, `no_match`. Never used when the output is truncated, and never
  /// by typed decoders.
  bool fallback = true;
  /// Whether `extract` builds the answer's value (`extraction::json()`). Off, it is built only
  /// where a selector reads it: for a caller that reads the answer's text alone — prints it as
  /// written (`llmjson::minify(r->text())`), or parses it into its own types — this saves its
  /// parse, about half of `extract`'s work on a typical 2 KB reply; `json()` is then null. A
  /// schema, `decode<T>` and a predicate judge values, and policy `unique` compares them: those
  /// are built anyway. The stream, `candidates()` and the retry wrapper (whose `answer` holds
  /// its value) ignore it.
  bool answer_value = true;
  /// Nesting deeper than this (an object or array is one level) disqualifies a candidate
  /// ("too deep"). Values above `max_depth_limit` count as `max_depth_limit`.
  std::size_t max_depth = 512;
  /// Longer outputs are the error `too_large` and are not scanned. `candidates()` ignores it.
  std::size_t max_input_bytes = default_max_input_bytes;
  /// Reasoning regions (`<think>`...`</think>`, `<scratchpad>`, `<thought>`, Gemma 4's
  /// `<|channel>thought`...`<channel|>`, Open WebUI's `<details type="reasoning">`, harmony
  /// analysis messages, stripped harmony's `analysis...assistantfinal`, the phrase pairs at the
  /// start such as Granite's `Here is my thought process:`...`Here is my response:`, ...: every
  /// `reasoning_format`) are found and their candidates never qualify. Off: the whole output is
  /// answer text, markers included.
  bool reasoning_regions = true;
  /// Marker pairs of the caller's own, searched besides the built-in ones.
  std::vector<marker_pair> reasoning_markers{};
  /// Built-in formats switched off: their markers are text (`harmony`: its seven tokens open no
  /// message and cut nothing; `apriel`: `[END FINAL RESPONSE]` included).
  std::vector<reasoning_format> reasoning_off{};
  /// What the caller knows of the prompt: may the output start inside reasoning?
  output_start start = output_start::unknown;
  /// The text the caller wrote at the start of the model's turn and that the model continues
  /// (an assistant message prefilled with `{` or ```` ```json ````, a template's `<think>`):
  /// the rules read the prefill, then the output, as one text (§2 The text). Positions stay
  /// offsets in the output; an answer that starts in the prefill has a negative
  /// `candidate::position()` and a text of its own (the prefill's bytes, then the output's).
  /// `empty` looks at the output alone; `max_input_bytes` counts both. A non-empty prefill
  /// costs `extract` and `candidates` one copy of the output (the stream keeps its text anyway).
  std::string prefill{};
  /// Resource limits no real output comes near; past one, the scan stops and the answer is
  /// `too_large` (naming the limit). They keep time and memory in proportion to the text
  /// on hostile input (8 MB of `{}` would otherwise be 4 million candidates).
  std::size_t max_candidates = 200'000;   ///< candidates held at once
  std::size_t max_open_frames = 100'000;  ///< `{` and `[` open at once (nesting in prose)
};

}  // namespace llmjson

#endif  // LLMJSON_OPTIONS_HPP_INCLUDED
