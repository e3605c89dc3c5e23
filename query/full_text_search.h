// Full-text and hybrid search: what a query's full-text calls take from their container, and
// what ORDER BY RANK needs before its rows are scored.
//  - The language of each call's text: its path's in the container's fullTextPolicy, else the
//    policy's defaultLanguage, else en-US.
//  - ORDER BY RANK <score>: the score is FullTextScore(...), VectorDistance(...) or
//    RRF(score, score, ... [, weights]); a query that runs itself (not through an SDK's hybrid
//    plan) scores FullTextScore with BM25 statistics of all the documents it reads from (its
//    partitions), gathered before the rows, as the plan's statistics query gathers them.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "query/ast.h"
#include "query/full_text_analyzer.h"

namespace cosmos::query {

class DocumentSource;

// The language of every full-text call of `query` (FullTextContains*, FullTextScore and their
// internal forms), subqueries included.
std::unordered_map<const Expr*, TextLanguage> ResolveTextLanguages(const SelectQuery& query,
                                                                   const Json& full_text_policy);

// The scores ORDER BY RANK combines: the one score, or each argument of RRF; with RRF's weights
// when written (an array literal or a parameter), else empty. Empty when `query` has no RANK.
struct RankComponents {
  std::vector<const Expr*> scores;
  const Expr* weights = nullptr;
};
RankComponents RankComponentsOf(const SelectQuery& query);

// The ORDER BY RANK item's score expression, or null.
const Expr* RankScore(const SelectQuery& query);

// For each FullTextScore call of the query's ORDER BY RANK, the BM25 statistics of the
// documents of `documents` (every document the query may read): their number, the terms of
// the call's text summed, and how many hold each of the call's phrases.
Result<std::unordered_map<const Expr*, Bm25Statistics>> GatherFullTextStatistics(
    const SelectQuery& query, const Json& parameters, const std::unordered_map<const Expr*, TextLanguage>& languages,
    DocumentSource& documents, uint64_t& documents_read);

}  // namespace cosmos::query
