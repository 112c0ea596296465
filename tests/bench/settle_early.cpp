// llmjson: how early the stream settles on the corpus, under each output_start (run by hand)
// SPDX-License-Identifier: MIT
//
//   build/tests/bench/llmjson_settle_early tests/corpus
//
// Feeds every corpus case to llmjson::stream one byte at a time under policy first (what
// `llmjson --early` and retry_options::stop_early use), syncing after each byte, and notes the
// byte after which the answer was settled. Prints, for output_start::unknown (the default) and
// output_start::answer, how many cases settle before the end of the input and before their last
// byte, and the share of the bytes a caller that stops at settlement would have received.
// `answer` is a promise about the prompt: the cases whose answer it changes are listed (their
// output starts inside reasoning that no marker opened).
#include <llmjson/schema.hpp>
#include <llmjson/stream.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct run {
  std::size_t size = 0;
  std::optional<std::size_t> settled_after;  // bytes fed when the answer was settled
  std::optional<std::ptrdiff_t> answer;      // the position of finish()'s answer, if any
};

template <class S>
run feed_bytes(const std::string& text, const S& sel, llmjson::output_start start,
               const std::string& prefill) {
  llmjson::options opts;
  opts.policy = llmjson::policy::first;
  opts.start = start;
  opts.prefill = prefill;  // the case's (rules v4 §7), read before the output
  llmjson::stream<S> s(sel, opts);
  run r;
  r.size = text.size();
  for (std::size_t at = 0; at < text.size(); ++at) {
    s.feed(std::string_view(text).substr(at, 1));
    s.sync();
    if (!r.settled_after && s.settled()) r.settled_after = at + 1;
  }
  const auto got = s.finish();
  if (got) r.answer = got->chosen().position();
  return r;
}

template <class S>
std::pair<run, run> both(const std::string& text, const S& sel, const std::string& prefill) {
  return {feed_bytes(text, sel, llmjson::output_start::unknown, prefill),
          feed_bytes(text, sel, llmjson::output_start::answer, prefill)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: llmjson_settle_early CORPUS_DIR\n");
    return 2;
  }
  std::vector<std::filesystem::path> cases;
  for (const auto& e : std::filesystem::directory_iterator(argv[1]))
    if (e.path().extension() == ".txt") cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  struct totals {
    std::size_t before_end = 0, before_last = 0, received = 0, total = 0;
    std::vector<double> shares;  // per case: bytes received / its size
  } t[2];
  std::vector<std::string> changed;
  for (const auto& path : cases) {
    auto spec_path = path;
    spec_path.replace_extension(".expect.json");
    const std::string text = read_file(path);
    const nlohmann::json spec = nlohmann::json::parse(read_file(spec_path));
    const nlohmann::json& sel = spec.at("select");
    const std::string prefill = spec.value("prefill", std::string());
    std::pair<run, run> r;
    if (sel.contains("keys")) {
      r = both(text, llmjson::any_key(sel["keys"].get<std::vector<std::string>>()), prefill);
    } else if (sel.contains("schema")) {
      r = both(text, llmjson::schema(sel["schema"]), prefill);
    } else {
      r = both(text, llmjson::any_object{}, prefill);
    }
    const run* runs[2] = {&r.first, &r.second};
    for (int k = 0; k < 2; ++k) {
      const run& x = *runs[k];
      t[k].total += x.size;
      t[k].received += x.settled_after.value_or(x.size);
      t[k].before_end += x.settled_after.has_value();
      t[k].before_last += x.settled_after && *x.settled_after < x.size;
      t[k].shares.push_back(x.size ? static_cast<double>(x.settled_after.value_or(x.size)) /
                                         static_cast<double>(x.size)
                                   : 1.0);
    }
    if (r.first.answer != r.second.answer) changed.push_back(path.filename().string());
  }
  std::printf("%zu cases, %zu bytes, fed one byte at a time under policy first\n\n", cases.size(),
              t[0].total);
  std::printf(
      "| options::start | settled before the end of the input | before the last byte | "
      "bytes received, mean of the cases | all bytes received |\n");
  std::printf("|---|---|---|---|---|\n");
  const char* names[2] = {"unknown (default)", "answer"};
  for (int k = 0; k < 2; ++k) {
    double mean = 0;
    for (double x : t[k].shares) mean += x;
    mean /= static_cast<double>(std::max<std::size_t>(1, t[k].shares.size()));
    std::printf("| %s | %zu of %zu | %zu | %.1f%% | %.1f%% of %zu |\n", names[k], t[k].before_end,
                cases.size(), t[k].before_last, 100.0 * mean,
                100.0 * static_cast<double>(t[k].received) / static_cast<double>(t[k].total),
                t[k].total);
  }
  std::printf(
      "\noutput_start::answer changes the answer of %zu cases (their output starts in "
      "reasoning that no marker opened):\n",
      changed.size());
  for (const std::string& n : changed) std::printf("  %s\n", n.c_str());
  return 0;
}
