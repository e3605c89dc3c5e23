#include "query/full_text_analyzer.h"

#include <libstemmer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <unordered_set>

#include "common/encoding.h"

namespace cosmos::query {
namespace {

// The English stop words of the service's full-text search (its documentation's list).
constexpr std::string_view kEnglishStopWords[] = {
#include "query/full_text_stop_words_en.inc"
};

bool IsEnglishStopWord(std::string_view word) {
  static const std::unordered_set<std::string_view> words(std::begin(kEnglishStopWords), std::end(kEnglishStopWords));
  return words.contains(word);
}

// One code point of UTF-8 at `text[i]`, advancing `i`; U+FFFD for a malformed sequence.
char32_t NextCodePoint(std::string_view text, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + static_cast<size_t>(length) > text.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t code = length == 1 ? lead : lead & (0x7F >> length);
  for (int k = 1; k < length; ++k) {
    const unsigned char next = byte(i + static_cast<size_t>(k));
    if ((next & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    code = (code << 6) | (next & 0x3F);
  }
  i += static_cast<size_t>(length);
  return code;
}

// Letters and digits make words. Beyond ASCII: the letters of Latin-1 and the Latin extensions,
// Greek, Cyrillic and everything past the general punctuation block except its symbols and CJK
// punctuation (a word breaker for the supported languages, not a Unicode database).
bool IsWordCharacter(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (c < 0xC0) return c == 0xAA || c == 0xB5 || c == 0xBA;
  if (c == 0xD7 || c == 0xF7) return false;  // × and ÷
  if (c < 0x2000) return true;
  if (c < 0x2C00) return false;  // punctuation, symbols, arrows, boxes...
  if (c >= 0x3000 && c < 0x3040) return false;  // CJK punctuation
  if (c >= 0xFE30 && c < 0xFE70) return false;
  if (c >= 0xFF00 && c < 0xFF10) return false;  // full-width punctuation
  return c != 0xFFFD;
}

char32_t ToLower(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;  // À..Þ
  if (c >= 0x100 && c <= 0x17F) {
    // Latin Extended-A pairs upper and lower case, mostly even then odd; these runs are odd-even.
    const bool odd_even = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if (odd_even) return (c % 2 == 1) ? c + 1 : c;
    if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
    return (c % 2 == 0) ? c + 1 : c;
  }
  return c;
}

// Snowball stemmers are not thread-safe: one per language per thread.
struct StemmerDeleter {
  void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};

sb_stemmer* StemmerFor(TextLanguage language) {
  static constexpr const char* kAlgorithms[] = {"english", "german", "spanish", "french", "italian", "portuguese"};
  thread_local std::array<std::unique_ptr<sb_stemmer, StemmerDeleter>, std::size(kAlgorithms)> stemmers;
  auto& stemmer = stemmers[static_cast<size_t>(language)];
  if (!stemmer) stemmer.reset(sb_stemmer_new(kAlgorithms[static_cast<size_t>(language)], "UTF_8"));
  return stemmer.get();
}

void AddTerm(std::string& word, TextLanguage language, std::vector<std::string>& terms) {
  if (word.empty()) return;
  if (language == TextLanguage::kEnglish && IsEnglishStopWord(word)) {
    word.clear();
    return;
  }
  if (sb_stemmer* stemmer = StemmerFor(language)) {
    const sb_symbol* stem =
        sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
    if (stem != nullptr) {
      terms.emplace_back(reinterpret_cast<const char*>(stem), static_cast<size_t>(sb_stemmer_length(stemmer)));
      word.clear();
      return;
    }
  }
  terms.push_back(std::move(word));
  word.clear();
}

}  // namespace

std::optional<TextLanguage> ParseTextLanguage(std::string_view code) {
  static constexpr TextLanguage kLanguages[] = {TextLanguage::kEnglish,    TextLanguage::kGerman,
                                                TextLanguage::kSpanish,    TextLanguage::kFrench,
                                                TextLanguage::kItalian,    TextLanguage::kPortuguese,
                                                TextLanguage::kPortuguese};
  for (size_t i = 0; i < std::size(kFullTextLanguageCodes); ++i) {
    if (EqualsIgnoreCaseAscii(code, kFullTextLanguageCodes[i])) return kLanguages[i];
  }
  return std::nullopt;
}

std::vector<std::string> AnalyzeText(std::string_view text, TextLanguage language) {
  std::vector<std::string> terms;
  std::string word;
  for (size_t i = 0; i < text.size();) {
    const char32_t c = NextCodePoint(text, i);
    if (IsWordCharacter(c)) {
      AppendUtf8(word, ToLower(c));
      continue;
    }
    // An apostrophe between letters stays in the word ("don't", "john's"), as the stop-word
    // list spells contractions; the stemmer then drops a possessive 's.
    if ((c == '\'' || c == 0x2019) && !word.empty() && i < text.size()) {
      size_t next = i;
      if (IsWordCharacter(NextCodePoint(text, next))) {
        word += '\'';
        continue;
      }
    }
    AddTerm(word, language, terms);
  }
  AddTerm(word, language, terms);
  return terms;
}

size_t CountPhrase(std::span<const std::string> terms, std::span<const std::string> phrase) {
  if (phrase.empty() || phrase.size() > terms.size()) return 0;
  size_t count = 0;
  for (size_t start = 0; start + phrase.size() <= terms.size(); ++start) {
    size_t matched = 0;
    while (matched < phrase.size() && terms[start + matched] == phrase[matched]) ++matched;
    if (matched == phrase.size()) ++count;
  }
  return count;
}

namespace {

// Levenshtein distance of two terms (bytes), given up once it exceeds `limit`.
int EditDistance(std::string_view a, std::string_view b, int limit) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (std::abs(n - m) > limit) return limit + 1;
  std::vector<int> previous(static_cast<size_t>(m) + 1), current(static_cast<size_t>(m) + 1);
  for (int j = 0; j <= m; ++j) previous[static_cast<size_t>(j)] = j;
  for (int i = 1; i <= n; ++i) {
    current[0] = i;
    int row_minimum = i;
    for (int j = 1; j <= m; ++j) {
      const size_t uj = static_cast<size_t>(j);
      const int substitution = previous[uj - 1] + (a[static_cast<size_t>(i - 1)] == b[uj - 1] ? 0 : 1);
      current[uj] = std::min({previous[uj] + 1, current[uj - 1] + 1, substitution});
      row_minimum = std::min(row_minimum, current[uj]);
    }
    if (row_minimum > limit) return limit + 1;
    std::swap(previous, current);
  }
  return previous[static_cast<size_t>(m)];
}

}  // namespace

bool ContainsFuzzy(std::span<const std::string> terms, std::string_view term, int distance) {
  for (const std::string& candidate : terms) {
    if (EditDistance(candidate, term, distance) <= distance) return true;
  }
  return false;
}

double Bm25FromCounts(std::span<const double> frequencies, double length, const Bm25Statistics& statistics) {
  constexpr double kK1 = 1.2, kB = 0.75;
  const double n = statistics.document_count;
  const double average_length = n > 0 && statistics.total_words > 0 ? statistics.total_words / n : std::max(length, 1.0);
  double score = 0;
  for (size_t q = 0; q < frequencies.size(); ++q) {
    const double frequency = frequencies[q];
    if (frequency == 0) continue;
    const double hits = q < statistics.hit_counts.size() ? statistics.hit_counts[q] : 0;
    const double idf = std::log(1 + (std::max(n - hits, 0.0) + 0.5) / (hits + 0.5));
    score += idf * frequency * (kK1 + 1) / (frequency + kK1 * (1 - kB + kB * length / average_length));
  }
  return score;
}

double Bm25Score(std::span<const std::string> terms, std::span<const std::vector<std::string>> phrases,
                 const Bm25Statistics& statistics) {
  std::vector<double> frequencies;
  frequencies.reserve(phrases.size());
  for (const std::vector<std::string>& phrase : phrases) frequencies.push_back(static_cast<double>(CountPhrase(terms, phrase)));
  return Bm25FromCounts(frequencies, static_cast<double>(terms.size()), statistics);
}

}  // namespace cosmos::query
