// llmjson: the NEON kernel parses for aarch64 (ctest kernel_neon_syntax: clang++
// --target=aarch64-linux-gnu -ffreestanding -fsyntax-only, on any machine with clang's arm_neon.h)
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/kernels/neon.hpp>

#ifndef LLMJSON_KERNEL_NEON
#error "the NEON kernel was left out: this must be parsed for aarch64"
#endif

namespace neon = llmjson::detail::kernels::neon;

// Each operation called, so that its templates and inline bodies are checked too.
uint64_t use_every_operation(const char* p, size_t n) {
  const llmjson::detail::block_masks m = neon::classify(p, n < 64 ? n : 64);
  return m.quote ^ m.ws ^ neon::find_any(p, 0, n, "{[\"", 3) ^ neon::next_in_string(p, 0, n, true) ^
         neon::next_in_string(p, 1, n, false);
}
