// llmjson: partial<T>, a declared type read from a partial answer (value healed, open pointer):
// each state of each kind of member, and, on every prefix of several answers healed here by the
// rules' section 8, that what it calls complete is what the whole answer decodes to
// SPDX-License-Identifier: MIT
#include <llmjson/partial.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/schema_of.hpp>

namespace llmjson_tests::partial_typed_test {

namespace partial_types {

enum class level { low, lowest, high };  // "low" is a prefix of "lowest"
LLMJSON_DEFINE_ENUM(level, low, lowest, high)

struct step {
  std::string action;
  int minutes = 0;
  std::optional<level> priority;
  friend bool operator==(const step&, const step&) = default;
};
LLMJSON_DEFINE_TYPE(step, (action, "what to do"), minutes, priority)

struct person {
  std::string name;
  std::optional<int> age;
  friend bool operator==(const person&, const person&) = default;
};
LLMJSON_DEFINE_TYPE(person, name, age)

struct plan {
  std::string title;
  std::vector<step> steps;
  std::optional<person> owner;
  level urgency = level::low;
  bool done = false;
  double budget = 0;
  std::vector<std::string> tags;
  std::array<int, 2> window{};
  std::map<std::string, int> counts;
  friend bool operator==(const plan&, const plan&) = default;
};
LLMJSON_DEFINE_TYPE(plan, title, steps, owner, urgency, done, budget, tags, window, counts)

// Containers of structs in other shapes: at() reaches their elements too.
struct shelf {
  std::optional<std::vector<step>> maybe;
  std::vector<std::optional<step>> holes;
  std::array<person, 2> pair{};
};
LLMJSON_DEFINE_TYPE(shelf, maybe, holes, pair)

// A struct with private members, declared inside, and a member LLMJSON_DEFINE_TYPE leaves out.
class note {
 public:
  std::string text;
  std::string unlisted;  // not declared: never read

 private:
  std::uint8_t weight_ = 0;

 public:
  [[nodiscard]] std::uint8_t weight() const { return weight_; }
  LLMJSON_DEFINE_TYPE_INTRUSIVE(note, text, weight_)
};

}  // namespace partial_types

using llmjson::member_state;
using llmjson::partial;
using namespace partial_types;

namespace {

using json = nlohmann::json;
constexpr auto absent = member_state::absent;
constexpr auto in_progress = member_state::in_progress;
constexpr auto complete = member_state::complete;

// ---- a healer for tests: the rules' section 8, for a text that is a prefix of one JSON value ---

/// A prefix of a JSON text healed: the value (none when nothing of it can be shown yet) and
/// the JSON Pointer of the innermost value being written (none when the value is complete).
struct healed {
  std::optional<json> value;
  std::optional<std::string> open;
};

/// Heals a prefix of one valid JSON value, by section 8: the string being written closed as
/// written so far (an incomplete escape or UTF-8 sequence at its end left out), a key without
/// its `:`, a member without its value, a number or literal a later byte could still extend
/// left out with its member or element, every open array and object closed.
class healer {
 public:
  explicit healer(std::string_view text) : s_(text) {}

  healed run() {
    healed h;
    json v;
    const got g = value(v, "", h.open);
    if (g != got::none) h.value = std::move(v);
    if (g != got::open) h.open.reset();
    return h;
  }

 private:
  enum class got { done, open, none };

  std::string_view s_;
  std::size_t i_ = 0;

  bool at_end() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
    return i_ == s_.size();
  }

  static std::string escape(std::string_view key) {
    std::string out;
    for (const char c : key) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
    return out;
  }

  // Reads a string at i_ (on its opening quote). Returns whether its closing quote came; `out`
  // is its text, or, when not, its text so far without an incomplete escape or UTF-8 sequence.
  bool string(std::string& out) {
    const std::size_t start = ++i_;
    std::size_t good = start;  // end of the last complete character or escape
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') {
        const std::size_t need = i_ + 1 < s_.size() && s_[i_ + 1] == 'u' ? 6 : 2;
        if (i_ + need > s_.size()) break;
        // A high surrogate waits for its low one.
        const std::string_view esc = s_.substr(i_, need);
        const bool high = need == 6 && (esc[2] == 'd' || esc[2] == 'D') &&
                          std::string_view("89abAB").find(esc[3]) != std::string_view::npos;
        i_ += need;
        if (!high) good = i_;
        continue;
      }
      const auto b = static_cast<unsigned char>(s_[i_]);
      const std::size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
      if (i_ + len > s_.size()) break;
      i_ += len;
      good = i_;
    }
    const bool closed = i_ < s_.size() && s_[i_] == '"';
    const std::size_t end = closed ? i_ : good;
    out = json::parse("\"" + std::string(s_.substr(start, end - start)) + "\"").get<std::string>();
    if (closed) ++i_;
    return closed;
  }

  got value(json& out, const std::string& path, std::optional<std::string>& open) {
    if (at_end()) return got::none;
    const char c = s_[i_];
    if (c == '{' || c == '[') {
      const bool object = c == '{';
      out = object ? json::object() : json::array();
      ++i_;
      for (;;) {
        if (at_end()) break;
        if (s_[i_] == (object ? '}' : ']')) {
          ++i_;
          return got::done;
        }
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        std::string key;
        if (object) {
          if (!string(key) || at_end() || s_[i_] != ':') break;
          ++i_;
        }
        const std::string child_path =
            path + "/" + (object ? escape(key) : std::to_string(out.size()));
        json child;
        const got g = value(child, child_path, open);
        if (g == got::none) break;
        if (object) {
          out[key] = std::move(child);
        } else {
          out.push_back(std::move(child));
        }
        if (g == got::open) return got::open;
      }
      open = path;
      return got::open;
    }
    if (c == '"') {
      std::string text;
      const bool closed = string(text);
      out = text;
      if (closed) return got::done;
      open = path;
      return got::open;
    }
    // A number or literal: complete once a byte that cannot extend it follows, or, for a
    // literal, once all its letters are there.
    const std::size_t start = i_;
    while (i_ < s_.size() &&
           std::string_view("0123456789+-.eEtruefalsn").find(s_[i_]) != std::string_view::npos)
      ++i_;
    const std::string_view token = s_.substr(start, i_ - start);
    const bool literal = token == "true" || token == "false" || token == "null";
    if (i_ == s_.size() && !literal) return got::none;
    out = json::parse(token);
    return got::done;
  }
};

healed heal(std::string_view text) { return healer(text).run(); }

partial<plan> read(std::string_view text) {
  const healed h = heal(text);
  REQUIRE(h.value);
  return partial<plan>(*h.value, h.open);
}

const char* const whole_plan = R"({"title":"Tea","steps":[{"action":"boil","minutes":3},
  {"action":"steep","minutes":4,"priority":"high"}],"owner":{"name":"Ann","age":40},
  "urgency":"lowest","done":false,"budget":2.5e1,"tags":["hot","green"],"window":[9,17],
  "counts":{"cups":2}})";

}  // namespace

TEST_CASE("partial_typed: the test healer heals as the rules' section 8 says", "[partial_typed]") {
  auto check = [](std::string_view text, const json& value, std::optional<std::string> open) {
    const healed h = heal(text);
    INFO(text);
    REQUIRE(h.value);
    CHECK(*h.value == value);
    CHECK(h.open == open);
  };
  check(R"({"steps":[{"t":"ab)", json::parse(R"({"steps":[{"t":"ab"}]})"), "/steps/0/t");
  check(R"({"steps":[{"t":"ab"},)", json::parse(R"({"steps":[{"t":"ab"}]})"), "/steps");
  check(R"({"a":[1,2)", json::parse(R"({"a":[1]})"), "/a");
  check(R"({"a":tru)", json::object(), "");
  check(R"({"a":true)", json::parse(R"({"a":true})"), "");
  check(R"({"a":-1.)", json::object(), "");
  check(R"({"a":1 )", json::parse(R"({"a":1})"), "");
  check(R"({"ke)", json::object(), "");
  check(R"({"key")", json::object(), "");
  check(R"({"key":)", json::object(), "");
  check(R"({"a/b~":"x\)", json::parse(R"({"a/b~":"x"})"), "/a~1b~0");
  check(R"({"a":"x\u00)", json::parse(R"({"a":"x"})"), "/a");
  check(R"({"a":"x\ud83d)", json::parse(R"({"a":"x"})"), "/a");
  check("{\"a\":\"x\xC3", json::parse(R"({"a":"x"})"), "/a");
  check(R"({"a":[]})", json::parse(R"({"a":[]})"), std::nullopt);
  CHECK_FALSE(heal("  ").value);
}

TEST_CASE("partial_typed: nothing arrived, every member absent", "[partial_typed]") {
  const partial<plan> none;
  CHECK(none.state() == absent);
  CHECK(none.value() == plan{});
  CHECK(none.state(&plan::title) == absent);
  CHECK(none.complete_count(&plan::steps) == 0);
  CHECK(none.at(&plan::owner).state() == absent);
  CHECK(none.at(&plan::steps, 0).state() == absent);

  const partial<plan> root_only = read("{");
  CHECK(root_only.state() == in_progress);
  CHECK(root_only.state(&plan::steps) == absent);
  CHECK(root_only.value() == plan{});

  const partial<plan> not_object(json::array(), std::nullopt);
  CHECK(not_object.state() == absent);
  CHECK(not_object.state(&plan::title) == absent);
}

TEST_CASE("partial_typed: scalars are complete once their value has come", "[partial_typed]") {
  const partial<plan> p = read(R"({"title":"Tea","done":true,"budget":1.5)");
  CHECK(p.state() == in_progress);
  CHECK(p.state(&plan::title) == complete);
  CHECK(p->title == "Tea");
  CHECK(p.state(&plan::done) == complete);
  CHECK(p->done);
  CHECK(p.state(&plan::budget) == absent);  // 1.5 could still become 1.57
  CHECK(p->budget == 0);
  CHECK(read(R"({"budget":1.5,)").state(&plan::budget) == complete);
  CHECK(read(R"({"budget":1.5,)")->budget == 1.5);
  CHECK(read(R"({"done":fals)").state(&plan::done) == absent);
}

TEST_CASE("partial_typed: a string being written is in progress, as written", "[partial_typed]") {
  const partial<plan> p = read(R"({"title":"Te)");
  CHECK(p.state(&plan::title) == in_progress);
  CHECK(p->title == "Te");
  CHECK(p.state() == in_progress);
  const partial<plan> q = read(R"({"title":"Tea")");  // the quote came: final
  CHECK(q.state(&plan::title) == complete);
  CHECK(q->title == "Tea");
  CHECK(read(R"({"title")").state(&plan::title) == absent);
  CHECK(read(R"({"title":)").state(&plan::title) == absent);
}

TEST_CASE("partial_typed: a nested struct, its members and its own state", "[partial_typed]") {
  const partial<plan> p = read(R"({"owner":{"name":"Ann","age":4)");
  CHECK(p.state(&plan::owner) == in_progress);
  REQUIRE(p->owner);
  CHECK(p->owner->name == "Ann");
  const partial<person> owner = p.at(&plan::owner);
  CHECK(owner.state() == in_progress);
  CHECK(owner.state(&person::name) == complete);
  CHECK(owner.state(&person::age) == absent);  // 4 may be 40
  CHECK(owner->name == "Ann");

  const partial<plan> name_open = read(R"({"owner":{"name":"An)");
  CHECK(name_open.at(&plan::owner).state(&person::name) == in_progress);
  CHECK(name_open.at(&plan::owner)->name == "An");

  // Written to its end: complete (the optional age may be missing, as decoding allows).
  const partial<plan> closed = read(R"({"owner":{"name":"Ann"},)");
  CHECK(closed.state(&plan::owner) == complete);
  CHECK(closed.at(&plan::owner).state(&person::age) == absent);
  CHECK(closed->owner == person{"Ann", std::nullopt});

  // Written to its end without its required name: it will never decode, so absent.
  const partial<plan> no_name = read(R"({"owner":{"age":4},)");
  CHECK(no_name.state(&plan::owner) == absent);
  CHECK_FALSE(no_name->owner);
  CHECK(no_name.at(&plan::owner).state() == absent);
  CHECK(no_name.at(&plan::owner).state(&person::age) == absent);
  // ... while it is open, what came shows.
  const partial<plan> open_no_name = read(R"({"owner":{"age":4,)");
  CHECK(open_no_name.state(&plan::owner) == in_progress);
  CHECK(open_no_name.at(&plan::owner).state(&person::age) == complete);
  CHECK(open_no_name->owner->age == 4);
}

TEST_CASE("partial_typed: a vector of structs, element by element", "[partial_typed]") {
  const partial<plan> p = read(R"({"steps":[{"action":"boil","minutes":3},{"action":"ste)");
  CHECK(p.state(&plan::steps) == in_progress);
  REQUIRE(p->steps.size() == 2);
  CHECK(p.complete_count(&plan::steps) == 1);
  CHECK(p.state(&plan::steps, 0) == complete);
  CHECK(p.state(&plan::steps, 1) == in_progress);
  CHECK(p.state(&plan::steps, 2) == absent);
  CHECK(p->steps[0] == step{"boil", 3, std::nullopt});
  const partial<step> second = p.at(&plan::steps, 1);
  CHECK(second.state() == in_progress);
  CHECK(second.state(&step::action) == in_progress);
  CHECK(second->action == "ste");
  CHECK(second.state(&step::minutes) == absent);
  CHECK(p.at(&plan::steps, 0).state(&step::minutes) == complete);
  CHECK(p.at(&plan::steps, 7).state() == absent);
  CHECK(p.at(&plan::steps, 7).value() == step{});

  // Between elements: the array is open, every element so far complete.
  const partial<plan> between = read(R"({"steps":[{"action":"boil","minutes":3},)");
  CHECK(between.state(&plan::steps) == in_progress);
  CHECK(between->steps.size() == 1);
  CHECK(between.complete_count(&plan::steps) == 1);

  const partial<plan> closed =
      read(R"({"steps":[{"action":"boil","minutes":3},{"action":"steep","minutes":4}],)");
  CHECK(closed.state(&plan::steps) == complete);
  CHECK(closed.complete_count(&plan::steps) == 2);

  // An element written to its end without a required member stops the vector there.
  const partial<plan> missing = read(R"({"steps":[{"action":"a","minutes":1},{"action":"b"},)");
  CHECK(missing.state(&plan::steps) == in_progress);
  CHECK(missing->steps.size() == 1);
  CHECK(missing.complete_count(&plan::steps) == 1);
  CHECK(missing.state(&plan::steps, 1) == absent);
}

TEST_CASE("partial_typed: an element that cannot be read stops its vector", "[partial_typed]") {
  const char* text =
      R"({"steps":[{"action":"a","minutes":1},{"action":2,"minutes":1},{"action":"c")";
  const partial<plan> p = read(text);
  CHECK(p.state(&plan::steps) == in_progress);
  REQUIRE(p->steps.size() == 1);
  CHECK(p->steps[0].action == "a");
  CHECK(p.complete_count(&plan::steps) == 1);
  CHECK(p.state(&plan::steps, 1) == absent);
  CHECK(p.state(&plan::steps, 2) == absent);
  // Written to its end, such a vector never decodes: absent, empty.
  const partial<plan> closed = read(std::string(text) + ",\"minutes\":2}],");
  CHECK(closed.state(&plan::steps) == absent);
  CHECK(closed->steps.empty());
  CHECK(closed.complete_count(&plan::steps) == 0);

  const partial<plan> tags = read(R"({"tags":["a",3,"c"],)");
  CHECK(tags.state(&plan::tags) == absent);
  const partial<plan> tags_open = read(R"({"tags":["a","b)");
  CHECK(tags_open.state(&plan::tags) == in_progress);
  CHECK(tags_open->tags == std::vector<std::string>{"a", "b"});
  CHECK(tags_open.state(&plan::tags, 1) == in_progress);
  CHECK(tags_open.complete_count(&plan::tags) == 1);
}

TEST_CASE("partial_typed: std::array and map members", "[partial_typed]") {
  const partial<plan> p = read(R"({"window":[9,17)");  // 17 may go on
  CHECK(p.state(&plan::window) == in_progress);
  CHECK(p->window == std::array<int, 2>{9, 0});
  CHECK(p.state(&plan::window, 0) == complete);
  CHECK(p.state(&plan::window, 1) == absent);
  CHECK(read(R"({"window":[9,17],)").state(&plan::window) == complete);
  CHECK(read(R"({"window":[9],)").state(&plan::window) == absent);       // too short, finished
  CHECK(read(R"({"window":[9,17,18,)").state(&plan::window) == absent);  // too long already

  const partial<plan> m = read(R"({"counts":{"cups":2,"pots":"x","mugs":)");
  CHECK(m.state(&plan::counts) == in_progress);
  CHECK(m->counts == std::map<std::string, int>{{"cups", 2}});
  CHECK(read(R"({"counts":{"cups":2,"pots":"x"},)").state(&plan::counts) == absent);
  CHECK(read(R"({"counts":{"cups":2},)").state(&plan::counts) == complete);
}

TEST_CASE("partial_typed: elements of optional vectors, optional elements, std::array",
          "[partial_typed]") {
  auto read_shelf = [](std::string_view text) {
    const healed h = heal(text);
    REQUIRE(h.value);
    return partial<shelf>(*h.value, h.open);
  };
  const partial<shelf> p = read_shelf(
      R"({"holes":[null,{"action":"c","minutes":2}],"maybe":[{"action":"a","minutes":1},{"action":"b)");
  CHECK(p.state(&shelf::maybe) == in_progress);
  CHECK(p.complete_count(&shelf::maybe) == 1);
  CHECK(p.at(&shelf::maybe, 0).value() == step{"a", 1, std::nullopt});
  CHECK(p.at(&shelf::maybe, 1).state(&step::action) == in_progress);
  CHECK(p.at(&shelf::maybe, 1)->action == "b");
  CHECK(p.at(&shelf::maybe, 2).state() == absent);
  CHECK(p.state(&shelf::holes) == complete);
  CHECK(p.state(&shelf::holes, 0) == complete);  // null: complete, no struct to show
  CHECK(p.at(&shelf::holes, 0).state() == absent);
  CHECK(p.at(&shelf::holes, 1).state() == complete);
  CHECK(p.at(&shelf::holes, 1)->action == "c");
  CHECK(p.state(&shelf::pair) == absent);
  CHECK(p.at(&shelf::pair, 0).state() == absent);

  const partial<shelf> q = read_shelf(R"({"pair":[{"name":"x"},{"name":"y)");
  CHECK(q.state(&shelf::pair) == in_progress);
  CHECK(q.complete_count(&shelf::pair) == 1);
  CHECK(q.at(&shelf::pair, 0).state(&person::name) == complete);
  CHECK(q.at(&shelf::pair, 1)->name == "y");
  CHECK(q.state(&shelf::maybe) == absent);
  CHECK(q.at(&shelf::maybe, 0).state() == absent);
  CHECK(q.complete_count(&shelf::maybe) == 0);
}

TEST_CASE("partial_typed: an optional member, absent, null or with a value", "[partial_typed]") {
  CHECK(read(R"({"title":"x",)").state(&plan::owner) == absent);
  const partial<plan> null_owner = read(R"({"owner":null)");
  CHECK(null_owner.state(&plan::owner) == complete);
  CHECK_FALSE(null_owner->owner);
  CHECK(null_owner.at(&plan::owner).state() == absent);  // no struct to show
  CHECK(read(R"({"owner":nul)").state(&plan::owner) == absent);

  const partial<plan> age_text = read(R"({"owner":{"name":"A","age":"4"})");
  CHECK(age_text.state(&plan::owner) == absent);  // finished, and age never reads as an int
  const partial<plan> age_open = read(R"({"owner":{"name":"A","age":"4)");
  CHECK(age_open.state(&plan::owner) == in_progress);
  CHECK(age_open.at(&plan::owner).state(&person::age) == absent);
  CHECK_FALSE(age_open->owner->age);

  const partial<plan> priority = read(R"({"steps":[{"action":"a","minutes":1,"priority":"hi)");
  CHECK(priority.at(&plan::steps, 0).state(&step::priority) == absent);
  const partial<plan> priority_done =
      read(R"({"steps":[{"action":"a","minutes":1,"priority":"high"})");
  CHECK(priority_done.at(&plan::steps, 0).state(&step::priority) == complete);
  CHECK(priority_done->steps[0].priority == level::high);
}

TEST_CASE("partial_typed: an enum shows once its text is one of its names", "[partial_typed]") {
  CHECK(read(R"({"urgency":"lo)").state(&plan::urgency) == absent);
  const partial<plan> low = read(R"({"urgency":"low)");
  CHECK(low.state(&plan::urgency) == in_progress);  // may still become "lowest"
  CHECK(low->urgency == level::low);
  CHECK(read(R"({"urgency":"lowe)").state(&plan::urgency) == absent);
  CHECK(read(R"({"urgency":"lowe)")->urgency == level::low);  // the default
  const partial<plan> lowest = read(R"({"urgency":"lowest")");
  CHECK(lowest.state(&plan::urgency) == complete);
  CHECK(lowest->urgency == level::lowest);
  CHECK(read(R"({"urgency":"medium",)").state(&plan::urgency) == absent);
  CHECK(read(R"({"urgency":1,)").state(&plan::urgency) == absent);
}

TEST_CASE("partial_typed: a wrong type so far is absent, never an exception", "[partial_typed]") {
  const partial<plan> p = read(R"({"title":12,"done":"yes","steps":{},"budget":[1],"tags":"a)");
  CHECK(p.state() == in_progress);
  CHECK(p.state(&plan::title) == absent);
  CHECK(p.state(&plan::done) == absent);
  CHECK(p.state(&plan::steps) == absent);
  CHECK(p.state(&plan::budget) == absent);
  CHECK(p.state(&plan::tags) == absent);
  CHECK(p.value() == plan{});

  auto minutes = [](const char* text) { return read(text).at(&plan::steps, 0); };
  CHECK(minutes(R"({"steps":[{"minutes":2.5,)").state(&step::minutes) == absent);
  CHECK(minutes(R"({"steps":[{"minutes":1e20,)").state(&step::minutes) == absent);
  CHECK(minutes(R"({"steps":[{"minutes":"3",)").state(&step::minutes) == absent);
  CHECK(minutes(R"({"steps":[{"minutes":3.0,)").state(&step::minutes) == complete);
  CHECK(minutes(R"({"steps":[{"minutes":3.0,)")->minutes == 3);
  CHECK(minutes(R"({"steps":[{"minutes":-7,)")->minutes == -7);
}

TEST_CASE("partial_typed: keys the type does not declare are ignored", "[partial_typed]") {
  const partial<plan> p =
      read(R"({"extra":{"deep":[1,2]},"title":"T","steps":[{"action":"a","note":"x)");
  CHECK(p.state(&plan::title) == complete);
  CHECK(p.state(&plan::steps) == in_progress);
  CHECK(p.at(&plan::steps, 0).state(&step::action) == complete);
  CHECK(p->steps[0].action == "a");

  json j = json::parse(whole_plan);
  j["surprise"] = {1, 2};
  j["steps"][0]["why"] = "because";
  const partial<plan> whole(j, std::nullopt);
  CHECK(whole.state() == complete);
  CHECK(whole.value() == json::parse(whole_plan).get<plan>());
  CHECK_THROWS(j.get<plan>());  // decoding is strict; the partial shows what it can
}

TEST_CASE("partial_typed: a member is found by its JSON name, the member's own",
          "[partial_typed]") {
  // LLMJSON_DEFINE_TYPE has no renaming: (action, "what to do") is a description.
  const partial<plan> p = read(R"({"steps":[{"what to do":"x","action":"y")");
  CHECK(p->steps.at(0).action == "y");
  const partial<note> n(json::parse(R"({"text":"hi","weight_":3})"), std::nullopt);
  CHECK(n.state() == complete);
  CHECK(n.state(&note::text) == complete);
  CHECK(n->weight() == 3);
  CHECK(n.value().text == json::parse(R"({"text":"hi","weight_":3})").get<note>().text);
}

TEST_CASE("partial_typed: a complete value is what decoding gives", "[partial_typed]") {
  const json j = json::parse(whole_plan);
  const plan decoded = j.get<plan>();
  const partial<plan> p(j, std::nullopt);
  CHECK(p.state() == complete);
  CHECK(p.value() == decoded);
  for (const member_state s :
       {p.state(&plan::title), p.state(&plan::steps), p.state(&plan::owner),
        p.state(&plan::urgency), p.state(&plan::done), p.state(&plan::budget), p.state(&plan::tags),
        p.state(&plan::window), p.state(&plan::counts)})
    CHECK(s == complete);
  CHECK(p.complete_count(&plan::steps) == 2);
  CHECK(p.at(&plan::steps, 1).state(&step::priority) == complete);
  CHECK(p.at(&plan::steps, 0).state(&step::priority) == absent);  // its key never came
  CHECK(p.at(&plan::owner).state(&person::age) == complete);
  CHECK(p.state(&plan::window, 1) == complete);

  // The whole text healed is the whole value, open nowhere.
  const healed h = heal(whole_plan);
  CHECK(h.value == j);
  CHECK_FALSE(h.open);

  // A required member missing: the value will not decode, so the root is absent.
  json short_of_one = j;
  short_of_one.erase("budget");
  CHECK_THROWS(short_of_one.get<plan>());
  const partial<plan> missing(short_of_one, std::nullopt);
  CHECK(missing.state() == absent);
  CHECK(missing.value() == plan{});
  CHECK(missing.state(&plan::title) == absent);
}

TEST_CASE("partial_typed: partials share one reading and outlive their parent", "[partial_typed]") {
  std::optional<partial<step>> second;
  partial<plan> copy;
  {
    const partial<plan> p = read(R"({"steps":[{"action":"boil","minutes":3},{"action":"ste)");
    second = p.at(&plan::steps, 1);
    copy = p;
    CHECK(&copy.value() == &p.value());
  }
  CHECK((*second)->action == "ste");
  CHECK(second->state(&step::action) == in_progress);
  CHECK(copy.complete_count(&plan::steps) == 1);
}

TEST_CASE("partial_typed: bad open pointers and undeclared members are errors", "[partial_typed]") {
  const json v = json::parse(R"({"steps":[{"action":"a"}],"a/b":"x"})");
  CHECK_NOTHROW(partial<plan>(v, "/steps/0/action"));
  CHECK_NOTHROW(partial<plan>(v, "/a~1b"));
  CHECK_NOTHROW(partial<plan>(v, ""));
  CHECK_THROWS_AS(partial<plan>(v, "steps"), std::invalid_argument);
  CHECK_THROWS_AS(partial<plan>(v, "/steps/1"), std::invalid_argument);
  CHECK_THROWS_AS(partial<plan>(v, "/steps/00"), std::invalid_argument);
  CHECK_THROWS_AS(partial<plan>(v, "/steps/-1"), std::invalid_argument);
  CHECK_THROWS_AS(partial<plan>(v, "/title"), std::invalid_argument);
  CHECK_THROWS_AS(partial<plan>(v, "/a~2b"), std::invalid_argument);
  CHECK_THROWS_AS(partial<plan>(v, "/steps/0/action/x"), std::invalid_argument);
  try {
    (void)partial<plan>(v, "/nope");
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "llmjson::partial: the open pointer \"/nope\" names nothing in the partial value");
  }

  const partial<note> n(json::parse(R"({"text":"a","weight_":1,"unlisted":"b"})"), std::nullopt);
  CHECK(n.state(&note::text) == complete);
  CHECK_THROWS_AS(n.state(&note::unlisted), std::invalid_argument);
  CHECK(n->unlisted.empty());
}

TEST_CASE("partial_typed: member_state names", "[partial_typed]") {
  STATIC_REQUIRE(enum_names_check::round_trips<member_state>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<member_state>());
  STATIC_REQUIRE(to_string(member_state::in_progress) == "in_progress");
}

// ---- the promise on every prefix -------------------------------------------------------------

namespace {

const std::vector<std::string> answers = {
    whole_plan,
    R"({"title":"","steps":[],"owner":null,"urgency":"low","done":true,"budget":-0.5,)"
    R"("tags":[],"window":[0,-1],"counts":{}})",
    "{\n  \"title\": \"Caf\xC3\xA9 \\\"au lait\\\" \\u00e9\\n\\ud83d\\ude00\",\n"
    "  \"steps\": [\n    {\"priority\": \"low\", \"minutes\": 10, \"action\": \"grind\"},\n"
    "    {\"action\": \"a/b~c\", \"minutes\": 0, \"priority\": null}\n  ],\n"
    "  \"owner\": {\"age\": null, \"name\": \"Zo\xC3\xAB\"},\n  \"urgency\": \"high\",\n"
    "  \"done\": false, \"budget\": 1E2, \"tags\": [\"x\", \"\", \"yy\"],\n"
    "  \"window\": [ 1 , 2 ], \"counts\": {\"a\": 1, \"b\": 22}\n}\n",
    R"({"counts":{"z":3},"window":[5,6],"tags":["t"],"budget":7,"done":true,"urgency":"lowest",)"
    R"("owner":{"name":"Bo"},"steps":[{"action":"x","minutes":100},{"action":"y","minutes":2},)"
    R"({"action":"z","minutes":33,"priority":"high"}],"title":"last first"})",
};

/// Checks that every part `p` calls complete equals the same part of `whole`, and that an absent
/// member holds its default; `where` names the prefix.
void check_step(const partial<step>& p, const step& whole) {
  if (p.state() == complete) CHECK(p.value() == whole);
  if (p.state(&step::action) == complete) CHECK(p->action == whole.action);
  if (p.state(&step::action) == absent) CHECK(p->action.empty());
  if (p.state(&step::minutes) == complete) CHECK(p->minutes == whole.minutes);
  if (p.state(&step::minutes) == absent) CHECK(p->minutes == 0);
  if (p.state(&step::priority) == complete) CHECK(p->priority == whole.priority);
  if (p.state(&step::priority) == absent) CHECK_FALSE(p->priority);
}

/// Checks, on a prefix healed to `healed` of an answer that decodes to `whole`: what `p` calls
/// complete equals `whole`'s, an absent member holds its default, and what has come shows (a
/// member of the healed value is absent only while an enum's name is unfinished; a string in
/// progress begins the final one).
void check_prefix(const partial<plan>& p, const json& healed, const plan& whole) {
  if (p.state() == complete) CHECK(p.value() == whole);
  for (auto it = healed.begin(); it != healed.end(); ++it) {
    INFO("member " << it.key());
    if (it.key() == "title") CHECK(p.state(&plan::title) != absent);
    if (it.key() == "steps") CHECK(p->steps.size() == it->size());
    if (it.key() == "tags") CHECK(p->tags.size() == it->size());
    if (it.key() == "owner") CHECK(p.state(&plan::owner) != absent);
    if (it.key() == "counts") CHECK(p->counts.size() == it->size());
  }
  if (p.state(&plan::title) == in_progress) CHECK(whole.title.starts_with(p->title));
  for (std::size_t i = 0; i < p->tags.size(); ++i)
    if (p.state(&plan::tags, i) == in_progress) CHECK(whole.tags[i].starts_with(p->tags[i]));
  if (p.state(&plan::title) == complete) CHECK(p->title == whole.title);
  if (p.state(&plan::steps) == complete) CHECK(p->steps == whole.steps);
  if (p.state(&plan::owner) == complete) CHECK(p->owner == whole.owner);
  if (p.state(&plan::urgency) == complete) CHECK(p->urgency == whole.urgency);
  if (p.state(&plan::done) == complete) CHECK(p->done == whole.done);
  if (p.state(&plan::budget) == complete) CHECK(p->budget == whole.budget);
  if (p.state(&plan::tags) == complete) CHECK(p->tags == whole.tags);
  if (p.state(&plan::window) == complete) CHECK(p->window == whole.window);
  if (p.state(&plan::counts) == complete) CHECK(p->counts == whole.counts);
  if (p.state(&plan::steps) == absent) CHECK(p->steps.empty());
  if (p.state(&plan::title) == absent) CHECK(p->title.empty());

  // Elements: those before complete_count equal, the one after it (if any) in progress.
  const std::size_t done = p.complete_count(&plan::steps);
  REQUIRE(done <= p->steps.size());
  REQUIRE(p->steps.size() <= whole.steps.size());
  CHECK(p->steps.size() - done <= 1);
  for (std::size_t i = 0; i < p->steps.size(); ++i) {
    CHECK(p.state(&plan::steps, i) == (i < done ? complete : in_progress));
    if (i < done) CHECK(p->steps[i] == whole.steps[i]);
    check_step(p.at(&plan::steps, i), whole.steps[i]);
  }
  for (std::size_t i = 0; i < p->tags.size(); ++i)
    if (p.state(&plan::tags, i) == complete) CHECK(p->tags[i] == whole.tags[i]);
  for (std::size_t i = 0; i < 2; ++i)
    if (p.state(&plan::window, i) == complete) CHECK(p->window[i] == whole.window[i]);

  const partial<person> owner = p.at(&plan::owner);
  if (owner.state() != absent) {
    REQUIRE(whole.owner);
    if (owner.state(&person::name) == complete) CHECK(owner->name == whole.owner->name);
    if (owner.state(&person::age) == complete) CHECK(owner->age == whole.owner->age);
  }
}

}  // namespace

TEST_CASE("partial_typed: on every prefix, what is complete is what the answer decodes to",
          "[partial_typed]") {
  std::size_t prefixes = 0;
  std::size_t shown_complete = 0;  // prefixes where a member of the root was complete
  for (const std::string& text : answers) {
    const plan whole = json::parse(text).get<plan>();
    // Once complete, a member stays complete and equal (the answer only grows).
    std::vector<member_state> last(9, absent);
    std::size_t last_done = 0;
    for (std::size_t n = 0; n <= text.size(); ++n) {
      const std::string_view prefix = std::string_view(text).substr(0, n);
      const healed h = heal(prefix);
      if (!h.value) continue;
      INFO("prefix: " << prefix);
      INFO("healed: " << h.value->dump() << " open: " << h.open.value_or("(none)"));
      ++prefixes;
      const partial<plan> p(*h.value, h.open);
      CHECK(p.state() == (h.open ? in_progress : complete));
      check_prefix(p, *h.value, whole);
      const std::vector<member_state> now = {
          p.state(&plan::title),   p.state(&plan::steps),  p.state(&plan::owner),
          p.state(&plan::urgency), p.state(&plan::done),   p.state(&plan::budget),
          p.state(&plan::tags),    p.state(&plan::window), p.state(&plan::counts)};
      for (std::size_t k = 0; k < now.size(); ++k) {
        if (last[k] == complete) CHECK(now[k] == complete);
        if (now[k] == complete) ++shown_complete;
      }
      last = now;
      CHECK(p.complete_count(&plan::steps) >= last_done);
      last_done = p.complete_count(&plan::steps);
    }
    const partial<plan> end(json::parse(text), std::nullopt);
    CHECK(end.value() == whole);
    CHECK(end.state() == complete);
  }
  CHECK(prefixes > 600);
  CHECK(shown_complete > prefixes);  // members do show complete before the end
}

}  // namespace llmjson_tests::partial_typed_test
