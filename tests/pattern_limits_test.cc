// LIKE and RegexMatch against hostile patterns: each must finish quickly, with the right answer
// or a 400, and never overflow the stack or stall a worker.
#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "query/execution/evaluator.h"
#include "query/functions/registry.h"

using cosmos::ErrorCode;
using cosmos::query::FunctionContext;
using cosmos::query::FunctionRegistry;
using cosmos::query::LikeMatches;
using cosmos::query::Value;

namespace {

// Far above what any of these cases takes (milliseconds), far below a stall.
constexpr auto kQuick = std::chrono::seconds(2);

std::chrono::steady_clock::duration Timed(const std::function<void()>& body) {
  auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::steady_clock::now() - start;
}

std::string Repeat(std::string_view piece, size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (size_t i = 0; i < times; ++i) out += piece;
  return out;
}

struct RegexOutcome {
  Value result;
  cosmos::Status error;
};

RegexOutcome Regex(const std::string& text, const std::string& pattern, const std::string& modifiers = "") {
  const auto* def = FunctionRegistry::Instance().Find("RegexMatch");
  REQUIRE(def != nullptr);
  FunctionContext ctx;
  std::vector<Value> args = {Value::String(text), Value::String(pattern), Value::String(modifiers)};
  Value result = def->scalar(args, ctx);
  return {result, ctx.error};
}

// The former recursive matcher, kept as the reference for the LIKE semantics on small inputs.
bool ReferenceLike(const std::u32string& s, size_t si, const std::u32string& p, size_t pi,
                   std::optional<char32_t> escape) {
  while (pi < p.size()) {
    char32_t c = p[pi];
    if (escape && c == *escape && pi + 1 < p.size()) {
      if (si >= s.size() || s[si] != p[pi + 1]) return false;
      ++si;
      pi += 2;
      continue;
    }
    if (c == U'%') {
      while (pi < p.size() && p[pi] == U'%') ++pi;
      if (pi == p.size()) return true;
      for (size_t k = si; k <= s.size(); ++k)
        if (ReferenceLike(s, k, p, pi, escape)) return true;
      return false;
    }
    if (si >= s.size()) return false;
    if (c == U'_') {
      ++si;
      ++pi;
      continue;
    }
    if (c == U'[') {
      size_t close = p.find(U']', pi + 1);
      if (close != std::u32string::npos) {
        size_t k = pi + 1;
        bool negate = k < close && p[k] == U'^';
        if (negate) ++k;
        bool matched = false;
        for (; k < close; ++k) {
          if (k + 2 < close && p[k + 1] == U'-') {
            if (s[si] >= p[k] && s[si] <= p[k + 2]) matched = true;
            k += 2;
          } else if (s[si] == p[k]) {
            matched = true;
          }
        }
        if (matched == negate) return false;
        ++si;
        pi = close + 1;
        continue;
      }
    }
    if (s[si] != c) return false;
    ++si;
    ++pi;
  }
  return si == s.size();
}

}  // namespace

TEST_CASE("LIKE keeps its semantics on random small patterns", "[pattern_limits]") {
  // ASCII only, so the bytes are the code points the reference works on.
  const std::string pattern_chars = "ab%_[]^-!c";
  const std::string text_chars = "ab%_[]^-!";
  std::mt19937 random(20240601);
  auto pick = [&](const std::string& from, size_t max_length) {
    std::string out(random() % (max_length + 1), ' ');
    for (char& c : out) c = from[random() % from.size()];
    return out;
  };
  for (int i = 0; i < 20000; ++i) {
    std::string pattern = pick(pattern_chars, 8);
    std::string text = pick(text_chars, 7);
    std::optional<char32_t> escape;
    if (i % 3 == 1) escape = U'!';
    if (i % 3 == 2) escape = static_cast<char32_t>(pattern_chars[random() % pattern_chars.size()]);
    std::u32string s(text.begin(), text.end()), p(pattern.begin(), pattern.end());
    INFO("'" << text << "' LIKE '" << pattern << "' ESCAPE " << (escape ? static_cast<char>(*escape) : ' '));
    REQUIRE(LikeMatches(text, pattern, escape) == ReferenceLike(s, 0, p, 0, escape));
  }
}

TEST_CASE("LIKE with 300000 % segments needs no recursion", "[pattern_limits]") {
  std::string pattern = Repeat("%a", 300000);
  auto elapsed = Timed([&] {
    CHECK(LikeMatches(std::string(300000, 'a'), pattern, std::nullopt));
    CHECK_FALSE(LikeMatches(std::string(299999, 'a'), pattern, std::nullopt));
    CHECK_FALSE(LikeMatches(std::string(299999, 'a') + "b", pattern, std::nullopt));
    CHECK_FALSE(LikeMatches(std::string(100000, 'b'), pattern, std::nullopt));
  });
  CHECK(elapsed < kQuick);
}

TEST_CASE("LIKE with 30 % segments against a long non-matching text is fast", "[pattern_limits]") {
  std::string pattern = Repeat("%a", 29) + "%b";
  std::string text(10000, 'a');
  auto elapsed = Timed([&] {
    CHECK_FALSE(LikeMatches(text, pattern, std::nullopt));
    CHECK(LikeMatches(text + "b", pattern, std::nullopt));
    CHECK_FALSE(LikeMatches(text, Repeat("%_", 30) + "[^a]%", std::nullopt));
  });
  CHECK(elapsed < kQuick);
}

TEST_CASE("RegexMatch with a backreference on a 200000-character string", "[pattern_limits]") {
  std::string text(200000, 'a');
  auto elapsed = Timed([&] {
    RegexOutcome whole = Regex(text, R"(^(a+)\1$)");
    CHECK(whole.error.ok());
    CHECK(IsTrue(whole.result));
    // An odd length: every split is compared, O(n^2) characters; false, or the work limit.
    RegexOutcome odd = Regex(text + "a", R"(^(a+)\1$)");
    if (odd.error.ok()) {
      CHECK(odd.result.is_boolean());
      CHECK_FALSE(IsTrue(odd.result));
    } else {
      CHECK(odd.error.code() == ErrorCode::kBadRequest);
      CHECK_THAT(odd.error.message(), Catch::Contains("RegexMatch gave up"));
    }
    RegexOutcome pairs = Regex(Repeat("ab", 100000), R"((.)\1)");
    CHECK(pairs.error.ok());
    CHECK_FALSE(IsTrue(pairs.result));
  });
  CHECK(elapsed < kQuick);
}

TEST_CASE("RegexMatch rejects 20000 nested groups", "[pattern_limits]") {
  for (std::string open : {"(", "(?:"}) {
    std::string pattern = Repeat(open, 20000) + "a" + std::string(20000, ')');
    RegexOutcome outcome;
    auto elapsed = Timed([&] { outcome = Regex("a", pattern); });
    CHECK(elapsed < kQuick);
    CHECK(outcome.result.is_undefined());
    CHECK(outcome.error.code() == ErrorCode::kBadRequest);
    CHECK_THAT(outcome.error.message(), Catch::Contains("nested"));
  }
}

TEST_CASE("RegexMatch takes long patterns up to PCRE2's size cap", "[pattern_limits]") {
  std::string literal(5000, 'x');
  RegexOutcome fits = Regex("<" + literal + ">", literal);
  CHECK(fits.error.ok());
  CHECK(IsTrue(fits.result));
  RegexOutcome too_large = Regex("x", std::string(50000, 'x'));
  CHECK(too_large.result.is_undefined());
  CHECK(too_large.error.code() == ErrorCode::kBadRequest);
  CHECK_THAT(too_large.error.message(), Catch::Contains("too large"));
}

TEST_CASE("RegexMatch bounds catastrophic backtracking", "[pattern_limits]") {
  std::string a28(28, 'a');
  // PCRE sees that no 'b' occurs and answers at once.
  RegexOutcome required_b;
  auto elapsed = Timed([&] { required_b = Regex(a28, R"((a*)*\1b)"); });
  CHECK(elapsed < kQuick);
  CHECK(required_b.error.ok());
  CHECK(required_b.result.is_boolean());
  CHECK_FALSE(IsTrue(required_b.result));

  // 2^28 ways to split the run: the match limit stops it with a 400.
  for (const char* pattern : {"^(a+)+$", "(a*)*\\1[bc]", "^(\\w+\\s?)*$"}) {
    INFO(pattern);
    RegexOutcome nested;
    elapsed = Timed([&] { nested = Regex(a28 + "!", pattern); });
    CHECK(elapsed < kQuick);
    CHECK(nested.result.is_undefined());
    CHECK(nested.error.code() == ErrorCode::kBadRequest);
    CHECK_THAT(nested.error.message(), Catch::Contains("RegexMatch gave up"));
  }

  // Each start position scans to the end: O(n^2) characters in all, past the work limit.
  RegexOutcome quadratic;
  elapsed = Timed([&] { quadratic = Regex(std::string(200000, 'a'), "a*[bc]"); });
  CHECK(elapsed < kQuick);
  CHECK(quadratic.error.code() == ErrorCode::kBadRequest);
  CHECK_THAT(quadratic.error.message(), Catch::Contains("work limit"));

  // Backtracking frames for every character of a 1,000,000-character text: over the limits.
  RegexOutcome deep;
  elapsed = Timed([&] { deep = Regex(std::string(1000000, 'a'), "(a|b)*$"); });
  CHECK(elapsed < kQuick);
  CHECK(deep.error.code() == ErrorCode::kBadRequest);
  CHECK_THAT(deep.error.message(), Catch::Contains("RegexMatch gave up"));
}

TEST_CASE("RegexMatch reads malformed UTF-8 as U+FFFD", "[pattern_limits]") {
  RegexOutcome outcome = Regex("a\xff", "^a.$");
  CHECK(outcome.error.ok());
  CHECK(IsTrue(outcome.result));
  outcome = Regex("a\xff", "^a\\x{FFFD}$");
  CHECK(outcome.error.ok());
  CHECK(IsTrue(outcome.result));
}
