// llmjson: the byte-search kernels, the CPU's best chosen at run time, and how to force one
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_KERNEL_HPP_INCLUDED
#define LLMJSON_KERNEL_HPP_INCLUDED

#include <array>
#include <string_view>
#include <vector>

#include <llmjson/detail/scan/kernels/dispatch.hpp>
#include <llmjson/enum_names.hpp>

namespace llmjson {

/// The code that searches the text for the bytes that matter (brackets, quotes, a string's end).
/// Every kernel gives the same answers; they differ in speed. The library picks the CPU's best
/// at the first search, without any compile flag: AVX2, else SSE4.2 on x86-64 (GCC or Clang),
/// NEON on aarch64, else scalar (also everywhere with `LLMJSON_NO_SIMD` defined).
///
/// The environment variable `LLMJSON_KERNEL` (`scalar`, `sse42`, `avx2`, `neon`, `auto`), read
/// once at the first search, sets the first choice; a name that is unknown, or a kernel this
/// build or CPU does not run, leaves the CPU's best. `use_kernel` changes the choice later.
enum class kernel {
  automatic,  ///< for `use_kernel`: the CPU's best
  scalar,     ///< a byte at a time, on any CPU
  sse42,      ///< 16 bytes a load, x86-64 CPUs with SSE4.2
  avx2,       ///< 32 bytes a load, x86-64 CPUs with AVX2 (and POPCNT, which they all have)
  neon,       ///< 16 bytes a load, aarch64
};

/// Returns the kernel's name: `"automatic"`, `"scalar"`, `"sse42"`, `"avx2"`, `"neon"`. Does not
/// throw.
[[nodiscard]] constexpr std::string_view to_string(kernel k) noexcept {
  switch (k) {
    case kernel::automatic: return "automatic";
    case kernel::scalar: return "scalar";
    case kernel::sse42: return "sse42";
    case kernel::avx2: return "avx2";
    case kernel::neon: return "neon";
  }
  return "unknown";
}

/// Every `kernel`: `from_string<kernel>("avx2") == kernel::avx2`.
template <>
inline constexpr std::array enumerators<kernel>{kernel::automatic, kernel::scalar, kernel::sse42,
                                                kernel::avx2, kernel::neon};

/// Returns the kernels this build has and this CPU runs: `scalar` first, then the others in
/// `kernel`'s order. Allocates.
[[nodiscard]] inline std::vector<kernel> available_kernels() {
  std::vector<kernel> all;
  for (kernel k : enumerators<kernel>)
    if (k != kernel::automatic &&
        detail::kernels::runs(static_cast<detail::kernels::id>(static_cast<unsigned char>(k))))
      all.push_back(k);
  return all;
}

/// Returns the kernel in use (never `automatic`): the CPU's best, `LLMJSON_KERNEL`'s, or the
/// last `use_kernel`'s.
[[nodiscard]] inline kernel active_kernel() noexcept {
  return static_cast<kernel>(detail::kernels::active());
}

/// Makes every search of the process, in every thread, use `k` from now on (`automatic`: the
/// CPU's best again), and returns true; returns false and changes nothing when `k` is not in
/// `available_kernels()`. Thread-safe; a search running in another thread may finish with the
/// kernel it started with. For tests and measurements: the answers are the same either way.
inline bool use_kernel(kernel k) noexcept {
  return detail::kernels::use(static_cast<detail::kernels::id>(static_cast<unsigned char>(k)));
}

static_assert(static_cast<int>(kernel::automatic) == static_cast<int>(detail::kernels::id::unset) &&
              static_cast<int>(kernel::scalar) == static_cast<int>(detail::kernels::id::scalar) &&
              static_cast<int>(kernel::sse42) == static_cast<int>(detail::kernels::id::sse42) &&
              static_cast<int>(kernel::avx2) == static_cast<int>(detail::kernels::id::avx2) &&
              static_cast<int>(kernel::neon) == static_cast<int>(detail::kernels::id::neon));

}  // namespace llmjson

#endif  // LLMJSON_KERNEL_HPP_INCLUDED
