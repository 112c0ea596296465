// llmjson: the finders: how a retrying call finds its answer in one reply, whole or as it
// streams
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_FINDERS_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_FINDERS_HPP_INCLUDED

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/retry/record.hpp>
#include <llmjson/detail/scan/interface.hpp>
#include <llmjson/detail/select/partial.hpp>  // how a stream qualifies a healed value
#include <llmjson/extract.hpp>
#include <llmjson/options.hpp>
#include <llmjson/partial_answer.hpp>
#include <llmjson/result.hpp>
#include <llmjson/retry_types.hpp>
#include <llmjson/select.hpp>
#include <llmjson/stream.hpp>

namespace llmjson::detail {

/// Finds the answer in one message's content with an extraction (`run`, a
/// `result<...>(std::string_view)`: of an `extraction` for `Out = answer`, else of an `Out`), and
/// records in `a` what became of it. (Also the seam the tests use to script extraction errors.)
template <class Out, class Extract>
found<Out> find_by_extraction(message&& m, attempt& a, Extract run) {
  auto text = std::make_shared<const std::string>(std::move(m.content));
  // Made before `text` is moved into the result (arguments are evaluated in any order).
  result<Out> r = [&] {
    if constexpr (std::same_as<Out, answer>) {
      return to_answer(run(std::string_view(*text)));
    } else {
      return run(std::string_view(*text));
    }
  }();
  return record_extraction(std::move(r), a, std::move(text));
}

/// The caller's selector, as a stream takes it (by value) without copying it: a view, with the
/// selector's default policy and fallback rule, and judging healed values when it does
/// (`judges_partial`).
template <class S>
class selector_view {
 public:
  static constexpr llmjson::policy default_policy = default_policy_of<S>();
  static constexpr bool allows_fallback = allows_fallback_of<S>();
  static constexpr bool judges_partial = opts_into_partial<S>;

  explicit selector_view(const S& sel) noexcept : sel_(&sel) {}
  decltype(auto) operator()(const nlohmann::json& v) const { return (*sel_)(v); }

 private:
  const S* sel_;
};

/// The selector a streaming attempt's stream holds: the library's own selectors copied (they are
/// cheap to copy, and the stream qualifies a healed candidate by their type:
/// `qualifies_healed_by_type`), the caller's through a view (`selector_view`).
template <class S>
using stream_selector = std::conditional_t<qualifies_healed_by_type<S>, S, selector_view<S>>;

/// The finder of `extract` and `extract<T>`: `sel` under `opts` on a message's content, the
/// answer made an `Out` (an `answer`, or the `T` of `S = decode<T>`).
///
/// A finder is called on a whole message (`finder(m, a)`), or, for a streaming adapter, makes a
/// watch (`start()`) that is fed the content as it arrives (`feed`), says whether the answer is
/// settled, keeps the text, and finds the answer in the message at the end (`finish(m, a)`).
template <class Out, class S>
class extraction_finder {
 public:
  extraction_finder(const S& sel, const options& opts) noexcept : sel_(sel), opts_(opts) {}

  found<Out> operator()(message&& m, attempt& a) const {
    return find_by_extraction<Out>(std::move(m), a, [&](std::string_view text) {
      result<extraction> r = ::llmjson::extract(text, sel_, opts_);
      record_cut_after_answer(r, a);
      if constexpr (std::same_as<Out, answer>) {
        return r;
      } else {
        return decoded_answer(sel_, std::move(r));
      }
    });
  }

  /// The content of one streaming attempt, extracted as it arrives.
  class watch {
   public:
    explicit watch(const extraction_finder& finder)
        : finder_(&finder), stream_(make_selector(finder.sel_), finder.opts_) {}

    void feed(std::string_view chunk) {
      // The limit counts the prefill too, as the stream's does.
      const std::size_t max = finder_->opts_.max_input_bytes,
                        prefill = finder_->opts_.prefill.size();
      const std::size_t size = stream_.size() + chunk.size();
      if (!over_ && (size > max || prefill > max - size)) {
        // The stream keeps no text past the limit, and the record keeps all of it.
        kept_ = std::string(stream_.text());
        over_ = true;
      }
      if (over_) kept_.append(chunk);
      stream_.feed(chunk);
      stream_.sync();  // cheap, and the settled answer is seen at once
    }
    [[nodiscard]] bool settled() const noexcept { return stream_.settled() != nullptr; }
    [[nodiscard]] std::string_view text() const noexcept {
      return over_ ? std::string_view(kept_) : stream_.text();
    }
    /// The partial answer of the content so far (`stream::partial()`; after `finish`, the
    /// answer), and the version that says when it may have changed.
    [[nodiscard]] std::uint64_t partial_version() const noexcept {
      return stream_.partial_version();
    }
    [[nodiscard]] std::optional<partial_answer> partial() { return stream_.partial(); }
    /// Finds the answer in the message whose content was fed: the stream's `finish()`, or its
    /// `stop()` when the call was stopped at the settled answer and the provider never said the
    /// output ended (no `finish_reason`): what is open after the answer was not cut. An adapter
    /// that went on to the end despite the stop brings a `finish_reason`, and its cut is real.
    found<Out> finish(message&& m, attempt& a) {
      const bool stopped = a.stopped_early && m.finish_reason.empty();
      result<extraction> whole = stopped ? stream_.stop() : stream_.finish();
      record_cut_after_answer(whole, a);
      result<Out> r = finder_->conclude_(std::move(whole));
      if (r) return record_extraction(std::move(r), a, nullptr);
      // The error's views point into the stream (its prefill included): into a copy the error
      // can share instead, and those into the prefill into copies of their own.
      auto text = std::make_shared<const std::string>(this->text());
      if (!over_) {  // over the limit: too_large, with no candidate
        const std::string_view output = stream_.text();
        const std::size_t prefill = finder_->opts_.prefill.size();
        views_into_output(r.error().candidates, r.error().near_misses,
                          std::string_view(output.data() - prefill, prefill + output.size()),
                          prefill, *text);
      }
      return record_extraction(std::move(r), a, std::move(text));
    }

   private:
    static stream_selector<S> make_selector(const S& sel) {
      if constexpr (std::same_as<stream_selector<S>, S>) {
        return sel;
      } else {
        return selector_view<S>(sel);
      }
    }

    const extraction_finder* finder_;
    stream<stream_selector<S>> stream_;
    bool over_ = false;
    std::string kept_;  // the text, once over max_input_bytes
  };
  [[nodiscard]] watch start() const { return watch(*this); }

 private:
  result<Out> conclude_(result<extraction>&& r) const {
    if constexpr (std::same_as<Out, answer>) {
      return to_answer(std::move(r));
    } else {
      return decoded_answer(sel_, std::move(r));
    }
  }

  const S& sel_;
  const options& opts_;
};

/// The finder of `complete`: a message with content is the answer.
struct content_finder {
  /// Returns the message as the answer when its content is not blank; else records
  /// `empty_content` in `a`.
  found<message> operator()(message&& m, attempt& a) const;

  /// The content of one streaming attempt: kept, and never settled (there is no answer to
  /// settle).
  class watch {
   public:
    void feed(std::string_view chunk) { text_.append(chunk); }
    [[nodiscard]] bool settled() const noexcept { return false; }
    [[nodiscard]] std::string_view text() const noexcept { return text_; }
    /// Finds the answer in `m` with the content that was fed.
    found<message> finish(message&& m, attempt& a);

   private:
    std::string text_;
  };
  [[nodiscard]] watch start() const { return {}; }
};

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/retry/finders-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_RETRY_FINDERS_HPP_INCLUDED
