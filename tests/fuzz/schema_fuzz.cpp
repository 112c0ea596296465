// llmjson: fuzz target: random schemas and values through schema::compile and validation
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/schema.hpp>

#include "fuzz_bytes.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

// The input's bytes drive a generator of draft 7 schemas over the supported keywords (README,
// "Supported keywords"), with some wrong values and unknown keywords mixed in, and of values.
// Properties, on every input:
// - compile() returns a schema or an error message, never crashes, and with validation takes
//   less than `time_bound` (no hang);
// - a compiled schema validates each value without crashing; a failing verdict has a reason; a
//   value nested deeper than max_depth_limit fails;
// - const and enum round-trip: every const/enum value v found anywhere in the generated schema
//   passes {"const": v}, {"enum": [v, ...]}, and {"type": T, "const": v} when v is of type T,
//   before and after a dump/parse round trip, and fails {"not": {"const": v}}. So does every
//   subschema of the tree made only of const or enum, type and annotations. (Not in general: a
//   const beside other keywords, or under an allOf with a type it does not have, may fail.)
// - `extract` with a compiled schema, and with one that requires keys at its root above it, on a
//   text holding the values (in prose and in fences, their keys written as they are, in ASCII or
//   with their first byte a `\u` escape), judges each candidate as the schema judges its value.

namespace {

using llmjson_fuzz::fuzz_bytes;
using nlohmann::json;

constexpr auto time_bound = std::chrono::seconds(5);

void require(bool ok, const char* property, const json* about = nullptr) {
  if (ok) return;
  std::fprintf(stderr, "llmjson schema property violated: %s\n", property);
  if (about) std::fprintf(stderr, "  %s\n", about->dump().substr(0, 2000).c_str());
  std::abort();
}

const char* const names[] = {"a", "b", "id", "x", "", "\xC3\xA9", "a b", "~1", "0"};

std::string name(fuzz_bytes& in) { return names[in.pick(std::size(names))]; }

json number(fuzz_bytes& in) {
  switch (in.pick(14)) {
    case 0: return 0;
    case 1: return static_cast<std::int64_t>(in.pick(7)) - 3;
    case 2: return std::numeric_limits<std::int64_t>::max();
    case 3: return std::numeric_limits<std::int64_t>::min();
    case 4: return std::numeric_limits<std::uint64_t>::max();
    case 5: return 0.5;
    case 6: return -0.0;
    case 7: return 1.0;
    case 8: return 1e300;
    case 9: return -1e-300;
    case 10: return 0.1;
    case 11: return 1e20;
    case 12: return 0.0075;
    default: return static_cast<double>(in.pick(1000)) / 8.0;
  }
}

json value(fuzz_bytes& in, int depth) {
  static const char* const strings[] = {"",  "a",  "ab", "\xC3\xA9", "\xF0\x9F\x98\x80",
                                        "1", "A1", " ",  "aaa"};
  switch (depth > 3 ? in.pick(4) : in.pick(6)) {
    case 0: return nullptr;
    case 1: return in.pick(2) == 1;
    case 2: return number(in);
    case 3:
      return in.one_in(9) ? json(std::string("\0b", 2))
                          : json(strings[in.pick(std::size(strings))]);
    case 4: {
      json a = json::array();
      for (std::size_t n = in.pick(4); n > 0; --n) a.push_back(value(in, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      for (std::size_t n = in.pick(4); n > 0; --n) o[name(in)] = value(in, depth + 1);
      return o;
    }
  }
}

std::string pattern(fuzz_bytes& in) {
  static const char* const atoms[] = {"a",     "b",    ".",     "\\d",    "\\w",     "\\s",
                                      "[a-c]", "[^a]", "(a|b)", "(?:ab)", "\\u00e9", "^",
                                      "$",     "\\b",  "x*",    "(a*)*",  "a{2}",    "a{1,3}?",
                                      "[",     "(",    "\\1",   "(?=a)",  "\\p{L}",  "é"};
  std::string p;
  for (std::size_t n = in.pick(5); n > 0; --n) p += atoms[in.pick(std::size(atoms))];
  return p;
}

const char* const type_names[] = {"null",   "boolean", "object",  "array",
                                  "number", "string",  "integer", "float"};

json type_value(fuzz_bytes& in) {
  if (in.one_in(3)) {
    json a = json::array();
    for (std::size_t n = 1 + in.pick(3); n > 0; --n) a.push_back(type_names[in.pick(7)]);
    return a;
  }
  return type_names[in.pick(std::size(type_names))];
}

json schema(fuzz_bytes& in, int depth);

json schema_array(fuzz_bytes& in, int depth) {
  json a = json::array();
  for (std::size_t n = in.one_in(8) ? 0 : 1 + in.pick(3); n > 0; --n)
    a.push_back(schema(in, depth + 1));
  return a;
}

json count(fuzz_bytes& in) {
  if (in.one_in(10)) return in.one_in(2) ? json(-1) : json(1.5);
  return in.pick(4);
}

/// One keyword of a schema, with a value that is usually (not always) well formed.
void keyword(fuzz_bytes& in, json& s, int depth) {
  switch (in.pick(40)) {
    case 0: s["type"] = type_value(in); break;
    case 1: s["const"] = value(in, 0); break;
    case 2: {
      json e = json::array();
      for (std::size_t n = in.one_in(10) ? 0 : 1 + in.pick(3); n > 0; --n)
        e.push_back(value(in, 0));
      s["enum"] = e;
      break;
    }
    case 3: {
      json p = json::object();
      for (std::size_t n = in.pick(3); n > 0; --n) p[name(in)] = schema(in, depth + 1);
      s["properties"] = p;
      break;
    }
    case 4: {
      json r = json::array();
      for (std::size_t n = in.pick(3); n > 0; --n) r.push_back(name(in));
      s["required"] = in.one_in(12) ? json("a") : r;
      break;
    }
    case 5:
      s["additionalProperties"] = in.one_in(2) ? json(in.one_in(2)) : schema(in, depth + 1);
      break;
    case 6: s["patternProperties"] = json{{pattern(in), schema(in, depth + 1)}}; break;
    case 7: s["propertyNames"] = schema(in, depth + 1); break;
    case 8: {
      json d = json::object();
      d[name(in)] = in.one_in(2) ? json::array({name(in)}) : schema(in, depth + 1);
      s["dependencies"] = d;
      break;
    }
    case 9: s["minProperties"] = count(in); break;
    case 10: s["maxProperties"] = count(in); break;
    case 11: s["items"] = in.one_in(3) ? schema_array(in, depth) : schema(in, depth + 1); break;
    case 12: s["additionalItems"] = schema(in, depth + 1); break;
    case 13: s["contains"] = schema(in, depth + 1); break;
    case 14: s["minItems"] = count(in); break;
    case 15: s["maxItems"] = count(in); break;
    case 16: s["uniqueItems"] = in.one_in(4) ? json(1) : json(in.one_in(2)); break;
    case 17: s["minimum"] = number(in); break;
    case 18: s["maximum"] = number(in); break;
    case 19: s["exclusiveMinimum"] = number(in); break;
    case 20: s["exclusiveMaximum"] = number(in); break;
    case 21: s["multipleOf"] = in.one_in(6) ? json(0) : number(in); break;
    case 22: s["minLength"] = count(in); break;
    case 23: s["maxLength"] = count(in); break;
    case 24: s["pattern"] = pattern(in); break;
    case 25: s["allOf"] = schema_array(in, depth); break;
    case 26: s["anyOf"] = schema_array(in, depth); break;
    case 27: s["oneOf"] = schema_array(in, depth); break;
    case 28: s["not"] = schema(in, depth + 1); break;
    case 29: s["if"] = schema(in, depth + 1); break;
    case 30: s["then"] = schema(in, depth + 1); break;
    case 31: s["else"] = schema(in, depth + 1); break;
    case 32: {
      static const char* const refs[] = {"#",     "#/definitions/a", "#/definitions/b", "#/$defs/c",
                                         "#n",    "#/properties/a",  "http://x.test/s", "#/nowhere",
                                         "t.json"};
      s["$ref"] = refs[in.pick(std::size(refs))];
      break;
    }
    case 33: {
      json d = json::object();
      d["a"] = schema(in, depth + 1);
      if (in.one_in(2)) d["b"] = schema(in, depth + 1);
      s[in.one_in(3) ? "$defs" : "definitions"] = d;
      break;
    }
    case 34: s["$id"] = in.one_in(2) ? "#n" : "http://x.test/t.json"; break;
    case 35:
      s["$schema"] = in.one_in(4) ? "https://json-schema.org/draft/2020-12/schema"
                                  : "http://json-schema.org/draft-07/schema#";
      break;
    case 36: s[in.one_in(2) ? "title" : "description"] = "t"; break;
    case 37: s[in.one_in(2) ? "default" : "examples"] = value(in, 0); break;
    case 38: s["format"] = "date-time"; break;
    default: s[in.one_in(2) ? "unevaluatedProperties" : "x-foo"] = schema(in, depth + 1); break;
  }
}

json schema(fuzz_bytes& in, int depth) {
  if (depth > 5 || in.empty()) return in.one_in(3) ? json(in.one_in(2)) : json::object();
  if (in.one_in(12)) return json(in.one_in(2));
  json s = json::object();
  for (std::size_t n = in.pick(4); n > 0; --n) keyword(in, s, depth);
  return s;
}

/// `s` wrapped `levels` deep in one keyword (compile and validation must stay iterative).
json wrap(json s, std::size_t levels, std::size_t how) {
  for (std::size_t k = 0; k < levels; ++k) {
    json w = json::object();
    switch (how % 4) {
      case 0: w["not"] = std::move(s); break;
      case 1: w["items"] = std::move(s); break;
      case 2: w["allOf"] = json::array({std::move(s)}); break;
      default: w["properties"]["a"] = std::move(s); break;
    }
    s = std::move(w);
  }
  return s;
}

json deep_value(std::size_t levels) {
  json v = 1;
  for (std::size_t k = 0; k < levels; ++k) {
    json w = json::array();
    w.push_back(std::move(v));
    v = std::move(w);
  }
  return v;
}

bool is_type(const json& v, const std::string& t) {
  if (t == "null") return v.is_null();
  if (t == "boolean") return v.is_boolean();
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "number") return v.is_number();
  // "integer means any number with no fractional part, so 1.0 counts" (README)
  if (t == "integer")
    return v.is_number_integer() ||
           (v.is_number_float() && std::trunc(v.get<double>()) == v.get<double>());
  return false;
}

/// Whether `v` has the type (or one of the types) that `type` names.
bool has_type(const json& v, const json& type) {
  if (type.is_string()) return is_type(v, type.get<std::string>());
  if (!type.is_array()) return false;
  for (const json& t : type)
    if (t.is_string() && is_type(v, t.get<std::string>())) return true;
  return false;
}

llmjson::verdict check(const llmjson::schema& s, const json& v) {
  llmjson::verdict r = s(v);
  require(r.ok || !r.message.empty(), "a failing verdict has a reason", &v);
  return r;
}

/// `v` as JSON text, each key's first byte, when ASCII, written as a `\u` escape or not as
/// `in` says (the same key, escaped: the text shortcut must not take it for another).
void write_keys_escaped(const json& v, std::string& out, fuzz_bytes& in) {
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, member] : v.items()) {
      out += first ? "" : ",";
      first = false;
      std::string k = json(key).dump(-1, ' ', false, json::error_handler_t::replace);
      const auto c = static_cast<unsigned char>(k.size() > 2 ? k[1] : 0);
      if (c > 0x20 && c < 0x7F && c != '\\' && in.pick(2) == 1) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\u%04x", c);
        k = "\"" + std::string(hex) + k.substr(2);
      }
      out += k + ":";
      write_keys_escaped(member, out, in);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (std::size_t k = 0; k < v.size(); ++k) {
      out += k ? "," : "";
      write_keys_escaped(v[k], out, in);
    }
    out += ']';
  } else {
    out += v.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

/// `extract` with the schema judges the candidates of a text made of `values` as the schema
/// judges their values: a lambda that calls it is judged by value only, while the schema turns
/// down some drafts from their text (`judge_keys`) and skips the depth walk (`judge_built`).
void same_as_by_value(const llmjson::schema& s, const std::vector<json>& values, fuzz_bytes& in) {
  std::string text = "draft:";
  const std::size_t form = in.pick(3);  // as nlohmann writes it, in ASCII, keys escaped
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::string dumped;
    if (form == 2) {
      write_keys_escaped(values[k], dumped, in);
    } else {
      dumped = values[k].dump(-1, ' ', form == 1, json::error_handler_t::replace);
    }
    text += k % 2 == 0 ? " " + dumped + " and\n" : "\n```json\n" + dumped + "\n```\n";
  }
  auto by_value = [&s](const json& v) { return s(v); };
  llmjson::options opts;
  opts.policy = llmjson::policy::unique;
  const auto got = llmjson::extract(text, s, opts);
  const auto want = llmjson::extract(text, by_value, opts);
  const json about = text;
  require(got.has_value() == want.has_value(), "a schema judges text as its values", &about);
  const auto& got_cs = got ? got->candidates : got.error().candidates;
  const auto& want_cs = want ? want->candidates : want.error().candidates;
  require(got_cs.size() == want_cs.size(), "a schema judges text as its values", &about);
  for (std::size_t k = 0; k < got_cs.size(); ++k)
    require(got_cs[k].qualifies == want_cs[k].qualifies && got_cs[k].message == want_cs[k].message,
            "a schema judges each candidate as its value", &about);
  require(got || got.error().message == want.error().message,
          "a schema's errors are worded as by value", &about);
}

/// Compiles `s`, which must compile, and returns it.
llmjson::schema must_compile(const json& s) {
  llmjson::schema_result r = llmjson::schema::compile(s);
  if (!r) std::fprintf(stderr, "compile error: %s\n", r.error().c_str());
  require(r.has_value(), "a const/enum schema built from a compiled schema's values compiles", &s);
  return *r;
}

/// The round-trip properties for one const or enum value `v`.
void round_trip(const json& v) {
  const json again = json::parse(v.dump());
  for (const json& w : {v, again}) {
    require(check(must_compile(json{{"const", w}}), w).ok, "a const value passes its const", &w);
    require(check(must_compile(json{{"enum", json::array({w, nullptr})}}), w).ok,
            "an enum value passes its enum", &w);
    require(!check(must_compile(json{{"not", {{"const", w}}}}), w).ok,
            "a const value fails not-const", &w);
    for (const char* t : type_names) {
      if (!is_type(w, t)) continue;
      require(check(must_compile(json{{"type", t}, {"const", w}}), w).ok,
              "a const value of the schema's type passes", &w);
    }
  }
  require(check(must_compile(json{{"const", v}}), again).ok,
          "a const value passes after a dump/parse round trip", &v);
}

/// Visits every schema in the generated tree (objects in schema positions and all objects met),
/// collecting const/enum values, and checks the pure const/enum subschemas on their own.
void visit(const json& s, std::vector<const json*>& values, std::size_t budget) {
  std::vector<const json*> todo{&s};
  while (!todo.empty() && budget-- > 0) {
    const json* n = todo.back();
    todo.pop_back();
    if (n->is_array()) {
      for (const json& k : *n) todo.push_back(&k);
      continue;
    }
    if (!n->is_object()) continue;
    bool pure = !n->empty();
    for (auto it = n->begin(); it != n->end(); ++it) {
      const std::string& k = it.key();
      if (k == "const") {
        values.push_back(&it.value());
      } else if (k == "enum" && it.value().is_array()) {
        for (const json& e : it.value()) values.push_back(&e);
      } else if (k != "type" && k != "title" && k != "description" && k != "$comment" &&
                 k != "format") {
        pure = false;
        todo.push_back(&it.value());
      }
    }
    if (!pure || (n->contains("const") && n->contains("enum"))) continue;
    llmjson::schema_result r = llmjson::schema::compile(*n);
    if (!r) continue;  // a wrong type name, say
    const json none = json::array();
    const json& type = n->contains("type") ? (*n)["type"] : none;
    const json& members = n->contains("enum") ? (*n)["enum"] : none;
    auto fits = [&](const json& v) { return !n->contains("type") || has_type(v, type); };
    if (n->contains("const") && fits((*n)["const"]))
      require(check(*r, (*n)["const"]).ok, "a pure const subschema passes its value", n);
    for (const json& e : members)
      if (fits(e)) require(check(*r, e).ok, "a pure enum subschema passes its values", n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto start = std::chrono::steady_clock::now();
  fuzz_bytes in(data, size);
  // Mode 63: a deep schema, 2000 to 7000 levels (past 6144 nested evaluations, validation must
  // fail cleanly). Mode 62: a value around max_depth_limit. Both cost most, so they are rare (and
  // not 0, which short inputs, read as zeros, would pick).
  const std::size_t mode = in.pick(64);
  json s = schema(in, 0);
  if (mode == 63) s = wrap(std::move(s), 2000 + in.pick(5000), in.pick(4));
  llmjson::schema_result compiled = llmjson::schema::compile(s);
  require(compiled.has_value() || !compiled.error().empty(), "a compile error has a message");

  std::vector<json> values;
  for (std::size_t n = 1 + in.pick(4); n > 0; --n) values.push_back(value(in, 0));
  if (compiled) {
    for (const json& v : values) check(*compiled, v);
    same_as_by_value(*compiled, values, in);
    if (mode == 62) {  // around max_depth_limit: deeper values fail, never crash
      const std::size_t levels = llmjson::max_depth_limit - 8 + in.pick(16);
      const bool ok = check(*compiled, deep_value(levels)).ok;
      if (levels > llmjson::max_depth_limit) require(!ok, "a value deeper than the limit fails");
    }
  }
  if (mode != 63) {  // (a copy of mode 63's deep schema would recurse as deep)
    // The same under a root that requires keys first, the generated schema beneath it: the
    // root a schema turns drafts down by, from their text.
    json required = json::array();
    for (std::size_t n = 1 + in.pick(3); n > 0; --n) required.push_back(name(in));
    json root = {{"required", required}, {"allOf", json::array({s})}};
    if (in.one_in(2))
      root["type"] = in.one_in(4) ? json::array({"object", "array"}) : json("object");
    if (llmjson::schema_result under = llmjson::schema::compile(root)) {
      for (std::size_t n = in.pick(3); n > 0; --n) {  // objects with the required keys, mostly
        json o = json::object();
        for (const json& k : required)
          if (!in.one_in(3)) o[k.get<std::string>()] = value(in, 1);
        values.push_back(std::move(o));
      }
      same_as_by_value(*under, values, in);
    }
  }

  std::vector<const json*> consts;
  visit(s, consts, 100000);
  for (std::size_t k = 0; k < consts.size() && k < 8; ++k) round_trip(*consts[k]);
  for (const json& v : values) round_trip(v);

  require(std::chrono::steady_clock::now() - start < time_bound,
          "compile and validation of one input take less than the time bound");
  return 0;
}
