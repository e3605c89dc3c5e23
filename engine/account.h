// Account: the Cosmos DB rules for databases, containers and items, on top of a Store.
// It validates ids and definitions, extracts partition keys, stamps system properties
// (_rid, _self, _etag, _ts), enforces uniqueness and preconditions, and prices each operation.
// It speaks typed requests and JSON text, never HTTP.
// Thread-safety: safe to call from many threads; each call is one Store transaction.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "engine/container_cache.h"
#include "engine/offers.h"
#include "engine/query_log.h"
#include "engine/request_charge.h"
#include "engine/throttle.h"
#include "query/query_cache.h"
#include "storage/store.h"

namespace cosmos::engine {

// How a request names a resource: by its id, or by its _rid (rid-based paths).
struct ResourceName {
  std::string value;
  bool is_rid = false;
};

struct ContainerAddress {
  ResourceName database;
  ResourceName container;
};

// What an operation on one resource returns.
struct ResourceResponse {
  std::string body;          // JSON text of the resource (empty after a delete)
  std::string etag;          // the resource's _etag, quotes included
  double request_charge = 0;
  bool created = false;      // upsert inserted rather than replaced
  bool not_modified = false; // If-None-Match matched: answer 304 without a body
  int64_t lsn = 0;           // container LSN after the operation (item operations)
  std::string owner_path;    // name-based path of the parent, e.g. "dbs/db/colls/c"
  std::string owner_rid;     // _rid of the parent
  // x-ms-resource-quota / x-ms-resource-usage, when x-ms-documentdb-populatequotainfo asked.
  std::string resource_quota;
  std::string resource_usage;
  // Container reads: how far the index build for the current policy is (100: done).
  int64_t index_transformation_progress = -1;
  // Offers: the lowest manual RU/s a replace may ask for (x-ms-cosmos-min-throughput).
  int64_t offer_min_throughput = 0;
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
  std::optional<int64_t> served_range_id;
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
};

struct QueryResponse : FeedResponse {
  std::string query_metrics;  // x-ms-documentdb-query-metrics, when requested
  QueryFanOut fan_out;
  std::optional<int64_t> served_range_id;  // the range a per-range request named
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
};

// Limits from the service documentation.
inline constexpr size_t kMaxDocumentBytes = 2 * 1024 * 1024;
inline constexpr size_t kMaxItemIdBytes = 1023;
inline constexpr size_t kMaxResourceNameChars = 255;

class Account {
 public:
  explicit Account(std::unique_ptr<storage::Store> store, AccountOptions options = {});

  // Brings a data file written by an older cosmolite up to date (documents keyed by effective
  // partition key, ranges for every container). Call once, before serving.
  Status UpgradeDataFile();

  // Runs `writes` (calls of this account's methods, one after another on this thread) as one
  // write batch: their storage writes share one commit (storage/store.h). A write's result may
  // be acknowledged only when this returns OK; otherwise none of the batch's writes is durable.
  Status RunWriteBatch(const std::function<void()>& writes);

  // Databases. Create returns kConflict if the id exists; the others kNotFound if missing.
  // Throughput given: the database shares it among its containers (an offer of its own).
  Result<ResourceResponse> CreateDatabase(const std::string& body, const ContainerThroughput& throughput = {});
  Result<ResourceResponse> ReadDatabase(const ResourceName& database);
  Result<FeedResponse> ListDatabases(const FeedOptions& options);
  // kPreconditionFailed when If-Match is stale.
  Result<ResourceResponse> DeleteDatabase(const ResourceName& database, const Preconditions& preconditions);

  // Containers. kOwnerResourceNotFound when the database is missing; kBadRequest for an
  // invalid definition or a replace that changes the partition key or unique keys. A container
  // gets an offer of its own with the throughput given, or 400 RU/s when neither it nor its
  // database states any (none on a serverless account); the throughput decides its ranges.
  Result<ResourceResponse> CreateContainer(const ResourceName& database, const std::string& body,
                                           const ContainerThroughput& throughput = {});
  // With `populate_quota_info`, also the container's quota and usage (documents, sizes in KB).
  Result<ResourceResponse> ReadContainer(const ContainerAddress& container, bool populate_quota_info = false);
  Result<FeedResponse> ListContainers(const ResourceName& database, const FeedOptions& options);
  // Replace and delete return kPreconditionFailed when If-Match is stale.
  Result<ResourceResponse> ReplaceContainer(const ContainerAddress& container, const std::string& body,
                                            const Preconditions& preconditions);
  Result<ResourceResponse> DeleteContainer(const ContainerAddress& container,
                                           const Preconditions& preconditions);

  // The checks of a document's text that come before any other of a write (see ParsedItem).
  // Thread-safe, and touches no store.
  static Result<ParsedItem> ParseItem(std::string_view body);
  // Items. kOwnerResourceNotFound when the container is missing; kBadRequest for a malformed
  // document or id; kPartitionKeyMismatch when the header disagrees with the document;
  // kRequestEntityTooLarge over 2 MB; kConflict for a duplicate id or unique key;
  // kPreconditionFailed when If-Match is stale; kNotFound for a missing item.
  Result<ResourceResponse> CreateItem(const ItemWrite& write);
  Result<ResourceResponse> UpsertItem(const ItemWrite& write);
  Result<ResourceResponse> ReplaceItem(const ItemWrite& write, const ResourceName& id);
  Result<ResourceResponse> ReadItem(const ItemKey& key, const Preconditions& preconditions);
  Result<ResourceResponse> DeleteItem(const ItemKey& key, const Preconditions& preconditions);
  Result<FeedResponse> ReadItemFeed(const ContainerAddress& container, const FeedOptions& options);
  // One page of the latest-version change feed. kPartitionKeyRangeGone for a split range.
  Result<ChangeFeedResponse> ReadChangeFeed(const ChangeFeedRequest& request);
  // Runs one page of a query. kBadRequest for invalid SQL (the service's error payload as the
  // message), for a malformed continuation, and for a cross-partition query without
  // enable_cross_partition.
  Result<QueryResponse> QueryItems(const QueryRequest& request);
  // The container's partition key ranges. With `incremental` (A-IM: Incremental feed) and an
  // If-None-Match equal to the current version, answers not_modified; with an older version,
  // only the ranges created since.
  Result<PartitionKeyRangesResponse> ReadPartitionKeyRanges(const ContainerAddress& container,
                                                            const std::optional<std::string>& if_none_match,
                                                            bool incremental);
  // Splits one online range in two (an admin operation: workshops and split tests). Returns the
  // ranges feed after the split.
  Result<PartitionKeyRangesResponse> SplitPartitionKeyRange(const ContainerAddress& container, int64_t range_id);

  // The SDK's query plan (x-ms-cosmos-is-query-plan-request) as JSON text; `supported_features`
  // is the raw x-ms-cosmos-supported-query-features header (nullopt: everything).
  Result<QueryPlanResponse> QueryPlan(const QueryRequest& request,
                                      const std::optional<std::string>& supported_features);
  // Queries over the database feed and a database's container feed, as the SDKs send them
  // (SELECT * FROM root r WHERE r.id = @id). request.container is not used.
  Result<QueryResponse> QueryDatabases(const QueryRequest& request);
  Result<QueryResponse> QueryContainers(const ResourceName& database, const QueryRequest& request);
  // Builds the next `limit` documents' index entries of a container whose policy changed (or
  // whose data file predates indexes). Returns true while work remains. Called by BackgroundWorker.
  Result<bool> ContinueIndexBuilds(int64_t limit);

  // Offers (throughput). Read and replace take the offer's _rid; kNotFound when there is none.
  // A replace below the minimum is kBadRequest; one that grows a container past 10,000 RU/s per
  // physical partition splits its ranges until each holds at most that.
  Result<ResourceResponse> ReadOffer(const std::string& offer_rid);
  Result<FeedResponse> ListOffers(const FeedOptions& options);
  Result<QueryResponse> QueryOffers(const QueryRequest& request);
  Result<ResourceResponse> ReplaceOffer(const std::string& offer_rid, const std::string& body,
                                        const Preconditions& preconditions);

  // Per container and physical partition: RU consumed, requests throttled, documents and bytes
  // stored, and the largest logical partitions (GET /_cosmolite/partitions), as JSON text.
  Result<std::string> PartitionReport(int64_t largest_logical_partitions);

  // Deletes up to `limit` documents whose time to live ran out at or before `now` (seconds since the
  // epoch), without charging anyone. Returns how many it deleted. Called by BackgroundWorker.
  Result<int64_t> SweepExpiredDocuments(int64_t now, int64_t limit);
  // Recent item queries with their cost summed over all their requests (GET /_cosmolite/queries).
  const QueryLog& query_log() const { return query_log_; }
  const AccountOptions& options() const { return options_; }

 private:
  enum class WriteMode { kCreate, kUpsert, kReplace };
  Result<ResourceResponse> WriteItem(const ItemWrite& write, WriteMode mode,
                                     const ResourceName* replace_id);
  // Resolves a container by name or rid, from the cache when possible. A missing database or
  // container is kOwnerResourceNotFound when `as_owner`, else kNotFound.
  // Records a change to a database or container definition made by `txn`: the container cache
  // forgets everything now and again once the change is committed or rolled back.
  void ChangeCatalog(storage::Transaction& txn);
  Result<std::shared_ptr<const ResolvedContainer>> FindContainer(storage::Transaction& txn,
                                                                 const ContainerAddress& address,
                                                                 bool as_owner);
  std::string NewEtag();
  // Schema version 1 files: every document gets its effective-partition-key storage key.
  Status RekeyDocuments();
  // Schema version 4 files: containers with composite indexes rebuild their index entries.
  Status RebuildCompositeIndexes();
  // Creates the offer of a database or container inside `txn`.
  Status InsertOffer(storage::Transaction& txn, bool is_database, int64_t resource_seq, const std::string& resource_self,
                     const std::string& resource_rid, const ContainerThroughput& throughput);
  // Throttling: admits a request on the container's physical partitions `range_ids` (all of them
  // when empty), or answers kRequestRateTooLarge; Charge debits a finished request's RU evenly.
  Status Admit(const ResolvedContainer& container, const std::vector<int64_t>& range_ids);
  void Charge(const ResolvedContainer& container, const std::vector<int64_t>& range_ids, double request_units);
  // The all-versions-and-deletes feed (ReadChangeFeed with all_versions_and_deletes).
  Result<ChangeFeedResponse> ReadChangeLog(storage::Transaction& txn, const ResolvedContainer& container,
                                           const RequestScope& scope, const ChangeFeedRequest& request);
  Result<Json> PlanQuery(const ResolvedContainer& container, const query::BoundQuery& prepared,
                         const Json& parameters, const std::optional<std::string>& supported_features);
  // Runs a query page over resource bodies listed in sequence order (databases, containers).
  Result<QueryResponse> QueryResources(const QueryRequest& request, std::vector<std::pair<int64_t, std::string>> bodies,
                                       const char* feed_key, const std::string& owner_rid);

  std::unique_ptr<storage::Store> store_;
  const AccountOptions options_;
  ContainerCache containers_;
  query::PreparedQueryCache prepared_queries_;
  QueryLog query_log_;
  Throttle throttle_;
  std::atomic<uint64_t> etag_counter_;  // seeded from the clock so etags stay new across restarts
};

}  // namespace cosmos::engine
