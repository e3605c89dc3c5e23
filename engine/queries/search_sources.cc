#include "engine/queries/search_sources.h"

#include <algorithm>
#include <cstring>

#include "query/functions/vector_kernel.h"
#include "query/vector_search.h"

namespace cosmos::engine {
namespace {

class VectorOrdered : public StoredSource {
 public:
  VectorOrdered(storage::Transaction& txn, int64_t container_seq, const std::vector<ReadSegment>& segments,
                const VectorIndexPath& index, std::vector<float> query, query::VectorMetric metric,
                const ReadProperties& properties, uint64_t& entries_read)
      : StoredSource(txn, container_seq, properties), segments_(segments), index_(index), query_(std::move(query)),
        metric_(metric), descending_(query::MostSimilarFirstDescends(metric)), entries_read_(entries_read) {}

  bool in_order_by_order() const override { return true; }

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!scored_) COSMOS_RETURN_IF_ERROR(Score());
    while (next_ < candidates_.size()) {
      if (next_ == ordered_) OrderMore();
      const Candidate candidate = candidates_[next_++];
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, candidate.seq));
      if (!record || IsExpired(*record, now_)) continue;
      const ReadSegment* segment = SegmentHolding(record->partition_key);
      if (segment == nullptr) continue;
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, segment->min_key, segment->max_key, doc));
      doc.sort_key = SortKeyOf(candidate.score, candidate.seq);
      doc.order_keys.assign(1, query::Value::Number(candidate.score));
      return true;
    }
    return false;
  }

 private:
  struct Candidate {
    double score;
    int64_t seq;
  };
  // Documents ordered ahead of need: the first few, then four times as many each time.
  static constexpr size_t kFirstOrdered = 32;

  const ReadSegment* SegmentHolding(const std::string& partition_key) const {
    for (const ReadSegment& segment : segments_) {
      if (segment.Holds(partition_key)) return &segment;
    }
    return nullptr;
  }

  // The one logical partition the segments hold, if that is what they hold: its entries alone.
  std::optional<std::string> OneLogicalPartition() const {
    if (segments_.size() != 1 || segments_.front().scopes.size() != 1) return std::nullopt;
    return segments_.front().scopes.front().partition_key;
  }

  Status Score() {
    scored_ = true;
    const size_t bytes = index_.dimensions * sizeof(float);
    if (query_.size() != index_.dimensions) return Status();
    // Scoring an embedding reads as many entries as it has 64-dimension blocks (request_charge.h
    // prices entries): a vector search costs with the vectors it scores and their dimensions.
    uint64_t visited = 0;
    Status read = txn_.VisitIndexEntries(
        container_seq_, VectorEntryPath(index_.path), OneLogicalPartition(), visited,
        [&](const storage::IndexRow& row) {
          if (row.value.size() != bytes) return;
          // The entry's bytes are the floats the index packed (search_indexes.cc), suitably
          // aligned by the allocator.
          std::optional<double> score = query::PackedVectorScore(reinterpret_cast<const float*>(row.value.data()),
                                                                 query_.data(), query_.size(), metric_);
          if (score) candidates_.push_back({*score, row.document_seq});
        });
    entries_read_ += visited * ((index_.dimensions + 63) / 64);
    return read;
  }

  // Most similar first, then in read (seq) order.
  bool Before(const Candidate& a, const Candidate& b) const {
    if (a.score != b.score) return descending_ ? a.score > b.score : a.score < b.score;
    return a.seq < b.seq;
  }

  // Orders the next stretch of candidates (partial selection: a TOP k page orders a few of them).
  void OrderMore() {
    const size_t want = ordered_ == 0 ? kFirstOrdered : ordered_ * 4;
    const auto begin = candidates_.begin() + static_cast<std::ptrdiff_t>(ordered_);
    const auto end = candidates_.begin() + static_cast<std::ptrdiff_t>(std::min(want, candidates_.size()));
    auto before = [this](const Candidate& a, const Candidate& b) { return Before(a, b); };
    std::nth_element(begin, end, candidates_.end(), before);
    std::sort(begin, end, before);
    ordered_ = static_cast<size_t>(end - candidates_.begin());
  }

  const std::vector<ReadSegment>& segments_;
  const VectorIndexPath& index_;
  const std::vector<float> query_;
  const query::VectorMetric metric_;
  const bool descending_;
  uint64_t& entries_read_;
  bool scored_ = false;
  std::vector<Candidate> candidates_;
  size_t ordered_ = 0;  // candidates_[0, ordered_) are in order, and precede the rest
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<query::DocumentSource> VectorOrderSource(storage::Transaction& txn, int64_t container_seq,
                                                         const std::vector<ReadSegment>& segments,
                                                         const VectorIndexPath& index, std::vector<float> query,
                                                         query::VectorMetric metric, const ReadProperties& properties,
                                                         uint64_t& entries_read) {
  return std::make_unique<VectorOrdered>(txn, container_seq, segments, index, std::move(query), metric, properties,
                                         entries_read);
}

}  // namespace cosmos::engine
