#include "engine/queries/document_sources.h"

#include <algorithm>

#include "common/encoding.h"
#include "common/json_parse.h"
#include "common/json_scan.h"
#include "engine/items/time_to_live.h"
#include "engine/queries/stored_source.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {
namespace {

// The documents of `scope` from `from_seq` on that `lookup` names, in seq order, each once.
Result<std::vector<int64_t>> NamedDocuments(storage::Transaction& txn, int64_t container_seq, const IndexLookup& lookup,
                                            const storage::DocumentScope& scope, int64_t from_seq,
                                            uint64_t& entries_read) {
  std::vector<int64_t> named;
  for (const IndexValueRange& range : lookup.ranges) {
    COSMOS_ASSIGN_OR_RETURN(auto seqs, txn.LookupIndex(container_seq, lookup.path, range.lower, range.lower_inclusive,
                                                       range.upper, range.upper_inclusive, scope, entries_read));
    for (int64_t seq : seqs) {
      if (seq >= from_seq) named.push_back(seq);
    }
  }
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  return named;
}

// Streams the documents of the segments in read order, reading a batch at a time inside the
// caller's read transaction. A segment with several scopes (logical partitions a filter pinned)
// merges their documents by seq.
class StoredDocumentSource : public StoredSource {
 public:
  StoredDocumentSource(storage::Transaction& txn, int64_t container_seq, const std::vector<ReadSegment>& segments,
                       std::optional<ReadPosition> start, const ReadProperties& properties, uint64_t& entries_read)
      : StoredSource(txn, container_seq, properties), reads_(SegmentsToRead(segments, start)),
        entries_read_(entries_read) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    for (;;) {
      if (cursors_.empty() && !OpenNextSegment()) return false;
      ScopeCursor* first = nullptr;
      for (ScopeCursor& cursor : cursors_) {
        COSMOS_ASSIGN_OR_RETURN(bool has_next, Fill(cursor));
        if (has_next && (first == nullptr || cursor.Head().seq < first->Head().seq)) first = &cursor;
      }
      if (first == nullptr) {  // the segment is read
        cursors_.clear();
        continue;
      }
      storage::DocumentRecord& record = first->batch[first->next++];
      // Expired documents (time to live) are invisible until the sweeper removes them.
      if (IsExpired(record, now_)) continue;
      const ReadSegment& segment = reads_[read_index_ - 1].segment;
      if (index_only_) {
        ++entries_read_;
        doc.json = EmptyDocument();
        doc.bytes = 0;
        doc.position = ReadPosition{record.seq, segment.min_key, segment.max_key}.ToJson();
        doc.index_only = true;
        return true;
      }
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(record, segment.min_key, segment.max_key, doc));
      return true;
    }
  }

 private:
  // One scope of the segment being read: the batch in hand and where the next one starts.
  struct ScopeCursor {
    const storage::DocumentScope* scope = nullptr;
    int64_t from_seq = 0;
    // Batches start small and double: a page that fills after a few documents reads little
    // more than those, while a long scan still reads many rows per statement.
    int64_t batch_size = kFirstBatch;
    std::vector<storage::DocumentRecord> batch;
    size_t next = 0;
    bool exhausted = false;

    const storage::DocumentRecord& Head() const { return batch[next]; }
  };
  static constexpr int64_t kFirstBatch = 16;
  static constexpr int64_t kMaxBatch = 256;

  // Moves to the next segment; false after the last.
  bool OpenNextSegment() {
    if (read_index_ == reads_.size()) return false;
    const SegmentRead& read = reads_[read_index_++];
    for (const storage::DocumentScope& scope : read.segment.scopes) {
      ScopeCursor& cursor = cursors_.emplace_back();
      cursor.scope = &scope;
      cursor.from_seq = read.from_seq;
    }
    return true;
  }

  // Whether the cursor has a document in hand, reading its next batch when it needs one.
  Result<bool> Fill(ScopeCursor& cursor) {
    if (cursor.next < cursor.batch.size()) return true;
    if (cursor.exhausted) return false;
    COSMOS_ASSIGN_OR_RETURN(cursor.batch, txn_.ListDocuments(container_seq_, *cursor.scope, cursor.from_seq,
                                                             cursor.batch_size, /*bodies=*/!index_only_));
    cursor.next = 0;
    cursor.exhausted = cursor.batch.size() < static_cast<size_t>(cursor.batch_size);
    cursor.batch_size = std::min(cursor.batch_size * 2, kMaxBatch);
    if (cursor.batch.empty()) return false;
    cursor.from_seq = cursor.batch.back().seq + 1;
    return true;
  }

  const std::vector<SegmentRead> reads_;
  uint64_t& entries_read_;
  const bool index_only_ = properties_ && properties_->empty();  // the query reads nothing of a document
  size_t read_index_ = 0;             // the next segment to open
  std::vector<ScopeCursor> cursors_;  // the open segment's scopes; empty between segments
};

// The documents every lookup names within the segments, in read order, from `start`
// (inclusive). The WHERE clause still runs on each: the lookups may name more documents than
// match.
class IndexedDocumentSource : public StoredSource {
 public:
  IndexedDocumentSource(storage::Transaction& txn, int64_t container_seq, const std::vector<ReadSegment>& segments,
                        const std::vector<IndexLookup>& lookups, std::optional<ReadPosition> start,
                        const ReadProperties& properties, uint64_t& entries_read, bool index_only)
      : StoredSource(txn, container_seq, properties), lookups_(lookups), reads_(SegmentsToRead(segments, start)),
        entries_read_(entries_read), index_only_(index_only) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!looked_up_) COSMOS_RETURN_IF_ERROR(LookUp());
    while (next_ < found_.size()) {
      const auto& [read, seq] = found_[next_++];
      if (index_only_) {
        const ReadSegment& segment = reads_[read].segment;
        doc.json = EmptyDocument();
        doc.bytes = 0;
        doc.position = ReadPosition{seq, segment.min_key, segment.max_key}.ToJson();
        doc.index_only = true;
        doc.satisfies_where = true;
        return true;
      }
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, seq));
      if (!record || IsExpired(*record, now_)) continue;
      const ReadSegment& segment = reads_[read].segment;
      // A logical partition's entries are found by the hash of its key: a document of another
      // partition with the same hash is not one of its documents.
      if (!segment.Holds(record->partition_key)) continue;
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, segment.min_key, segment.max_key, doc));
      return true;
    }
    return false;
  }

 private:
  Status LookUp() {
    looked_up_ = true;
    for (size_t read = 0; read < reads_.size(); ++read) {
      size_t first = found_.size();
      for (const storage::DocumentScope& scope : reads_[read].segment.scopes) {
        std::vector<int64_t> named;  // in seq order
        for (size_t i = 0; i < lookups_.size(); ++i) {
          COSMOS_ASSIGN_OR_RETURN(std::vector<int64_t> seqs, Named(lookups_[i], scope, reads_[read].from_seq));
          if (i == 0) {
            named = std::move(seqs);
          } else {
            std::vector<int64_t> both;
            std::set_intersection(named.begin(), named.end(), seqs.begin(), seqs.end(), std::back_inserter(both));
            named = std::move(both);
          }
          if (named.empty()) break;
        }
        for (int64_t seq : named) found_.emplace_back(read, seq);
      }
      // Several scopes: merge them into seq order.
      std::sort(found_.begin() + static_cast<std::ptrdiff_t>(first), found_.end());
    }
    return Status();
  }

  Result<std::vector<int64_t>> Named(const IndexLookup& lookup, const storage::DocumentScope& scope, int64_t from_seq) {
    return NamedDocuments(txn_, container_seq_, lookup, scope, from_seq, entries_read_);
  }

  const std::vector<IndexLookup>& lookups_;
  const std::vector<SegmentRead> reads_;
  uint64_t& entries_read_;
  const bool index_only_;
  bool looked_up_ = false;
  std::vector<std::pair<size_t, int64_t>> found_;  // (index in reads_, seq), in read order
  size_t next_ = 0;
};

// The values at a few paths, from their index entries, of the documents the lookups name.
class IndexValuesDocumentSource : public StoredSource {
 public:
  IndexValuesDocumentSource(storage::Transaction& txn, int64_t container_seq, const std::vector<ReadSegment>& segments,
                            const std::vector<IndexLookup>& values, const std::vector<IndexLookup>& lookups,
                            const ReadProperties& properties, uint64_t& entries_read)
      : StoredSource(txn, container_seq, properties), values_(values), lookups_(lookups),
        reads_(SegmentsToRead(segments, std::nullopt)), entries_read_(entries_read) {
    for (const IndexLookup& value : values_) steps_.push_back(StepsOf(value.path));
  }

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!read_) COSMOS_RETURN_IF_ERROR(Read());
    while (next_ < found_.size()) {
      Found& found = found_[next_++];
      const ReadSegment& segment = reads_[found.read].segment;
      doc.sort_key.clear();
      doc.satisfies_where = true;  // the lookups (and the values' ranges) are the whole filter
      if (std::optional<Json> made = Made(found.values)) {
        doc.json = std::make_shared<const Json>(std::move(*made));
        doc.bytes = 0;
        doc.position = ReadPosition{found.seq, segment.min_key, segment.max_key}.ToJson();
        doc.index_only = true;
        return true;
      }
      // A string an entry may hold only the start of: the document has the rest.
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, found.seq));
      if (!record || IsExpired(*record, now_) || !segment.Holds(record->partition_key)) continue;
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, segment.min_key, segment.max_key, doc));
      doc.index_only = false;
      return true;
    }
    return false;
  }

 private:
  struct Found {
    size_t read;  // index in reads_
    int64_t seq;
    std::vector<std::string> values;  // an entry's value for each of values_
  };

  static std::vector<std::string> StepsOf(const std::string& path) {
    std::vector<std::string> steps;
    for (size_t start = 1; start <= path.size();) {
      size_t slash = path.find('/', start);
      if (slash == std::string::npos) slash = path.size();
      steps.push_back(path.substr(start, slash - start));
      start = slash + 1;
    }
    return steps;
  }

  // {"a": {"b": 1}, "c": 2} for the paths /a/b and /c; nullopt when an entry may be a cut string.
  // No path is inside another (query::PathsRead).
  std::optional<Json> Made(const std::vector<std::string>& encoded) const {
    Json made = Json::object();
    for (size_t i = 0; i < encoded.size(); ++i) {
      std::optional<Json> value = DecodeIndexValue(encoded[i]);
      if (!value) return std::nullopt;
      Json* node = &made;
      const std::vector<std::string>& steps = steps_[i];
      for (size_t step = 0; step + 1 < steps.size(); ++step) {
        Json& next = (*node)[steps[step]];
        if (!next.is_object()) next = Json::object();
        node = &next;
      }
      (*node)[steps.back()] = std::move(*value);
    }
    return made;
  }

  // (seq, value) of the entries of `value` within its ranges in `scope`, in seq order.
  Result<std::vector<std::pair<int64_t, std::string>>> ValuesIn(const IndexLookup& value,
                                                                const storage::DocumentScope& scope) {
    std::vector<std::pair<int64_t, std::string>> values;
    for (const IndexValueRange& range : value.ranges) {
      COSMOS_ASSIGN_OR_RETURN(auto in_range, txn_.LookupIndexValues(container_seq_, value.path, range.lower,
                                                                    range.lower_inclusive, range.upper,
                                                                    range.upper_inclusive, scope, entries_read_));
      values.insert(values.end(), std::make_move_iterator(in_range.begin()), std::make_move_iterator(in_range.end()));
    }
    if (value.ranges.size() > 1) {
      std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    return values;
  }

  Status Read() {
    read_ = true;
    for (size_t read = 0; read < reads_.size(); ++read) {
      size_t first = found_.size();
      for (const storage::DocumentScope& scope : reads_[read].segment.scopes) {
        // The first path's values, then each other path's joined to them by document.
        COSMOS_ASSIGN_OR_RETURN(auto leading, ValuesIn(values_.front(), scope));
        std::vector<Found> joined;
        joined.reserve(leading.size());
        for (auto& [seq, value] : leading) joined.push_back({read, seq, {std::move(value)}});
        for (size_t i = 1; i < values_.size() && !joined.empty(); ++i) {
          COSMOS_ASSIGN_OR_RETURN(auto more, ValuesIn(values_[i], scope));
          size_t kept = 0;
          auto other = more.begin();
          for (size_t at = 0; at < joined.size(); ++at) {
            while (other != more.end() && other->first < joined[at].seq) ++other;
            if (other == more.end() || other->first != joined[at].seq) continue;
            joined[at].values.push_back(std::move(other->second));
            if (kept != at) joined[kept] = std::move(joined[at]);
            ++kept;
          }
          joined.resize(kept);
        }
        // Only the documents every lookup names.
        for (const IndexLookup& lookup : lookups_) {
          if (joined.empty()) break;
          COSMOS_ASSIGN_OR_RETURN(std::vector<int64_t> named,
                                  NamedDocuments(txn_, container_seq_, lookup, scope, 0, entries_read_));
          std::erase_if(joined, [&](const Found& found) { return !std::binary_search(named.begin(), named.end(), found.seq); });
        }
        found_.insert(found_.end(), std::make_move_iterator(joined.begin()), std::make_move_iterator(joined.end()));
      }
      // Several scopes: merge them into seq order.
      std::sort(found_.begin() + static_cast<std::ptrdiff_t>(first), found_.end(),
                [](const Found& a, const Found& b) { return a.seq < b.seq; });
    }
    return Status();
  }

  const std::vector<IndexLookup>& values_;
  const std::vector<IndexLookup>& lookups_;
  const std::vector<SegmentRead> reads_;
  uint64_t& entries_read_;
  std::vector<std::vector<std::string>> steps_;  // of each of values_
  bool read_ = false;
  std::vector<Found> found_;
  size_t next_ = 0;
};

// The documents of the segments in the order of a query's ORDER BY, read from the index at its
// path (one item) or from its composite index (several), backwards when `descending`, within
// the scan's ranges.
class IndexOrderedDocumentSource : public StoredSource {
 public:
  IndexOrderedDocumentSource(storage::Transaction& txn, int64_t container_seq,
                             const std::vector<ReadSegment>& segments, const IndexLookup& scan, bool descending,
                             std::optional<OrderResume> resume, const ReadProperties& properties,
                             uint64_t& entries_read, int64_t rows_wanted, bool walk_positions)
      : StoredSource(txn, container_seq, properties), segments_(segments),
        ranges_(resume ? RangesFrom(scan.ranges, resume->sort_key, descending) : scan.ranges), path_(scan.path),
        descending_(descending), entries_read_(entries_read), range_(descending ? ranges_.size() : 0),
        partition_key_(OneLogicalPartition(segments)), resume_(std::move(resume)), walk_positions_(walk_positions),
        batch_size_(std::clamp<int64_t>(rows_wanted + (resume_ ? 4 : 3), 1, kLargestBatch)) {}

  bool in_order_by_order() const override { return true; }
  bool resumed() const override { return resume_.has_value(); }

  Result<bool> Next(query::SourceDocument& doc) override {
    while (group_next_ == group_.size()) {
      if (exhausted_) return false;
      COSMOS_RETURN_IF_ERROR(LoadGroup());
    }
    doc = std::move(group_[group_next_++]);
    return true;
  }

 private:
  // Entries fetched at once grow to this. The first read fetches what the page wants: inside one
  // logical partition each of its entries may be a hundred other partitions' entries away.
  static constexpr int64_t kLargestBatch = 256;

  // What is left of `ranges` (in ascending order) from `sort_key` on in the direction of the walk,
  // `sort_key` included: the documents with that key are filtered by position (LoadGroup).
  static std::vector<IndexValueRange> RangesFrom(const std::vector<IndexValueRange>& ranges,
                                                 const std::string& sort_key, bool descending) {
    std::vector<IndexValueRange> left;
    for (IndexValueRange range : ranges) {
      if (!descending) {
        if (range.upper < sort_key || (range.upper == sort_key && !range.upper_inclusive)) continue;
        if (range.lower < sort_key) range = {sort_key, true, range.upper, range.upper_inclusive};
      } else {
        if (range.lower > sort_key || (range.lower == sort_key && !range.lower_inclusive)) continue;
        if (range.upper > sort_key) range = {range.lower, range.lower_inclusive, sort_key, true};
      }
      left.push_back(std::move(range));
    }
    return left;
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
      if (value && batch_[next_].value != *value) break;  // the next run starts here
      value = batch_[next_].value;
      int64_t seq = batch_[next_++].document_seq;
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, seq));
      if (!record || IsExpired(*record, now_)) continue;
      const ReadSegment* segment = SegmentHolding(segments_, record->partition_key);
      if (segment == nullptr) continue;
      query::SourceDocument& doc = group_.emplace_back();
      COSMOS_RETURN_IF_ERROR(ToSourceDocument(*record, segment->min_key, segment->max_key, doc));
      doc.sort_key = *value;
      // The documents with the resume key up to the last one returned were returned before.
      if (resume_ && doc.sort_key == resume_->sort_key && Before(doc.position)) group_.pop_back();
    }
    std::sort(group_.begin(), group_.end(), [](const query::SourceDocument& a, const query::SourceDocument& b) {
      return a.position < b.position;
    });
    if (walk_positions_) {
      for (query::SourceDocument& doc : group_) doc.position = Json{{"walk", HexEncode(doc.sort_key)}, {"p", doc.position}};
    }
    return Status();
  }

  // Whether a document at `position` with the resume key comes before the resume point.
  bool Before(const Json& position) const {
    return resume_->inclusive ? position < resume_->position : !(resume_->position < position);
  }

  // The next batch of entries, moving to the next range when one is exhausted.
  Result<bool> Fill() {
    batch_.clear();
    next_ = 0;
    while (batch_.empty()) {
      if (descending_ ? range_ == 0 : range_ == ranges_.size()) return false;
      const IndexValueRange& range = ranges_[descending_ ? range_ - 1 : range_];
      COSMOS_ASSIGN_OR_RETURN(batch_, txn_.ScanIndex(container_seq_, path_, range.lower, range.lower_inclusive,
                                                     range.upper, range.upper_inclusive, descending_,
                                                     partition_key_, cursor_, batch_size_));
      batch_size_ = std::min(batch_size_ * 2, kLargestBatch);
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

  const std::vector<ReadSegment>& segments_;
  const std::vector<IndexValueRange> ranges_;  // the scan's, from the resume key on
  const std::string path_;
  bool descending_;
  uint64_t& entries_read_;
  size_t range_;
  const std::optional<std::string> partition_key_;
  const std::optional<OrderResume> resume_;  // its position is a read position
  const bool walk_positions_;
  std::optional<storage::IndexRow> cursor_;
  std::vector<storage::IndexRow> batch_;
  int64_t batch_size_;
  size_t next_ = 0;
  std::vector<query::SourceDocument> group_;  // the current run of equal values
  size_t group_next_ = 0;
  bool exhausted_ = false;
};

// A scan that turns into an index lookup after its budget of documents.
class ScanThenLookup : public query::DocumentSource {
 public:
  ScanThenLookup(storage::Transaction& txn, int64_t container_seq, const std::vector<ReadSegment>& segments,
                 const std::vector<IndexLookup>& lookups, std::optional<ReadPosition> start,
                 const ReadProperties& properties, int64_t scan_budget, uint64_t& entries_read, LookupPays lookup_pays)
      : txn_(txn), container_seq_(container_seq), segments_(segments), lookups_(lookups), properties_(properties),
        scan_budget_(scan_budget), entries_read_(entries_read), lookup_pays_(std::move(lookup_pays)),
        current_(ScanSource(txn, container_seq, segments, std::move(start), properties, entries_read)) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!looking_up_ && scanned_ == scan_budget_) {
      COSMOS_ASSIGN_OR_RETURN(bool pays, lookup_pays_(scanned_));
      if (pays) {
        // The documents after the last one scanned, from the index.
        looking_up_ = true;
        std::optional<ReadPosition> resume;
        if (last_position_) {
          resume = ReadPosition::FromJson(*last_position_);
          ++resume->seq;
        }
        current_ = IndexLookupSource(txn_, container_seq_, segments_, lookups_, std::move(resume), properties_,
                                     entries_read_);
      }
    }
    COSMOS_ASSIGN_OR_RETURN(bool more, current_->Next(doc));
    if (more && !looking_up_) {
      ++scanned_;
      last_position_ = doc.position;
    }
    return more;
  }

 private:
  storage::Transaction& txn_;
  const int64_t container_seq_;
  const std::vector<ReadSegment>& segments_;
  const std::vector<IndexLookup>& lookups_;
  const ReadProperties& properties_;
  const int64_t scan_budget_;
  uint64_t& entries_read_;
  LookupPays lookup_pays_;
  std::unique_ptr<query::DocumentSource> current_;
  bool looking_up_ = false;
  int64_t scanned_ = 0;
  std::optional<Json> last_position_;
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
                                                  const std::vector<ReadSegment>& segments,
                                                  std::optional<ReadPosition> start, const ReadProperties& properties,
                                                  uint64_t& entries_read) {
  return std::make_unique<StoredDocumentSource>(txn, container_seq, segments, std::move(start), properties,
                                                entries_read);
}

std::unique_ptr<query::DocumentSource> IndexLookupSource(storage::Transaction& txn, int64_t container_seq,
                                                         const std::vector<ReadSegment>& segments,
                                                         const std::vector<IndexLookup>& lookups,
                                                         std::optional<ReadPosition> start,
                                                         const ReadProperties& properties, uint64_t& entries_read,
                                                         bool index_only) {
  return std::make_unique<IndexedDocumentSource>(txn, container_seq, segments, lookups, std::move(start), properties,
                                                 entries_read, index_only);
}

std::unique_ptr<query::DocumentSource> ScanThenLookupSource(storage::Transaction& txn, int64_t container_seq,
                                                            const std::vector<ReadSegment>& segments,
                                                            const std::vector<IndexLookup>& lookups,
                                                            std::optional<ReadPosition> start,
                                                            const ReadProperties& properties, int64_t scan_budget,
                                                            uint64_t& entries_read, LookupPays lookup_pays) {
  return std::make_unique<ScanThenLookup>(txn, container_seq, segments, lookups, std::move(start), properties,
                                          scan_budget, entries_read, std::move(lookup_pays));
}

std::unique_ptr<query::DocumentSource> IndexOrderSource(storage::Transaction& txn, int64_t container_seq,
                                                        const std::vector<ReadSegment>& segments,
                                                        const IndexLookup& scan, bool descending,
                                                        std::optional<OrderResume> resume,
                                                        const ReadProperties& properties, uint64_t& entries_read,
                                                        int64_t rows_wanted, bool walk_positions) {
  return std::make_unique<IndexOrderedDocumentSource>(txn, container_seq, segments, scan, descending,
                                                      std::move(resume), properties, entries_read, rows_wanted,
                                                      walk_positions);
}

std::unique_ptr<query::DocumentSource> IndexValuesSource(storage::Transaction& txn, int64_t container_seq,
                                                         const std::vector<ReadSegment>& segments,
                                                         const std::vector<IndexLookup>& values,
                                                         const std::vector<IndexLookup>& lookups,
                                                         const ReadProperties& properties, uint64_t& entries_read) {
  return std::make_unique<IndexValuesDocumentSource>(txn, container_seq, segments, values, lookups, properties,
                                                     entries_read);
}

std::unique_ptr<query::DocumentSource> ResourceListSource(const std::vector<std::pair<int64_t, std::string>>& bodies,
                                                          int64_t start_seq) {
  return std::make_unique<ResourceList>(bodies, start_seq);
}

}  // namespace cosmos::engine
