// Full-text search functions, as the service documents them:
//  - FullTextContains(text, "phrase" | {"term": t, "distance": d}): whether the text holds the
//    phrase (its terms in a row) or, fuzzy, a term within d edits (d at most 2);
//  - FullTextContainsAll(text, p1, p2, ...) / FullTextContainsAny(text, p1, p2, ...);
//  - FullTextScore(text, p1, p2, ... | [p1, p2, ...]): the BM25 relevance of the text for the
//    phrases, only in ORDER BY RANK (the binder's rule), scored with the statistics gathered
//    for the call before the rows (FunctionContext::full_text_statistics);
//  - the hybrid search plan's internal forms: _FullTextScore(text, [phrases], documentCount,
//    totalWordCount, [hitCounts]) scores with the statistics the SDK gathered across partitions,
//    and _FullTextWordCount(text) counts the terms of a text (the statistics query sums them).
// Texts and phrases go through the same analysis (query/full_text_analyzer.h), in the language
// of the text's path in the container's full-text policy (FunctionContext::text_languages).
// A text that is not a string gives undefined, as a document without the property does.
#include <string>
#include <vector>

#include "query/functions/registry.h"

namespace cosmos::query {
namespace {

TextLanguage LanguageOf(const FunctionContext& ctx) {
  if (ctx.text_languages != nullptr && ctx.call != nullptr) {
    if (auto found = ctx.text_languages->find(ctx.call); found != ctx.text_languages->end()) return found->second;
  }
  return TextLanguage::kEnglish;
}

std::vector<std::string> TermsOf(const Value& text, FunctionContext& ctx) {
  ChargeText(ctx, text.string().size());
  return AnalyzeText(text.string(), LanguageOf(ctx));
}

// Whether the analyzed text holds `search`: a phrase, or a fuzzy {"term", "distance"} object.
// nullopt for a search of another kind (the call is then undefined).
std::optional<bool> Holds(const std::vector<std::string>& terms, const Value& search, FunctionContext& ctx) {
  if (search.is_string()) {
    std::vector<std::string> phrase = AnalyzeText(search.string(), LanguageOf(ctx));
    return CountPhrase(terms, phrase) > 0;
  }
  if (!search.is_object()) return std::nullopt;
  const Json& fuzzy = search.json();
  const auto term = fuzzy.find("term");
  const auto distance = fuzzy.find("distance");
  if (term == fuzzy.end() || !term->is_string()) return std::nullopt;
  int edits = 0;
  if (distance != fuzzy.end()) {
    if (!distance->is_number_integer() || distance->get<int64_t>() < 0 || distance->get<int64_t>() > 2) {
      if (ctx.error.ok()) {
        ctx.error = Status::BadRequest("The distance of a fuzzy FullTextContains term must be an integer from 0 to 2.");
      }
      return std::nullopt;
    }
    edits = static_cast<int>(distance->get<int64_t>());
  }
  std::vector<std::string> analyzed = AnalyzeText(term->get_ref<const std::string&>(), LanguageOf(ctx));
  if (analyzed.size() != 1) return CountPhrase(terms, analyzed) > 0;
  return ContainsFuzzy(terms, analyzed[0], edits);
}

Value FullTextContains(std::span<const Value> args, FunctionContext& ctx) {
  if (!args[0].is_string()) return Value();
  std::optional<bool> holds = Holds(TermsOf(args[0], ctx), args[1], ctx);
  return holds ? Value::Boolean(*holds) : Value();
}

// FullTextContainsAll (`all`) or FullTextContainsAny.
Value ContainsEach(std::span<const Value> args, FunctionContext& ctx, bool all) {
  if (!args[0].is_string()) return Value();
  const std::vector<std::string> terms = TermsOf(args[0], ctx);
  for (size_t i = 1; i < args.size(); ++i) {
    std::optional<bool> holds = Holds(terms, args[i], ctx);
    if (!holds) return Value();
    if (*holds != all) return Value::Boolean(!all);
  }
  return Value::Boolean(all);
}

Value FullTextContainsAll(std::span<const Value> args, FunctionContext& ctx) { return ContainsEach(args, ctx, true); }
Value FullTextContainsAny(std::span<const Value> args, FunctionContext& ctx) { return ContainsEach(args, ctx, false); }

// The phrases of FullTextScore's search arguments (strings, or arrays of strings), analyzed;
// nullopt when one is of another kind.
std::optional<std::vector<std::vector<std::string>>> Phrases(std::span<const Value> searches, TextLanguage language) {
  std::vector<std::vector<std::string>> phrases;
  for (const Value& search : searches) {
    if (search.is_string()) {
      phrases.push_back(AnalyzeText(search.string(), language));
    } else if (search.is_array()) {
      for (const Json& element : search.json()) {
        if (!element.is_string()) return std::nullopt;
        phrases.push_back(AnalyzeText(element.get_ref<const std::string&>(), language));
      }
    } else {
      return std::nullopt;
    }
  }
  return phrases;
}

Value FullTextScore(std::span<const Value> args, FunctionContext& ctx) {
  if (!args[0].is_string() || ctx.full_text_statistics == nullptr) return Value();
  auto statistics = ctx.full_text_statistics->find(ctx.call);
  if (statistics == ctx.full_text_statistics->end()) return Value();
  auto phrases = Phrases(args.subspan(1), LanguageOf(ctx));
  if (!phrases) return Value();
  return Value::Number(Bm25Score(TermsOf(args[0], ctx), *phrases, statistics->second));
}

// _FullTextScore(text, [phrases] | phrases..., documentCount, totalWordCount, [hitCounts]).
Value InternalFullTextScore(std::span<const Value> args, FunctionContext& ctx) {
  const size_t n = args.size();
  if (!args[0].is_string() || !args[n - 3].is_number() || !args[n - 2].is_number() || !args[n - 1].is_array()) {
    return Value();
  }
  auto phrases = Phrases(args.subspan(1, n - 4), LanguageOf(ctx));
  if (!phrases) return Value();
  Bm25Statistics statistics;
  statistics.document_count = args[n - 3].number();
  statistics.total_words = args[n - 2].number();
  for (const Json& hits : args[n - 1].json()) statistics.hit_counts.push_back(hits.is_number() ? hits.get<double>() : 0);
  return Value::Number(Bm25Score(TermsOf(args[0], ctx), *phrases, statistics));
}

Value FullTextWordCount(std::span<const Value> args, FunctionContext& ctx) {
  if (!args[0].is_string()) return Value();
  return Value::Number(static_cast<double>(TermsOf(args[0], ctx).size()));
}

}  // namespace

void RegisterFullTextFunctions(FunctionRegistry& registry) {
  registry.AddScalar("FullTextContains", 2, 2, FullTextContains);
  registry.AddScalar("FullTextContainsAll", 2, -1, FullTextContainsAll);
  registry.AddScalar("FullTextContainsAny", 2, -1, FullTextContainsAny);
  registry.AddScalar("FullTextScore", 2, -1, FullTextScore);
  registry.AddScalar("_FullTextScore", 5, -1, InternalFullTextScore);
  registry.AddScalar("_FullTextWordCount", 1, 1, FullTextWordCount);
}

}  // namespace cosmos::query
