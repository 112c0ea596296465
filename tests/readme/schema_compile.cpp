// llmjson: the README's two ways to compile a schema, a fragment: `j` declared, the result checked
// SPDX-License-Identifier: MIT
#include <iostream>

#include <llmjson/schema.hpp>

int main() {
  const nlohmann::json j = nlohmann::json::parse(R"({"required": ["orders"]})");
  {
#include "schema_compile.inc"
    if (!r || s(nlohmann::json::object()).message != "/: required: missing key \"orders\"")
      return 1;
  }
  // The throwing way, on a schema that does not compile.
  try {
    llmjson::schema bad(nlohmann::json::parse(R"({"$ref": "#"})"));
    return 1;
  } catch (const llmjson::schema_error& e) {
    return llmjson::schema::compile(nlohmann::json::parse(R"({"$ref": "#"})")).error() == e.what()
               ? 0
               : 1;
  }
}
