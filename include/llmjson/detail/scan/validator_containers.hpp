// llmjson: the validator's open containers (§1 Valid JSON: nesting at most so many levels, every
// object's keys unique after unescaping)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_VALIDATOR_CONTAINERS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_VALIDATOR_CONTAINERS_HPP_INCLUDED

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <llmjson/detail/scan/keys.hpp>

namespace llmjson::detail {

/// The containers (objects and arrays) open at the validator's place, and the keys of the open
/// objects, so that a repeated key is seen when it ends. The outermost containers may be
/// forgotten (`forget_outer`): the memory is then the containers and keys still followed.
class open_containers {
 public:
  void clear(std::size_t max_depth) {
    max_depth_ = max_depth;
    stack_.clear();
    stack_first_ = 0;
    keys_.clear();
    key_bytes_.clear();
    keys_first_ = 0;
    dropped_levels_ = 0;
    dropped_keys_ = 0;
  }

  /// The nesting the text may reach.
  [[nodiscard]] std::size_t max_depth() const noexcept { return max_depth_; }
  /// The number of open containers, the forgotten ones included.
  [[nodiscard]] std::size_t depth() const noexcept { return dropped_levels_ + live(); }
  /// The number of open containers that are not forgotten.
  [[nodiscard]] std::size_t live() const noexcept { return stack_.size() - stack_first_; }
  /// The innermost container is an object (`live()` is not 0).
  [[nodiscard]] bool innermost_is_object() const noexcept { return stack_.back().is_object; }

  /// Opens a container; false, opening none, when `max_depth()` are open.
  bool open(bool is_object) {
    if (depth() >= max_depth_) return false;
    if (stack_.capacity() == 0) stack_.reserve(first_room);  // not 1, 2, 4, ... a validator
    level& l = stack_.emplace_back();
    l.is_object = is_object;
    l.keys_begin = dropped_keys_ + live_keys();
    return true;
  }

  /// Closes the innermost container (`live()` is not 0), and forgets its keys.
  void close() {
    const std::size_t first = keys_first_ + (stack_.back().keys_begin - dropped_keys_);
    key_bytes_.resize(first_copied(first));
    keys_.resize(first);
    stack_.pop_back();
  }

  /// Forgets the outermost open containers, leaving `keep` (or all there are), and their keys.
  void forget_outer(std::size_t keep) {
    while (live() > keep) {
      const std::size_t next_keys =
          live() > 1 ? stack_[stack_first_ + 1].keys_begin : dropped_keys_ + live_keys();
      keys_first_ += next_keys - dropped_keys_;
      dropped_keys_ = next_keys;
      stack_[stack_first_].index.reset();
      ++stack_first_;
      ++dropped_levels_;
    }
    compact();
  }

  /// Adds the key whose text between the quotes is `text[b, e)` to the innermost container, an
  /// object (`live()` is not 0); `escaped`: it holds a backslash. Returns false, adding nothing,
  /// when the object has the key already (compared after unescaping). A key without a backslash
  /// is not copied: it is read from `text` (offsets keep their meaning when a stream's buffer
  /// moves). Always inline in its one caller, the validator's end of a key: one frame a key.
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::always_inline]]
#endif
  bool
  add_key(std::string_view text, std::size_t b, std::size_t e, bool escaped) {
    key_entry entry{b, e - b, 0, false};
    std::string_view key = text.substr(b, e - b);
    if (escaped) {
      entry.offset = key_bytes_.size();
      unescape_string(key, key_bytes_);
      entry.size = key_bytes_.size() - entry.offset;
      entry.copied = true;
      key = std::string_view(key_bytes_).substr(entry.offset);
    }
    entry.head = escaped ? head_of(key) : head_at(text, b, e - b);
    level& l = stack_.back();
    const std::size_t first = keys_first_ + (l.keys_begin - dropped_keys_);  // in keys_
    if (l.index ? l.index->count(std::string(key)) != 0 : in_list(text, first, entry, key)) {
      if (escaped) key_bytes_.resize(entry.offset);
      return false;
    }
    if (keys_.capacity() == 0) keys_.reserve(first_room * 2);
    keys_.push_back(entry);
    constexpr std::size_t linear_limit = 16;  // past it, the object's keys get a hash set
    if (l.index) {
      l.index->emplace(key);
    } else if (keys_.size() - first > linear_limit) {
      l.index = std::make_unique<std::unordered_set<std::string>>();
      for (std::size_t k = first; k < keys_.size(); ++k) l.index->emplace(key_at(text, k));
    }
    return true;
  }

 private:
  /// The levels room is made for at once (keys: twice as many): a validator is made for each
  /// span, and most hold a few levels and keys.
  static constexpr std::size_t first_room = 16;

  struct level {
    bool is_object = false;
    std::size_t keys_begin = 0;  // this object's first key, counted from the first key ever
    std::unique_ptr<std::unordered_set<std::string>> index;  // once an object has many keys
  };
  /// A key of an open object: its bytes in the text (`offset` counted from the text's start) or,
  /// for a key with a backslash, unescaped in `key_bytes_` (`copied`); `head` packs its first 8
  /// bytes, so that most keys are told apart without reading them.
  struct key_entry {
    std::size_t offset = 0;
    std::size_t size = 0;
    std::uint64_t head = 0;
    bool copied = false;
  };
  static std::uint64_t head_of(std::string_view key) noexcept {
    std::uint64_t h = 0;
    const std::size_t n = key.size() < 8 ? key.size() : 8;
    for (std::size_t k = 0; k < n; ++k)
      h |= static_cast<std::uint64_t>(static_cast<unsigned char>(key[k])) << (8 * k);
    return h;
  }

  /// `head_of` the `n` bytes of `text` at `b`: one load where 8 bytes are there to read.
  static std::uint64_t head_at(std::string_view text, std::size_t b, std::size_t n) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
      if (text.size() - b >= 8) {
        std::uint64_t h = 0;
        std::memcpy(&h, text.data() + b, 8);
        return n >= 8 ? h : h & ((std::uint64_t{1} << (8 * n)) - 1);
      }
    }
    return head_of(text.substr(b, n));
  }

  [[nodiscard]] std::size_t live_keys() const noexcept { return keys_.size() - keys_first_; }
  [[nodiscard]] std::string_view key_at(std::string_view text, std::size_t k) const noexcept {
    const key_entry& entry = keys_[k];
    return (entry.copied ? std::string_view(key_bytes_) : text).substr(entry.offset, entry.size);
  }

  /// `key` (read into `entry`) is among `keys_[first..]`, an object's few keys, read one by one.
  [[nodiscard]] bool in_list(std::string_view text, std::size_t first, const key_entry& entry,
                             std::string_view key) const noexcept {
    for (std::size_t k = first; k < keys_.size(); ++k)
      if (keys_[k].head == entry.head && keys_[k].size == entry.size &&
          (entry.size <= 8 || key_at(text, k) == key))
        return true;
    return false;
  }

  /// The offset in `key_bytes_` of the first copied key among `keys_[from..]`, or its size.
  [[nodiscard]] std::size_t first_copied(std::size_t from) const noexcept {
    for (std::size_t k = from; k < keys_.size(); ++k)
      if (keys_[k].copied) return keys_[k].offset;
    return key_bytes_.size();
  }

  /// Drops the forgotten levels and keys from the front of their vectors once they are half of
  /// them: the memory stays in proportion to what is live, at O(1) amortized a level.
  void compact() {
    if (stack_first_ > 0 && stack_first_ * 2 >= stack_.size()) {
      stack_.erase(stack_.begin(), stack_.begin() + static_cast<std::ptrdiff_t>(stack_first_));
      stack_first_ = 0;
    }
    if (keys_first_ > 0 && keys_first_ * 2 >= keys_.size()) {
      const std::size_t shift = first_copied(keys_first_);
      keys_.erase(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(keys_first_));
      keys_first_ = 0;
      key_bytes_.erase(0, shift);
      for (key_entry& k : keys_)
        if (k.copied) k.offset -= shift;
    }
  }

  std::size_t max_depth_ = std::numeric_limits<std::size_t>::max();
  std::vector<level> stack_;        // the open containers: stack_[stack_first_..] are followed
  std::size_t stack_first_ = 0;     // the outer ones before it are forgotten (forget_outer)
  std::vector<key_entry> keys_;     // the keys of the open objects: keys_[keys_first_..]
  std::size_t keys_first_ = 0;      // (those before belong to forgotten objects)
  std::string key_bytes_;           // the keys with a backslash, unescaped, in order
  std::size_t dropped_levels_ = 0;  // outer containers forgotten (forget_outer)
  std::size_t dropped_keys_ = 0;    // and their keys
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_VALIDATOR_CONTAINERS_HPP_INCLUDED
