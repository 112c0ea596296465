// llmjson: the bodies of detail/schema/values.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_VALUES_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_VALUES_INL_HPP_INCLUDED

#include <array>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema/values.hpp>

namespace llmjson::detail {

LLMJSON_INLINE bool deeper_than(const nlohmann::json& v, std::size_t limit) {
  if (!v.is_structured()) return false;
  // Only objects and arrays are stacked (a scalar adds no level), the first few dozen on the
  // thread's stack: a value an answer holds is judged without allocating here.
  using level = std::pair<const nlohmann::json*, std::size_t>;
  std::array<level, 32> near{};
  std::vector<level> far;
  std::size_t size = 0;
  auto push = [&](const nlohmann::json* p, std::size_t d) {
    if (size < near.size()) {
      near[size] = level{p, d};
    } else {
      far.emplace_back(p, d);
    }
    ++size;
  };
  push(&v, 0);
  while (size != 0) {
    --size;
    level top = size < near.size() ? near[size] : far.back();
    if (size >= near.size()) far.pop_back();
    const auto [p, d] = top;
    if (d + 1 > limit) return true;
    // The containers themselves, not nlohmann's iterators (which ask the type at every step).
    if (p->is_object()) {
      for (const auto& member : p->get_ref<const nlohmann::json::object_t&>())
        if (member.second.is_structured()) push(&member.second, d + 1);
    } else {
      for (const auto& item : p->get_ref<const nlohmann::json::array_t&>())
        if (item.is_structured()) push(&item, d + 1);
    }
  }
  return false;
}

LLMJSON_INLINE int number_compare(const nlohmann::json& a, const nlohmann::json& b) noexcept {
  using vt = nlohmann::json::value_t;
  const bool ai = a.type() != vt::number_float;
  const bool bi = b.type() != vt::number_float;
  if (ai && bi) {
    const bool au = a.type() == vt::number_unsigned;
    const bool bu = b.type() == vt::number_unsigned;
    if (au && bu) {
      const auto x = a.get<std::uint64_t>();
      const auto y = b.get<std::uint64_t>();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (!au && !bu) {
      const auto x = a.get<std::int64_t>();
      const auto y = b.get<std::int64_t>();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (au) {  // unsigned vs signed
      const auto y = b.get<std::int64_t>();
      if (y < 0) return 1;
      const auto x = a.get<std::uint64_t>();
      const auto yu = static_cast<std::uint64_t>(y);
      return x < yu ? -1 : (x > yu ? 1 : 0);
    }
    const auto x = a.get<std::int64_t>();
    if (x < 0) return -1;
    const auto xu = static_cast<std::uint64_t>(x);
    const auto y = b.get<std::uint64_t>();
    return xu < y ? -1 : (xu > y ? 1 : 0);
  }
  auto wide = [](const nlohmann::json& v) -> long double {
    switch (v.type()) {
      case vt::number_unsigned: return static_cast<long double>(v.get<std::uint64_t>());
      case vt::number_integer: return static_cast<long double>(v.get<std::int64_t>());
      default: return static_cast<long double>(v.get<double>());
    }
  };
  const long double x = wide(a);
  const long double y = wide(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

LLMJSON_INLINE bool is_multiple(const nlohmann::json& value,
                                const nlohmann::json& divisor) noexcept {
  using vt = nlohmann::json::value_t;
  if (value.type() != vt::number_float && divisor.type() != vt::number_float) {
    std::uint64_t mag = 0;
    if (value.type() == vt::number_unsigned) {
      mag = value.get<std::uint64_t>();
    } else {
      const auto i = value.get<std::int64_t>();
      mag =
          i < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    }
    const std::uint64_t d = divisor.type() == vt::number_unsigned
                                ? divisor.get<std::uint64_t>()
                                : static_cast<std::uint64_t>(divisor.get<std::int64_t>());
    return d != 0 && mag % d == 0;
  }
  const double x = value.get<double>(), d = divisor.get<double>();
  // Whole numbers (1e20 as a float, say): fmod is exact, so the answer is too.
  if (std::nearbyint(x) == x && std::nearbyint(d) == d) return d != 0 && std::fmod(x, d) == 0;
  const double q = x / d;
  if (!std::isfinite(q)) return false;
  // Otherwise the quotient must be whole up to the rounding of one division (0.0075 / 0.0001),
  // relative to its size: no absolute floor, which would take 1.0000000001 for a multiple of 1.
  const double tolerance = 4 * DBL_EPSILON * std::fmax(1.0, std::fabs(q));
  return std::fabs(q - std::nearbyint(q)) <= tolerance;
}

LLMJSON_INLINE std::size_t deep_hash(const nlohmann::json& root) {
  using vt = nlohmann::json::value_t;
  std::size_t h = 0;
  auto mix = [&h](std::size_t x) { h = (h ^ x) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL; };
  std::vector<const nlohmann::json*> todo{&root};
  while (!todo.empty()) {
    const nlohmann::json& v = *todo.back();
    todo.pop_back();
    switch (v.type()) {
      case vt::number_integer:
      case vt::number_unsigned:
      case vt::number_float: {
        double d = v.get<double>();
        if (d == 0) d = 0;  // -0.0 == 0.0
        mix(std::hash<double>{}(d));
        break;
      }
      case vt::string: mix(std::hash<std::string>{}(v.get_ref<const std::string&>())); break;
      case vt::boolean: mix(v.get<bool>() ? 3 : 5); break;
      case vt::array:
        mix(7 + 31 * v.size());
        for (auto it = v.rbegin(); it != v.rend(); ++it) todo.push_back(&*it);
        break;
      case vt::object:
        mix(11 + 37 * v.size());
        for (auto it = v.begin(); it != v.end(); ++it) {
          mix(std::hash<std::string>{}(it.key()));
          todo.push_back(&it.value());
        }
        break;
      default: mix(13); break;
    }
  }
  return h;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_VALUES_INL_HPP_INCLUDED
