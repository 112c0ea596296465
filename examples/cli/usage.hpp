// llmjson: the tool's usage text (--help), written from the table of flags: the synopsis and the
// option lines come from it, the prose around them is here
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_USAGE_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_USAGE_HPP_INCLUDED

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "flags.hpp"

namespace llmjson_cli {

/// The widest line of the usage text.
constexpr std::size_t usage_width = 97;
/// Where an option line's text starts; a longer head (`  --reasoning-at POINTER`) stands alone.
constexpr std::size_t help_column = 21;

constexpr std::string_view usage_intro = R"(
Prints the one JSON answer found in a language model's output, read from FILE (or stdin when
FILE is - or absent), as the model wrote it: key order, number literals and string escapes
unchanged, on one line.
)";

/// Each section's heading, in the order of flag_section (hidden has none); a leading blank line
/// starts a group of sections.
constexpr std::array<std::string_view, 8> section_headings{
    "",
    "\nWhat the input is (default: the model's text, as it wrote it):\n",
    "\nMany outputs, one a line (llmjson --jsonl outputs.jsonl > answers.jsonl):\n",
    "\nWhich candidate qualifies (default: any JSON object):\n",
    "How one is chosen:\n",
    "Reasoning (<think>...</think>, [THINK], <thought>, <details type=\"reasoning\">, harmony "
    "analysis,\ngpt-oss's stripped analysis...assistantfinal, \"Thinking...\" at the start, ...: "
    "never the answer):\n",
    "While the model writes (model-cli | llmjson --early --keys orders):\n",
    "Output:\n",
};

constexpr std::string_view usage_closing = R"(
Notes on stderr ("llmjson: note: ...", exit 0): the answer is the fallback, later candidates
qualify too (policy first took the first), or the output was cut after the answer (--policy
unique refuses these three), or its strings hold raw line breaks or tabs, which JSON forbids
(printed escaped: the value is the same).
Exit status: 0 the answer is on stdout; 1 no answer (stderr: "llmjson: KIND: message", KIND one
of empty, no_json, truncated, no_match, ambiguous, too_large); 2 usage, input or schema error, or
a stdout that cannot be written, a closed pipe included (with --response: "llmjson: --response:
..." for an input that is not a chat completion). SIGINT and SIGTERM end the run after the lines
being written, as the signal does (128 + its number in a shell).
)";

/// `[--policy first|unique|last]`: a flag as the synopsis shows it.
inline std::string synopsis_item(const flag& f) {
  std::string item = "[" + std::string(f.name);
  if (f.synopsis_values) {
    item += " " + f.synopsis_values();
  } else if (!f.value.empty()) {
    item += " " + std::string(f.synopsis.empty() ? f.value : f.synopsis);
  }
  if (f.name == "--jsonl")  // the flags that need it, inside its brackets
    for (const flag& g : flags)
      if (g.jsonl_only) item += " " + synopsis_item(g);
  return item + "]";
}

/// The synopsis: `usage: llmjson [--keys K1,K2,...] ...`, wrapped at usage_width.
inline std::string synopsis() {
  constexpr std::string_view head = "usage: llmjson";
  const std::string indent(head.size() + 1, ' ');
  std::string out(head);
  std::size_t line_start = 0;
  auto add = [&](const std::string& item) {
    if (out.size() - line_start + 1 + item.size() > usage_width) {
      out += "\n";
      line_start = out.size();
      out += indent;
    } else {
      out += " ";
    }
    out += item;
  };
  for (const flag& f : flags)
    if (f.in_synopsis && !f.jsonl_only) add(synopsis_item(f));
  add("[FILE|-]");
  return out + "\n";
}

/// A flag's option line: `  --keys K1,K2,...   an object ...`, its text's further lines
/// indented to help_column.
inline std::string option_lines(const flag& f) {
  std::string out = "  " + std::string(f.name);
  if (!f.value.empty()) out += " " + std::string(f.value);
  const std::string indent(help_column, ' ');
  if (out.size() + 2 <= help_column)
    out.append(help_column - out.size(), ' ');
  else
    out += "\n" + indent;
  for (const char c : f.help) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out + "\n";
}

/// The usage text (--help): the synopsis, then each section's flags, then the notes.
inline std::string usage_text() {
  std::string out = synopsis();
  out += usage_intro;
  for (std::size_t k = 1; k < section_headings.size(); ++k) {
    const auto section = static_cast<flag_section>(k);
    out += section_headings[k];
    std::string bare;  // flags without a text, named together on the section's last line
    for (const flag& f : flags) {
      if (f.section != section) continue;
      if (!f.help.empty())
        out += option_lines(f);
      else
        bare += (bare.empty() ? "  " : ", ") + std::string(f.name);
    }
    if (!bare.empty()) out += bare + "\n";
  }
  return out + std::string(usage_closing);
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_USAGE_HPP_INCLUDED
