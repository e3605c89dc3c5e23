#include "query/full_text_search.h"

#include <string>

#include "common/encoding.h"
#include "query/binder.h"
#include "query/execution/executor.h"
#include "query/plan/query_plan.h"
#include "query/vector_search.h"

namespace cosmos::query {
namespace {

constexpr std::string_view kFullTextCalls[] = {"FullTextContains", "FullTextContainsAll", "FullTextContainsAny",
                                               "FullTextScore",    "_FullTextScore",      "_FullTextWordCount"};

bool IsFullTextCall(const Expr& e) {
  for (std::string_view name : kFullTextCalls) {
    if (IsSystemCall(e, name)) return true;
  }
  return false;
}

TextLanguage PolicyLanguage(const Json& policy, const std::string& path) {
  std::optional<TextLanguage> language;
  if (!policy.is_object()) return TextLanguage::kEnglish;
  if (auto paths = policy.find("fullTextPaths"); paths != policy.end() && paths->is_array() && !path.empty()) {
    for (const Json& entry : *paths) {
      if (!entry.is_object() || entry.value("path", "") != path) continue;
      if (auto code = entry.find("language"); code != entry.end() && code->is_string()) {
        language = ParseTextLanguage(code->get_ref<const std::string&>());
      }
    }
  }
  if (!language) {
    if (auto code = policy.find("defaultLanguage"); code != policy.end() && code->is_string()) {
      language = ParseTextLanguage(code->get_ref<const std::string&>());
    }
  }
  return language.value_or(TextLanguage::kEnglish);
}

// The phrases FullTextScore(text, searches...) scores, analyzed.
Result<std::vector<std::vector<std::string>>> ScorePhrases(const Expr& call, const Json& parameters,
                                                           TextLanguage language) {
  std::vector<std::vector<std::string>> phrases;
  for (size_t i = 1; i < call.children.size(); ++i) {
    std::optional<Json> search = ConstantValue(*call.children[i], parameters);
    std::vector<const Json*> strings;
    if (search && search->is_string()) strings.push_back(&*search);
    if (search && search->is_array()) {
      for (const Json& element : *search) strings.push_back(&element);
    }
    if (!search || strings.empty() || !std::all_of(strings.begin(), strings.end(), [](const Json* s) { return s->is_string(); })) {
      return Status::BadRequest("The search terms of FullTextScore must be strings or an array of strings.");
    }
    for (const Json* s : strings) phrases.push_back(AnalyzeText(s->get_ref<const std::string&>(), language));
  }
  return phrases;
}

}  // namespace

std::unordered_map<const Expr*, TextLanguage> ResolveTextLanguages(const SelectQuery& query,
                                                                   const Json& full_text_policy) {
  std::unordered_map<const Expr*, TextLanguage> languages;
  ForEachExpression(query, [&](const Expr& e, std::string_view root_alias) {
    if (!IsFullTextCall(e) || e.children.empty()) return;
    languages[&e] = PolicyLanguage(full_text_policy, DocumentPolicyPath(*e.children[0], root_alias));
  });
  return languages;
}

const Expr* RankScore(const SelectQuery& query) {
  if (query.order_by.size() != 1 || !IsSystemCall(*query.order_by[0].expr, "RANK")) return nullptr;
  const Expr& rank = *query.order_by[0].expr;
  return rank.children.empty() ? nullptr : rank.children[0].get();
}

RankComponents RankComponentsOf(const SelectQuery& query) {
  RankComponents components;
  const Expr* score = RankScore(query);
  if (score == nullptr) return components;
  if (!IsSystemCall(*score, "RRF")) {
    components.scores.push_back(score);
    return components;
  }
  for (const auto& argument : score->children) {
    if (argument->kind == ExprKind::kFunctionCall) {
      components.scores.push_back(argument.get());
    } else {
      components.weights = argument.get();
    }
  }
  return components;
}

Result<std::unordered_map<const Expr*, Bm25Statistics>> GatherFullTextStatistics(
    const SelectQuery& query, const Json& parameters, const std::unordered_map<const Expr*, TextLanguage>& languages,
    DocumentSource& documents, uint64_t& documents_read) {
  struct Scored {
    const Expr* call;
    std::vector<std::string> path;
    TextLanguage language;
    std::vector<std::vector<std::string>> phrases;
  };
  std::vector<Scored> scored;
  const std::string root_alias = query.from.empty() ? "" : query.from[0].alias;
  for (const Expr* score : RankComponentsOf(query).scores) {
    if (!IsSystemCall(*score, "FullTextScore")) continue;
    auto found = languages.find(score);
    const TextLanguage language = found == languages.end() ? TextLanguage::kEnglish : found->second;
    std::optional<std::vector<std::string>> path = DocumentPathSteps(*score->children[0], root_alias);
    if (!path || std::find(path->begin(), path->end(), "[]") != path->end()) {
      return Status::BadRequest("The first argument of FullTextScore must be a property path of the document.");
    }
    COSMOS_ASSIGN_OR_RETURN(auto phrases, ScorePhrases(*score, parameters, language));
    scored.push_back({score, std::move(*path), language, std::move(phrases)});
  }
  std::unordered_map<const Expr*, Bm25Statistics> statistics;
  if (scored.empty()) return statistics;
  for (const Scored& s : scored) statistics[s.call].hit_counts.assign(s.phrases.size(), 0);

  SourceDocument document;
  while (true) {
    COSMOS_ASSIGN_OR_RETURN(bool more, documents.Next(document));
    if (!more) break;
    ++documents_read;
    for (const Scored& s : scored) {
      Bm25Statistics& of_call = statistics[s.call];
      of_call.document_count += 1;
      const Json* text = ValueAtSteps(*document.json, s.path);
      if (text == nullptr || !text->is_string()) continue;
      const std::vector<std::string> terms = AnalyzeText(text->get_ref<const std::string&>(), s.language);
      of_call.total_words += static_cast<double>(terms.size());
      for (size_t q = 0; q < s.phrases.size(); ++q) {
        if (CountPhrase(terms, s.phrases[q]) > 0) of_call.hit_counts[q] += 1;
      }
    }
  }
  return statistics;
}

}  // namespace cosmos::query
