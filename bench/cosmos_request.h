// One Cosmos DB REST call as the workloads describe it, and the signed HTTP request it becomes
// (x-ms-date, x-ms-version 2020-07-15, master-key authorization, partition-key header).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/http_client.h"
#include "bench/signing.h"

namespace cosmos::bench {

inline constexpr char kApiVersion[] = "2020-07-15";

struct CosmosCall {
  http::verb verb = http::verb::get;
  std::string path;           // URL path, already percent-encoded, e.g. /dbs/bench/colls/c/docs
  std::string resource_type;  // what the signature covers, e.g. "docs"
  std::string resource_link;  // e.g. "dbs/bench/colls/c"
  std::string body;           // empty: none
  std::string partition_key;  // x-ms-documentdb-partitionkey value (a JSON array), empty: none
  bool upsert = false;        // x-ms-documentdb-is-upsert: True
  std::string content_type = "application/json";  // of a body
  std::vector<std::pair<std::string, std::string>> headers;  // anything else
  // Which of the workload's kinds of request this is (an index into Workload::OperationNames), so
  // latency can be reported per kind; 0 in single-kind workloads.
  uint8_t operation = 0;
  // Optional: called on the client thread with the answer's status (0: transport error), e.g. so a
  // workload only deletes documents whose create succeeded.
  std::function<void(uint16_t status)> on_answer;
};

// The signed request. `date` is the x-ms-date value (see DateClock).
Request BuildRequest(const CosmosCall& call, const MasterKeySigner& signer, const std::string& date,
                     const std::string& host_header);

// Calls on the account's resources. Ids are used verbatim in links and percent-encoded in paths.
CosmosCall CreateDatabaseCall(const std::string& database);
// `throughput` > 0 sends x-ms-offer-throughput (RU/s), which decides the physical partitions.
// `indexing_policy`: JSON text of the container's indexing policy; empty: the default.
CosmosCall CreateContainerCall(const std::string& database, const std::string& container,
                               const std::string& partition_key_path, int64_t throughput = 0,
                               const std::string& indexing_policy = "");
// The container's partition key ranges (GET .../pkranges).
CosmosCall ReadPartitionKeyRangesCall(const std::string& database, const std::string& container);
CosmosCall DeleteContainerCall(const std::string& database, const std::string& container);
// POST a document; `upsert` adds x-ms-documentdb-is-upsert.
CosmosCall CreateDocumentCall(const std::string& database, const std::string& container, std::string body,
                              const std::string& partition_key_value, bool upsert);
// A bulk request (POST .../docs, x-ms-cosmos-is-batch-request, not atomic, continue on error) as
// the Java and .NET SDKs send one: `operations` is the JSON array of operations, all on the physical
// partition `range_id` (x-ms-documentdb-partitionkeyrangeid), each with its own partitionKey.
CosmosCall BulkCall(const std::string& database, const std::string& container, std::string operations,
                    const std::string& range_id);
CosmosCall ReadDocumentCall(const std::string& database, const std::string& container, const std::string& id,
                            const std::string& partition_key_value);
CosmosCall DeleteDocumentCall(const std::string& database, const std::string& container, const std::string& id,
                              const std::string& partition_key_value);
// One read-feed page of a container's documents.
CosmosCall ReadFeedCall(const std::string& database, const std::string& container, int max_item_count,
                        const std::string& continuation);

// One page of the latest-version change feed (A-IM: Incremental feed) of one partition key range,
// continuing after `etag` (empty: from the beginning).
CosmosCall ChangeFeedCall(const std::string& database, const std::string& container, const std::string& range_id,
                          const std::string& etag, int max_item_count);

// A query on a container's documents: POST .../docs with x-ms-documentdb-isquery and
// application/query+json. `parameters` are (name, JSON text of the value) pairs, e.g.
// {"@lo", "42"}. A non-empty `partition_key_value` makes it a single-partition query (the
// partition-key header); empty, it may fan out (x-ms-documentdb-query-enablecrosspartition).
// `max_item_count` 0 leaves x-ms-max-item-count out; `continuation` empty: the first page.
struct QueryCallOptions {
  std::string partition_key_value;
  std::string partition_key_range_id;  // x-ms-documentdb-partitionkeyrangeid: one physical partition
  bool query_plan = false;             // x-ms-cosmos-is-query-plan-request: the SDK's plan, not rows
  int max_item_count = 0;
  std::string continuation;
};
CosmosCall QueryDocumentsCall(const std::string& database, const std::string& container, const std::string& query,
                              const std::vector<std::pair<std::string, std::string>>& parameters,
                              const QueryCallOptions& page);

// A JSON string literal for `text` (quotes and escapes).
std::string JsonString(const std::string& text);

}  // namespace cosmos::bench
