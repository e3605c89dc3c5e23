#include "server/response_building.h"

#include "server/error_mapping.h"

#include <cstdio>

#include "engine/admission/request_charge.h"
#include "server/headers.h"

namespace cosmos::server {
namespace {

// Headers every item and container response carries.
void AddResourceHeaders(HttpResponse& response, const std::string& etag, const std::string& owner_path,
                        const std::string& owner_rid) {
  if (!etag.empty()) response.AddHeader(headers::kEtag, etag);
  if (!owner_rid.empty()) response.AddHeader(headers::kContentPath, owner_rid);
  if (!owner_path.empty()) response.AddHeader(headers::kAltContentPath, owner_path);
}

// Session consistency bookkeeping: the SDKs echo the token on later reads. The token names each
// physical partition the response came from ("{rangeId}:{version}#{lsn}", comma-separated), so that
// an SDK keeps one per range; the LSN is the container's, which every range shares. The range that
// served the request, when there is one, is also x-ms-documentdb-partitionkeyrangeid.
void AddLsnHeaders(HttpResponse& response, int64_t lsn, const std::vector<int64_t>& range_ids) {
  std::string text = std::to_string(lsn);
  std::string token;
  for (int64_t id : range_ids) {
    if (!token.empty()) token += ',';
    token += std::to_string(id) + ":-1#" + text;
  }
  if (token.empty()) token = "0:-1#" + text;
  response.AddHeader(headers::kSessionToken, token);
  response.AddHeader(headers::kLsn, text);
  response.AddHeader(headers::kGlobalCommittedLsn, text);
  if (range_ids.size() == 1) response.AddHeader(headers::kPartitionKeyRangeId, std::to_string(range_ids.front()));
}

std::vector<int64_t> RangesOf(const std::optional<int64_t>& range_id) {
  if (!range_id) return {};
  return {*range_id};
}

std::string JoinIds(const std::vector<int64_t>& ids) {
  std::string text;
  for (int64_t id : ids) {
    if (!text.empty()) text += ',';
    text += std::to_string(id);
  }
  return text;
}

}  // namespace

std::string FormatCharge(double charge) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", charge);
  return text;
}

HttpResponse FromResource(engine::ResourceResponse resource, int status, bool with_lsn) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(resource.body);
  response.AddHeader(headers::kRequestCharge, FormatCharge(resource.request_charge));
  AddResourceHeaders(response, resource.etag, resource.owner_path, resource.owner_rid);
  if (with_lsn) AddLsnHeaders(response, resource.lsn, RangesOf(resource.range_id));
  return response;
}

HttpResponse FromFeed(engine::FeedResponse feed, bool with_lsn) {
  HttpResponse response;
  response.body = std::move(feed.body);
  response.AddHeader(headers::kRequestCharge, FormatCharge(feed.request_charge));
  response.AddHeader(headers::kItemCount, std::to_string(feed.count));
  if (feed.continuation) response.AddHeader(headers::kContinuation, *feed.continuation);
  AddResourceHeaders(response, "", feed.owner_path, feed.owner_rid);
  if (with_lsn) AddLsnHeaders(response, feed.lsn, feed.range_ids);
  return response;
}

HttpResponse FromQuery(engine::QueryResponse page, bool with_lsn) {
  std::string metrics = std::move(page.query_metrics);
  std::string index_utilization = std::move(page.index_utilization);
  engine::QueryFanOut fan_out = std::move(page.fan_out);
  HttpResponse response = FromFeed(std::move(page), with_lsn);
  if (!metrics.empty()) response.AddHeader(headers::kQueryMetrics, metrics);
  if (!index_utilization.empty()) response.AddHeader(headers::kIndexUtilization, index_utilization);
  response.AddHeader(headers::kCosmolitePartitionCount, std::to_string(fan_out.range_ids.size()));
  response.AddHeader(headers::kCosmolitePartitionIds, JoinIds(fan_out.range_ids));
  response.AddHeader(headers::kCosmoliteDocumentsScanned, std::to_string(fan_out.documents_scanned));
  if (!fan_out.access_path.empty()) response.AddHeader(headers::kCosmoliteAccessPath, fan_out.access_path);
  response.AddHeader(headers::kCosmoliteDocumentsReturned, std::to_string(fan_out.documents_returned));
  response.AddHeader(headers::kCosmoliteNarrowedByPartitionKey, fan_out.by_partition_key ? "true" : "false");
  return response;
}

HttpResponse FromQueryPlan(engine::QueryPlanResponse plan) {
  HttpResponse response;
  response.body = std::move(plan.body);
  response.AddHeader(headers::kRequestCharge, FormatCharge(0));
  response.AddHeader(headers::kCosmolitePartitionCount, std::to_string(plan.range_ids.size()));
  response.AddHeader(headers::kCosmolitePartitionIds, JoinIds(plan.range_ids));
  return response;
}

HttpResponse FromRanges(engine::PartitionKeyRangesResponse ranges) {
  HttpResponse response;
  response.AddHeader(headers::kRequestCharge, FormatCharge(engine::MetadataReadCharge()));
  response.AddHeader(headers::kEtag, ranges.etag);
  if (ranges.not_modified) {
    response.status = 304;
    return response;
  }
  response.body = std::move(ranges.body);
  response.AddHeader(headers::kItemCount, std::to_string(ranges.count));
  AddResourceHeaders(response, "", ranges.owner_path, ranges.owner_rid);
  return response;
}

HttpResponse PlainText(int status, std::string content_type, std::string body) {
  HttpResponse response;
  response.status = status;
  response.AddHeader(headers::kResponseContentType, std::move(content_type));
  response.body = std::move(body);
  return response;
}

HttpResponse FromBatch(engine::BatchResponse batch, bool minimal) {
  // The array is assembled as text: the resource bodies go in as the engine wrote them, not parsed
  // and serialized again.
  std::string results = "[";
  bool all_applied = true;
  for (engine::BatchOperationResult& result : batch.results) {
    Json entry = Json::object();
    if (result.not_attempted) {
      entry["statusCode"] = 424;  // Failed Dependency: another operation failed
    } else if (!result.status.ok()) {
      HttpError error = MapError(result.status.code());
      entry["statusCode"] = error.status;
      if (error.substatus != 0) entry["subStatusCode"] = error.substatus;
      if (result.status.code() == ErrorCode::kRequestRateTooLarge) {
        entry["retryAfterMilliseconds"] = result.status.retry_after_ms();
      }
    } else {
      entry["statusCode"] = result.success_status;
    }
    all_applied &= result.status.ok() && !result.not_attempted;
    entry["requestCharge"] = result.response.request_charge;
    if (!result.response.etag.empty()) entry["eTag"] = result.response.etag;
    if (results.size() > 1) results += ',';
    results += entry.dump();
    if (!minimal && !result.response.body.empty()) {
      results.pop_back();  // the entry's closing brace
      results += ",\"resourceBody\":";
      results += result.response.body;
      results += '}';
    }
  }
  results += ']';
  HttpResponse response;
  response.status = all_applied ? 200 : 207;
  response.body = std::move(results);
  response.AddHeader(headers::kRequestCharge, FormatCharge(batch.request_charge));
  AddResourceHeaders(response, "", batch.owner_path, batch.owner_rid);
  AddLsnHeaders(response, batch.lsn, RangesOf(batch.range_id));
  return response;
}

}  // namespace cosmos::server
