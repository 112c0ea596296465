// llmjson: which kernel runs: the CPU's best, LLMJSON_KERNEL's, or the one llmjson::use_kernel
// forced, held in one atomic byte for the whole process
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_KERNELS_DISPATCH_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_KERNELS_DISPATCH_HPP_INCLUDED

#include <atomic>
#include <cstdlib>
#include <string_view>

#include <llmjson/detail/scan/kernels/avx2.hpp>
#include <llmjson/detail/scan/kernels/neon.hpp>
#include <llmjson/detail/scan/kernels/scalar.hpp>
#include <llmjson/detail/scan/kernels/sse42.hpp>

namespace llmjson::detail::kernels {

/// A kernel, numbered as `llmjson::kernel` (kernel.hpp checks), `unset` for `automatic`: the
/// choice not made yet.
enum class id : unsigned char { unset, scalar, sse42, avx2, neon };

/// Whether this build has kernel `k` and this CPU runs it.
inline bool runs(id k) noexcept {
  switch (k) {
    case id::scalar: return true;
    case id::sse42:
#if defined(LLMJSON_KERNEL_SSE42)
      __builtin_cpu_init();  // before static constructors, GCC's answers need it
      return __builtin_cpu_supports("sse4.2") != 0;
#else
      return false;
#endif
    case id::avx2:
#if defined(LLMJSON_KERNEL_AVX2)
      __builtin_cpu_init();
      // The CPU's, and the system saves its registers; POPCNT, which every AVX2 CPU has, is
      // asked too: positions.hpp's AVX2 count uses it.
      return __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("popcnt") != 0;
#else
      return false;
#endif
    case id::neon:
#if defined(LLMJSON_KERNEL_NEON)
      return true;
#else
      return false;
#endif
    case id::unset: break;
  }
  return false;
}

/// The fastest kernel this CPU runs.
inline id best() noexcept {
  for (id k : {id::avx2, id::neon, id::sse42})
    if (runs(k)) return k;
  return id::scalar;
}

/// The kernel in use, `unset` before the first use. Relaxed loads and stores suffice: every
/// kernel gives the same answers, so a thread that sees an older choice is still right.
inline std::atomic<unsigned char> chosen{static_cast<unsigned char>(id::unset)};

/// The kernel named by the environment variable LLMJSON_KERNEL (`scalar`, `sse42`, `avx2`,
/// `neon`) when this CPU runs it; else (unset, `auto`, a name unknown or not available here) the
/// CPU's best.
inline id from_environment() noexcept {
  const char* value = std::getenv("LLMJSON_KERNEL");
  const std::string_view name = value ? value : "";
  const id named = name == "scalar"  ? id::scalar
                   : name == "sse42" ? id::sse42
                   : name == "avx2"  ? id::avx2
                   : name == "neon"  ? id::neon
                                     : id::unset;
  return named != id::unset && runs(named) ? named : best();
}

/// The first use: the environment's choice, unless another thread or `use` chose first.
[[gnu::cold, gnu::noinline]] inline id first_use() noexcept {
  unsigned char expected = static_cast<unsigned char>(id::unset);
  chosen.compare_exchange_strong(expected, static_cast<unsigned char>(from_environment()),
                                 std::memory_order_relaxed);
  return static_cast<id>(chosen.load(std::memory_order_relaxed));
}

/// The kernel in use (never `unset`): one relaxed load after the first use.
inline id active() noexcept {
  const auto k = static_cast<id>(chosen.load(std::memory_order_relaxed));
  if (k == id::unset) [[unlikely]]
    return first_use();
  return k;
}

/// Forces `k` for the process (`unset`: the CPU's best); false, with nothing changed, when this
/// build or CPU does not run `k`.
inline bool use(id k) noexcept {
  if (k == id::unset) k = best();
  if (!runs(k)) return false;
  chosen.store(static_cast<unsigned char>(k), std::memory_order_relaxed);
  return true;
}

}  // namespace llmjson::detail::kernels

#endif  // LLMJSON_DETAIL_SCAN_KERNELS_DISPATCH_HPP_INCLUDED
