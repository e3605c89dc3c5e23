#include "engine/queries/document_sources.h"

#include <algorithm>

#include "common/json_parse.h"
#include "common/json_scan.h"
#include "engine/items/time_to_live.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {
namespace {

// What every source over stored documents shares: the transaction, the container and scopes it
// reads, the properties it parses, and the clock that time to live compares with.
class StoredSource : public query::DocumentSource {
 protected:
  StoredSource(storage::Transaction& txn, int64_t container_seq, const std::vector<storage::DocumentScope>& scopes,
               const ReadProperties& properties)
      : txn_(txn), container_seq_(container_seq), scopes_(scopes), properties_(properties) {}

  // Fills `doc` from a stored document (whose key and id it takes), parsing only the properties
  // the query reads.
  Status ToSourceDocument(storage::DocumentRecord& record, query::SourceDocument& doc) const {
    Json parsed = properties_ ? ParseSelectedProperties(record.body, *properties_) : ParseJson(record.body);
    if (parsed.is_discarded()) return Status::Internal("stored document is not valid JSON: " + record.id);
    doc.json = std::make_shared<const Json>(std::move(parsed));
    doc.bytes = record.body.size();
    doc.position = Json::array({std::move(record.partition_key), std::move(record.id)});
    return Status();
  }

  const int64_t now_ = NowSeconds();
  storage::Transaction& txn_;
  const int64_t container_seq_;
  const std::vector<storage::DocumentScope>& scopes_;
  const ReadProperties& properties_;
};

// Streams the documents of scopes (a container, a physical partition, logical partitions; in key
// order, disjoint) in (partition key, id) order,
// reading a batch at a time inside the caller's read transaction.
class StoredDocumentSource : public StoredSource {
 public:
  StoredDocumentSource(storage::Transaction& txn, int64_t container_seq,
                       const std::vector<storage::DocumentScope>& scopes, std::optional<storage::DocumentPosition> start,
                       const ReadProperties& properties)
      : StoredSource(txn, container_seq, scopes, properties), next_(std::move(start)),
        include_next_(next_.has_value()) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    // Expired documents (time to live) are invisible until the sweeper removes them.
    while (index_ < batch_.size() && IsExpired(batch_[index_], now_)) ++index_;
    while (index_ == batch_.size()) {
      if (scope_index_ == scopes_.size()) return false;
      // The cursor carries over from scope to scope: keys only grow, so it filters nothing later.
      COSMOS_ASSIGN_OR_RETURN(batch_, txn_.ListDocuments(container_seq_, scopes_[scope_index_], next_, batch_size_,
                                                         include_next_));
      index_ = 0;
      if (batch_.size() < static_cast<size_t>(batch_size_)) ++scope_index_;
      batch_size_ = std::min(batch_size_ * 2, kMaxBatch);
      if (batch_.empty()) continue;
      include_next_ = false;
      next_ = storage::DocumentPosition{batch_.back().partition_key, batch_.back().id};
      while (index_ < batch_.size() && IsExpired(batch_[index_], now_)) ++index_;
    }
    COSMOS_RETURN_IF_ERROR(ToSourceDocument(batch_[index_++], doc));
    return true;
  }

 private:
  // Batches start small and double: a page that fills after a few documents reads little more
  // than those, while a long scan still reads many rows per statement.
  static constexpr int64_t kFirstBatch = 16;
  static constexpr int64_t kMaxBatch = 256;
  int64_t batch_size_ = kFirstBatch;
  size_t scope_index_ = 0;
  std::optional<storage::DocumentPosition> next_;
  bool include_next_;
  std::vector<storage::DocumentRecord> batch_;
  size_t index_ = 0;
};

// The documents an index lookup names within the scopes, in storage order (the order continuation
// tokens assume), from `start` (inclusive). The WHERE clause still runs on each: the lookup may
// name more documents than match.
class IndexedDocumentSource : public StoredSource {
 public:
  IndexedDocumentSource(storage::Transaction& txn, int64_t container_seq,
                        const std::vector<storage::DocumentScope>& scopes, const IndexLookup& lookup,
                        std::optional<storage::DocumentPosition> start, const ReadProperties& properties,
                        uint64_t& entries_read)
      : StoredSource(txn, container_seq, scopes, properties), lookup_(lookup), start_(std::move(start)),
        entries_read_(entries_read) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!looked_up_) COSMOS_RETURN_IF_ERROR(LookUp());
    while (next_ < positions_.size()) {
      const storage::DocumentPosition& position = positions_[next_++];
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocument(container_seq_, position.partition_key, position.id));
      if (!record || IsExpired(*record, now_)) continue;
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, doc));
      return true;
    }
    return false;
  }

 private:
  static bool Before(const storage::DocumentPosition& a, const storage::DocumentPosition& b) {
    return a.partition_key != b.partition_key ? a.partition_key < b.partition_key : a.id < b.id;
  }

  Status LookUp() {
    looked_up_ = true;
    for (const storage::DocumentScope& scope : scopes_) {
      for (const IndexValueRange& range : lookup_.ranges) {
        COSMOS_ASSIGN_OR_RETURN(auto found, txn_.LookupIndex(container_seq_, lookup_.path, range.lower,
                                                             range.lower_inclusive, range.upper,
                                                             range.upper_inclusive, scope));
        entries_read_ += found.size();
        for (auto& position : found) {
          if (!start_ || !Before(position, *start_)) positions_.push_back(std::move(position));
        }
      }
    }
    std::sort(positions_.begin(), positions_.end(), Before);
    positions_.erase(std::unique(positions_.begin(), positions_.end(),
                                 [](const auto& a, const auto& b) { return !Before(a, b) && !Before(b, a); }),
                     positions_.end());
    return Status();
  }

  const IndexLookup& lookup_;
  std::optional<storage::DocumentPosition> start_;
  uint64_t& entries_read_;
  bool looked_up_ = false;
  std::vector<storage::DocumentPosition> positions_;
  size_t next_ = 0;
};

// The documents of the scopes in the order of a query's ORDER BY, read from the index at its
// path (one item) or from its composite index (several), backwards when `descending`, within
// the scan's ranges.
class IndexOrderedDocumentSource : public StoredSource {
 public:
  IndexOrderedDocumentSource(storage::Transaction& txn, int64_t container_seq,
                             const std::vector<storage::DocumentScope>& scopes, const IndexLookup& scan,
                             bool descending, const ReadProperties& properties, uint64_t& entries_read)
      : StoredSource(txn, container_seq, scopes, properties), scan_(scan), descending_(descending),
        entries_read_(entries_read), range_(descending ? scan.ranges.size() : 0) {}

  bool in_order_by_order() const override { return true; }

  Result<bool> Next(query::SourceDocument& doc) override {
    while (group_next_ == group_.size()) {
      if (exhausted_) return false;
      COSMOS_RETURN_IF_ERROR(LoadGroup());
    }
    doc = std::move(group_[group_next_++]);
    return true;
  }

 private:
  static constexpr int64_t kBatch = 64;

  bool InScopes(const std::string& key) const {
    for (const storage::DocumentScope& scope : scopes_) {
      if (scope.partition_key ? key == *scope.partition_key
                              : key >= scope.min_key && (!scope.max_key || key < *scope.max_key)) {
        return true;
      }
    }
    return false;
  }

  // The documents of the next run of equal values, in document position order: rows with equal
  // sort keys must come in the order continuation tokens compare them (keys, then position).
  Status LoadGroup() {
    group_.clear();
    group_next_ = 0;
    std::optional<std::string> value;
    for (;;) {
      if (next_ == batch_.size()) {
        COSMOS_ASSIGN_OR_RETURN(bool more, Fill());
        if (!more) {
          exhausted_ = true;
          break;
        }
      }
      if (value && batch_[next_].first != *value) break;  // the next run starts here
      value = batch_[next_].first;
      int64_t seq = batch_[next_++].second;
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, seq));
      if (!record || IsExpired(*record, now_) || !InScopes(record->partition_key)) continue;
      query::SourceDocument& doc = group_.emplace_back();
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, doc));
      doc.sort_key = *value;
    }
    std::sort(group_.begin(), group_.end(), [](const query::SourceDocument& a, const query::SourceDocument& b) {
      return a.position < b.position;
    });
    return Status();
  }

  // The next batch of entries, moving to the next range when one is exhausted.
  Result<bool> Fill() {
    batch_.clear();
    next_ = 0;
    while (batch_.empty()) {
      if (descending_ ? range_ == 0 : range_ == scan_.ranges.size()) return false;
      const IndexValueRange& range = scan_.ranges[descending_ ? range_ - 1 : range_];
      COSMOS_ASSIGN_OR_RETURN(batch_, txn_.ScanIndex(container_seq_, scan_.path, range.lower, range.lower_inclusive,
                                                     range.upper, range.upper_inclusive, descending_, cursor_,
                                                     kBatch));
      entries_read_ += batch_.size();
      if (batch_.empty()) {
        cursor_.reset();
        descending_ ? --range_ : ++range_;
      } else {
        cursor_ = batch_.back();
      }
    }
    return true;
  }

  const IndexLookup& scan_;
  bool descending_;
  uint64_t& entries_read_;
  size_t range_;
  std::optional<std::pair<std::string, int64_t>> cursor_;
  std::vector<std::pair<std::string, int64_t>> batch_;
  size_t next_ = 0;
  std::vector<query::SourceDocument> group_;  // the current run of equal values
  size_t group_next_ = 0;
  bool exhausted_ = false;
};

// Metadata resources (databases, containers) held in memory for a query.
class ResourceList : public query::DocumentSource {
 public:
  ResourceList(const std::vector<std::pair<int64_t, std::string>>& bodies, int64_t start_seq)
      : bodies_(bodies) {
    while (next_ < bodies_.size() && bodies_[next_].first < start_seq) ++next_;
  }
  Result<bool> Next(query::SourceDocument& doc) override {
    if (next_ == bodies_.size()) return false;
    const auto& [seq, body] = bodies_[next_++];
    doc.json = std::make_shared<const Json>(Json::parse(body));
    doc.bytes = body.size();
    doc.position = seq;
    return true;
  }

 private:
  const std::vector<std::pair<int64_t, std::string>>& bodies_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<query::DocumentSource> ScanSource(storage::Transaction& txn, int64_t container_seq,
                                                  const std::vector<storage::DocumentScope>& scopes,
                                                  std::optional<storage::DocumentPosition> start,
                                                  const ReadProperties& properties) {
  return std::make_unique<StoredDocumentSource>(txn, container_seq, scopes, std::move(start), properties);
}

std::unique_ptr<query::DocumentSource> IndexLookupSource(storage::Transaction& txn, int64_t container_seq,
                                                         const std::vector<storage::DocumentScope>& scopes,
                                                         const IndexLookup& lookup,
                                                         std::optional<storage::DocumentPosition> start,
                                                         const ReadProperties& properties, uint64_t& entries_read) {
  return std::make_unique<IndexedDocumentSource>(txn, container_seq, scopes, lookup, std::move(start), properties,
                                                 entries_read);
}

std::unique_ptr<query::DocumentSource> IndexOrderSource(storage::Transaction& txn, int64_t container_seq,
                                                        const std::vector<storage::DocumentScope>& scopes,
                                                        const IndexLookup& scan, bool descending,
                                                        const ReadProperties& properties, uint64_t& entries_read) {
  return std::make_unique<IndexOrderedDocumentSource>(txn, container_seq, scopes, scan, descending, properties,
                                                      entries_read);
}

std::unique_ptr<query::DocumentSource> ResourceListSource(const std::vector<std::pair<int64_t, std::string>>& bodies,
                                                          int64_t start_seq) {
  return std::make_unique<ResourceList>(bodies, start_seq);
}

}  // namespace cosmos::engine
