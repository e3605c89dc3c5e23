// QueryLog: the most recent queries, each summed over every request the SDK sent for it (the
// plan request, the gateway's 400/1004, one page after another on each range), so that a user
// sees what a query really cost and how far it fanned out. Requests of one query are grouped by
// the SDK's x-ms-cosmos-correlated-activityid (each request stands alone without one).
// Thread-safety: internally synchronized.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/json.h"

namespace cosmos::engine {

// One request's share of a query.
struct QueryLogEntry {
  std::string correlation_id;  // groups the requests of one query
  std::string container;       // "dbs/db/colls/c"
  std::string text;            // the query text as sent
  double request_charge = 0;
  std::vector<int64_t> range_ids;  // physical partitions this request reached
  bool by_partition_key = false;   // a partition key (header or filter) narrowed it
  bool plan_request = false;       // the query-plan request, not a page
  int64_t documents_scanned = 0;
  int64_t documents_returned = 0;
  std::string access_path;  // how the page read (QueryFanOut::access_path); empty for a plan request
};

class QueryLog {
 public:
  explicit QueryLog(size_t capacity = 100) : capacity_(capacity) {}

  void Record(const QueryLogEntry& entry);
  // {"queries":[{"query","container","requestCharge","requests","physicalPartitions","partitionKeyRangeIds",
  //   "narrowedByPartitionKey","usedQueryPlan","documentsScanned","documentsReturned","accessPaths",
  //   "firstSeenMs","lastSeenMs"}]}, newest first; accessPaths lists how its pages read, once each. requestCharge and requests count the pages, not the plan request.
  Json Recent() const;

 private:
  struct Query {
    std::string correlation_id;
    std::string container;
    std::string text;
    double request_charge = 0;
    int64_t pages = 0;
    std::set<int64_t> range_ids;
    bool narrowed = false;
    bool planned = false;
    int64_t documents_scanned = 0;
    int64_t documents_returned = 0;
    std::set<std::string> access_paths;
    int64_t first_seen_ms = 0;
    int64_t last_seen_ms = 0;
  };

  size_t capacity_;
  mutable std::mutex mu_;
  std::deque<Query> queries_;  // guarded by mu_; newest at the front
};

}  // namespace cosmos::engine
