#include "server/request_handler.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <random>

#include <spdlog/spdlog.h>

#include "common/json.h"
#include "engine/admission/request_charge.h"
#include "server/error_mapping.h"
#include "server/headers.h"

namespace cosmos::server {
namespace {

using engine::ContainerAddress;
using engine::FeedResponse;
using engine::ResourceName;
using engine::ResourceResponse;

constexpr char kServiceVersion[] = "version=2.14.0.0";

std::string NewActivityId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  uint64_t high = random(), low = random();
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                static_cast<unsigned>((high >> 16) & 0xFFFF), static_cast<unsigned>(high & 0xFFF),
                static_cast<unsigned>(((low >> 48) & 0x3FFF) | 0x8000),
                static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
  return text;
}

std::string FormatCharge(double charge) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", charge);
  return text;
}

ResourceName NameAt(const ResourcePath& path, size_t index) {
  return ResourceName{path.ids[index], path.is_rid_based};
}

ContainerAddress ContainerOf(const ResourcePath& path) {
  return ContainerAddress{NameAt(path, 0), NameAt(path, 1)};
}

// Media type without parameters, lowercased: "application/json; charset=utf-8" -> "application/json".
std::string MediaType(const HttpRequest& request) {
  std::string value = request.headers.Get(headers::kContentType).value_or("");
  value = value.substr(0, value.find(';'));
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return ToLowerAscii(value);
}

Status RequireJsonBody(const HttpRequest& request) {
  std::string media = MediaType(request);
  if (!media.empty() && media != "application/json") {
    return Status::UnsupportedMediaType("The content type '" + media +
                                        "' is not supported here; send application/json.");
  }
  return Status();
}

// A POST that carries a query rather than a resource to create.
bool IsQuery(const HttpRequest& request) {
  return request.headers.IsTrue(headers::kIsQuery) || request.headers.IsTrue(headers::kIsQueryPlanRequest) ||
         MediaType(request) == "application/query+json";
}

Status RejectUnsupportedPost(const HttpRequest& request) {
  if (request.headers.IsTrue(headers::kIsBatchRequest)) {
    return Status::BadRequest("Batch requests are not supported by this cosmolite build yet.");
  }
  return RequireJsonBody(request);
}

// x-ms-max-item-count and x-ms-continuation.
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

// The query headers of a POST carrying a query (the body is the request's, not copied).
Result<engine::QueryRequest> QueryRequestOf(const HttpRequest& request, ContainerAddress container) {
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

// Headers every item and container response carries.
void AddResourceHeaders(HttpResponse& response, const std::string& etag, const std::string& owner_path,
                        const std::string& owner_rid) {
  if (!etag.empty()) response.AddHeader(headers::kEtag, etag);
  if (!owner_rid.empty()) response.AddHeader(headers::kContentPath, owner_rid);
  if (!owner_path.empty()) response.AddHeader(headers::kAltContentPath, owner_path);
}

// Session consistency bookkeeping: the SDKs echo the token on later reads.
void AddLsnHeaders(HttpResponse& response, int64_t lsn) {
  std::string text = std::to_string(lsn);
  response.AddHeader(headers::kSessionToken, "0:-1#" + text);
  response.AddHeader(headers::kLsn, text);
  response.AddHeader(headers::kGlobalCommittedLsn, text);
}

HttpResponse FromResource(ResourceResponse resource, int status, bool with_lsn) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(resource.body);
  response.AddHeader(headers::kRequestCharge, FormatCharge(resource.request_charge));
  AddResourceHeaders(response, resource.etag, resource.owner_path, resource.owner_rid);
  if (with_lsn) AddLsnHeaders(response, resource.lsn);
  return response;
}

HttpResponse FromFeed(FeedResponse feed, bool with_lsn) {
  HttpResponse response;
  response.body = std::move(feed.body);
  response.AddHeader(headers::kRequestCharge, FormatCharge(feed.request_charge));
  response.AddHeader(headers::kItemCount, std::to_string(feed.count));
  if (feed.continuation) response.AddHeader(headers::kContinuation, *feed.continuation);
  AddResourceHeaders(response, "", feed.owner_path, feed.owner_rid);
  if (with_lsn) AddLsnHeaders(response, feed.lsn);
  return response;
}

std::string JoinIds(const std::vector<int64_t>& ids) {
  std::string text;
  for (int64_t id : ids) {
    if (!text.empty()) text += ',';
    text += std::to_string(id);
  }
  return text;
}

HttpResponse FromQuery(engine::QueryResponse page, bool with_lsn) {
  std::string metrics = std::move(page.query_metrics);
  engine::QueryFanOut fan_out = std::move(page.fan_out);
  std::optional<int64_t> served_range = page.served_range_id;
  HttpResponse response = FromFeed(std::move(page), with_lsn);
  if (!metrics.empty()) response.AddHeader(headers::kQueryMetrics, metrics);
  if (served_range) response.AddHeader(headers::kPartitionKeyRangeId, std::to_string(*served_range));
  response.AddHeader(headers::kCosmolitePartitionCount, std::to_string(fan_out.range_ids.size()));
  response.AddHeader(headers::kCosmolitePartitionIds, JoinIds(fan_out.range_ids));
  response.AddHeader(headers::kCosmoliteDocumentsScanned, std::to_string(fan_out.documents_scanned));
  response.AddHeader(headers::kCosmoliteDocumentsReturned, std::to_string(fan_out.documents_returned));
  response.AddHeader(headers::kCosmoliteNarrowedByPartitionKey, fan_out.by_partition_key ? "true" : "false");
  return response;
}

// Throughput asked for on database or container create: x-ms-offer-throughput (manual RU/s) or
// x-ms-cosmos-offer-autopilot-settings {"maxThroughput": N} (autoscale).
Result<engine::ContainerThroughput> ContainerThroughputOf(const HttpRequest& request) {
  engine::ContainerThroughput throughput;
  if (auto manual = request.headers.Get(headers::kOfferThroughput); manual && !manual->empty()) {
    auto [end, error] = std::from_chars(manual->data(), manual->data() + manual->size(), throughput.manual);
    if (error != std::errc() || end != manual->data() + manual->size() || throughput.manual <= 0) {
      return Status::BadRequest("Invalid value '" + *manual + "' for x-ms-offer-throughput.");
    }
  }
  if (auto autoscale = request.headers.Get(headers::kOfferAutopilotSettings); autoscale && !autoscale->empty()) {
    Json settings = Json::parse(*autoscale, nullptr, /*allow_exceptions=*/false);
    if (settings.is_discarded() || !settings.is_object() || !settings.contains("maxThroughput") ||
        !settings["maxThroughput"].is_number_integer() || settings["maxThroughput"].get<int64_t>() <= 0) {
      return Status::BadRequest("Invalid value for x-ms-cosmos-offer-autopilot-settings: expected "
                                "{\"maxThroughput\": <RU/s>}.");
    }
    throughput.autoscale_max = settings["maxThroughput"].get<int64_t>();
  }
  return throughput;
}

HttpResponse PlainText(int status, std::string content_type, std::string body) {
  HttpResponse response;
  response.status = status;
  response.AddHeader(headers::kResponseContentType, std::move(content_type));
  response.body = std::move(body);
  return response;
}

// An item write's document as PrepareWrite parsed it, or its parse failure, which the write
// reports first, as it would have on parsing the body itself; null when nothing was parsed.
Result<engine::ParsedItem*> PreparedItem(RequestContext& context) {
  if (!context.item) return static_cast<engine::ParsedItem*>(nullptr);
  if (!context.item->ok()) return context.item->status();
  return &context.item->value();
}

Status WrongMethod(const HttpRequest& request) {
  return Status::MethodNotAllowed("The verb " + request.method + " is not allowed on this resource.");
}

}  // namespace

RequestHandler::RequestHandler(engine::Account& account, MasterKeyAuth auth, HandlerOptions options)
    : account_(account), auth_(std::move(auth)), options_(std::move(options)) {
  if (!options_.now_seconds) {
    options_.now_seconds = [] {
      return std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

HttpResponse RequestHandler::Handle(const HttpRequest& request) const {
  RequestContext context = Inspect(request, /*parse_item=*/false);
  HttpResponse response = Finish(request, context);
  CompleteAnswer(response, context);
  return response;
}

PreparedWrite RequestHandler::PrepareWrite(HttpRequest request) const {
  PreparedWrite prepared{std::move(request), {}};
  prepared.context = Inspect(prepared.request, /*parse_item=*/true);
  return prepared;
}

RequestContext RequestHandler::Inspect(const HttpRequest& request, bool parse_item) const {
  RequestContext context;
  context.started = std::chrono::steady_clock::now();
  context.path_text = request.target.substr(0, request.target.find('?'));
  const std::string& path_text = context.path_text;

  // Operational endpoints: no signature, as with the official emulators.
  if (request.method == "GET" && (path_text == "/alive" || path_text == "/ready")) {
    context.operational = PlainText(200, "text/plain", "OK");
    return context;
  }
  if (request.method == "GET" && path_text == "/_explorer/emulator.pem") {
    context.operational = options_.certificate_pem.empty()
                              ? PlainText(404, "text/plain", "TLS is off\n")
                              : PlainText(200, "application/x-pem-file", options_.certificate_pem);
    return context;
  }

  context.activity_id = request.headers.Get(headers::kActivityId).value_or("");
  if (context.activity_id.empty()) context.activity_id = NewActivityId();

  context.is_admin = path_text.rfind("/_cosmolite/", 0) == 0;
  if (context.is_admin) return context;
  Result<ResourcePath> path = ResourcePath::Parse(path_text);
  if (!path.ok()) {
    context.refused = path.status();
    return context;
  }
  context.refused = auth_.Verify(request, path->auth_resource_type, path->auth_resource_link, options_.now_seconds());
  bool item_write = path->kind == ResourceKind::kDocument &&
                    (path->is_feed ? request.method == "POST" && !IsQuery(request) : request.method == "PUT");
  if (parse_item && context.refused.ok() && item_write) context.item = engine::Account::ParseItem(request.body);
  context.path = std::move(path.value());
  return context;
}

HttpResponse RequestHandler::Finish(const HttpRequest& request, RequestContext& context) const {
  if (context.operational) return std::move(*context.operational);
  HttpResponse response;
  Status status = context.refused;
  if (status.ok()) {
    try {
      Result<HttpResponse> dispatched =
          context.is_admin ? Admin(request, context.path_text) : Dispatch(request, context);
      if (dispatched.ok()) {
        response = std::move(dispatched.value());
      } else {
        status = dispatched.status();
      }
    } catch (const std::exception& error) {  // a bug: answer 500 rather than lose the process
      status = Status::Internal(std::string("Internal error: ") + error.what());
    }
  }
  if (status.code() == ErrorCode::kInternal) {
    spdlog::error("activity {}: {} {}: {}", context.activity_id, request.method, context.path_text, status.message());
  }
  if (!status.ok()) {
    response = ErrorResponse(status, context.activity_id);
    // Unauthenticated and throttled requests consume nothing.
    bool charged = status.code() != ErrorCode::kUnauthorized && status.code() != ErrorCode::kForbidden &&
                   status.code() != ErrorCode::kRequestRateTooLarge;
    response.AddHeader(headers::kRequestCharge, FormatCharge(charged ? engine::FailedRequestCharge() : 0.0));
  }

  return response;
}

void RequestHandler::CompleteAnswer(HttpResponse& response, const RequestContext& context) const {
  if (context.operational) return;  // /ready and the certificate: plain answers
  AddCommonHeaders(response, context.activity_id, context.started);
}

void RequestHandler::AddCommonHeaders(HttpResponse& response, const std::string& activity_id,
                                      std::chrono::steady_clock::time_point started) const {
  response.AddHeader(headers::kActivityId, activity_id);
  response.AddHeader(headers::kResponseDate, FormatHttpDate(options_.now_seconds()));
  response.AddHeader(headers::kServiceVersion, kServiceVersion);
  if (!response.body.empty() && !response.FindHeader(headers::kResponseContentType)) {
    response.AddHeader(headers::kResponseContentType, "application/json");
  }
  double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.3f", elapsed_ms);
  response.AddHeader(headers::kRequestDurationMs, duration);
}

bool RequestHandler::MayWrite(const HttpRequest& request) {
  return request.method != "GET" && request.method != "HEAD" && !(request.method == "POST" && IsQuery(request));
}

std::vector<HttpResponse> RequestHandler::HandleWrites(const std::vector<PreparedWrite*>& writes) const {
  std::vector<HttpResponse> responses;
  responses.reserve(writes.size());
  Status committed = account_.RunWriteBatch([&] {
    for (PreparedWrite* write : writes) responses.push_back(Finish(write->request, write->context));
  });
  if (!committed.ok()) {
    spdlog::error("a write batch of {} requests failed to commit: {}", writes.size(), committed.message());
    for (size_t index = 0; index < writes.size(); ++index) {
      HttpResponse& response = responses[index];
      if (response.status >= 300) continue;
      const RequestContext& context = writes[index]->context;
      response = ErrorResponse(committed, context.activity_id);
      response.AddHeader(headers::kRequestCharge, FormatCharge(0.0));
    }
  }
  return responses;
}

Result<HttpResponse> RequestHandler::Dispatch(const HttpRequest& request, RequestContext& context) const {
  const ResourcePath& path = *context.path;
  const std::string& method = request.method;
  switch (path.kind) {
    case ResourceKind::kAccount:
      if (method != "GET") return WrongMethod(request);
      return DatabaseAccount(request);

    case ResourceKind::kDatabase:
      if (path.is_feed) {
        if (method == "GET") {
          COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
          COSMOS_ASSIGN_OR_RETURN(auto feed, account_.ListDatabases(options));
          return FromFeed(std::move(feed), false);
        }
        if (method == "POST") {
          if (IsQuery(request)) {
            COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(request, {}));
            COSMOS_ASSIGN_OR_RETURN(auto page, account_.QueryDatabases(query));
            return FromQuery(std::move(page), false);
          }
          COSMOS_RETURN_IF_ERROR(RejectUnsupportedPost(request));
          COSMOS_ASSIGN_OR_RETURN(auto throughput, ContainerThroughputOf(request));
          COSMOS_ASSIGN_OR_RETURN(auto created, account_.CreateDatabase(request.body, throughput));
          return FromResource(std::move(created), 201, false);
        }
        return WrongMethod(request);
      }
      if (method == "GET") {
        COSMOS_ASSIGN_OR_RETURN(auto database, account_.ReadDatabase(NameAt(path, 0)));
        return FromResource(std::move(database), 200, false);
      }
      if (method == "DELETE") {
        COSMOS_ASSIGN_OR_RETURN(auto deleted, account_.DeleteDatabase(NameAt(path, 0), PreconditionsOf(request)));
        return FromResource(std::move(deleted), 204, false);
      }
      return WrongMethod(request);

    case ResourceKind::kContainer:
      if (path.is_feed) {
        if (method == "GET") {
          COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
          COSMOS_ASSIGN_OR_RETURN(auto feed, account_.ListContainers(NameAt(path, 0), options));
          return FromFeed(std::move(feed), false);
        }
        if (method == "POST") {
          if (IsQuery(request)) {
            COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(request, {}));
            COSMOS_ASSIGN_OR_RETURN(auto page, account_.QueryContainers(NameAt(path, 0), query));
            return FromQuery(std::move(page), false);
          }
          COSMOS_RETURN_IF_ERROR(RejectUnsupportedPost(request));
          COSMOS_ASSIGN_OR_RETURN(auto throughput, ContainerThroughputOf(request));
          COSMOS_ASSIGN_OR_RETURN(auto created, account_.CreateContainer(NameAt(path, 0), request.body, throughput));
          return FromResource(std::move(created), 201, false);
        }
        return WrongMethod(request);
      }
      if (method == "GET") {
        COSMOS_ASSIGN_OR_RETURN(auto container, account_.ReadContainer(ContainerOf(path),
                                                                       request.headers.IsTrue(headers::kPopulateQuotaInfo)));
        std::string quota = std::move(container.resource_quota);
        std::string usage = std::move(container.resource_usage);
        int64_t progress = container.index_transformation_progress;
        HttpResponse response = FromResource(std::move(container), 200, true);
        response.AddHeader(headers::kIndexTransformationProgress, std::to_string(progress));
        if (!quota.empty()) {
          response.AddHeader(headers::kResourceQuota, quota);
          response.AddHeader(headers::kResourceUsage, usage);
        }
        return response;
      }
      if (method == "PUT") {
        COSMOS_RETURN_IF_ERROR(RequireJsonBody(request));
        COSMOS_ASSIGN_OR_RETURN(auto replaced, account_.ReplaceContainer(ContainerOf(path), request.body,
                                                                         PreconditionsOf(request)));
        return FromResource(std::move(replaced), 200, false);
      }
      if (method == "DELETE") {
        COSMOS_ASSIGN_OR_RETURN(auto deleted, account_.DeleteContainer(ContainerOf(path), PreconditionsOf(request)));
        return FromResource(std::move(deleted), 204, false);
      }
      return WrongMethod(request);

    case ResourceKind::kOffer:
      if (path.is_feed) {
        if (method == "GET") {
          COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
          COSMOS_ASSIGN_OR_RETURN(auto feed, account_.ListOffers(options));
          return FromFeed(std::move(feed), false);
        }
        if (method == "POST" && IsQuery(request)) {
          COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(request, {}));
          COSMOS_ASSIGN_OR_RETURN(auto page, account_.QueryOffers(query));
          return FromQuery(std::move(page), false);
        }
        return WrongMethod(request);
      }
      if (method == "GET" || method == "PUT") {
        if (method == "PUT") COSMOS_RETURN_IF_ERROR(RequireJsonBody(request));
        COSMOS_ASSIGN_OR_RETURN(auto offer, method == "GET" ? account_.ReadOffer(path.ids[0])
                                                            : account_.ReplaceOffer(path.ids[0], request.body,
                                                                                    PreconditionsOf(request)));
        int64_t minimum = offer.offer_min_throughput;
        HttpResponse response = FromResource(std::move(offer), 200, false);
        // Splits for a larger throughput happen within the replace: nothing is left pending.
        response.AddHeader(headers::kOfferReplacePending, "false");
        response.AddHeader(headers::kMinThroughput, std::to_string(minimum));
        return response;
      }
      return WrongMethod(request);

    case ResourceKind::kPartitionKeyRange:
      if (!path.is_feed || method != "GET") return WrongMethod(request);
      return PartitionKeyRanges(request, path);

    case ResourceKind::kDocument:
      break;
  }

  std::optional<std::string> partition_key = request.headers.Get(headers::kPartitionKey);
  if (path.is_feed) {
    if (method == "GET") {
      if (std::optional<std::string> a_im = request.headers.Get(headers::kAIm)) return ChangeFeed(request, path);
      COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
      options.partition_key_header = partition_key;
      options.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
      COSMOS_ASSIGN_OR_RETURN(auto feed, account_.ReadItemFeed(ContainerOf(path), options));
      return FromFeed(std::move(feed), true);
    }
    if (method == "POST") {
      if (IsQuery(request)) return QueryItems(request, path);
      COSMOS_RETURN_IF_ERROR(RejectUnsupportedPost(request));
      COSMOS_ASSIGN_OR_RETURN(engine::ParsedItem* parsed_item, PreparedItem(context));
      engine::ItemWrite write{ContainerOf(path), partition_key, request.body, PreconditionsOf(request), parsed_item};
      bool upsert = request.headers.IsTrue(headers::kIsUpsert);
      COSMOS_ASSIGN_OR_RETURN(auto written, upsert ? account_.UpsertItem(write) : account_.CreateItem(write));
      int status = written.created ? 201 : 200;
      if (WantsMinimalResponse(request)) written.body.clear();
      return FromResource(std::move(written), status, true);
    }
    return WrongMethod(request);
  }

  engine::ItemKey key{ContainerOf(path), partition_key, NameAt(path, 2),
                      request.headers.Get(headers::kConsistencyLevel)};
  if (method == "GET") {
    COSMOS_ASSIGN_OR_RETURN(auto item, account_.ReadItem(key, PreconditionsOf(request)));
    int status = item.not_modified ? 304 : 200;
    return FromResource(std::move(item), status, true);
  }
  if (method == "PUT") {
    COSMOS_RETURN_IF_ERROR(RequireJsonBody(request));
    COSMOS_ASSIGN_OR_RETURN(engine::ParsedItem* parsed_item, PreparedItem(context));
    engine::ItemWrite write{key.container, partition_key, request.body, PreconditionsOf(request), parsed_item};
    COSMOS_ASSIGN_OR_RETURN(auto replaced, account_.ReplaceItem(write, key.id));
    if (WantsMinimalResponse(request)) replaced.body.clear();
    return FromResource(std::move(replaced), 200, true);
  }
  if (method == "DELETE") {
    COSMOS_ASSIGN_OR_RETURN(auto deleted, account_.DeleteItem(key, PreconditionsOf(request)));
    return FromResource(std::move(deleted), 204, true);
  }
  if (method == "PATCH") {
    return Status::MethodNotAllowed("Partial document update (PATCH) is not supported by this cosmolite build yet.");
  }
  return WrongMethod(request);
}

HttpResponse RequestHandler::DatabaseAccount(const HttpRequest& request) const {
  std::string host = request.headers.Get(headers::kHost).value_or(options_.fallback_host);
  std::string endpoint = (request.secure ? "https://" : "http://") + host + "/";
  Json location = {{"name", "South Central US"}, {"databaseAccountEndpoint", endpoint}};
  Json query_engine = {{"maxSqlQueryInputLength", 262144},
                       {"maxJoinsPerSqlQuery", 10},
                       {"maxLogicalAndPerSqlQuery", 500},
                       {"maxLogicalOrPerSqlQuery", 500},
                       {"maxUdfRefPerSqlQuery", 10},
                       {"maxInExpressionItemsCount", 16000},
                       {"queryMaxInMemorySortDocumentCount", 500},
                       {"maxQueryRequestTimeoutFraction", 0.9},
                       {"sqlAllowNonFiniteNumbers", false},
                       {"sqlAllowAggregateFunctions", true},
                       {"sqlAllowSubQuery", true},
                       {"sqlAllowScalarSubQuery", true},
                       {"allowNewKeywords", true},
                       {"sqlAllowLike", true},
                       {"sqlAllowGroupByClause", true},
                       {"maxSpatialQueryCells", 12},
                       {"spatialMaxGeometryPointCount", 256},
                       {"sqlDisableOptimizationFlags", 0},
                       {"enableSpatialIndexing", true}};
  Json account = {
      {"_self", ""},
      {"id", "localhost"},
      {"_rid", "localhost"},
      {"media", "//media/"},
      {"addresses", "//addresses/"},
      {"_dbs", "//dbs/"},
      {"writableLocations", Json::array({location})},
      {"readableLocations", Json::array({location})},
      {"enableMultipleWriteLocations", false},
      {"continuousBackupEnabled", false},
      {"enableNRegionSynchronousCommit", false},
      {"enablePerPartitionFailoverBehavior", false},
      {"userReplicationPolicy", {{"asyncReplication", false}, {"minReplicaSetSize", 1}, {"maxReplicasetSize", 4}}},
      {"userConsistencyPolicy",
       {{"defaultConsistencyLevel", engine::ConsistencyLevelName(account_.options().default_consistency)}}},
      {"systemReplicationPolicy", {{"minReplicaSetSize", 1}, {"maxReplicasetSize", 4}}},
      {"readPolicy", {{"primaryReadCoefficient", 1}, {"secondaryReadCoefficient", 1}}},
      {"queryEngineConfiguration", query_engine.dump()}};
  HttpResponse response;
  response.body = account.dump();
  response.AddHeader(headers::kRequestCharge, FormatCharge(0));
  response.AddHeader("x-ms-max-media-storage-usage-mb", "10240");
  response.AddHeader("x-ms-media-storage-usage-mb", "0");
  return response;
}

Result<HttpResponse> RequestHandler::QueryItems(const HttpRequest& request, const ResourcePath& path) const {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(request, ContainerOf(path)));
  if (request.headers.IsTrue(headers::kIsQueryPlanRequest)) {
    COSMOS_ASSIGN_OR_RETURN(auto plan, account_.QueryPlan(query, request.headers.Get(headers::kSupportedQueryFeatures)));
    HttpResponse response;
    response.body = std::move(plan.body);
    response.AddHeader(headers::kRequestCharge, FormatCharge(0));
    response.AddHeader(headers::kCosmolitePartitionCount, std::to_string(plan.range_ids.size()));
    response.AddHeader(headers::kCosmolitePartitionIds, JoinIds(plan.range_ids));
    return response;
  }
  COSMOS_ASSIGN_OR_RETURN(auto page, account_.QueryItems(query));
  return FromQuery(std::move(page), true);
}

// The latest-version change feed. Where it starts: If-None-Match "*" (now) or a previous page's
// etag (continue), If-Modified-Since (a point in time), or neither (the beginning).
Result<HttpResponse> RequestHandler::ChangeFeed(const HttpRequest& request, const ResourcePath& path) const {
  std::string mode = ToLowerAscii(request.headers.Get(headers::kAIm).value_or(""));
  if (mode != "incremental feed" && mode != "full-fidelity feed") {
    return Status::BadRequest("A-IM must be 'Incremental feed' or 'Full-Fidelity Feed'.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
  engine::ChangeFeedRequest feed;
  feed.all_versions_and_deletes = mode == "full-fidelity feed";
  feed.container = ContainerOf(path);
  feed.partition_key_header = request.headers.Get(headers::kPartitionKey);
  feed.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
  feed.start_epk = request.headers.Get(headers::kStartEpk);
  feed.end_epk = request.headers.Get(headers::kEndEpk);
  feed.max_item_count = options.max_item_count;
  std::optional<std::string> if_none_match = request.headers.Get(headers::kIfNoneMatch);
  std::optional<std::string> if_modified_since = request.headers.Get(headers::kIfModifiedSince);
  if (if_none_match && *if_none_match == "*") {
    feed.start_from = engine::ChangeFeedRequest::StartFrom::kNow;
  } else if (if_none_match && !if_none_match->empty()) {
    std::string_view text = *if_none_match;
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), feed.continuation_lsn);
    if (error != std::errc() || end != text.data() + text.size() || feed.continuation_lsn < 0) {
      return Status::BadRequest("The change feed continuation '" + *if_none_match + "' is malformed.");
    }
    feed.start_from = engine::ChangeFeedRequest::StartFrom::kContinuation;
  } else if (if_modified_since && !if_modified_since->empty()) {
    std::optional<int64_t> since = ParseHttpDate(*if_modified_since);
    if (!since) return Status::BadRequest("If-Modified-Since '" + *if_modified_since + "' is not an HTTP date.");
    feed.start_from = engine::ChangeFeedRequest::StartFrom::kTime;
    feed.since_seconds = *since;
  }
  COSMOS_ASSIGN_OR_RETURN(auto page, account_.ReadChangeFeed(feed));
  std::string etag = page.etag;
  bool not_modified = page.not_modified;
  std::optional<int64_t> served_range = page.served_range_id;
  HttpResponse response = FromFeed(std::move(page), true);
  response.AddHeader(headers::kEtag, etag);
  if (served_range) response.AddHeader(headers::kPartitionKeyRangeId, std::to_string(*served_range));
  if (not_modified) {
    response.status = 304;
    response.body.clear();
  }
  return response;
}

// The .NET SDK reads with A-IM: Incremental feed and If-None-Match until it gets 304; the
// others read everything without them.
Result<HttpResponse> RequestHandler::PartitionKeyRanges(const HttpRequest& request,
                                                        const ResourcePath& path) const {
  std::optional<std::string> a_im = request.headers.Get(headers::kAIm);
  bool incremental = a_im && ToLowerAscii(*a_im) == "incremental feed";
  COSMOS_ASSIGN_OR_RETURN(auto ranges, account_.ReadPartitionKeyRanges(
                                           ContainerOf(path), request.headers.Get(headers::kIfNoneMatch), incremental));
  return FromRanges(std::move(ranges));
}

HttpResponse RequestHandler::FromRanges(engine::PartitionKeyRangesResponse ranges) const {
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

// Administration, outside the Cosmos REST surface (documented in the README), unsigned like
// /alive: POST /_cosmolite/dbs/{db}/colls/{coll}/pkranges/{id}/split splits a physical partition;
// GET /_cosmolite/queries lists recent queries with their cost and fan-out.
Result<HttpResponse> RequestHandler::Admin(const HttpRequest& request, std::string_view path_text) const {
  constexpr std::string_view kPrefix = "/_cosmolite/";
  constexpr std::string_view kSplitSuffix = "/split";
  std::string_view rest = path_text.substr(kPrefix.size());
  if (request.method == "POST" && rest.size() > kSplitSuffix.size() &&
      rest.substr(rest.size() - kSplitSuffix.size()) == kSplitSuffix) {
    rest.remove_suffix(kSplitSuffix.size());
    size_t slash = rest.rfind('/');
    std::string_view id_text = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    int64_t range_id = -1;
    auto [end, error] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), range_id);
    // The ranges feed path (rest is "dbs/{db}/colls/{container}/pkranges/{id}" without the prefix's '/').
    std::string feed_path(path_text.substr(kPrefix.size() - 1, slash == std::string_view::npos ? 0 : slash + 1));
    COSMOS_ASSIGN_OR_RETURN(auto ranges_path, ResourcePath::Parse(feed_path));
    if (error != std::errc() || end != id_text.data() + id_text.size() ||
        ranges_path.kind != ResourceKind::kPartitionKeyRange || !ranges_path.is_feed) {
      return Status::BadRequest("Use POST /_cosmolite/dbs/{db}/colls/{container}/pkranges/{range id}/split.");
    }
    COSMOS_ASSIGN_OR_RETURN(auto ranges, account_.SplitPartitionKeyRange(ContainerOf(ranges_path), range_id));
    return FromRanges(std::move(ranges));
  }
  if (request.method == "GET" && path_text == "/_cosmolite/queries") {
    HttpResponse response;
    response.body = account_.query_log().Recent().dump(2);
    return response;
  }
  if (request.method == "GET" && path_text == "/_cosmolite/partitions") {
    constexpr int64_t kLargestLogicalPartitions = 5;
    HttpResponse response;
    COSMOS_ASSIGN_OR_RETURN(response.body, account_.PartitionReport(kLargestLogicalPartitions));
    return response;
  }
  return Status::NotFound("No such cosmolite administration endpoint: " + request.method + " " +
                          std::string(path_text));
}

}  // namespace cosmos::server
