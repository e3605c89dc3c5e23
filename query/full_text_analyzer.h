// Full-text analysis: how a text becomes the terms the full-text functions compare and the
// full-text index stores. The service documents tokenization, lower-casing, stop-word removal
// (English only) and language-specific stemming; it does not publish its analyzer, so this one is:
//  1. words are the maximal runs of letters and digits (Unicode letters beyond ASCII included),
//     with the apostrophes inside them ("don't"); everything else separates them;
//  2. words are lower-cased (ASCII, Latin-1 and Latin Extended-A, which the supported languages
//     use);
//  3. in English, the 586 stop words the service lists for its full-text search are dropped (it
//     removes stop words in English only), so they count neither as terms nor in a text's length;
//  4. each word is reduced to its stem by the Snowball stemmer of the language (libstemmer).
// The same analysis runs on documents and on the terms of a query, so "Running" finds "runs".
// Thread-safety: every function may be called from any thread (stemmers are per thread).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::query {

enum class TextLanguage { kEnglish, kGerman, kSpanish, kFrench, kItalian, kPortuguese };

// The languages a full-text policy may name, as the service spells them.
inline constexpr const char* kFullTextLanguageCodes[] = {"en-US", "de-DE", "es-ES", "fr-FR",
                                                         "it-IT", "pt-PT", "pt-BR"};

// The language of a policy's code (any case); nullopt for a code the service does not support.
std::optional<TextLanguage> ParseTextLanguage(std::string_view code);

// The terms of `text`, in order (a word that is a stop word leaves no term).
std::vector<std::string> AnalyzeText(std::string_view text, TextLanguage language);

// How often `phrase` (analyzed terms) occurs in `terms`, its terms consecutive; 0 for an empty
// phrase (one of stop words alone matches nothing).
size_t CountPhrase(std::span<const std::string> terms, std::span<const std::string> phrase);

// True when `term` is within `distance` edits (Levenshtein) of a term of `terms`.
bool ContainsFuzzy(std::span<const std::string> terms, std::string_view term, int distance);

// What BM25 knows of the documents scored: their number, the sum of their lengths in terms, and
// for each phrase of the query how many of them contain it.
struct Bm25Statistics {
  double document_count = 0;
  double total_words = 0;
  std::vector<double> hit_counts;
};

// The BM25 score (k1 = 1.2, b = 0.75, the usual constants: the service does not publish its own)
// of a document of `terms` for `phrases`, each counting as one query term:
//   sum over phrases q of IDF(q) * f(q) * (k1 + 1) / (f(q) + k1 * (1 - b + b * |d| / avgdl)),
//   IDF(q) = ln(1 + (N - n(q) + 0.5) / (n(q) + 0.5)), avgdl = total_words / N.
double Bm25Score(std::span<const std::string> terms, std::span<const std::vector<std::string>> phrases,
                 const Bm25Statistics& statistics);
// The same from the counts alone: each phrase's occurrences in the document, and its length in
// terms (what a full-text index holds).
double Bm25FromCounts(std::span<const double> frequencies, double length, const Bm25Statistics& statistics);

}  // namespace cosmos::query
