// Queries: Cosmos SQL over a container's documents (POST .../docs with x-ms-documentdb-isquery),
// one page per call, and the query plans the SDKs ask for first; and the SDKs' queries over the
// database, container and offer feeds. A page parses the query through the prepared-query cache,
// resolves its scope (partition key, range, or the filter's pinned partitions:
// planning/partition_targets.h), picks how to read (planning/access_path.h), streams documents
// into query::ExecutePage, and prices and measures what it read. A cross-partition query on
// several ranges that needs the SDK's pipeline answers 400/1004 with the plan
// (planning/cross_partition.h). Every page and plan request is summed into the query log.
// Thread-safety: safe to call from many threads; each call is one read transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "engine/admission/admission.h"
#include "engine/api.h"
#include "engine/queries/query_log.h"
#include "engine/shared/account_context.h"
#include "query/execution/executor.h"
#include "query/query_cache.h"
#include "storage/store.h"

namespace cosmos::engine {

// What a query page read of the index: its entries, and its seeks (each range of values looked up
// or walked is one descent of the index).
struct IndexReads {
  uint64_t entries = 0;
  uint64_t seeks = 0;
};

class Queries {
 public:
  Queries(AccountContext& context, Admission& admission);

  // Runs one page of a query. kBadRequest for invalid SQL (the service's error payload as the
  // message), for a malformed continuation, and for a cross-partition query without
  // enable_cross_partition.
  Result<QueryResponse> QueryItems(const QueryRequest& request);
  // The SDK's query plan (x-ms-cosmos-is-query-plan-request) as JSON text; `supported_features`
  // is the raw x-ms-cosmos-supported-query-features header (nullopt: everything).
  Result<QueryPlanResponse> QueryPlan(const QueryRequest& request, const std::optional<std::string>& supported_features);

  // Queries over the database feed, a database's container feed and the offer feed, as the SDKs
  // send them (SELECT * FROM root r WHERE r.id = @id). request.container is not used.
  Result<QueryResponse> QueryDatabases(const QueryRequest& request);
  Result<QueryResponse> QueryContainers(const ResourceName& database, const QueryRequest& request);
  // kBadRequest on a serverless account, which has no offers.
  Result<QueryResponse> QueryOffers(const QueryRequest& request);
  // A query over a container's conflicts feed, which is always empty (catalog.h, ListConflicts).
  Result<QueryResponse> QueryConflicts(const QueryRequest& request);

  // One page of a query over the logical partition request.partition_key_header names, inside
  // the caller's transaction (a stored procedure's: it sees the procedure's own writes). Neither
  // admitted, charged nor logged: the caller prices its whole execution. The response's body is
  // the page's results as a JSON array (not a feed). Errors as QueryItems'.
  Result<QueryResponse> QueryPartitionIn(storage::Transaction& txn, const ResolvedContainer& container,
                                         const QueryRequest& request);

  // Recent item queries with their cost summed over all their requests.
  const QueryLog& query_log() const { return query_log_; }

  // Runs a query page over resource bodies listed in sequence order (databases, containers,
  // offers, users, permissions); the page continues after a seq.
  Result<QueryResponse> QueryResources(const QueryRequest& request, std::vector<std::pair<int64_t, std::string>> bodies,
                                       const char* feed_key, const std::string& owner_rid);

 private:
  // Reads one page of `prepared` over `scopes` inside `txn`, choosing how to read from the
  // container's indexes; adds what it reads of the index to `index_reads`, and says how it read
  // in `access_path` (QueryFanOut::access_path).
  Result<query::QueryPage> ReadPage(storage::Transaction& txn, const ResolvedContainer& container,
                                    const query::BoundQuery& prepared, const Json& parameters,
                                    const std::vector<storage::DocumentScope>& scopes,
                                    const query::PageRequest& page_request, IndexReads& index_reads,
                                    std::string& access_path);

  AccountContext& context_;
  Admission& admission_;
  query::PreparedQueryCache prepared_queries_;
  QueryLog query_log_;
};

}  // namespace cosmos::engine
