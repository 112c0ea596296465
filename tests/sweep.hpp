// llmjson tests: how much of a long sweep a test runs (LLMJSON_TEST_SWEEP_STEP)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_SWEEP_HPP_INCLUDED
#define LLMJSON_TESTS_SWEEP_HPP_INCLUDED

#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace llmjson_tests {

/// The step of the sweeps over every corpus case, prefix, sample or mutation: 1 (all of them)
/// unless the environment sets LLMJSON_TEST_SWEEP_STEP to a positive integer N, which runs one
/// item in N. CI's sanitizer and libc++ stages set 3: there the tests look for memory errors and
/// library differences on every code path, which a third of a sweep reaches, at a fifth of the
/// speed; the README's commands run every item. A value that is no positive integer throws.
inline std::size_t sweep_step() {
  static const std::size_t step = [] {
    const char* v = std::getenv("LLMJSON_TEST_SWEEP_STEP");
    if (v == nullptr || *v == '\0') return std::size_t{1};
    char* end = nullptr;
    const unsigned long n = std::strtoul(v, &end, 10);
    if (*end != '\0' || n == 0 || *v == '-')
      throw std::invalid_argument(std::string("LLMJSON_TEST_SWEEP_STEP=") + v +
                                  ": not a positive integer");
    return static_cast<std::size_t>(n);
  }();
  return step;
}

/// Whether item `i` of a sweep runs: every item with step 1, else one in `sweep_step()`.
/// `offset` shifts which ones, so that sweeps repeated (under each kernel, each seed) together
/// still reach every item: item i runs in repetition r when (i + r) % step == 0.
inline bool in_sweep(std::size_t i, std::size_t offset = 0) {
  return (i + offset) % sweep_step() == 0;
}

}  // namespace llmjson_tests

#endif  // LLMJSON_TESTS_SWEEP_HPP_INCLUDED
