#include "engine/queries/search_sources.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <queue>
#include <unordered_set>

#include "query/functions/vector_kernel.h"
#include "query/vector_search.h"

namespace cosmos::engine {
namespace {

// Scores are found in two steps. Every entry's quantized copy bounds its score (one byte a
// dimension: a quarter of the floats' memory traffic); the entries whose bound could reach the
// best scores are scored exactly from their floats, as VectorDistance scores the documents: during
// that visit those that may be among the first few, later (another visit) a stretch at a time
// as far as the query reads. A document is handed out once its exact score beats every bound not
// yet scored, so the order is exact.
class VectorOrdered : public StoredSource {
 public:
  VectorOrdered(storage::Transaction& txn, int64_t container_seq, const std::vector<ReadSegment>& segments,
                const VectorIndexPath& index, std::vector<float> query, query::VectorMetric metric,
                const ReadProperties& properties, uint64_t& entries_read)
      : StoredSource(txn, container_seq, properties), segments_(segments), index_(index), query_(std::move(query)),
        metric_(metric), descending_(query::MostSimilarFirstDescends(metric)), entries_read_(entries_read) {}

  bool in_order_by_order() const override { return true; }

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!bounded_) COSMOS_RETURN_IF_ERROR(Bound());
    for (;;) {
      while (!pending_.empty() && (exact_.empty() || !(exact_.top().relevance > next_upper_))) {
        COSMOS_RETURN_IF_ERROR(ScoreMore());
      }
      if (exact_.empty()) return false;
      const Exact best = exact_.top();
      exact_.pop();
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, best.seq));
      if (!record || IsExpired(*record, now_)) continue;
      const ReadSegment* segment = SegmentHolding(segments_, record->partition_key);
      if (segment == nullptr) continue;
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, segment->min_key, segment->max_key, doc));
      doc.sort_key = SortKeyOf(best.score, best.seq);
      doc.order_keys.assign(1, query::Value::Number(best.score));
      return true;
    }
  }

 private:
  struct Bounded {
    double upper;  // of the relevance: the score, negated for euclidean (larger is more similar)
    int64_t seq;
  };
  struct Exact {
    double relevance;
    double score;
    int64_t seq;
  };
  // Puts the more relevant on top of the heap, then the earlier in read order.
  struct LessRelevant {
    bool operator()(const Exact& a, const Exact& b) const {
      return a.relevance != b.relevance ? a.relevance < b.relevance : a.seq > b.seq;
    }
  };
  static constexpr size_t kFirstScored = 32;

  // The upper bound of every entry's relevance, from its codes.
  Status Bound() {
    bounded_ = true;
    const size_t n = index_.dimensions;
    if (query_.size() != n) return Status();
    double l1 = 0;
    for (float x : query_) l1 += std::fabs(static_cast<double>(x));
    const double query_norm_sq = query::PackedDot(query_.data(), query_.data(), n);
    query_norm_ = std::sqrt(query_norm_sq);
    if (metric_ == query::VectorMetric::kCosine && query_norm_sq == 0) return Status();  // no direction
    // |codes · query × scale − the score's dot product| ≤ scale × l1 × (1/2 for the codes'
    // rounding, + float rounding of either sum: n/16 + 18 roundings of 2^-24 each, on products of
    // at most 127 × scale × |q_i|), with room to spare.
    const double rounding = (static_cast<double>(n) / 16 + 18) * 0x1p-24;
    const double error_per_scale = l1 * (0.5 + 2 * 127 * rounding) * (1 + 1e-6);
    uint64_t visited = 0, scored_in_full = 0;
    Status read = txn_.VisitIndexEntries(
        container_seq_, VectorEntryPath(index_.path), OneLogicalPartition(segments_), 2 * sizeof(float) + n, visited,
        [&](const storage::IndexRow& row) {
          std::optional<PackedVectorView> view = ViewPackedVector(row.value, n);
          if (!view) return;
          const double estimate = static_cast<double>(view->scale) * query::QuantizedDot(view->codes, query_.data(), n);
          const double error = static_cast<double>(view->scale) * error_per_scale;
          double upper = estimate + error;
          switch (metric_) {
            case query::VectorMetric::kDotProduct:
              break;
            case query::VectorMetric::kCosine:
              if (view->norm_sq == 0) return;  // no direction, no score
              upper /= std::sqrt(static_cast<double>(view->norm_sq)) * query_norm_;
              break;
            case query::VectorMetric::kEuclidean: {
              // The squared distance is |d|² + |q|² - 2 d·q, within float rounding of either sum.
              const double norms = static_cast<double>(view->norm_sq) + query_norm_sq;
              const double slack = 1e-4 * (norms + 2 * std::fabs(estimate) + 2 * error);
              upper = -std::sqrt(std::max(0.0, norms - 2 * (estimate + error) - slack));
              break;
            }
          }
          // Scored at once while it may be among the best kFirstScored (a threshold that rises as
          // the visit goes), so that a TOP k page needs no second visit.
          if (best_.size() < kFirstScored || upper > best_.top()) {
            std::optional<double> score = query::PackedVectorScore(view->values, query_.data(), n, metric_);
            ++scored_in_full;
            if (!score) return;
            const double relevance = descending_ ? *score : -*score;
            exact_.push({relevance, *score, row.document_seq});
            best_.push(relevance);
            if (best_.size() > kFirstScored) best_.pop();
            return;
          }
          // A scale too small for float's normal numbers holds no usable codes: no bound.
          if (!std::isfinite(upper) || (view->scale < std::numeric_limits<float>::min() && view->norm_sq != 0)) {
            upper = std::numeric_limits<double>::infinity();
          }
          pending_.push_back({upper, row.document_seq});
        });
    entries_read_ += visited + scored_in_full * ((n + 63) / 64);
    next_upper_ = -std::numeric_limits<double>::infinity();
    for (const Bounded& entry : pending_) next_upper_ = std::max(next_upper_, entry.upper);
    return read;
  }

  // Scores exactly the next stretch of entries with the highest bounds.
  Status ScoreMore() {
    const size_t take = std::min(pending_.size(), scored_stretch_);
    scored_stretch_ *= 4;
    auto higher = [](const Bounded& a, const Bounded& b) { return a.upper > b.upper; };
    if (take < pending_.size()) {
      std::nth_element(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(take), pending_.end(), higher);
    }
    std::unordered_set<int64_t> scoring;
    for (size_t i = 0; i < take; ++i) scoring.insert(pending_[i].seq);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(take));
    next_upper_ = -std::numeric_limits<double>::infinity();
    for (const Bounded& entry : pending_) next_upper_ = std::max(next_upper_, entry.upper);

    const size_t n = index_.dimensions;
    uint64_t walked = 0;  // the entries passed over: their bounds were paid for
    Status read = txn_.VisitIndexEntries(
        container_seq_, VectorEntryPath(index_.path), OneLogicalPartition(segments_), /*prefetch_bytes=*/0, walked,
        [&](const storage::IndexRow& row) {
          if (!scoring.contains(row.document_seq)) return;
          std::optional<PackedVectorView> view = ViewPackedVector(row.value, n);
          if (!view) return;
          std::optional<double> score = query::PackedVectorScore(view->values, query_.data(), n, metric_);
          if (!score) return;
          exact_.push({descending_ ? *score : -*score, *score, row.document_seq});
        });
    // Scoring an embedding in full reads as many entries as it has 64-dimension blocks.
    entries_read_ += take * ((n + 63) / 64);
    return read;
  }

  const std::vector<ReadSegment>& segments_;
  const VectorIndexPath& index_;
  const std::vector<float> query_;
  const query::VectorMetric metric_;
  const bool descending_;
  uint64_t& entries_read_;
  double query_norm_ = 0;
  bool bounded_ = false;
  std::vector<Bounded> pending_;  // bounded, not scored yet
  double next_upper_ = 0;         // the highest bound among them
  size_t scored_stretch_ = kFirstScored;
  std::priority_queue<Exact, std::vector<Exact>, LessRelevant> exact_;  // scored, not handed out yet
  // While bounding: the relevances of the best kFirstScored scored so far, the least on top.
  std::priority_queue<double, std::vector<double>, std::greater<double>> best_;
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
