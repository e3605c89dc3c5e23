// Full-text search from a full-text index (engine/indexing/search_indexes.h), instead of analyzing
// every document's text at query time:
//  - the corpus: how many documents the query reads, and the length in terms of each one's text;
//  - BM25 statistics (documents, total terms, documents holding each term);
//  - the hybrid plan's statistics query (SELECT COUNT(1) AS documentCount, [{"totalWordCount":
//    SUM(_FullTextWordCount(path)), "hitCounts": [COUNTIF(FullTextContains(path, "term")), ...]},
//    ...] AS fullTextStatistics FROM c), answered from the corpus and the terms' entries;
//  - FullTextOrderSource: ORDER BY RANK FullTextScore(path, terms...), or a hybrid plan's
//    ORDER BY _FullTextScore(path, [terms], N, words, [hits]) DESC: the documents holding a term
//    scored from their entries, most relevant first, then those whose text holds none (score 0),
//    then those without a text, each group in read order: the order evaluating the score gives.
// The index serves a container of one physical partition, read whole: its entries carry no
// partition key range (and only a hash of the logical partition), so any narrower read falls back
// to the documents, as does a container whose documents expire (its entries outlive them until
// the sweep).
// Phrases of several terms count occurrences of the whole phrase, which the index does not hold:
// such queries are evaluated on the documents too.
// Thread-safety: a source belongs to one query page on one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "engine/indexing/search_indexes.h"
#include "engine/partitioning/read_order.h"
#include "engine/queries/stored_source.h"
#include "query/ast.h"
#include "query/full_text_analyzer.h"
#include "storage/store.h"

namespace cosmos::engine {

struct FullTextCorpus {
  int64_t documents = 0;                         // every document read, with a text or not
  double total_words = 0;                        // the terms of their texts
  std::unordered_map<int64_t, uint32_t> lengths;  // document seq -> terms, for each with a text
};

// The corpus of `segments`, or nullopt when the index cannot tell which documents they hold.
// REQUIRES: the container's documents do not expire.
Result<std::optional<FullTextCorpus>> ReadFullTextCorpus(storage::Transaction& txn, int64_t container_seq,
                                                         const FullTextIndexPath& index,
                                                         const std::vector<ReadSegment>& segments,
                                                         uint64_t& entries_read);

// BM25 statistics of `corpus` for `terms` (one per phrase; "" for a phrase without a term).
Result<query::Bm25Statistics> FullTextStatistics(storage::Transaction& txn, int64_t container_seq,
                                                 const FullTextIndexPath& index, const FullTextCorpus& corpus,
                                                 const std::vector<std::string>& terms, uint64_t& entries_read);

// The row of a hybrid plan's statistics query (as above) over `segments`, from the full-text
// indexes of `indexes`; nullopt when the query has another shape, names a path without a
// full-text index or a phrase of several terms, or the index cannot serve the segments.
Result<std::optional<Json>> StatisticsFromIndex(storage::Transaction& txn, int64_t container_seq,
                                                const SearchIndexes& indexes, const query::SelectQuery& query,
                                                const std::vector<ReadSegment>& segments, uint64_t& entries_read);

// The documents of `corpus` in order of their BM25 score for `terms` with `statistics`, as above,
// each with its score as ORDER BY value.
std::unique_ptr<query::DocumentSource> FullTextOrderSource(storage::Transaction& txn, int64_t container_seq,
                                                           const std::vector<ReadSegment>& segments,
                                                           const FullTextIndexPath& index, FullTextCorpus corpus,
                                                           std::vector<std::string> terms,
                                                           query::Bm25Statistics statistics,
                                                           const ReadProperties& properties, uint64_t& entries_read);

}  // namespace cosmos::engine
