// llmjson: the parent project's library, built once into a static library it installs
// SPDX-License-Identifier: MIT
#include "orders.hpp"

#include <llmjson/extract.hpp>

namespace parent {
llmjson::result<nlohmann::json> orders_in(std::string_view text) {
  auto r = llmjson::extract(text, llmjson::any_key({"orders"}));
  if (!r) return r.error();
  return r->json()["orders"];
}
}  // namespace parent
