// llmjson: partial<T>, a declared type read from a partial answer, with the state of each member
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_PARTIAL_HPP_INCLUDED
#define LLMJSON_PARTIAL_HPP_INCLUDED

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema_of/members.hpp>
#include <llmjson/enum_names.hpp>
#include <llmjson/partial_answer.hpp>

namespace llmjson {

/// How much of one member (or element, or the whole value) of a partial answer has arrived.
enum class member_state : std::uint8_t {
  /// Nothing of it can be shown: its key has not come yet (or came without its value), its
  /// value is a number or literal still being written (the partial answer leaves those out), or
  /// what came cannot be read as the member's type: a wrong JSON type so far, a number out of
  /// the type's range, a string that is not (yet) one of the enum's names, a struct written to
  /// its end without a member it requires. The member holds its default value.
  absent,
  /// It is being written (the open pointer goes through it), and what has come reads as its
  /// type: a string as written so far, an enum whose name is complete so far, a vector's
  /// elements so far, a struct's members so far. It may still change.
  in_progress,
  /// It is written to its end and reads as its type as decoding reads it: a struct has every
  /// member it requires, each complete; a vector or std::array every element, complete. When
  /// the answer is the candidate this partial answer came from, the answer decodes this member
  /// to the value shown.
  complete,
};

/// Returns the state's name: `"in_progress"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(member_state s) noexcept {
  switch (s) {
    case member_state::absent: return "absent";
    case member_state::in_progress: return "in_progress";
    case member_state::complete: return "complete";
  }
  return "unknown";
}

/// Every `member_state`: `from_string<member_state>("complete") == member_state::complete`.
template <>
inline constexpr std::array enumerators<member_state>{
    member_state::absent, member_state::in_progress, member_state::complete};

}  // namespace llmjson

// The reading, member by member; it needs member_state above.
#include <llmjson/detail/schema_of/partial_read.hpp>

namespace llmjson {

/// A struct declared with `LLMJSON_DEFINE_TYPE` read from a partial answer, the answer as far as
/// the model has written it: a `T` holding what has arrived, and the state of the whole, of
/// each member, of a vector's elements and of nested structs' members, asked by member pointer.
///
/// It is read from two things a stream gives while the answer is written:
///
/// - `value`, the partial answer healed: what has arrived, the string being written closed as
///   written so far, every open array and object closed, and a key, number or literal not yet
///   finished left out with its member or element;
/// - `open`, the JSON Pointer (RFC 6901) of the innermost value still being written: a string
///   or an open array or object (`"/steps/0/t"` in `{"steps":[{"t":"ab`; `"/steps"` in
///   `{"steps":[{"t":"ab"},`; `""` when it is the root object itself), or `std::nullopt` when
///   the value is complete.
///
/// A member present in `value` whose pointer is a prefix of `open` is being written; one present
/// elsewhere is written to its end; one not in `value` has not arrived. Each member is read on
/// its own, as `decode<T>` reads it where they agree: one that cannot be read yet is `absent`
/// and keeps its default value, never an exception. So, in detail:
///
/// - a scalar, a std::string, an enum: see `member_state`. A string being written shows what
///   came; an enum being written shows once its text is one of its names (`"hi` of `"high"`
///   is absent);
/// - a std::optional member: absent while its key has not come (even in a struct written to
///   its end, where decoding reads it as std::nullopt); `null` is complete, std::nullopt;
///   otherwise the state of its value;
/// - a declared struct: its members read one by one, keys it does not declare ignored;
///   complete once written to its end with every member it requires complete (a
///   std::optional one may be missing); written to its end without one, it is absent, with
///   its members;
/// - a std::vector or std::array: its elements read one by one, up to the first that cannot
///   be read: that element and those after it are left out (a vector stops there); elements
///   before the one being written are complete, so `complete_count` counts what is final and
///   the element after them, if any, is the one being written. Written to its end with an
///   element left out (or a std::array of another size), it is absent;
/// - a std::map or std::unordered_map: its entries that can be read; no state per entry.
///
/// The promise: when the answer read at the end is the candidate this partial answer came from
/// and decodes to a `T`, every member this `partial<T>` calls complete is in that `T`, equal.
/// Members in progress and absent promise nothing.
///
/// A `partial<T>` is immutable and cheap to copy: copies, and the partials of nested structs and
/// elements that `at` returns, share one reading of the value (they keep it alive). Building
/// one reads the whole value once: linear in its size.
///
/// **Example**:
/// ```cpp
/// struct step { std::string action; int minutes = 0; };
/// LLMJSON_DEFINE_TYPE(step, action, minutes)
/// struct plan { std::string title; std::vector<step> steps; };
/// LLMJSON_DEFINE_TYPE(plan, title, steps)
///
/// // The model has written {"title":"Tea","steps":[{"action":"boil","minutes":3},{"action":"ste
/// llmjson::partial<plan> p(value, open);  // open: "/steps/1/action"
/// p.state(&plan::title);                  // member_state::complete
/// p->steps.size();                        // 2: the second being written
/// p.complete_count(&plan::steps);         // 1
/// p.at(&plan::steps, 1).state(&step::action);  // member_state::in_progress ("ste")
/// p.at(&plan::steps, 1).state(&step::minutes); // member_state::absent
/// ```
template <class T>
class partial {
  static_assert(detail::declared_record<T>,
                "llmjson::partial<T>: T must be a struct declared with LLMJSON_DEFINE_TYPE");

 public:
  using value_type = T;

  /// Nothing has arrived: `value()` is `T{}`, `state()` absent. Allocates.
  partial() : partial(std::make_shared<holder>()) {}

  /// Reads the partial answer `value` in which `open` is being written (see the class): the
  /// members that can be read, each with its state. `std::nullopt` for a value written to its
  /// end; then every member present is complete or absent, and `value()` is what `decode<T>`
  /// gives, when it decodes. A `value` that is not an object gives `state()` absent.
  ///
  /// Throws `std::invalid_argument` when `open` is not a JSON Pointer (no leading `/`, a `~`
  /// not followed by `0` or `1`) or names nothing in `value`: what a stream gives always names
  /// a value in it. Allocates; linear in the size of `value`.
  partial(const nlohmann::json& value, std::optional<std::string_view> open)
      : partial(read(value, open)) {}

  /// Reads a stream's partial answer: `partial(p.value, p.open)`.
  explicit partial(const partial_answer& p) : partial(p.value, p.open) {}

  /// Returns the `T` with what has arrived: each member in progress or complete as read, each
  /// absent one default-constructed. Does not throw.
  [[nodiscard]] const T& value() const noexcept { return *value_; }
  /// Returns `value()`.
  [[nodiscard]] const T& operator*() const noexcept { return *value_; }
  /// Returns `&value()`: `p->steps`.
  [[nodiscard]] const T* operator->() const noexcept { return value_; }

  /// Returns the state of the whole value (for a nested struct from `at`, of that struct).
  /// Does not throw.
  [[nodiscard]] member_state state() const noexcept { return node_->state; }

  /// Returns the state of `member`, a pointer to a member `T` declares:
  /// `p.state(&plan::title)`. Throws `std::invalid_argument` for a member of type `M` that
  /// `LLMJSON_DEFINE_TYPE` does not list (and fails the build when none of its members has
  /// type `M`).
  template <class M>
  [[nodiscard]] member_state state(M T::*member) const {
    return item(member).state;
  }

  /// Returns the state of the element `i` of `member`, a std::vector or std::array member (or a
  /// std::optional of one): absent past the elements read. `p.state(&plan::steps, 2)`. Throws
  /// as `state(member)`.
  template <class M>
  [[nodiscard]] member_state state(M T::*member, std::size_t i) const {
    static_assert(is_container<M>,
                  "llmjson::partial<T>::state(&T::m, i): m must be a "
                  "std::vector or std::array, or a std::optional of one");
    const detail::partial_node& n = item(member);
    return i < n.items.size() ? n.items[i].state : member_state::absent;
  }

  /// Returns how many elements of `member` (a std::vector or std::array, or a std::optional of
  /// one) are complete, counted from the first: elements `[0, n)` are final, and element `n`,
  /// when there is one, is being written. `p.complete_count(&plan::steps)`. Throws as
  /// `state(member)`.
  template <class M>
  [[nodiscard]] std::size_t complete_count(M T::*member) const {
    static_assert(is_container<M>,
                  "llmjson::partial<T>::complete_count(&T::m): m must be a "
                  "std::vector or std::array, or a std::optional of one");
    const detail::partial_node& n = item(member);
    std::size_t count = 0;
    while (count < n.items.size() && n.items[count].state == member_state::complete) ++count;
    return count;
  }

  /// Returns the partial of `member`, a declared struct (or a std::optional of one), with the
  /// states of its own members: `p.at(&plan::owner).state(&person::name)`. Its `state()` is
  /// `state(member)`; when absent, its value is default-constructed. Throws as
  /// `state(member)`; allocates only for an absent std::optional.
  template <class M>
  [[nodiscard]] auto at(M T::*member) const {
    using R = detail::unwrap_optional_t<M>;
    if constexpr (!detail::declared_record<R>) {
      static_assert(detail::dependent_false<M>,
                    "llmjson::partial<T>::at(&T::m): m must be a struct declared with "
                    "LLMJSON_DEFINE_TYPE, or a std::optional of one (for an element of a vector "
                    "member: at(&T::m, i))");
    } else {
      const detail::partial_node& n = item(member);
      const M& m = value_->*member;
      if constexpr (detail::is_optional<M>::value) {
        if (!m) return partial<R>();
        return partial<R>(owner_, &*m, &n);
      } else {
        return partial<R>(owner_, &m, &n);
      }
    }
  }

  /// Returns the partial of the element `i` of `member`, a std::vector or std::array of
  /// declared structs (or a std::optional of either, or of std::optional elements):
  /// `p.at(&plan::steps, 1).state(&step::action)`. Its `state()` is `state(member, i)`; past
  /// the elements read (or for a `null` element) it is absent, with a default-constructed
  /// value. Throws as `state(member)`; allocates only when absent.
  template <class M>
  [[nodiscard]] auto at(M T::*member, std::size_t i) const {
    if constexpr (!is_container<M>) {
      static_assert(detail::dependent_false<M>,
                    "llmjson::partial<T>::at(&T::m, i): m must be a std::vector or std::array, "
                    "or a std::optional of one");
    } else if constexpr (!detail::declared_record<element_t<M>>) {
      static_assert(detail::dependent_false<M>,
                    "llmjson::partial<T>::at(&T::m, i): the elements of m must be structs "
                    "declared with LLMJSON_DEFINE_TYPE (read other elements from value(), their "
                    "states from state(&T::m, i))");
    } else {
      using C = detail::unwrap_optional_t<M>;
      using E = element_t<M>;
      const detail::partial_node& n = item(member);
      if (i >= n.items.size()) return partial<E>();
      const M& m = value_->*member;
      const C* c = nullptr;
      if constexpr (detail::is_optional<M>::value) {
        if (!m) return partial<E>();
        c = &*m;
      } else {
        c = &m;
      }
      const auto& e = (*c)[i];
      if constexpr (detail::is_optional<typename C::value_type>::value) {
        if (!e) return partial<E>();
        return partial<E>(owner_, &*e, &n.items[i]);
      } else {
        return partial<E>(owner_, &e, &n.items[i]);
      }
    }
  }

 private:
  template <class>
  friend class partial;

  /// The reading shared by a partial, its copies and the partials `at` returns.
  struct holder {
    T value{};
    detail::partial_node node;
  };

  /// The element type of a container member `M` (a std::optional around either unwrapped).
  template <class M>
  using element_t = detail::unwrap_optional_t<typename detail::unwrap_optional_t<M>::value_type>;

  template <class M>
  static constexpr bool is_container = detail::is_vector<detail::unwrap_optional_t<M>>::value ||
                                       detail::is_std_array<detail::unwrap_optional_t<M>>::value;

  explicit partial(std::shared_ptr<const holder> h)
      : owner_(h), value_(&h->value), node_(&h->node) {}
  partial(std::shared_ptr<const void> owner, const T* value, const detail::partial_node* node)
      : owner_(std::move(owner)), value_(value), node_(node) {}

  /// Returns the reading of `value`, in which `open` is being written.
  static std::shared_ptr<const holder> read(const nlohmann::json& value,
                                            std::optional<std::string_view> open) {
    const std::vector<std::string> tokens =
        open ? detail::open_tokens(value, *open) : std::vector<std::string>{};
    auto h = std::make_shared<holder>();
    h->node.state = detail::read_partial_record(value, h->value, h->node,
                                                detail::open_cursor{&tokens, 0, open.has_value()});
    return h;
  }

  /// The node of `member`: absent when this value has none (it is absent).
  template <class M>
  const detail::partial_node& item(M T::*member) const {
    const std::size_t k = detail::field_index(member);
    if (k == std::tuple_size_v<decltype(detail::fields_of<T>())>)
      detail::throw_undeclared_member(detail::type_name_of<T>());
    return k < node_->items.size() ? node_->items[k] : detail::absent_node();
  }

  std::shared_ptr<const void> owner_;  ///< keeps the root's holder alive
  const T* value_;
  const detail::partial_node* node_;
};

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema_of/partial-inl.hpp>
#endif

#endif  // LLMJSON_PARTIAL_HPP_INCLUDED
