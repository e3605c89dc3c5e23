#include "engine/queries/full_text_sources.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "engine/partitioning/partitioning.h"
#include "engine/queries/document_sources.h"

namespace cosmos::engine {
namespace {

// The one logical partition the segments hold, or "" when they hold one physical partition that
// is the container's whole key range; nullopt otherwise (the index cannot tell).
std::optional<std::optional<std::string>> IndexScope(const std::vector<ReadSegment>& segments) {
  if (segments.size() != 1 || segments.front().scopes.size() != 1) return std::nullopt;
  const ReadSegment& segment = segments.front();
  const storage::DocumentScope& scope = segment.scopes.front();
  if (scope.partition_key) return std::optional<std::string>(*scope.partition_key);
  const bool whole_range = segment.min_key.empty() && segment.max_key == kMaxEffectivePartitionKey;
  const bool whole_scope = scope.min_key.empty() && (!scope.max_key || *scope.max_key >= kMaxEffectivePartitionKey);
  if (whole_range && whole_scope) return std::optional<std::string>();
  return std::nullopt;
}

class FullTextOrdered : public StoredSource {
 public:
  FullTextOrdered(storage::Transaction& txn, int64_t container_seq, const std::vector<ReadSegment>& segments,
                  const FullTextIndexPath& index, FullTextCorpus corpus, std::vector<std::string> terms,
                  query::Bm25Statistics statistics, const ReadProperties& properties, uint64_t& entries_read)
      : StoredSource(txn, container_seq, properties), segments_(segments), index_(index), corpus_(std::move(corpus)),
        terms_(std::move(terms)), statistics_(std::move(statistics)), properties_(properties),
        entries_read_(entries_read) {}

  bool in_order_by_order() const override { return true; }

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!scored_) COSMOS_RETURN_IF_ERROR(Score());
    // The documents with a text: scored ones first (their order), then the rest (score 0).
    while (next_ < ranked_.size()) {
      const Ranked ranked = ranked_[next_++];
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, ranked.seq));
      if (!record || IsExpired(*record, now_)) continue;
      const ReadSegment& segment = segments_.front();
      if (!segment.Holds(record->partition_key)) continue;  // a logical partition's hash twin
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, segment.min_key, segment.max_key, doc));
      doc.sort_key = SortKeyOf(ranked.score, ranked.seq);
      doc.order_keys.assign(1, query::Value::Number(ranked.score));
      return true;
    }
    // Then those without a text (no score), in read order.
    if (!without_text_) {
      without_text_ = ScanSource(txn_, container_seq_, segments_, std::nullopt, properties_, entries_read_);
    }
    for (;;) {
      COSMOS_ASSIGN_OR_RETURN(bool more, without_text_->Next(doc));
      if (!more) return false;
      std::optional<ReadPosition> position = ReadPosition::FromJson(doc.position);
      if (position && corpus_.lengths.contains(position->seq)) continue;
      doc.sort_key = position ? SortKeyOf(0, position->seq) : std::string();
      doc.sort_key.insert(0, "-");  // apart from every score's bytes
      doc.order_keys.assign(1, query::Value());
      return true;
    }
  }

 private:
  struct Ranked {
    double score;
    int64_t seq;
  };

  Status Score() {
    scored_ = true;
    // Each term's occurrences per document, from its entries.
    std::unordered_map<int64_t, std::vector<double>> frequencies;
    const std::string entry_path = FullTextEntryPath(index_.path);
    for (size_t q = 0; q < terms_.size(); ++q) {
      if (terms_[q].empty()) continue;
      const FullTextTermRange bounds = FullTextTermBounds(terms_[q]);
      COSMOS_ASSIGN_OR_RETURN(std::vector<storage::IndexRow> rows,
                              txn_.ScanIndex(container_seq_, entry_path, bounds.lower, true, bounds.upper, false,
                                             /*descending=*/false, segments_.front().scopes.front().partition_key,
                                             std::nullopt, std::numeric_limits<int64_t>::max()));
      entries_read_ += rows.size();
      for (const storage::IndexRow& row : rows) {
        if (!corpus_.lengths.contains(row.document_seq)) continue;
        std::vector<double>& of_document = frequencies[row.document_seq];
        of_document.resize(terms_.size(), 0.0);
        of_document[q] = FullTextEntryCount(row.value).value_or(0);
      }
    }
    ranked_.reserve(corpus_.lengths.size());
    for (auto& [seq, counts] : frequencies) {
      ranked_.push_back({query::Bm25FromCounts(counts, corpus_.lengths.at(seq), statistics_), seq});
    }
    std::sort(ranked_.begin(), ranked_.end(), [](const Ranked& a, const Ranked& b) {
      return a.score != b.score ? a.score > b.score : a.seq < b.seq;
    });
    // The texts that hold no term score 0 (after every positive score), in read order.
    const size_t scored = ranked_.size();
    for (const auto& [seq, length] : corpus_.lengths) {
      if (!frequencies.contains(seq)) ranked_.push_back({0.0, seq});
    }
    std::sort(ranked_.begin() + static_cast<std::ptrdiff_t>(scored), ranked_.end(),
              [](const Ranked& a, const Ranked& b) { return a.seq < b.seq; });
    return Status();
  }

  const std::vector<ReadSegment>& segments_;
  const FullTextIndexPath& index_;
  const FullTextCorpus corpus_;
  const std::vector<std::string> terms_;
  const query::Bm25Statistics statistics_;
  const ReadProperties& properties_;
  uint64_t& entries_read_;
  bool scored_ = false;
  std::vector<Ranked> ranked_;
  size_t next_ = 0;
  std::unique_ptr<query::DocumentSource> without_text_;
};

}  // namespace

Result<std::optional<FullTextCorpus>> ReadFullTextCorpus(storage::Transaction& txn, int64_t container_seq,
                                                         const FullTextIndexPath& index,
                                                         const std::vector<ReadSegment>& segments,
                                                         uint64_t& entries_read) {
  std::optional<std::optional<std::string>> scope = IndexScope(segments);
  if (!scope) return std::optional<FullTextCorpus>();
  FullTextCorpus corpus;
  if (*scope) {
    COSMOS_ASSIGN_OR_RETURN(auto size, txn.GetLogicalPartitionSize(container_seq, **scope));
    corpus.documents = size.document_count;
  } else {
    COSMOS_ASSIGN_OR_RETURN(auto size, txn.MeasureKeyRange(container_seq, "", kMaxEffectivePartitionKey));
    corpus.documents = size.document_count;
  }
  COSMOS_ASSIGN_OR_RETURN(std::vector<storage::IndexRow> rows,
                          txn.ScanIndex(container_seq, FullTextEntryPath(index.path), kFullTextLengthLower, true,
                                        kFullTextLengthUpper, false, /*descending=*/false, *scope, std::nullopt,
                                        std::numeric_limits<int64_t>::max()));
  entries_read += rows.size();
  corpus.lengths.reserve(rows.size());
  for (const storage::IndexRow& row : rows) {
    const uint32_t length = FullTextEntryCount(row.value).value_or(0);
    corpus.lengths[row.document_seq] = length;
    corpus.total_words += length;
  }
  return std::optional<FullTextCorpus>(std::move(corpus));
}

Result<query::Bm25Statistics> FullTextStatistics(storage::Transaction& txn, int64_t container_seq,
                                                 const FullTextIndexPath& index, const FullTextCorpus& corpus,
                                                 const std::vector<std::string>& terms, uint64_t& entries_read) {
  query::Bm25Statistics statistics;
  statistics.document_count = static_cast<double>(corpus.documents);
  statistics.total_words = corpus.total_words;
  for (const std::string& term : terms) {
    double hits = 0;
    if (!term.empty()) {
      const FullTextTermRange bounds = FullTextTermBounds(term);
      COSMOS_ASSIGN_OR_RETURN(std::vector<storage::IndexRow> rows,
                              txn.ScanIndex(container_seq, FullTextEntryPath(index.path), bounds.lower, true,
                                            bounds.upper, false, false, std::nullopt, std::nullopt,
                                            std::numeric_limits<int64_t>::max()));
      entries_read += rows.size();
      for (const storage::IndexRow& row : rows) hits += corpus.lengths.contains(row.document_seq) ? 1 : 0;
    }
    statistics.hit_counts.push_back(hits);
  }
  return statistics;
}

std::unique_ptr<query::DocumentSource> FullTextOrderSource(storage::Transaction& txn, int64_t container_seq,
                                                           const std::vector<ReadSegment>& segments,
                                                           const FullTextIndexPath& index, FullTextCorpus corpus,
                                                           std::vector<std::string> terms,
                                                           query::Bm25Statistics statistics,
                                                           const ReadProperties& properties, uint64_t& entries_read) {
  return std::make_unique<FullTextOrdered>(txn, container_seq, segments, index, std::move(corpus), std::move(terms),
                                           std::move(statistics), properties, entries_read);
}

}  // namespace cosmos::engine
