// llmjson: candidates' views moved from the text read (a prefill, then the output) into the
// caller's output, or into copies they own
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_RELOCATE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_RELOCATE_HPP_INCLUDED

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/candidate.hpp>

namespace llmjson::detail {

/// The views of candidates and near misses made from `read` (the prefill, `base` bytes, then
/// `output`) made views into `output`, which outlives `read`. A candidate with a view into the
/// prefill (its text starts there, or its marker or info string lies there) gets copies of its
/// three views, which it owns (`storage`); a near miss that starts there, a copy of its text.
/// Views outside `read` (empty ones) stay as they are.
inline void views_into_output(std::vector<candidate>& candidates,
                              std::vector<near_miss>& near_misses, std::string_view read,
                              std::size_t base, std::string_view output) {
  const std::less<const char*> before;
  auto in_read = [&](std::string_view v) {
    return !v.empty() && !before(v.data(), read.data()) &&
           before(v.data(), read.data() + read.size());
  };
  auto at = [&](std::string_view v) { return static_cast<std::size_t>(v.data() - read.data()); };
  auto moved = [&](std::string_view v) {
    return in_read(v) ? output.substr(at(v) - base, v.size()) : v;
  };
  for (candidate& c : candidates) {
    const bool own = (in_read(c.text) && at(c.text) < base) ||
                     (in_read(c.info) && at(c.info) < base) ||
                     (in_read(c.marker) && at(c.marker) < base);
    if (!own) {
      c.text = moved(c.text);
      c.info = moved(c.info);
      c.marker = moved(c.marker);
      continue;
    }
    // The three copied in the order they stand in the text read, so that comparing their
    // places still tells which comes first (a marker after the text closed its region).
    std::array<std::string_view*, 3> views{&c.text, &c.info, &c.marker};
    std::sort(views.begin(), views.end(),
              [&](const std::string_view* a, const std::string_view* b) {
                return in_read(*a) && (!in_read(*b) || at(*a) < at(*b));
              });
    auto storage = std::make_shared<std::string>();
    storage->reserve(c.text.size() + c.info.size() + c.marker.size());
    std::array<std::size_t, 3> from{};
    for (std::size_t k = 0; k < views.size(); ++k) {
      from[k] = storage->size();
      *storage += *views[k];
    }
    for (std::size_t k = 0; k < views.size(); ++k)
      *views[k] = std::string_view(*storage).substr(from[k], views[k]->size());
    c.storage = std::move(storage);
  }
  for (near_miss& m : near_misses) {
    if (!in_read(m.text) || at(m.text) >= base) {
      m.text = moved(m.text);
      continue;
    }
    auto storage = std::make_shared<const std::string>(m.text);
    m.text = *storage;
    m.storage = std::move(storage);
  }
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_RELOCATE_HPP_INCLUDED
