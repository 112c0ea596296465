// llmjson: fuzz target: every kernel this build and CPU run gives the scalar kernel's answers,
// at every alignment, and the library the same results under each (and the reference's)
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/classify.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/kernel.hpp>

#include "../kernel_ops.hpp"
#include "../same_result.hpp"
#include "diff_compare.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

// On every input:
// 1. The three operations of every kernel equal the scalar kernel's, with the input placed at
//    each offset 0..63 from a 64-byte boundary, in a heap block that ends with it (AddressSanitizer
//    catches a read past the end): classify on each 64-byte block and the short last one;
//    find_any for the sets of 1 to 8 bytes that start the input, every match in turn; and
//    next_in_string both ways, every stop in turn. The first 1024 bytes (64 placements each).
// 2. candidates() and extract() give the same results, field for field, under every kernel, and
//    under each the library agrees with the reference as in diff_fuzz (diff_compare.hpp: the
//    input is read as diff_fuzz reads it, a first byte below 0x08 starts an options header);
//    past 16 KiB of text, under the CPU's best kernel only (check_library says why).

namespace {

using llmjson::kernel;

[[noreturn]] void fail(const char* what, kernel k, std::size_t offset) {
  std::fprintf(stderr, "kernel %s differs from scalar: %s (offset %zu)\n",
               std::string(to_string(k)).c_str(), what, offset);
  std::abort();
}

/// Every match of `set` in turn, as kernel `k` finds them.
std::vector<std::size_t> all_matches(kernel k, const char* p, std::size_t n, const char* set,
                                     std::size_t count) {
  std::vector<std::size_t> at;
  for (std::size_t i = llmjson_test::find_any(k, p, 0, n, set, count); i < n;
       i = llmjson_test::find_any(k, p, i + 1, n, set, count))
    at.push_back(i);
  return at;
}

/// Every stop of a string's scan in turn, as kernel `k` finds them.
std::vector<std::size_t> all_stops(kernel k, const char* p, std::size_t n, bool non_ascii) {
  std::vector<std::size_t> at;
  for (std::size_t i = llmjson_test::next_in_string(k, p, 0, n, non_ascii); i < n;
       i = llmjson_test::next_in_string(k, p, i + 1, n, non_ascii))
    at.push_back(i);
  return at;
}

void check_operations(const std::vector<kernel>& kernels, const char* data, std::size_t size) {
  const std::size_t n = std::min<std::size_t>(size, 1024);
  // The scalar answers do not depend on where the bytes lie.
  std::vector<llmjson::detail::block_masks> masks;
  for (std::size_t b = 0; b < n; b += 64)
    masks.push_back(
        llmjson_test::kernels::scalar::classify(data + b, std::min<std::size_t>(64, n - b)));
  std::vector<std::vector<std::size_t>> matches;
  for (std::size_t count = 1; count <= 8 && count <= n; ++count)
    matches.push_back(all_matches(kernel::scalar, data, n, data, count));
  const std::vector<std::size_t> stops[2] = {all_stops(kernel::scalar, data, n, false),
                                             all_stops(kernel::scalar, data, n, true)};
  for (std::size_t offset = 0; offset < 64; ++offset) {
    const llmjson_test::placed_bytes placed(data, n, offset);
    const char* p = placed.data();
    for (kernel k : kernels) {
      if (k == kernel::scalar) continue;
      for (std::size_t b = 0; b < n; b += 64)
        if (llmjson_test::classify(k, p + b, std::min<std::size_t>(64, n - b)) != masks[b / 64])
          fail("classify", k, offset);
      // The set: the input's first bytes (duplicates are the kernels' to handle).
      for (std::size_t count = 1; count <= matches.size(); ++count)
        if (all_matches(k, p, n, p, count) != matches[count - 1]) fail("find_any", k, offset);
      for (bool non_ascii : {false, true})
        if (all_stops(k, p, n, non_ascii) != stops[non_ascii]) fail("next_in_string", k, offset);
    }
  }
}

template <class Sel>
void check_library(const std::vector<kernel>& kernels, const llmjson_diff::setup& s,
                   const Sel& sel) {
  llmjson::use_kernel(kernel::scalar);
  const llmjson::scan_result want_scan = llmjson::candidates(s.text, s.lib);
  const auto want = llmjson::extract(s.text, sel, s.lib);
  for (kernel k : kernels) {
    llmjson::use_kernel(k);
    const llmjson::scan_result got_scan = llmjson::candidates(s.text, s.lib);
    std::string d = llmjson_test::differs(got_scan.candidates, want_scan.candidates);
    if (d.empty()) d = llmjson_test::differs(got_scan.truncation, want_scan.truncation);
    if (d.empty()) d = llmjson_test::differs(llmjson::extract(s.text, sel, s.lib), want);
    if (!d.empty()) {
      std::fprintf(stderr, "under kernel %s, not as under scalar: %s\n  text: \"%s\"\n",
                   std::string(to_string(k)).c_str(), d.c_str(),
                   llmjson_diff::shown(s.text).c_str());
      std::abort();
    }
    // The reference, the policies and the stream's chunkings: under every kernel for a text of
    // up to 16 KiB; for a longer one (the corpus's 200 KB trace) under the last kernel only, the
    // CPU's best. The others gave that kernel's candidates and answer just above, and a run of
    // every chunking per kernel took such a text past libFuzzer's 10 s under ASan at -O1.
    if (s.text.size() <= 16 * 1024 || k == kernels.back()) llmjson_diff::compare(s, sel);
  }
  llmjson::use_kernel(kernel::automatic);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<kernel> kernels = llmjson::available_kernels();
  check_operations(kernels, reinterpret_cast<const char*>(data), size);
  const llmjson_diff::setup s = llmjson_diff::decode_input(data, size);
  if (s.keys.empty()) {
    check_library(kernels, s, llmjson::any_object{});
  } else {
    check_library(kernels, s, llmjson::any_key(s.keys));
  }
  return 0;
}
