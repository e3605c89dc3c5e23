#include "server/request_reading.h"

#include <algorithm>

#include <charconv>

#include "common/json.h"
#include "server/headers.h"

namespace cosmos::server {
namespace {

// Media type without parameters, lowercased: "application/json; charset=utf-8" -> "application/json".
std::string MediaType(const HttpRequest& request) {
  std::string value = request.headers.Get(headers::kContentType).value_or("");
  value = value.substr(0, value.find(';'));
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return ToLowerAscii(value);
}

}  // namespace

engine::ResourceName NameAt(const ResourcePath& path, size_t index) {
  return engine::ResourceName{path.ids[index], path.is_rid_based};
}

engine::ContainerAddress ContainerOf(const ResourcePath& path) {
  return engine::ContainerAddress{NameAt(path, 0), NameAt(path, 1)};
}

Status RequireJsonBody(const HttpRequest& request) {
  std::string media = MediaType(request);
  if (!media.empty() && media != "application/json") {
    return Status::UnsupportedMediaType("The content type '" + media +
                                        "' is not supported here; send application/json.");
  }
  return Status();
}

bool IsQuery(const HttpRequest& request) {
  return request.headers.IsTrue(headers::kIsQuery) || request.headers.IsTrue(headers::kIsQueryPlanRequest) ||
         MediaType(request) == "application/query+json";
}

namespace {

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "2020-07-15" or "2020-07-15-preview", from the REST API's first version (2014) to a year ahead.
bool IsApiVersion(std::string_view version) {
  if (version.size() > 10 && version.substr(10) == "-preview") version = version.substr(0, 10);
  if (version.size() != 10 || version[4] != '-' || version[7] != '-') return false;
  if (!AllDigits(version.substr(0, 4)) || !AllDigits(version.substr(5, 2)) || !AllDigits(version.substr(8, 2))) {
    return false;
  }
  int year = std::stoi(std::string(version.substr(0, 4)));
  int month = std::stoi(std::string(version.substr(5, 2)));
  int day = std::stoi(std::string(version.substr(8, 2)));
  return year >= 2014 && year <= 2030 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

bool IsSignedNumber(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  return AllDigits(text);
}

// One range's token: "<range>:<lsn>" (version 1) or "<range>:<version>#<global lsn>[#<region>=<lsn>...]".
bool IsRangeSessionToken(std::string_view token) {
  size_t colon = token.find(':');
  if (colon == std::string_view::npos || !AllDigits(token.substr(0, colon))) return false;
  std::string_view rest = token.substr(colon + 1);
  size_t hash = rest.find('#');
  if (hash == std::string_view::npos) return IsSignedNumber(rest);
  if (!IsSignedNumber(rest.substr(0, hash))) return false;
  rest.remove_prefix(hash + 1);
  size_t next = rest.find('#');
  if (!AllDigits(rest.substr(0, next))) return false;
  while (next != std::string_view::npos) {
    rest.remove_prefix(next + 1);
    next = rest.find('#');
    std::string_view region = rest.substr(0, next);
    size_t equals = region.find('=');
    if (equals == std::string_view::npos || !AllDigits(region.substr(0, equals)) ||
        !AllDigits(region.substr(equals + 1))) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status CheckCommonHeaders(const HttpRequest& request) {
  if (auto version = request.headers.Get(headers::kVersion); version && !IsApiVersion(*version)) {
    return Status::BadRequest("Invalid API version. Ensure a valid x-ms-version header value is passed.");
  }
  if (auto session = request.headers.Get(headers::kSessionToken); session && !session->empty()) {
    std::string_view tokens = *session;
    for (;;) {
      size_t comma = tokens.find(',');
      if (!IsRangeSessionToken(tokens.substr(0, comma))) {
        return Status::BadRequest("The session token provided '" + *session + "' is invalid.");
      }
      if (comma == std::string_view::npos) break;
      tokens.remove_prefix(comma + 1);
    }
  }
  return Status();
}

Status RejectUnsupportedPost(const HttpRequest& request) {
  if (request.headers.IsTrue(headers::kIsBatchRequest)) {
    return Status::BadRequest("Batch requests are served on a container's items (.../docs) only.");
  }
  return RequireJsonBody(request);
}

Result<engine::FeedOptions> FeedOptionsOf(const HttpRequest& request) {
  engine::FeedOptions options;
  std::optional<std::string> text = request.headers.Get(headers::kMaxItemCount);
  if (text && !text->empty()) {
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), options.max_item_count);
    if (error != std::errc() || end != text->data() + text->size() || options.max_item_count < -1 ||
        options.max_item_count == 0) {
      return Status::BadRequest("Invalid value '" + *text +
                                "' for x-ms-max-item-count: use -1 or a positive integer.");
    }
  }
  options.continuation = request.headers.Get(headers::kContinuation);
  options.consistency_level = request.headers.Get(headers::kConsistencyLevel);
  return options;
}

Result<engine::QueryRequest> QueryRequestOf(const HttpRequest& request, engine::ContainerAddress container) {
  std::string media = MediaType(request);
  if (!media.empty() && media != "application/query+json" && media != "application/json") {
    return Status::UnsupportedMediaType("The content type '" + media +
                                        "' is not supported for queries; send application/query+json.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
  engine::QueryRequest query;
  query.container = std::move(container);
  query.body = request.body;
  query.partition_key_header = request.headers.Get(headers::kPartitionKey);
  query.enable_cross_partition = request.headers.IsTrue(headers::kEnableCrossPartition);
  query.populate_index_metrics = request.headers.IsTrue(headers::kPopulateIndexMetrics);
  query.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
  query.start_epk = request.headers.Get(headers::kStartEpk);
  query.end_epk = request.headers.Get(headers::kEndEpk);
  query.correlation_id = request.headers.Get(headers::kCorrelatedActivityId).value_or("");
  query.max_item_count = options.max_item_count;
  query.continuation = options.continuation;
  query.populate_query_metrics = request.headers.IsTrue(headers::kPopulateQueryMetrics);
  query.consistency_level = options.consistency_level;
  return query;
}

engine::Preconditions PreconditionsOf(const HttpRequest& request) {
  return {request.headers.Get(headers::kIfMatch), request.headers.Get(headers::kIfNoneMatch)};
}

bool WantsMinimalResponse(const HttpRequest& request) {
  std::string prefer = ToLowerAscii(request.headers.Get(headers::kPrefer).value_or(""));
  return prefer.find("return=minimal") != std::string::npos;
}

Result<engine::ContainerThroughput> ContainerThroughputOf(const HttpRequest& request) {
  engine::ContainerThroughput throughput;
  if (auto manual = request.headers.Get(headers::kOfferThroughput); manual && !manual->empty()) {
    auto [end, error] = std::from_chars(manual->data(), manual->data() + manual->size(), throughput.manual);
    if (error != std::errc() || end != manual->data() + manual->size() || throughput.manual <= 0) {
      return Status::BadRequest("Invalid value '" + *manual + "' for x-ms-offer-throughput.");
    }
  }
  if (auto autoscale = request.headers.Get(headers::kOfferAutopilotSettings); autoscale && !autoscale->empty()) {
    if (throughput.manual > 0) {
      return Status::BadRequest("A resource has manual or autoscale throughput, not both: send x-ms-offer-throughput "
                                "or x-ms-cosmos-offer-autopilot-settings.");
    }
    Json settings = Json::parse(*autoscale, nullptr, /*allow_exceptions=*/false);
    // Any integer: the engine answers one out of range with the service's message.
    if (settings.is_discarded() || !settings.is_object() || !settings.contains("maxThroughput") ||
        !settings["maxThroughput"].is_number_integer() || settings["maxThroughput"].get<int64_t>() == 0) {
      return Status::BadRequest("Invalid value for x-ms-cosmos-offer-autopilot-settings: expected "
                                "{\"maxThroughput\": <RU/s>}.");
    }
    throughput.autoscale_max = settings["maxThroughput"].get<int64_t>();
    COSMOS_ASSIGN_OR_RETURN(throughput.autoscale_increment_percent, engine::IncrementPercentOf(settings));
  }
  return throughput;
}

}  // namespace cosmos::server
