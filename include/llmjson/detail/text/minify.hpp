// llmjson: minify's loop: the white space outside a JSON text's strings removed, 64 bytes a step
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_TEXT_MINIFY_HPP_INCLUDED
#define LLMJSON_DETAIL_TEXT_MINIFY_HPP_INCLUDED

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/quote_bits.hpp>

// SSE2 is in every x86-64 CPU: the 64-byte steps need nothing the kernels choose at run time.
#if (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)) && \
    !defined(LLMJSON_NO_SIMD)
#include <emmintrin.h>
#define LLMJSON_MINIFY_SSE2 1
#endif

namespace llmjson::detail {

/// The escape of a raw LF, CR or tab in a string (`n`, `r`, `t`), or 0 for any other byte.
constexpr char raw_control_escape(char c) noexcept {
  return c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\0';
}

/// Whether a string copies `c` as it is (a byte of a plain run): not `"`, `\`, LF, CR or tab.
constexpr bool is_plain(char c) noexcept {
  return c != '"' && c != '\\' && raw_control_escape(c) == '\0';
}

/// The bytes of the little-endian word `x` that end a string's plain run (`"`, `\`, LF, CR,
/// tab), each flagged by its high bit; exact up to the lowest flagged byte (the test's false
/// positives only ever lie above a true match).
constexpr std::uint64_t plain_stops(std::uint64_t x) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101U, highs = 0x8080808080808080U;
  constexpr auto zero_byte = [](std::uint64_t v) noexcept { return (v - ones) & ~v & highs; };
  return zero_byte(x ^ (ones * '"')) | zero_byte(x ^ (ones * '\\')) | zero_byte(x ^ (ones * '\n')) |
         zero_byte(x ^ (ones * '\r')) | zero_byte(x ^ (ones * '\t'));
}

/// The length of the run of bytes at `p` (up to `end`) that a string copies as they are: none
/// is `"`, `\`, LF, CR or tab. Eight bytes at a time where the machine is little-endian, then
/// a byte at a time.
inline std::size_t plain_run(const char* p, const char* end) noexcept {
  const char* q = p;
  if constexpr (std::endian::native == std::endian::little) {
    while (end - q >= 8) {
      std::uint64_t x = 0;
      std::memcpy(&x, q, 8);
      if (const std::uint64_t found = plain_stops(x))
        return static_cast<std::size_t>(q - p) +
               static_cast<std::size_t>(std::countr_zero(found)) / 8;
      q += 8;
    }
  }
  while (q < end && is_plain(*q)) ++q;
  return static_cast<std::size_t>(q - p);
}

/// Copies the plain run at `p` (as `plain_run` measures it) to `w`, moving both past it. Each
/// word is stored before it is looked at, so `w` must have room for 8 bytes wherever `p` has 8
/// bytes left before `end`.
inline void copy_plain_run(const char*& p, const char* end, char*& w) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    while (end - p >= 8) {
      std::uint64_t x = 0;
      std::memcpy(&x, p, 8);
      std::memcpy(w, &x, 8);
      if (const std::uint64_t found = plain_stops(x)) {
        const auto k = static_cast<std::size_t>(std::countr_zero(found)) / 8;
        p += k;
        w += k;
        return;
      }
      p += 8;
      w += 8;
    }
  }
  while (p < end && is_plain(*p)) *w++ = *p++;
}

/// Where minify is in the text: outside strings, in one, or in one just after a backslash.
enum class minify_state : unsigned char { outside, in_string, escaped };

/// minify's output: `s` from `w` on, which has room for every byte left to read plus `slack`,
/// and for every byte left to take two once `grown` (a raw LF, CR or tab in a string, escaped).
struct minify_out {
  static constexpr std::size_t slack = 96;  // a step's stores may pass its bytes by 15
  std::string& s;
  char* w;
  bool grown = false;

  /// Makes room for each byte of `[p, end)` to take two.
  void grow(const char* p, const char* end) {
    const auto at = static_cast<std::size_t>(w - s.data());
    const std::size_t need = at + 2 * static_cast<std::size_t>(end - p) + slack;
    if (s.size() < need) s.resize(need);
    w = s.data() + at;
    grown = true;
  }
};

/// minify over `[p, end)`, from `state`, a byte at a time (a string's plain runs a word at a
/// time): the loop every platform has, and where the 64-byte steps hand over.
inline void minify_bytes(const char* p, const char* end, minify_out& o, minify_state state) {
  char* w = o.w;
  const auto put_control = [&](char e) {  // a raw LF, CR or tab in a string: rare
    if (!o.grown) {
      o.w = w;
      o.grow(p, end);
      w = o.w;
    }
    *w++ = '\\';
    *w++ = e;
  };
  while (p < end) {
    switch (state) {
      case minify_state::outside: {
        const char c = *p++;
        *w = c;  // stored, then kept unless it is white space
        if (c == '"') {
          ++w;
          state = minify_state::in_string;
        } else if (!is_json_ws(c)) {
          ++w;
        }
        break;
      }
      case minify_state::in_string: {
        copy_plain_run(p, end, w);
        if (p == end) break;
        const char c = *p++;
        if (c == '"' || c == '\\') {
          *w++ = c;
          state = c == '"' ? minify_state::outside : minify_state::escaped;
        } else {
          put_control(raw_control_escape(c));
        }
        break;
      }
      case minify_state::escaped: {  // the byte after a backslash, whatever it is
        const char c = *p++;
        if (const char e = raw_control_escape(c)) {
          put_control(e);
        } else {
          *w++ = c;
        }
        state = minify_state::in_string;
        break;
      }
    }
  }
  o.w = w;
}

#if defined(LLMJSON_MINIFY_SSE2)
/// One 64-byte block's bytes of each class, one bit each, the first byte in the lowest bit.
struct minify_block {
  std::uint64_t quotes = 0, backslashes = 0, spaces = 0, controls = 0;  // controls: LF CR tab

  explicit minify_block(const char* p) noexcept {
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  space = _mm_set1_epi8(' '), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  tab = _mm_set1_epi8('\t');
    for (int k = 0; k < 4; ++k) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      const auto bits = [&](__m128i m) {
        return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(m))) << (16 * k);
      };
      const __m128i control = _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, cr)), _mm_cmpeq_epi8(x, tab));
      quotes |= bits(_mm_cmpeq_epi8(x, quote));
      backslashes |= bits(_mm_cmpeq_epi8(x, backslash));
      controls |= bits(control);
      spaces |= bits(_mm_or_si128(control, _mm_cmpeq_epi8(x, space)));
    }
  }
};

/// Copies the bytes of the 64-byte block at `p` whose bits are set in `keep` to `w`, run by run,
/// 16 bytes a store (each store may write up to 15 bytes past the run; `p` has 16 bytes readable
/// past the block).
inline char* copy_kept(const char* p, std::uint64_t keep, char* w) noexcept {
  while (keep) {
    const auto s = static_cast<unsigned>(std::countr_zero(keep));
    const std::uint64_t rest = ~(keep >> s);
    const unsigned run = rest ? static_cast<unsigned>(std::countr_zero(rest)) : 64 - s;
    for (unsigned k = 0; k < run; k += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(w + k),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + s + k)));
    w += run;
    keep = s + run >= 64 ? 0 : keep & (~std::uint64_t{0} << (s + run));
  }
  return w;
}
#endif

/// Appends `json` minified (llmjson::minify) to `out`. With SSE2, 64 bytes a step: each block's
/// quotes, backslashes and white space as bit masks, the bytes in strings found from the quotes'
/// running parity, and the white space outside them dropped. A block where that reading could
/// differ from the byte loop's — a backslash outside a string (where it escapes nothing), a raw
/// LF, CR or tab in a string (escaped: the output grows) — hands the rest to the byte loop.
/// On `std::bad_alloc`, `out` is left as it was.
inline void append_minified(std::string& out, std::string_view json) {
  // `json` may be a view of `out` itself, which growing `out` would move: read from a copy then.
  if (!json.empty() && std::less_equal<const char*>{}(out.data(), json.data()) &&
      std::less<const char*>{}(json.data(), out.data() + out.size() + 1)) {
    const std::string copy(json);
    append_minified(out, copy);
    return;
  }
  const std::size_t had = out.size();
  out.resize(had + json.size() + minify_out::slack);
  minify_out o{out, out.data() + had};
  const char* p = json.data();
  const char* const end = p + json.size();
  minify_state state = minify_state::outside;
#if defined(LLMJSON_MINIFY_SSE2)
  std::uint64_t in_string = 0;  // 1 when the next block starts inside a string
  std::uint64_t escaped = 0;    // ... and 1 when its first byte is escaped
  // A block read where it lies while 16 bytes past it can be read too; the last bytes (fewer
  // than 80) from a copy padded with zeros, which are bytes of no class.
  alignas(16) char pad[160];
  const char* q = p;  // the block read: `p`, or its place in `pad`
  for (bool padded = false;;) {
    if (!padded && end - p < 80) {
      if (p == end) break;
      std::memset(pad, 0, sizeof pad);
      std::memcpy(pad, p, static_cast<std::size_t>(end - p));
      padded = true;
      q = pad;
    }
    const std::uint64_t valid =
        end - p >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (end - p)) - 1;
    const minify_block m(q);
    const std::uint64_t was_in_string = in_string, was_escaped = escaped;
    const std::uint64_t inside =
        string_mask(unescaped_quotes(m.quotes, m.backslashes, escaped), in_string);
    if (((m.backslashes & ~inside) | (m.controls & inside)) & valid) {
      state = !was_in_string ? minify_state::outside
              : was_escaped  ? minify_state::escaped
                             : minify_state::in_string;
      break;
    }
    o.w = copy_kept(q, ~(m.spaces & ~inside) & valid, o.w);
    if (end - p <= 64) {
      p = end;
      break;
    }
    p += 64;
    q += 64;
  }
#endif
  // What a block handed over, or all of it without SSE2.
  try {
    minify_bytes(p, end, o, state);  // grows `out` at a raw LF, CR or tab in a string
  } catch (...) {
    out.resize(had);
    throw;
  }
  out.resize(static_cast<std::size_t>(o.w - out.data()));
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_TEXT_MINIFY_HPP_INCLUDED
