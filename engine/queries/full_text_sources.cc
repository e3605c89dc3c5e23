#include "engine/queries/full_text_sources.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "engine/partitioning/partitioning.h"
#include "engine/queries/document_sources.h"
#include "query/binder.h"
#include "query/vector_search.h"

namespace cosmos::engine {
namespace {

// Whether the segments are one physical partition that is the container's whole key range: the
// index's entries are then exactly the documents read. (A logical partition's entries are found by
// the hash of its key, which another partition may share: its corpus would count that one's too.)
bool WholeContainer(const std::vector<ReadSegment>& segments) {
  if (segments.size() != 1 || segments.front().scopes.size() != 1) return false;
  const ReadSegment& segment = segments.front();
  const storage::DocumentScope& scope = segment.scopes.front();
  if (scope.partition_key) return false;
  const bool whole_range = segment.min_key.empty() && segment.max_key == kMaxEffectivePartitionKey;
  const bool whole_scope = scope.min_key.empty() && (!scope.max_key || *scope.max_key >= kMaxEffectivePartitionKey);
  return whole_range && whole_scope;
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
                                             /*descending=*/false, std::nullopt, std::nullopt,
                                             std::numeric_limits<int64_t>::max()));
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
  if (!WholeContainer(segments)) return std::optional<FullTextCorpus>();
  FullTextCorpus corpus;
  COSMOS_ASSIGN_OR_RETURN(auto size, txn.MeasureKeyRange(container_seq, "", kMaxEffectivePartitionKey));
  corpus.documents = size.document_count;
  COSMOS_ASSIGN_OR_RETURN(std::vector<storage::IndexRow> rows,
                          txn.ScanIndex(container_seq, FullTextEntryPath(index.path), kFullTextLengthLower, true,
                                        kFullTextLengthUpper, false, /*descending=*/false, std::nullopt, std::nullopt,
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

namespace {

bool IsCall(const query::Expr& e, std::string_view name, size_t arguments) {
  return query::IsSystemCall(e, name) && e.children.size() == arguments;
}

// `{"totalWordCount": SUM(_FullTextWordCount(path)), "hitCounts": [COUNTIF(FullTextContains(path,
// "phrase")), ...]}`: its path and phrases, or nullopt.
std::optional<std::pair<std::string, std::vector<std::string>>> StatisticsEntry(const query::Expr& e,
                                                                                 std::string_view alias) {
  if (e.kind != query::ExprKind::kObjectLiteral || e.fields.size() != 2 || e.fields[0].first != "totalWordCount" ||
      e.fields[1].first != "hitCounts") {
    return std::nullopt;
  }
  const query::Expr& sum = *e.fields[0].second;
  if (!IsCall(sum, "SUM", 1) || !IsCall(*sum.children[0], "_FullTextWordCount", 1)) return std::nullopt;
  const std::string path = query::DocumentPolicyPath(*sum.children[0]->children[0], alias);
  const query::Expr& hits = *e.fields[1].second;
  if (path.empty() || hits.kind != query::ExprKind::kArrayLiteral) return std::nullopt;
  std::vector<std::string> phrases;
  for (const auto& hit : hits.children) {
    if (!IsCall(*hit, "COUNTIF", 1) || !IsCall(*hit->children[0], "FullTextContains", 2)) return std::nullopt;
    const query::Expr& contains = *hit->children[0];
    const query::Expr& phrase = *contains.children[1];
    if (query::DocumentPolicyPath(*contains.children[0], alias) != path || phrase.kind != query::ExprKind::kLiteral ||
        !phrase.literal.is_string()) {
      return std::nullopt;
    }
    phrases.push_back(phrase.literal.get<std::string>());
  }
  return std::make_pair(path, std::move(phrases));
}

}  // namespace

Result<std::optional<Json>> StatisticsFromIndex(storage::Transaction& txn, int64_t container_seq,
                                                const SearchIndexes& indexes, const query::SelectQuery& q,
                                                const std::vector<ReadSegment>& segments, uint64_t& entries_read) {
  const std::optional<Json> none;
  if (q.from.size() != 1 || q.from[0].collection->kind != query::ExprKind::kIdentifier || q.where ||
      !q.group_by.empty() || !q.order_by.empty() || q.top || q.offset || q.distinct || q.select_value ||
      q.select_star || q.items.size() != 2 || q.items[0].alias != "documentCount" ||
      q.items[1].alias != "fullTextStatistics") {
    return none;
  }
  const query::Expr& count = *q.items[0].expr;
  if (!IsCall(count, "COUNT", 1) || count.children[0]->kind != query::ExprKind::kLiteral) return none;
  const query::Expr& entries = *q.items[1].expr;
  if (entries.kind != query::ExprKind::kArrayLiteral) return none;
  // Each entry's index and one term per phrase, before anything is read.
  struct Wanted {
    const FullTextIndexPath* index;
    std::vector<std::string> terms;
  };
  std::vector<Wanted> wanted;
  for (const auto& entry : entries.children) {
    auto parsed = StatisticsEntry(*entry, q.from[0].alias);
    if (!parsed) return none;
    const FullTextIndexPath* index = indexes.FullTextIndexOn(parsed->first);
    if (index == nullptr) return none;
    Wanted of_entry{index, {}};
    for (const std::string& phrase : parsed->second) {
      std::vector<std::string> terms = query::AnalyzeText(phrase, index->language);
      if (terms.size() > 1) return none;
      of_entry.terms.push_back(terms.empty() ? std::string() : terms.front());
    }
    wanted.push_back(std::move(of_entry));
  }
  if (wanted.empty()) return none;  // a count alone is an ordinary query
  Json row = {{"documentCount", 0}, {"fullTextStatistics", Json::array()}};
  std::optional<int64_t> documents;
  for (const Wanted& of_entry : wanted) {
    COSMOS_ASSIGN_OR_RETURN(std::optional<FullTextCorpus> corpus,
                            ReadFullTextCorpus(txn, container_seq, *of_entry.index, segments, entries_read));
    if (!corpus) return none;
    documents = corpus->documents;
    COSMOS_ASSIGN_OR_RETURN(query::Bm25Statistics statistics,
                            FullTextStatistics(txn, container_seq, *of_entry.index, *corpus, of_entry.terms,
                                               entries_read));
    Json hit_counts = Json::array();
    for (double hits : statistics.hit_counts) hit_counts.push_back(static_cast<int64_t>(hits));
    row["fullTextStatistics"].push_back(
        {{"totalWordCount", static_cast<int64_t>(statistics.total_words)}, {"hitCounts", std::move(hit_counts)}});
  }
  row["documentCount"] = documents.value_or(0);
  return std::optional<Json>(std::move(row));
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
