// Records: the rows of a cosmolite data file as the Store hands them out and takes them in,
// and the scopes and cursors that select them. Plain values; storage/store.h includes this file,
// so including store.h is enough to use them.
// Thread-safety: none needed (values, copied freely).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace cosmos::storage {

// Rows as stored. `body` is the resource's full JSON text, system properties included.
struct DatabaseRecord {
  int64_t seq = 0;
  std::string id;
  std::string body;
};

struct ContainerRecord {
  int64_t seq = 0;
  int64_t database_seq = 0;
  std::string id;
  std::string body;
  int64_t lsn = 0;  // last change sequence number in the container
};

// A document lives in one logical partition, named by `partition_key` (a canonical encoding
// chosen by the engine). (container, partition_key, id) is unique, and one logical partition
// is one contiguous index range.
struct DocumentRecord {
  int64_t seq = 0;
  std::string partition_key;
  std::string id;
  std::string body;
  std::string etag;
  int64_t lsn = 0;  // container LSN of the last write
  int64_t expires_at = 0;  // seconds since the epoch when time-to-live removes it; 0: never
};

// The throughput offer of a database (shared throughput) or of a container.
struct OfferRecord {
  int64_t seq = 0;
  int64_t resource_seq = 0;  // the database's or the container's seq
  bool is_database = false;
  std::string body;          // the offer resource's JSON
};

// A user of a database (users and permissions hand out scoped access with resource tokens).
struct UserRecord {
  int64_t seq = 0;
  int64_t database_seq = 0;
  std::string id;
  std::string body;
};

// A permission of a user. `resource` is the permission's resource link as the engine normalised
// it (the same resource always gives the same text, so a user holds one permission per resource);
// `scope` is what the engine resolved that link to, in a form of its own.
struct PermissionRecord {
  int64_t seq = 0;
  int64_t user_seq = 0;
  std::string id;
  std::string body;
  std::string resource;
  std::string scope;
};

// A stored procedure, trigger or user-defined function of a container.
struct ScriptRecord {
  int64_t seq = 0;
  int64_t container_seq = 0;
  std::string kind;  // "sprocs", "triggers" or "udfs"
  std::string id;
  std::string body;
};

// One indexed value of a document: its path and its order-preserving encoding.
struct IndexEntry {
  std::string path;
  std::string value;
  bool operator==(const IndexEntry&) const = default;
};

// A container whose index is being built: documents with seq above after_seq are still to do.
struct IndexBuild {
  int64_t container_seq = 0;
  int64_t after_seq = 0;
  int64_t total = 0;  // documents when the build started
  int64_t done = 0;
};

// Which documents a listing covers: one logical partition, or a range of partition_key texts
// (the engine starts those with the effective partition key, so a range of them is a physical
// partition, or the part of one a request names).
struct DocumentScope {
  std::optional<std::string> partition_key;  // exactly this logical partition, when set
  std::string min_key;                        // otherwise partition_key in [min_key, max_key)
  std::optional<std::string> max_key;         // nullopt: no upper bound

  static DocumentScope All() { return {}; }
  static DocumentScope Partition(std::string key) { return {std::move(key), "", std::nullopt}; }
  static DocumentScope KeyRange(std::string min, std::optional<std::string> max) {
    return {std::nullopt, std::move(min), std::move(max)};
  }
};

// A physical partition of a container: the documents whose partition_key text falls in
// [min_inclusive, max_exclusive). A split marks the range gone and adds two children.
struct PartitionKeyRangeRecord {
  int64_t id = 0;              // never reused within a container
  std::string min_inclusive;
  std::string max_exclusive;
  std::string parents = "[]";  // JSON array of the ids this range was split from, nearest first
  int64_t version = 0;         // the container's range-set version that created it
  bool gone = false;           // split into children; requests naming it must be told so
};

// One index entry as a walk of the index returns it, and the cursor a walk resumes after.
struct IndexRow {
  std::string value;           // the encoded value (engine/indexing/indexing_policy.h)
  int64_t partition_hash = 0;  // PartitionHash of the document's partition_key
  int64_t document_seq = 0;
};

// The hash that index entries store of their document's partition_key: a lookup inside one
// logical partition seeks by it. Two logical partitions of a container that share a hash (about
// one chance in 2^64 per pair) would see each other's entries in such a lookup; the engine
// checks the partition_key of each document it loads.
int64_t PartitionHash(std::string_view partition_key);

struct LogicalPartitionSize {
  int64_t document_count = 0;
  int64_t total_bytes = 0;
};

struct IndexSize {
  int64_t entries = 0;
  int64_t bytes = 0;
};

}  // namespace cosmos::storage
