// llmjson: reads choices out of a fuzz input, for targets that build structured inputs
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_FUZZ_FUZZ_BYTES_HPP_INCLUDED
#define LLMJSON_TESTS_FUZZ_FUZZ_BYTES_HPP_INCLUDED

#include <cstddef>
#include <cstdint>

namespace llmjson_fuzz {

/// Hands out small choices from the input's bytes, then zeros once they run out (so every input
/// is a complete, if small, structure). libFuzzer's mutations of the bytes become changes of
/// the structure.
class fuzz_bytes {
 public:
  fuzz_bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  /// Returns a number in [0, n) (0 when n is 0).
  std::size_t pick(std::size_t n) {
    if (n <= 1) return 0;
    std::size_t v = byte();
    if (n > 256) v = (v << 8) | byte();
    return v % n;
  }
  /// Returns true about once in `n` draws.
  bool one_in(std::size_t n) { return pick(n) == 0; }
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  [[nodiscard]] bool empty() const { return pos_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace llmjson_fuzz

#endif  // LLMJSON_TESTS_FUZZ_FUZZ_BYTES_HPP_INCLUDED
