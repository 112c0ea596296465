// llmjson tests: each kernel's three operations called by the kernel's public name, so that a
// test or a fuzz target compares every kernel this build and CPU run with the scalar one
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_KERNEL_OPS_HPP_INCLUDED
#define LLMJSON_TESTS_KERNEL_OPS_HPP_INCLUDED

#include <llmjson/detail/scan/classify.hpp>
#include <llmjson/detail/scan/kernels/dispatch.hpp>
#include <llmjson/kernel.hpp>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace llmjson_test {

namespace kernels = llmjson::detail::kernels;

/// Kernel `k`'s `classify` (scalar for a kernel this build does not have: the callers pass only
/// kernels from `available_kernels()`).
inline llmjson::detail::block_masks classify(llmjson::kernel k, const char* p, std::size_t n) {
  switch (k) {
#if defined(LLMJSON_KERNEL_AVX2)
    case llmjson::kernel::avx2: return kernels::avx2::classify(p, n);
#endif
#if defined(LLMJSON_KERNEL_SSE42)
    case llmjson::kernel::sse42: return kernels::sse42::classify(p, n);
#endif
#if defined(LLMJSON_KERNEL_NEON)
    case llmjson::kernel::neon: return kernels::neon::classify(p, n);
#endif
    default: return kernels::scalar::classify(p, n);
  }
}

/// Kernel `k`'s `find_any`.
inline std::size_t find_any(llmjson::kernel k, const char* text, std::size_t from, std::size_t end,
                            const char* set, std::size_t count) {
  switch (k) {
#if defined(LLMJSON_KERNEL_AVX2)
    case llmjson::kernel::avx2: return kernels::avx2::find_any(text, from, end, set, count);
#endif
#if defined(LLMJSON_KERNEL_SSE42)
    case llmjson::kernel::sse42: return kernels::sse42::find_any(text, from, end, set, count);
#endif
#if defined(LLMJSON_KERNEL_NEON)
    case llmjson::kernel::neon: return kernels::neon::find_any(text, from, end, set, count);
#endif
    default: return kernels::scalar::find_any(text, from, end, set, count);
  }
}

/// Kernel `k`'s `next_in_string`.
inline std::size_t next_in_string(llmjson::kernel k, const char* text, std::size_t from,
                                  std::size_t end, bool non_ascii) {
  switch (k) {
#if defined(LLMJSON_KERNEL_AVX2)
    case llmjson::kernel::avx2: return kernels::avx2::next_in_string(text, from, end, non_ascii);
#endif
#if defined(LLMJSON_KERNEL_SSE42)
    case llmjson::kernel::sse42: return kernels::sse42::next_in_string(text, from, end, non_ascii);
#endif
#if defined(LLMJSON_KERNEL_NEON)
    case llmjson::kernel::neon: return kernels::neon::next_in_string(text, from, end, non_ascii);
#endif
    default: return kernels::scalar::next_in_string(text, from, end, non_ascii);
  }
}

/// `size` bytes at `offset` from a 64-byte boundary, in a heap block that ends right after them:
/// a kernel that reads past the end is caught by AddressSanitizer.
class placed_bytes {
 public:
  placed_bytes(const char* bytes, std::size_t size, std::size_t offset)
      : block_(static_cast<char*>(
            ::operator new (offset + size > 0 ? offset + size : 1, std::align_val_t{64}))),
        data_(block_ + offset) {
    for (std::size_t i = 0; i < size; ++i) data_[i] = bytes[i];
  }
  placed_bytes(const placed_bytes&) = delete;
  placed_bytes& operator=(const placed_bytes&) = delete;
  ~placed_bytes() { ::operator delete (block_, std::align_val_t{64}); }

  [[nodiscard]] const char* data() const noexcept { return data_; }

 private:
  char* block_;
  char* data_;
};

/// Sets the kernel in use for a scope, and the CPU's best again at its end.
class kernel_scope {
 public:
  explicit kernel_scope(llmjson::kernel k) {
    if (!llmjson::use_kernel(k)) std::abort();  // only kernels from available_kernels()
  }
  kernel_scope(const kernel_scope&) = delete;
  kernel_scope& operator=(const kernel_scope&) = delete;
  ~kernel_scope() { llmjson::use_kernel(llmjson::kernel::automatic); }
};

}  // namespace llmjson_test

#endif  // LLMJSON_TESTS_KERNEL_OPS_HPP_INCLUDED
