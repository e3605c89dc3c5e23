#include "engine/queries/query_log.h"

#include <algorithm>
#include <chrono>

namespace cosmos::engine {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void QueryLog::Record(const QueryLogEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = entry.correlation_id.empty()
                   ? queries_.end()
                   : std::find_if(queries_.begin(), queries_.end(), [&](const Query& query) {
                       return query.correlation_id == entry.correlation_id && query.container == entry.container;
                     });
  Query query;
  if (found != queries_.end()) {
    query = std::move(*found);
    queries_.erase(found);
  } else {
    query.correlation_id = entry.correlation_id;
    query.container = entry.container;
    query.first_seen_ms = NowMs();
  }
  // The plan request carries the original query; per-range pages carry the rewritten one.
  if (query.text.empty() || entry.plan_request) query.text = entry.text;
  query.request_charge += entry.request_charge;
  if (!entry.plan_request) ++query.pages;
  query.range_ids.insert(entry.range_ids.begin(), entry.range_ids.end());
  query.narrowed = query.narrowed || entry.by_partition_key;
  query.planned = query.planned || entry.plan_request;
  query.documents_scanned += entry.documents_scanned;
  if (!entry.access_path.empty()) query.access_paths.insert(entry.access_path);
  query.documents_returned += entry.documents_returned;
  query.last_seen_ms = NowMs();
  queries_.push_front(std::move(query));
  while (queries_.size() > capacity_) queries_.pop_back();
}

Json QueryLog::Recent() const {
  std::lock_guard<std::mutex> lock(mu_);
  Json list = Json::array();
  for (const Query& query : queries_) {
    list.push_back(Json{{"query", query.text},
                        {"container", query.container},
                        {"requestCharge", query.request_charge},
                        {"requests", query.pages},
                        {"physicalPartitions", query.range_ids.size()},
                        {"partitionKeyRangeIds", Json(std::vector<int64_t>(query.range_ids.begin(), query.range_ids.end()))},
                        {"narrowedByPartitionKey", query.narrowed},
                        {"usedQueryPlan", query.planned},
                        {"documentsScanned", query.documents_scanned},
                        {"accessPaths", Json(query.access_paths)},
                        {"documentsReturned", query.documents_returned},
                        {"firstSeenMs", query.first_seen_ms},
                        {"lastSeenMs", query.last_seen_ms}});
  }
  return Json{{"queries", std::move(list)}};
}

}  // namespace cosmos::engine
