// llmjson: compiles a JSON Schema (draft 7) document into a schema_tree
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_COMPILER_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_COMPILER_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema/tree.hpp>

namespace llmjson::detail {

/// Compiles one schema document into a `schema_tree`. `run()` returns false at the first
/// problem, and `message()` names its place and what is wrong: `/items/$ref: remote reference
/// "http://example.com/s.json" is not supported`. The document must outlive the compiler; the
/// tree it makes does not refer to it.
///
/// ```cpp
/// schema_compiler c(document);
/// if (!c.run()) return c.message();
/// schema_tree tree = c.take();
/// ```
class schema_compiler {
 public:
  explicit schema_compiler(const nlohmann::json& document) : doc_(document) {}

  /// Compiles the document: every subschema it reaches into a node, then every `$ref` to its
  /// node, then the unknown keywords judged, then `$ref` cycles refused. Returns false and sets
  /// `message()` on the first problem.
  bool run();

  /// The first problem, "/path: what is wrong"; empty after a successful `run()`.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

  /// Moves the compiled tree out (after a successful `run()`).
  schema_tree take() { return std::move(tree_); }

  /// Returns the JSON pointer of a node within the document ("" for the root).
  [[nodiscard]] std::string path_of(std::size_t n) const;

 private:
  /// A subschema waiting to be compiled into `node`, under base URI `base`.
  struct work {
    const nlohmann::json* value;
    std::size_t node;
    std::string base;
  };
  /// A `$ref` not resolved yet.
  struct pending_ref {
    std::size_t node;
    std::string target;  // absolute (or base-relative) URI
    std::string text;    // as written
  };
  /// A keyword this compiler does not know, judged once every `$ref` is resolved.
  struct unknown_keyword {
    std::size_t node;
    std::string keyword;
    const nlohmann::json* value;
  };
  /// The node being compiled, and the base URI its relative references resolve against.
  struct place {
    std::size_t id;
    const std::string& base;
  };
  /// One keyword of the node being compiled; `token` is its pointer suffix, `/minLength`.
  struct keyword {
    const std::string& name;
    const nlohmann::json& value;
    std::string token;
  };

  // Every subschema reached becomes a node: enqueued once (by its address in the document),
  // compiled when the queue is drained.
  std::size_t enqueue(const nlohmann::json* v, std::size_t parent, std::string token,
                      std::string base);
  bool drain();
  bool compile_one(const work& w);
  bool read_id(const nlohmann::json& j, std::size_t id, std::string& base);
  // A keyword beside $ref that would assert something: refused (draft 7 ignores it).
  bool check_ref_siblings(const nlohmann::json& j, std::size_t id);

  // The keywords, by group. Each group returns std::nullopt when the keyword is not one of its
  // own, else whether it compiled.
  bool compile_keyword(const place& at, schema_node& n, const keyword& k);
  std::optional<bool> core_keyword(const place& at, const keyword& k);
  std::optional<bool> annotation_keyword(const place& at, const keyword& k);
  std::optional<bool> validation_keyword(const place& at, schema_node& n, const keyword& k);
  std::optional<bool> applicator_keyword(const place& at, schema_node& n, const keyword& k);

  // What the keywords' values must be.
  bool schema_at(const place& at, const nlohmann::json& v, const std::string& token,
                 std::size_t& out);
  bool schema_list(const place& at, const nlohmann::json& v, const std::string& token,
                   std::vector<std::size_t>& out);
  bool schema_map(const place& at, const nlohmann::json& v, const std::string& token,
                  std::vector<std::pair<std::string, std::size_t>>* out);
  bool number(const place& at, const nlohmann::json& v, const std::string& token,
              std::optional<nlohmann::json>& out);
  bool count(const place& at, const nlohmann::json& v, const std::string& token,
             std::optional<std::size_t>& out);
  std::optional<schema_pattern> compile_pattern(const place& at, const std::string& source,
                                                const std::string& token);
  static bool is_schema(const nlohmann::json& v);
  static std::optional<std::size_t> as_count(const nlohmann::json& v);
  static bool is_draft7_uri(std::string_view s);
  static bool asserts(std::string_view keyword);

  // After the queue: references, unknown keywords, cycles; then what each node applies.
  bool resolve_refs();
  bool check_unknown_keywords();
  bool check_cycles();
  void mark_applicators();

  bool fail_at(std::size_t node, std::string_view token, std::string_view what);
  bool fail(std::string where, std::string_view what);

  const nlohmann::json& doc_;
  schema_tree tree_;
  std::vector<const nlohmann::json*> raw_;  // node → its JSON in the document
  std::vector<std::size_t> parent_;         // node → parent node, or no_node
  std::vector<std::string> token_;          // node → pointer suffix from its parent
  std::vector<std::string> base_;           // node → base URI
  std::unordered_map<const nlohmann::json*, std::size_t> at_;
  std::unordered_map<std::string, std::size_t> resources_;  // URI without fragment → node
  std::unordered_map<std::string, std::size_t> anchors_;    // URI with plain-name fragment → node
  std::vector<work> queue_;
  std::vector<pending_ref> refs_;
  std::vector<unknown_keyword> unknown_;
  std::string message_;
};

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/compiler-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_COMPILER_HPP_INCLUDED
