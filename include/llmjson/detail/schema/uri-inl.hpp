// llmjson: the bodies of detail/schema/uri.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_URI_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_URI_INL_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema/uri.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

LLMJSON_INLINE uri_parts uri_parse(std::string_view s) {
  uri_parts u;
  if (const auto hash = s.find('#'); hash != std::string_view::npos) {
    u.fragment = std::string(s.substr(hash + 1));
    s = s.substr(0, hash);
  }
  if (const auto q = s.find('?'); q != std::string_view::npos) {
    u.query = std::string(s.substr(q + 1));
    s = s.substr(0, q);
  }
  const auto colon = s.find(':');
  if (colon != std::string_view::npos && colon > 0 &&
      s.substr(0, colon).find('/') == std::string_view::npos) {
    bool ok = (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z');
    for (const char c : s.substr(0, colon)) {
      ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '-' || c == '.');
    }
    if (ok) {
      u.scheme = std::string(s.substr(0, colon));
      s = s.substr(colon + 1);
    }
  }
  if (s.substr(0, 2) == "//") {
    s = s.substr(2);
    const auto slash = s.find('/');
    u.authority = std::string(s.substr(0, slash));
    s = slash == std::string_view::npos ? std::string_view{} : s.substr(slash);
  }
  u.path = std::string(s);
  return u;
}

LLMJSON_INLINE std::string uri_remove_dots(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.substr(0, 3) == "../") {
      in.remove_prefix(3);
    } else if (in.substr(0, 2) == "./") {
      in.remove_prefix(2);
    } else if (in.substr(0, 3) == "/./") {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.substr(0, 4) == "/../" || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      const auto last = out.rfind('/');
      out.erase(last == std::string::npos ? 0 : last);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      const auto next = in.find('/', in[0] == '/' ? 1 : 0);
      out += in.substr(0, next);
      in = next == std::string_view::npos ? std::string_view{} : in.substr(next);
    }
  }
  return out;
}

LLMJSON_INLINE std::string uri_resolve(std::string_view base, std::string_view ref) {
  const uri_parts b = uri_parse(base);
  const uri_parts r = uri_parse(ref);
  uri_parts t;
  if (r.scheme) {
    t = r;
    t.path = uri_remove_dots(r.path);
  } else if (r.authority) {
    t = r;
    t.scheme = b.scheme;
    t.path = uri_remove_dots(r.path);
  } else {
    t.scheme = b.scheme;
    t.authority = b.authority;
    if (r.path.empty()) {
      t.path = b.path;
      t.query = r.query ? r.query : b.query;
    } else {
      if (r.path[0] == '/') {
        t.path = uri_remove_dots(r.path);
      } else if (b.authority && b.path.empty()) {
        t.path = uri_remove_dots("/" + r.path);
      } else {
        const auto slash = b.path.rfind('/');
        t.path = uri_remove_dots(
            (slash == std::string::npos ? std::string() : b.path.substr(0, slash + 1)) + r.path);
      }
      t.query = r.query;
    }
    t.fragment = r.fragment;
  }
  std::string out;
  if (t.scheme) out += *t.scheme + ":";
  if (t.authority) out += "//" + *t.authority;
  out += t.path;
  if (t.query) out += "?" + *t.query;
  if (t.fragment) out += "#" + *t.fragment;
  return out;
}

LLMJSON_INLINE std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_URI_INL_HPP_INCLUDED
