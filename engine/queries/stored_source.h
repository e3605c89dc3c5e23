// StoredSource: what every document source over stored documents shares (document_sources.h,
// search_sources.h): the transaction, the container it reads, the properties it parses, and the
// clock that time to live compares with.
// Thread-safety: a source belongs to one query page on one thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/json_parse.h"
#include "common/json_scan.h"
#include "engine/items/time_to_live.h"
#include "engine/partitioning/read_order.h"
#include "engine/shared/account_context.h"
#include "query/execution/executor.h"
#include "storage/store.h"

namespace cosmos::engine {

using ReadProperties = std::optional<std::vector<std::string>>;

class StoredSource : public query::DocumentSource {
 protected:
  StoredSource(storage::Transaction& txn, int64_t container_seq, const ReadProperties& properties)
      : txn_(txn), container_seq_(container_seq), properties_(properties) {}

  // Fills `doc` from a stored document, parsing only the properties the query reads; its
  // position names the segment bounds given.
  Status ToSourceDocument(storage::DocumentRecord& record, const std::string& min_key, const std::string& max_key,
                          query::SourceDocument& doc) const {
    Json parsed = properties_ ? ParseSelectedProperties(record.body, *properties_) : ParseJson(record.body);
    if (parsed.is_discarded()) return Status::Internal("stored document is not valid JSON: " + record.id);
    doc.json = std::make_shared<const Json>(std::move(parsed));
    doc.bytes = record.body.size();
    doc.position = ReadPosition{record.seq, min_key, max_key}.ToJson();
    return Status();
  }

  // What an index_only document holds: nothing.
  static std::shared_ptr<const Json> EmptyDocument() {
    static const auto empty = std::make_shared<const Json>(Json::object());
    return empty;
  }

  const int64_t now_ = NowSeconds();
  storage::Transaction& txn_;
  const int64_t container_seq_;
  const ReadProperties& properties_;
};

// The segment holding a stored partition key, or nullptr when the read does not reach it.
inline const ReadSegment* SegmentHolding(const std::vector<ReadSegment>& segments, const std::string& partition_key) {
  for (const ReadSegment& segment : segments) {
    if (segment.Holds(partition_key)) return &segment;
  }
  return nullptr;
}

// The partition key of the one logical partition the segments hold, if that is what they hold:
// a source then reads only its index entries.
inline std::optional<std::string> OneLogicalPartition(const std::vector<ReadSegment>& segments) {
  if (segments.size() != 1 || segments.front().scopes.size() != 1) return std::nullopt;
  return segments.front().scopes.front().partition_key;
}

// The sort key of a document a search source yields in its score order: the score's bytes and
// the document's seq, so that every document has its own (a select that holds the rows it needs
// stops at the next document: ties come in read order, which is the select's own tie order).
inline std::string SortKeyOf(double score, int64_t seq) {
  std::string key(reinterpret_cast<const char*>(&score), sizeof(score));
  key.append(reinterpret_cast<const char*>(&seq), sizeof(seq));
  return key;
}

}  // namespace cosmos::engine
