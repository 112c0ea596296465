// llmjson: evaluates a value against a compiled JSON Schema, with a stack of its own
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_EVALUATOR_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_EVALUATOR_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/schema/tree.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// The most nested schema evaluations (one per subschema applied, `$ref` chains excepted) before
/// validation stops with "schema evaluation too deep". Deep enough for a recursive schema on a
/// value `max_depth_limit` levels deep. Evaluation keeps its own stack (on the heap), so the
/// thread's stack use does not grow with the depth of the schema or the value.
inline constexpr std::size_t schema_max_evaluation_depth = 3 * max_depth_limit;
/// The most subschema applications one validation may make: a schema whose `$ref`s fan out
/// (`allOf` of two refs to the next level, thirty levels deep) fails cleanly instead of taking
/// exponential time.
inline constexpr std::size_t schema_max_evaluation_steps = std::size_t{1} << 24;

// Validation never recurses: each subschema being applied is a `frame` on a heap-allocated
// stack (a deque, so a frame's address stays put while its children run). A frame advances
// through phases (the keyword groups, in the order their failures are reported); to apply a
// child schema it pushes a frame and waits; the child's result comes back through `resume`.
class schema_evaluator {
 public:
  explicit schema_evaluator(const schema_tree& t)
      : t_(t), scratch_(take_scratch()), stack_(scratch_->stack), path_(scratch_->path) {}
  ~schema_evaluator() { give_back(); }
  schema_evaluator(const schema_evaluator&) = delete;
  schema_evaluator& operator=(const schema_evaluator&) = delete;

  /// Returns whether `v` is valid; when not, `message()` says why: the place, the keyword and
  /// what it expected (`/steps/2/eta: type: expected integer, got string`). Allocates; does not
  /// throw (except `std::bad_alloc`). Call once per evaluator.
  bool run(const nlohmann::json& v);
  /// Why the last `run` returned false.
  [[nodiscard]] std::string& message() noexcept { return message_; }
  /// Judges a healed value (rules §8 Qualifying): `required`, `minItems` and `minProperties`
  /// are not applied; `*open_string` (null: none), the string being written, is exempt from
  /// `minLength`, `maxLength` and `pattern`, and passes `enum` and `const` when one of their
  /// strings begins with it (what it may still become). Call before `run`.
  void partial(const nlohmann::json* open_string) noexcept {
    partial_ = true;
    open_string_ = open_string;
  }
  /// The root's `required` keys when they are the first thing `run` checks of an object (the
  /// root applies no `const` or `enum`, and its `type`, if any, allows an object): an object
  /// that lacks one of them then fails whatever else it holds, with `lacks(k)`'s message for
  /// the first `k` of them it lacks. Null otherwise, and when the root requires no key.
  [[nodiscard]] static const std::vector<std::string>* required_first(
      const schema_tree& t) noexcept;
  /// The message `run` gives an object that lacks `key`, the first of `required_first`'s keys
  /// it lacks (a fresh evaluator, instead of `run`).
  std::string& lacks(const std::string& key);

 private:
  struct step {
    const std::string* key = nullptr;  // object member, or
    std::size_t index = 0;             // array index
  };
  enum class phase : std::uint8_t {
    start,
    tuple,
    additional_items,
    items,
    contains,
    dependencies,
    names,
    members,
    all_of,
    any_of,
    one_of,
    not_,
    if_,
    branch
  };
  // What a frame's step ends with: its result (`pass`, `fail`), a child pushed whose result
  // comes back through `resume` (`called`), or a move to the frame's next phase (`next`).
  enum class outcome : std::uint8_t { pass, fail, called, next };
  // What the child a phase waited for answered: `none` when the phase pushed no child.
  enum class reply : std::uint8_t { none, passed, failed };
  struct frame {
    std::size_t node = 0;
    const nlohmann::json* value = nullptr;
    phase at = phase::start;
    bool waiting = false;         // a child frame was pushed; its result comes next
    bool quiet = false;           // counted in quiet_
    bool pushed_path = false;     // added a step to path_
    bool matched = false;         // members: the current key matched properties/patternProperties
    std::size_t i = 0;            // position within the phase
    std::size_t j = 0;            // members: stage for the current key
    std::size_t first = no_node;  // oneOf: the first alternative that matched
    nlohmann::json::const_iterator member{};  // names/members: the current key
    // propertyNames: the key as a value, judged with a path and message of its own
    nlohmann::json name;
    std::vector<step> saved_path;
    std::string saved_message;
  };

  static inline const std::string too_deep = ": schema evaluation too deep (over " +
                                             std::to_string(schema_max_evaluation_depth) +
                                             " nested subschemas)";
  static inline const std::string too_costly = ": schema evaluation too costly (over " +
                                               std::to_string(schema_max_evaluation_steps) +
                                               " subschema applications)";

  // The stack and the path, kept by the thread between evaluations, emptied, with their
  // storage (a deque allocates on construction): an answer is judged without allocating them
  // again. An evaluator made while another holds them (none is, today) makes its own.
  struct scratch {
    // A constructor of its own, not a default member initializer: clang judges whether a
    // nested class can be made (std::optional's emplace) before the enclosing class ends.
    scratch() : taken(false) {}
    std::deque<frame> stack;
    std::vector<step> path;
    bool taken;
  };
  // The thread's, or one of its own (`own_`) when another evaluator holds the thread's.
  [[nodiscard]] scratch* take_scratch();
  void give_back() noexcept {
    stack_.clear();  // the frames' own storage goes; the deque keeps a block
    path_.clear();
    if (!own_) scratch_->taken = false;
  }

  const schema_tree& t_;
  std::optional<scratch> own_;
  scratch* scratch_;
  std::deque<frame>& stack_;
  std::size_t depth_ = 0;  // stack_.size(), kept apart: a deque works its size out from its blocks
  std::size_t steps_ = 0;
  std::vector<step>& path_;
  int quiet_ = 0;  // > 0 inside anyOf/oneOf/not/if/contains: failures are expected, no message
  bool aborted_ = false;
  bool partial_ = false;                         // see partial()
  const nlohmann::json* open_string_ = nullptr;  // the string being written
  std::string message_;
  reply answer_ = reply::none;  // a child judged without a frame: its answer (see child())

  // The string being written (a healed value's): `allowed`, a string, may be what it becomes.
  [[nodiscard]] static bool may_become(const nlohmann::json& allowed, const nlohmann::json& v) {
    return allowed.is_string() &&
           allowed.get_ref<const std::string&>().starts_with(v.get_ref<const std::string&>());
  }

  // --- the stack ---

  // Counts one more subschema application; false (and the message) over either limit.
  bool admit();
  // `node` with its `$ref` chain followed.
  [[nodiscard]] std::size_t target(std::size_t node) const noexcept;

  // Pushes a frame applying schema `node` to `*v`. `key`/`index` name the child's place
  // (`key == nullptr` and `index == no_node`: the same place). Returns false when too deep.
  bool call(std::size_t node, const nlohmann::json* v, bool quiet, const std::string* key,
            std::size_t index);
  // Has `parent` apply schema `node` to `*v`: pushes a frame (`called`), or, for a node that
  // applies no subschema, judges it at once and leaves the answer in `answer_` (`called` too);
  // `fail` when too deep or too costly.
  outcome child(frame& parent, std::size_t node, const nlohmann::json* v, bool quiet,
                const std::string* key = nullptr, std::size_t index = no_node);
  void pop();

  // --- messages ---

  [[nodiscard]] bool silent() const noexcept { return quiet_ > 0 || !message_.empty(); }

  [[nodiscard]] std::string where() const;
  outcome fail(std::string_view keyword, std::string_view what);
  static std::string plural(std::size_t n, std::string_view one, std::string_view many);
  outcome fail_number(std::string_view keyword, std::string_view relation,
                      const nlohmann::json& bound, const nlohmann::json& got);
  outcome fail_count(std::string_view keyword, std::string_view relation, std::size_t bound,
                     std::string_view one, std::string_view many, std::size_t got);
  outcome fail_key(std::string_view keyword, std::string_view prefix, const std::string& key);

  static bool type_matches(unsigned types, const nlohmann::json& v);
  static std::string type_list(unsigned types);
  static bool in_enum(const nlohmann::json& values, const nlohmann::json& v);
  [[nodiscard]] bool declared(const schema_node& n, const std::string& key) const;

  // --- checks that apply no child schema ---

  // A frame's first phase: its own checks, then `next` to the phase that applies subschemas.
  outcome start(frame& f, const schema_node& n);
  // Every check of `n` that applies no subschema: type, const, enum, then by the value's type.
  outcome own_checks(const schema_node& n, const nlohmann::json& v);
  outcome number_checks(const schema_node& n, const nlohmann::json& v);
  outcome string_checks(const schema_node& n, const nlohmann::json& v);
  outcome array_checks(const schema_node& n, const nlohmann::json& v);
  outcome object_checks(const schema_node& n, const nlohmann::json& v);

  [[nodiscard]] bool closed(const schema_node& n) const noexcept {
    return n.additional_properties != no_node &&
           t_.nodes[n.additional_properties].kind == schema_node::form::never;
  }

  // --- the phases ---

  /// Moves `f` to phase `p`, at its first position.
  static void enter(frame& f, phase p) noexcept {
    f.at = p;
    f.i = 0;
  }

  // Advances frame `f` phase after phase; `r` is the result of the child it was waiting for, if
  // any. Returns `called` after pushing a child, else the frame's own result.
  outcome resume(frame& f, bool r);

  // One phase each: `called` after pushing a child, `next` when the phase is done and `f` has
  // moved on, else the frame's result. `got` is the answer of the child the phase pushed.
  outcome tuple_phase(frame& f, const schema_node& n, reply got);
  outcome items_phase(frame& f, const schema_node& n, reply got);  // items, additionalItems
  outcome contains_phase(frame& f, const schema_node& n, reply got);
  outcome dependencies_phase(frame& f, const schema_node& n, reply got);
  outcome names_phase(frame& f, const schema_node& n, reply got);  // propertyNames
  // properties, patternProperties, additionalProperties
  outcome members_phase(frame& f, const schema_node& n, reply got);
  outcome all_of_phase(frame& f, const schema_node& n, reply got);
  outcome any_of_phase(frame& f, const schema_node& n, reply got);
  outcome one_of_phase(frame& f, const schema_node& n, reply got);
  outcome not_phase(frame& f, const schema_node& n, reply got);
  outcome if_phase(frame& f, const schema_node& n, reply got);  // if, then, else

  // propertyNames failed for `key`; `inner` is what the key's own check said.
  outcome fail_name(const std::string& key, std::string inner);
};

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/evaluator-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_EVALUATOR_HPP_INCLUDED
