// llmjson: result<T>, a value or an llmjson::error, with std::expected's member names
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_RESULT_HPP_INCLUDED
#define LLMJSON_RESULT_HPP_INCLUDED

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <llmjson/error.hpp>

namespace llmjson {

/// Thrown by `result<T>::value()` when the result holds an error. It carries the error, as
/// `std::bad_expected_access` does, and `what()` says it: `llmjson: result holds an error
/// (no_json): no JSON candidate in 120 bytes`. (llmjson's other exceptions: `schema_error` from
/// the `schema` constructor, and `bad_retry_access` from `retry_result<T>::value()`.)
class bad_result_access : public std::exception {
 public:
  explicit bad_result_access(llmjson::error e)
      : what_("llmjson: result holds an error (" + std::string(to_string(e.kind)) +
              "): " + e.message),
        error_(std::move(e)) {}
  [[nodiscard]] const char* what() const noexcept override { return what_.c_str(); }
  [[nodiscard]] const llmjson::error& error() const noexcept { return error_; }

 private:
  std::string what_;
  llmjson::error error_;
};

namespace detail {

/// `*r` or `r->` on a result that holds an error: a bug in the caller, reported as Abseil's
/// `StatusOr` and Rust's `unwrap` do, with the error (`bad`'s `what()`) on stderr, then
/// `std::abort()`. In every build, not only with assertions: the alternative is undefined
/// behaviour, or `std::get`'s "wrong index for variant" without the error.
[[noreturn]] inline void unchecked_access(const std::exception& bad) noexcept {
  std::fprintf(stderr,
               "llmjson: *r or r-> on a result without a value: test the result first, or call "
               "value(), which throws\n%s\n",
               bad.what());
  std::fflush(stderr);
  std::abort();
}

/// The members of `std::expected<T, E>` over a `std::variant<T, E>`: shared by `result<T>` and the
/// retry wrapper's `retry_result<T>`. `value()` on an error throws `Bad(error)`.
template <class T, class E, class Bad>
class expected_base {
 public:
  using value_type = T;
  using error_type = E;

  expected_base(const T& v) : v_(std::in_place_index<0>, v) {}        // NOLINT: implicit
  expected_base(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT
  expected_base(const E& e) : v_(std::in_place_index<1>, e) {}        // NOLINT
  expected_base(E&& e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT

  /// Returns true when the result holds a value. Does not throw.
  [[nodiscard]] bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  /// Returns the value. Throws `Bad` (carrying the error) when there is none.
  T& value() & {
    if (!has_value()) throw Bad(std::get<1>(v_));
    return std::get<0>(v_);
  }
  const T& value() const& {
    if (!has_value()) throw Bad(std::get<1>(v_));
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!has_value()) throw Bad(std::get<1>(v_));
    return std::get<0>(std::move(v_));
  }

  /// Returns the error. The result must hold one (asserted; otherwise std::terminate, as
  /// `std::get` throws in a `noexcept` function). `std::get`, not a `get_if` dereference:
  /// g++ -O2 -Wnull-dereference sees through the latter into callers' code.
  [[nodiscard]] const E& error() const& noexcept {
    assert(!has_value());
    return std::get<1>(v_);
  }
  [[nodiscard]] E& error() & noexcept {
    assert(!has_value());
    return std::get<1>(v_);
  }
  [[nodiscard]] E&& error() && noexcept {
    assert(!has_value());
    return std::get<1>(std::move(v_));
  }

  /// Returns the value. The result must hold one: on an error, the error's kind and message go
  /// to stderr and the program aborts (`detail::unchecked_access`), in every build.
  T& operator*() & noexcept {
    if (!has_value()) [[unlikely]]
      detail::unchecked_access(Bad(std::get<1>(v_)));
    return std::get<0>(v_);
  }
  const T& operator*() const& noexcept {
    if (!has_value()) [[unlikely]]
      detail::unchecked_access(Bad(std::get<1>(v_)));
    return std::get<0>(v_);
  }
  T&& operator*() && noexcept {
    if (!has_value()) [[unlikely]]
      detail::unchecked_access(Bad(std::get<1>(v_)));
    return std::get<0>(std::move(v_));
  }
  T* operator->() noexcept { return &**this; }
  const T* operator->() const noexcept { return &**this; }

  /// Returns the value, or `fallback` when the result holds an error.
  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? **this : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  T value_or(U&& fallback) && {
    return has_value() ? std::move(**this) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, E> v_;
};

}  // namespace detail

/// Holds either a `T` (the answer) or an `llmjson::error` (why there is none).
///
/// The members are named as `std::expected<T, llmjson::error>`'s are (`has_value()`,
/// `explicit operator bool`, `value()`, `error()`, `*`, `->`, `value_or()`), so code written
/// against it reads the same as C++23 code. llmjson keeps its own type rather than an alias to
/// `std::expected` so that the API is the same in C++20 and C++23. `value()` on an error throws
/// `bad_result_access`, whose `what()` names the error's kind and message; `*` and `->` on an
/// error write the same to stderr and abort (where `std::expected` leaves the behaviour
/// undefined); `error()` on a value only asserts.
///
/// **Example**:
/// ```cpp
/// auto r = llmjson::extract(text, llmjson::any_key({"orders"}));
/// if (!r) std::cerr << r.error().message << '\n';
/// ```
template <class T>
class [[nodiscard]] result : public detail::expected_base<T, llmjson::error, bad_result_access> {
  using base = detail::expected_base<T, llmjson::error, bad_result_access>;

 public:
  using base::base;
};

}  // namespace llmjson

#endif  // LLMJSON_RESULT_HPP_INCLUDED
