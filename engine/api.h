// The engine's vocabulary: how a request names a resource, the typed requests the server hands
// the engine, and the responses (JSON text, etag, request charge, LSN) it gets back. Every room
// of the engine speaks these; none of them knows HTTP.
// Plain value types; thread-safe to copy.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "engine/admission/cost_report.h"
#include "engine/admission/request_charge.h"
#include "storage/records.h"

namespace cosmos::engine {

// How a request names a resource: by its id, or by its _rid (rid-based paths).
struct ResourceName {
  std::string value;
  bool is_rid = false;
};

struct ContainerAddress {
  ResourceName database;
  ResourceName container;
  // x-ms-cosmos-intended-collection-rid: the _rid the SDK resolved the name to. A container deleted
  // and created again under the same name has another, and the SDK must learn so (400/1024).
  std::string intended_rid = {};
};

// A user of a database, and a permission of a user (security/security.h).
struct UserAddress {
  ResourceName database;
  ResourceName user;
};

struct PermissionAddress {
  UserAddress user;
  ResourceName permission;
};

// What an operation on one resource returns.
struct ResourceResponse {
  std::string body;          // JSON text of the resource (empty after a delete)
  std::string etag;          // the resource's _etag, quotes included
  double request_charge = 0;
  bool created = false;      // upsert inserted rather than replaced
  bool not_modified = false; // If-None-Match matched: answer 304 without a body
  int64_t lsn = 0;           // container LSN after the operation (item operations)
  std::optional<int64_t> range_id;  // item operations: the physical partition that served it
  std::string owner_path;    // name-based path of the parent, e.g. "dbs/db/colls/c"
  std::string owner_rid;     // _rid of the parent
  // x-ms-resource-quota / x-ms-resource-usage, when x-ms-documentdb-populatequotainfo asked.
  std::string resource_quota;
  std::string resource_usage;
  // Container reads: how far the index build for the current policy is (100: done).
  int64_t index_transformation_progress = -1;
  // Offers: the lowest manual RU/s a replace may ask for (x-ms-cosmos-min-throughput).
  int64_t offer_min_throughput = 0;
  // A stored procedure's console.log lines (x-ms-documentdb-script-log-results).
  std::string script_log;
};

// One page of a feed (list of databases, containers or documents).
struct FeedResponse {
  std::string body;          // {"_rid":..., "<Key>":[...], "_count":N}
  int64_t count = 0;
  std::optional<std::string> continuation;
  double request_charge = 0;
  int64_t lsn = 0;
  std::string owner_path;
  std::string owner_rid;
  // Document feeds: the physical partitions the page read (the session token names each; the
  // x-ms-documentdb-partitionkeyrangeid header names the one when there is one).
  std::vector<int64_t> range_ids;
};

// Optimistic concurrency and conditional reads.
struct Preconditions {
  std::optional<std::string> if_match;       // write only if the current _etag equals this
  std::optional<std::string> if_none_match;  // read: answer not_modified if the _etag equals this
};

// A document's JSON text as a write checks it first (size, syntax, nesting, id): work that needs
// no store, so the server does it on an I/O thread before the write joins the write thread.
struct ParsedItem {
  Json document;
  std::string id;
  bool compact = false;  // the text has no whitespace outside strings: it can be extended as is
  // The document's index entries but its _ts's (the write adds that one), computed off the write
  // thread with the indexing policy `indexed_with` points to (Account::ParseItemFor). The write
  // uses them only if the container it resolves holds that very policy object; otherwise (no
  // policy cached yet, or one replaced meanwhile) it computes them itself.
  std::vector<storage::IndexEntry> index_entries;
  std::shared_ptr<const void> indexed_with;
};

struct ItemWrite {
  ContainerAddress container;
  std::optional<std::string> partition_key_header;  // raw x-ms-documentdb-partitionkey
  std::string_view body;  // the document JSON text; must outlive the call (not copied)
  Preconditions preconditions;
  // Account::ParseItem(body), when the caller has it already; the write consumes it.
  ParsedItem* parsed = nullptr;
};

struct ItemKey {
  ContainerAddress container;
  std::optional<std::string> partition_key_header;
  ResourceName id;
  std::optional<std::string> consistency_level = std::nullopt;  // x-ms-consistency-level (reads)
};

struct FeedOptions {
  int64_t max_item_count = 0;                // 0: the default page (100); -1: the server chooses
  std::optional<std::string> continuation;   // from the previous page
  std::optional<std::string> partition_key_header;  // restricts a document feed to one partition
  std::optional<std::string> partition_key_range_id;  // ... or to one physical partition
  std::optional<std::string> consistency_level;       // x-ms-consistency-level
};

// A change feed read (GET .../docs with A-IM: Incremental feed): the documents written since a
// point, each once in its latest version, in LSN order within the scope.
struct ChangeFeedRequest {
  enum class StartFrom { kBeginning, kNow, kTime, kContinuation };
  ContainerAddress container;
  std::optional<std::string> partition_key_header;    // one logical partition, or a hierarchical prefix
  std::optional<std::string> partition_key_range_id;  // one physical partition ...
  std::optional<std::string> start_epk;               // ... or the part of it a feed range names
  std::optional<std::string> end_epk;
  StartFrom start_from = StartFrom::kBeginning;
  // A-IM: Full-Fidelity Feed: every create, replace, delete and TTL expiry, from now or a
  // continuation, on containers with a changeFeedPolicy retention.
  bool all_versions_and_deletes = false;
  int64_t continuation_lsn = 0;  // kContinuation: the previous page's etag
  int64_t since_seconds = 0;     // kTime: changes with _ts at or after this
  int64_t max_item_count = 0;    // 0: the default page (100); -1: the server chooses
};

struct ChangeFeedResponse : FeedResponse {
  std::string etag;           // where the next read continues (the LSN reached, quoted)
  bool not_modified = false;  // nothing new: answer 304
};

// A query on the documents of a container (POST .../docs with x-ms-documentdb-isquery).
struct QueryRequest {
  ContainerAddress container;
  std::string_view body;  // {"query": "...", "parameters": [{"name": "@p", "value": ...}]}
  std::optional<std::string> partition_key_header;  // single-partition query
  bool enable_cross_partition = false;              // x-ms-documentdb-query-enablecrosspartition
  std::optional<std::string> partition_key_range_id;  // x-ms-documentdb-partitionkeyrangeid
  std::optional<std::string> start_epk;             // x-ms-start-epk: part of the range only
  std::optional<std::string> end_epk;               // x-ms-end-epk
  int64_t max_item_count = 0;                 // 0: the default page (100); -1: the server chooses
  std::optional<std::string> continuation;    // from the previous page
  bool populate_query_metrics = false;        // x-ms-documentdb-populatequerymetrics
  bool populate_index_metrics = false;        // x-ms-cosmos-populateindexmetrics
  std::string correlation_id;                 // x-ms-cosmos-correlated-activityid: one SDK query
  std::optional<std::string> consistency_level;  // x-ms-consistency-level
};

// One page of query results: FeedResponse's body is {"_rid":..., "Documents":[...], "_count":N}.
// How far a query page reached: the fan-out a workshop wants to see.
struct QueryFanOut {
  std::vector<int64_t> range_ids;   // physical partitions the query reaches
  int64_t documents_scanned = 0;
  int64_t documents_returned = 0;
  bool by_partition_key = false;    // the partition key narrowed it (header or WHERE)
  // How the page read its documents (planning/access_path.h): "index lookup on /n/?", "index
  // order on /n/? (descending)", or "scan".
  std::string access_path;
};

struct QueryResponse : FeedResponse {
  std::string query_metrics;  // x-ms-documentdb-query-metrics, when requested
  std::string index_utilization;  // x-ms-cosmos-index-utilization, when requested (planning/index_utilization.h)
  QueryFanOut fan_out;
};

// A query plan (x-ms-cosmos-is-query-plan-request) and the physical partitions it reaches.
struct QueryPlanResponse {
  std::string body;               // the PartitionedQueryExecutionInfo JSON
  std::vector<int64_t> range_ids; // ranges overlapping its queryRanges
  bool by_partition_key = false;  // a partition-key filter narrowed its queryRanges
};

// The partition key ranges feed (GET .../pkranges).
struct PartitionKeyRangesResponse {
  std::string body;          // {"_rid":..., "PartitionKeyRanges":[...], "_count":N}
  int64_t count = 0;
  std::string etag;          // the range-set version, quoted
  bool not_modified = false; // the client's If-None-Match is current
  std::string owner_path;
  std::string owner_rid;
};

// A transactional batch or a bulk request (POST .../docs with x-ms-cosmos-is-batch-request): a
// JSON array of operations {operationType, id, partitionKey?, resourceBody?, ifMatch?,
// ifNoneMatch?}, operationType one of Create, Upsert, Read, Replace, Delete, Patch.
struct BatchRequest {
  ContainerAddress container;
  std::string_view body;  // must outlive the call
  // Atomic (x-ms-cosmos-batch-atomic: true): every operation in the one logical partition this
  // header names, all applied or none. Otherwise (bulk) each operation applies on its own, in the
  // partition its own partitionKey names.
  std::optional<std::string> partition_key_header;
  // Bulk: the physical partition the SDK grouped the operations for (x-ms-documentdb-partitionkeyrangeid);
  // one since split answers 410/1002, so that the SDK groups them again.
  std::optional<std::string> partition_key_range_id;
  bool atomic = true;
  bool continue_on_error = true;  // bulk: x-ms-cosmos-batch-continue-on-error
};

// What became of one operation of a batch.
struct BatchOperationResult {
  Status status;               // why it failed; OK when it applied
  bool not_attempted = false;  // it did not run: another operation failed first (424)
  int success_status = 200;    // when it applied: 200, 201 or 204
  ResourceResponse response;   // when it applied: body, etag, charge
};

struct BatchResponse {
  std::vector<BatchOperationResult> results;  // one per operation, in order
  double request_charge = 0;
  int64_t lsn = 0;
  std::optional<int64_t> range_id;  // the physical partition that served every operation
  std::string owner_path;
  std::string owner_rid;
};

struct AccountOptions {
  // Every container gets at least this many physical partitions (--min-physical-partitions).
  int min_physical_partitions = 1;
  // Bytes one logical partition may hold (--logical-partition-cap); the service's is 20 GB.
  int64_t logical_partition_cap_bytes = int64_t{20} * 1024 * 1024 * 1024;
  // The account's default consistency (--consistency); reads at Strong or Bounded Staleness
  // cost twice as much, and a request may only relax it.
  ConsistencyLevel default_consistency = ConsistencyLevel::kSession;
  // Serverless (--serverless): no offers; each container may burst to 5,000 RU/s.
  bool serverless = false;
  // Enforce provisioned throughput per physical partition with 429s (--rate-limit).
  bool rate_limit = false;
  // A query page that cannot end early (sorted, grouped or aggregated, or one pathological row)
  // is abandoned with 408 after this long (--query-time-limit). Streaming pages end with a
  // continuation at 5 s, as the service's do, long before.
  std::chrono::milliseconds query_time_limit{30000};
  // How long a stored procedure may run before it is stopped (408), as the service's 5 seconds.
  std::chrono::milliseconds script_time_limit{5000};
  // The prices of the cost report (--list-prices).
  ListPrices list_prices;
};

// Limits from the service documentation.
inline constexpr size_t kMaxDocumentBytes = 2 * 1024 * 1024;
inline constexpr size_t kMaxItemIdBytes = 1023;
inline constexpr size_t kMaxResourceNameChars = 255;

}  // namespace cosmos::engine
