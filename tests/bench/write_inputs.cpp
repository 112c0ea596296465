// llmjson benchmark inputs on disk, for tests/bench/peers/peers.mjs: the benchmark's generated
// model outputs, each with the answer llmjson extracts from it.
// SPDX-License-Identifier: MIT
//
// Usage: llmjson_write_inputs DIR
//
// Writes into DIR (which must exist) NAME.txt for mixed-10MB, clean-10MB, whole-10MB and
// typical-1.3KB (the sizes of bench.cpp), and beside each either NAME.expected.json, the answer of
// extract(text, any_key({"orders"})) as bench.cpp calls it, or NAME.expected.error, the error
// (`KIND: message`) when llmjson finds no answer.
#include <llmjson/extract.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "inputs.hpp"

namespace {

constexpr std::size_t mb = std::size_t{1} << 20;

bool write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "llmjson_write_inputs: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

/// Writes DIR/NAME.txt and DIR/NAME.expected.json (or DIR/NAME.expected.error).
bool write_input(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string base = dir + "/" + name;
  if (!write_file(base + ".txt", text)) return false;
  const llmjson::any_key sel({"orders"});
  llmjson::options opts;
  opts.max_input_bytes = text.size() + 1;
  const auto r = llmjson::extract(text, sel, opts);
  // A stale file of the other kind from an earlier run would contradict this one.
  std::remove((base + (r ? ".expected.error" : ".expected.json")).c_str());
  if (r) {
    std::printf("%s.txt: %zu bytes, answer at byte %zu\n", name.c_str(), text.size(),
                r->chosen().offset);
    return write_file(base + ".expected.json", r->json().dump() + "\n");
  }
  std::printf("%s.txt: %zu bytes, %s: %s\n", name.c_str(), text.size(),
              std::string(llmjson::to_string(r.error().kind)).c_str(), r.error().message.c_str());
  return write_file(base + ".expected.error", std::string(llmjson::to_string(r.error().kind)) +
                                                  ": " + r.error().message + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: llmjson_write_inputs DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  using namespace llmjson_bench;
  bool ok = write_input(dir, "mixed-10MB", mixed(10 * mb, true));
  ok = write_input(dir, "clean-10MB", clean(10 * mb)) && ok;
  ok = write_input(dir, "whole-10MB", whole(10 * mb)) && ok;
  ok = write_input(dir, "typical-1.3KB", typical_reply()) && ok;
  return ok ? 0 : 1;
}
