// llmjson: §3 Whole output, §3 Whole parts, §3 Fence bodies: a span watched while it is a valid
// JSON prefix
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_PREFIX_WATCH_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_PREFIX_WATCH_HPP_INCLUDED

#include <cstddef>
#include <string_view>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole_value.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// Watches a span (the whole output, an answer part, a fence body) while its text, JSON white
/// space aside, is a valid JSON prefix: while it is, the span may be one value that owns all
/// inside it, and nothing else reads it. Fed the span's bytes in order as they arrive; at the
/// first byte that makes it no prefix it stops watching, and the caller reads the span the
/// usual way from its start. Each byte is read once, a token at a time (`validator::run`).
/// With the whole text there, an object or array is first read to its end at once
/// (`whole_value_reader`): when it is plainly valid, the bytes fed are then only compared with
/// where it ends, and the validator reads none of them. Allocates only in the validator.
class prefix_watch {
 public:
  /// What the span's text is, read to its end.
  enum class ending : unsigned char {
    blank,  ///< empty or JSON white space
    value,  ///< one valid JSON value: [first(), last())
    cut,    ///< a valid prefix of one, cut by the span's end
  };

  /// Starts watching the span that starts at `at` of `text`. `whole_text`: `text` is all there
  /// will be (not a stream's buffer so far).
  void start(std::string_view text, std::size_t at, std::size_t max_depth,
             bool whole_text = false) {
    text_ = text;
    validator_.reset(text, max_depth, /*quiet=*/true);
    max_depth_ = max_depth;
    next_ = at;
    first_ = none;
    last_ = 0;
    whole_end_ = 0;
    whole_big_ = false;
    whole_text_ = whole_text;
    watching_ = true;
  }

  /// Stops watching (the span is read the usual way from its start).
  void stop() noexcept { watching_ = false; }

  /// Points at the text again, moved or grown (a stream's buffer): offsets keep their meaning.
  void rebind(std::string_view text) noexcept {
    text_ = text;
    validator_.rebind(text);
  }

  /// Reads the span's bytes up to `upto`. Returns whether it is still watching: the text so far
  /// is a valid JSON prefix.
  bool feed(std::size_t upto) {
    if (!watching_) return false;
    if (first_ == none) {  // white space before the value: nothing to validate
      while (next_ < upto && is_json_ws(text_[next_])) ++next_;
      if (next_ >= upto) return true;
      first_ = next_;
      if (whole_text_) {
        const whole_value_reader::value v =
            whole_value_reader::of_thread().read(text_, first_, text_.size(), max_depth_);
        whole_end_ = v.end;
        whole_big_ = v.big;
      }
    }
    if (next_ >= upto) return true;
    if (whole_end_ != 0) return feed_known(upto);
    const std::size_t from = next_;
    next_ = validator_.run(from, upto);
    if (validator_.failed()) {
      watching_ = false;
      return false;
    }
    // The value's last byte so far: white space after it is no part of it (within the bytes
    // just read, so that a text fed a byte at a time is still read once).
    std::size_t k = upto;
    while (k > from && is_json_ws(text_[k - 1])) --k;
    if (k > from) last_ = k;
    return true;
  }

  /// The span ends at `e`, its bytes all fed while watching: what it is. Stops watching.
  ending finish(std::size_t e) {
    watching_ = false;
    if (first_ == none) return ending::blank;
    // A proper prefix of an object or array is never a whole value.
    if (whole_end_ != 0) return e >= whole_end_ ? ending::value : ending::cut;
    return validator_.finish(e) ? ending::value : ending::cut;
  }

  [[nodiscard]] bool watching() const noexcept { return watching_; }
  /// What `finish(e)` would say with the bytes fed so far, without finishing (rules §8: the
  /// text read as if it ended here).
  [[nodiscard]] ending would_finish() const noexcept {
    if (first_ == none) return ending::blank;
    if (whole_end_ != 0) return next_ >= whole_end_ ? ending::value : ending::cut;
    return validator_.would_finish() ? ending::value : ending::cut;
  }
  /// The next byte to read: the bytes before it were fed.
  [[nodiscard]] std::size_t next() const noexcept { return next_; }
  /// The open arrays and objects of the text fed so far (when the value was read whole, a
  /// validator reads the bytes fed to tell).
  [[nodiscard]] std::size_t depth() const {
    if (whole_end_ == 0) return validator_.depth();
    if (next_ >= whole_end_) return 0;
    validator v;
    v.reset(text_, max_depth_, /*quiet=*/true);
    v.run(first_, next_);
    return v.depth();
  }
  /// The span's first byte and the end of its last byte that are not JSON white space.
  [[nodiscard]] std::size_t first() const noexcept { return first_; }
  [[nodiscard]] std::size_t last() const noexcept { return last_; }
  /// Whether a number it read may be beyond a double (`validator::last_big_number`).
  [[nodiscard]] bool big_number() const noexcept {
    if (whole_end_ != 0) return whole_big_;
    return validator_.last_big_number() != validator::no_raw;
  }

 private:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  /// `feed` once the value was read whole, to `whole_end_`: the bytes up to there are a prefix
  /// of a valid value; after it, only white space may follow.
  bool feed_known(std::size_t upto) {
    for (std::size_t k = next_ > whole_end_ ? next_ : whole_end_; k < upto; ++k) {
      if (!is_json_ws(text_[k])) {
        watching_ = false;
        return false;
      }
    }
    if (upto >= whole_end_) {
      last_ = whole_end_;
    } else {
      std::size_t k = upto;
      while (k > next_ && is_json_ws(text_[k - 1])) --k;
      if (k > next_) last_ = k;
    }
    next_ = upto;
    return true;
  }

  std::string_view text_;
  validator validator_;
  std::size_t max_depth_ = 0;
  std::size_t next_ = 0;  // the next byte to read
  std::size_t first_ = none, last_ = 0;
  std::size_t whole_end_ = 0;  // where the value read whole ends; 0: the validator reads it
  bool whole_big_ = false;     // ... and whether it has a number nlohmann may not hold
  bool whole_text_ = false;
  bool watching_ = false;
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_PREFIX_WATCH_HPP_INCLUDED
