#include "server/routes.h"

#include <cctype>
#include <charconv>
#include <cstring>
#include <string_view>

#include "common/encoding.h"
#include "common/json.h"
#include "server/auth.h"
#include "server/headers.h"
#include "server/request_reading.h"
#include "server/response_building.h"

namespace cosmos::server {
namespace {

Status WrongMethod(const HttpRequest& request) {
  return Status::MethodNotAllowed("The verb " + request.method + " is not allowed on this resource.");
}

// An item write's document as PrepareWrite parsed it, or its parse failure, which the write
// reports first, as it would have on parsing the body itself; null when nothing was parsed.
Result<engine::ParsedItem*> PreparedItem(RequestContext& context) {
  if (!context.item) return static_cast<engine::ParsedItem*>(nullptr);
  if (!context.item->ok()) return context.item->status();
  return &context.item->value();
}

// --- The account --------------------------------------------------------------------------

// The port of a Host header ("name:port", "[v6]:port"), if it names one.
std::optional<std::string> PortOf(const std::string& host) {
  size_t colon = host.rfind(':');
  if (colon == std::string::npos || host.find(']', colon) != std::string::npos || colon + 1 == host.size()) {
    return std::nullopt;
  }
  return host.substr(colon + 1);
}

// The host of a Host header without its port ("[v6]" keeps its brackets); "localhost" without one.
std::string HostNameOf(const std::string& host) {
  std::optional<std::string> port = PortOf(host);
  std::string name = port ? host.substr(0, host.size() - port->size() - 1) : host;
  return name.empty() ? "localhost" : name;
}

Result<HttpResponse> ReadAccount(const RouteCall& call) {
  // As the official emulator: the SDKs send later requests to this location, and some (Go's
  // global-endpoint tests, Python's multi-region ones) rely on its literal value. Without an
  // advertised host (a container's default), the location is the host the client named, which
  // every client can reach: the published port on the host, the service name in a compose network.
  std::string host_header = call.request.headers.Get(headers::kHost).value_or("");
  std::optional<std::string> port = PortOf(host_header);
  std::string host = call.options.advertised_host.empty() ? HostNameOf(host_header) : call.options.advertised_host;
  std::string endpoint = (call.request.secure ? "https://" : "http://") + host + ":" +
                         port.value_or(std::to_string(call.options.listen_port)) + "/";
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
       {{"defaultConsistencyLevel", engine::ConsistencyLevelName(call.account.options().default_consistency)}}},
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

// --- The feeds at the top of the account: databases and offers ------------------------------

template <Result<engine::FeedResponse> (engine::Account::*kList)(const engine::FeedOptions&)>
Result<HttpResponse> ListTopLevel(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, (call.account.*kList)(options));
  return FromFeed(std::move(feed), false);
}

template <Result<engine::QueryResponse> (engine::Account::*kQuery)(const engine::QueryRequest&)>
Result<HttpResponse> QueryTopLevel(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, {}));
  COSMOS_ASSIGN_OR_RETURN(auto page, (call.account.*kQuery)(query));
  return FromQuery(std::move(page), false);
}

// --- Databases ----------------------------------------------------------------------------

Result<HttpResponse> CreateDatabase(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RejectUnsupportedPost(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto throughput, ContainerThroughputOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto created, call.account.CreateDatabase(call.request.body, throughput));
  return FromResource(std::move(created), 201, false);
}

Result<HttpResponse> ReadDatabase(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto database, call.account.ReadDatabase(NameAt(call.path, 0)));
  return FromResource(std::move(database), 200, false);
}

Result<HttpResponse> DeleteDatabase(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted,
                          call.account.DeleteDatabase(NameAt(call.path, 0), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

// --- Containers ---------------------------------------------------------------------------

Result<HttpResponse> ListContainers(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListContainers(NameAt(call.path, 0), options));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryContainers(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, {}));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryContainers(NameAt(call.path, 0), query));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> CreateContainer(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RejectUnsupportedPost(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto throughput, ContainerThroughputOf(call.request));
  // API versions before 2018-12-31 may create the legacy non-partitioned container.
  std::string version = call.request.headers.Get(headers::kVersion).value_or("");
  bool legacy_api_version = !version.empty() && version < "2018-12-31";
  COSMOS_ASSIGN_OR_RETURN(auto created, call.account.CreateContainer(NameAt(call.path, 0), call.request.body,
                                                                     throughput, legacy_api_version));
  return FromResource(std::move(created), 201, false);
}

Result<HttpResponse> ReadContainer(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto container, call.account.ReadContainer(
                                              ContainerOf(call.path),
                                              call.request.headers.IsTrue(headers::kPopulateQuotaInfo),
                                              call.request.headers.IsTrue(headers::kPopulatePartitionStatistics)));
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

Result<HttpResponse> ReplaceContainer(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplaceContainer(ContainerOf(call.path), call.request.body,
                                                                      PreconditionsOf(call.request)));
  return FromResource(std::move(replaced), 200, false);
}

Result<HttpResponse> DeleteContainer(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted,
                          call.account.DeleteContainer(ContainerOf(call.path), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

// The .NET SDK reads with A-IM: Incremental feed and If-None-Match until it gets 304; the
// others read everything without them.
Result<HttpResponse> ReadPartitionKeyRanges(const RouteCall& call) {
  std::optional<std::string> a_im = call.request.headers.Get(headers::kAIm);
  bool incremental = a_im && ToLowerAscii(*a_im) == "incremental feed";
  COSMOS_ASSIGN_OR_RETURN(auto ranges,
                          call.account.ReadPartitionKeyRanges(
                              ContainerOf(call.path), call.request.headers.Get(headers::kIfNoneMatch), incremental));
  return FromRanges(std::move(ranges));
}

// The container of a request on its documents, with the _rid the SDK believes it has.
engine::ContainerAddress DocumentsOf(const RouteCall& call) {
  engine::ContainerAddress address = ContainerOf(call.path);
  address.intended_rid = call.request.headers.Get(headers::kIntendedCollectionRid).value_or("");
  return address;
}

// --- Offers (throughput) ------------------------------------------------------------------

HttpResponse FromOffer(engine::ResourceResponse offer) {
  int64_t minimum = offer.offer_min_throughput;
  HttpResponse response = FromResource(std::move(offer), 200, false);
  // Splits for a larger throughput happen within the replace: nothing is left pending.
  response.AddHeader(headers::kOfferReplacePending, "false");
  response.AddHeader(headers::kMinThroughput, std::to_string(minimum));
  return response;
}

Result<HttpResponse> ReadOffer(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto offer, call.account.ReadOffer(call.path.ids[0]));
  return FromOffer(std::move(offer));
}

Result<HttpResponse> ReplaceOffer(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto offer, call.account.ReplaceOffer(call.path.ids[0], call.request.body,
                                                               PreconditionsOf(call.request)));
  return FromOffer(std::move(offer));
}

// --- Documents ----------------------------------------------------------------------------

// The latest-version change feed. Where it starts: If-None-Match "*" (now) or a previous page's
// etag (continue), If-Modified-Since (a point in time), or neither (the beginning).
Result<HttpResponse> ReadChangeFeed(const RouteCall& call) {
  const HttpRequest& request = call.request;
  std::string mode = ToLowerAscii(request.headers.Get(headers::kAIm).value_or(""));
  if (mode != "incremental feed" && mode != "full-fidelity feed") {
    return Status::BadRequest("A-IM must be 'Incremental feed' or 'Full-Fidelity Feed'.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
  engine::ChangeFeedRequest feed;
  feed.all_versions_and_deletes = mode == "full-fidelity feed";
  feed.container = DocumentsOf(call);
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
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.ReadChangeFeed(feed));
  std::string etag = page.etag;
  bool not_modified = page.not_modified;
  HttpResponse response = FromFeed(std::move(page), true);
  response.AddHeader(headers::kEtag, etag);
  if (not_modified) {
    response.status = 304;
    response.body.clear();
  }
  return response;
}

// GET .../docs: the change feed when the request names one (A-IM), else the documents.
Result<HttpResponse> ReadItemFeed(const RouteCall& call) {
  const HttpRequest& request = call.request;
  if (request.headers.Get(headers::kAIm)) return ReadChangeFeed(call);
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
  options.partition_key_header = request.headers.Get(headers::kPartitionKey);
  options.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ReadItemFeed(DocumentsOf(call), options));
  return FromFeed(std::move(feed), true);
}

// One page of results, or the SDK's query plan.
Result<HttpResponse> QueryItems(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(request, DocumentsOf(call)));
  if (request.headers.IsTrue(headers::kIsQueryPlanRequest)) {
    COSMOS_ASSIGN_OR_RETURN(auto plan,
                            call.account.QueryPlan(query, request.headers.Get(headers::kSupportedQueryFeatures)));
    return FromQueryPlan(std::move(plan));
  }
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryItems(query));
  return FromQuery(std::move(page), true);
}

// Content-Location of a point operation: the document's name-based path, each id percent-encoded
// where a URL path may not carry it as is.
std::string EncodePathSegment(const std::string& segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (unsigned char c : segment) {
    if (std::isalnum(c) || (c != 0 && std::strchr("-._~!$&'()*+,;=:@", c) != nullptr)) {
      encoded += static_cast<char>(c);
    } else {
      encoded += '%';
      encoded += kHex[c >> 4];
      encoded += kHex[c & 15];
    }
  }
  return encoded;
}

HttpResponse WithContentLocation(HttpResponse response, const RouteCall& call, const std::string& id) {
  response.AddHeader(headers::kContentLocation, "/dbs/" + EncodePathSegment(NameAt(call.path, 0).value) + "/colls/" +
                                                    EncodePathSegment(NameAt(call.path, 1).value) + "/docs/" +
                                                    EncodePathSegment(id));
  return response;
}

// The write of the request's document, with the document as PrepareWrite parsed it.
Result<engine::ItemWrite> ItemWriteOf(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(engine::ParsedItem* parsed_item, PreparedItem(call.context));
  return engine::ItemWrite{DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey),
                           call.request.body, PreconditionsOf(call.request), parsed_item};
}

// A create, or an upsert with x-ms-documentdb-is-upsert.
Result<HttpResponse> CreateItem(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_RETURN_IF_ERROR(RejectUnsupportedPost(request));
  COSMOS_ASSIGN_OR_RETURN(engine::ItemWrite write, ItemWriteOf(call));
  bool upsert = request.headers.IsTrue(headers::kIsUpsert);
  COSMOS_ASSIGN_OR_RETURN(auto written, upsert ? call.account.UpsertItem(write) : call.account.CreateItem(write));
  int status = written.created ? 201 : 200;
  if (WantsMinimalResponse(request)) written.body.clear();
  std::string id = write.parsed != nullptr ? write.parsed->id : std::string();
  return WithContentLocation(FromResource(std::move(written), status, true), call, id);
}

engine::ItemKey ItemKeyOf(const RouteCall& call) {
  return {DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey), NameAt(call.path, 2),
          call.request.headers.Get(headers::kConsistencyLevel)};
}

Result<HttpResponse> ReadItem(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto item, call.account.ReadItem(ItemKeyOf(call), PreconditionsOf(call.request)));
  int status = item.not_modified ? 304 : 200;
  return WithContentLocation(FromResource(std::move(item), status, true), call, NameAt(call.path, 2).value);
}

Result<HttpResponse> ReplaceItem(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(request));
  COSMOS_ASSIGN_OR_RETURN(engine::ItemWrite write, ItemWriteOf(call));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplaceItem(write, NameAt(call.path, 2)));
  if (WantsMinimalResponse(request)) replaced.body.clear();
  return WithContentLocation(FromResource(std::move(replaced), 200, true), call, NameAt(call.path, 2).value);
}

Result<HttpResponse> DeleteItem(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted, call.account.DeleteItem(ItemKeyOf(call), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, true);
}

// A partial document update. The SDKs send it with no Content-Type or application/json(_patch+json):
// none is required.
Result<HttpResponse> PatchItem(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto patched,
                          call.account.PatchItem(ItemKeyOf(call), call.request.body, PreconditionsOf(call.request)));
  if (WantsMinimalResponse(call.request)) patched.body.clear();
  return WithContentLocation(FromResource(std::move(patched), 200, true), call, NameAt(call.path, 2).value);
}

// POST /dbs/{db}/colls/{c}/operations/partitionkeydelete: every item of one logical partition
// (or hierarchical prefix) goes at once.
Result<HttpResponse> DeleteAllItemsByPartitionKey(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted, call.account.DeleteAllItemsByPartitionKey(
                                            DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey)));
  return FromResource(std::move(deleted), 200, true);
}

// --- Users and permissions -----------------------------------------------------------------

engine::UserAddress UserOf(const ResourcePath& path) { return {NameAt(path, 0), NameAt(path, 1)}; }
engine::PermissionAddress PermissionOf(const ResourcePath& path) { return {UserOf(path), NameAt(path, 2)}; }

// x-ms-documentdb-expiry-seconds: how long the resource tokens of a permission answer last.
Result<std::optional<int64_t>> TokenSecondsOf(const HttpRequest& request) {
  std::optional<std::string> text = request.headers.Get(headers::kResourceTokenExpiry);
  if (!text) return std::optional<int64_t>();
  int64_t seconds = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), seconds);
  if (error != std::errc() || end != text->data() + text->size()) {
    return Status::BadRequest("The value of x-ms-documentdb-expiry-seconds must be a number of seconds.");
  }
  return std::optional<int64_t>(seconds);
}

Result<HttpResponse> ListUsers(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListUsers(NameAt(call.path, 0), options));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryUsers(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, {}));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryUsers(NameAt(call.path, 0), query));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> CreateUser(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto created, call.account.CreateUser(NameAt(call.path, 0), call.request.body,
                                                                call.request.headers.IsTrue(headers::kIsUpsert)));
  int status = created.created ? 201 : 200;
  return FromResource(std::move(created), status, false);
}

Result<HttpResponse> ReadUser(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto user, call.account.ReadUser(UserOf(call.path)));
  return FromResource(std::move(user), 200, false);
}

Result<HttpResponse> ReplaceUser(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplaceUser(UserOf(call.path), call.request.body,
                                                                  PreconditionsOf(call.request)));
  return FromResource(std::move(replaced), 200, false);
}

Result<HttpResponse> DeleteUser(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted, call.account.DeleteUser(UserOf(call.path), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

Result<HttpResponse> ListPermissions(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListPermissions(UserOf(call.path), options, seconds));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryPermissions(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, {}));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryPermissions(UserOf(call.path), query, seconds));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> CreatePermission(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto created,
                          call.account.CreatePermission(UserOf(call.path), call.request.body,
                                                        call.request.headers.IsTrue(headers::kIsUpsert), seconds));
  int status = created.created ? 201 : 200;
  return FromResource(std::move(created), status, false);
}

Result<HttpResponse> ReadPermission(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto permission, call.account.ReadPermission(PermissionOf(call.path), seconds));
  return FromResource(std::move(permission), 200, false);
}

Result<HttpResponse> ReplacePermission(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplacePermission(PermissionOf(call.path), call.request.body,
                                                                        PreconditionsOf(call.request), seconds));
  return FromResource(std::move(replaced), 200, false);
}

Result<HttpResponse> DeletePermission(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted,
                          call.account.DeletePermission(PermissionOf(call.path), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

// --- Stored procedures, triggers and user-defined functions ---------------------------------

engine::ScriptKind ScriptKindOf(ResourceKind kind) {
  return kind == ResourceKind::kTrigger               ? engine::ScriptKind::kTrigger
         : kind == ResourceKind::kUserDefinedFunction ? engine::ScriptKind::kUserDefinedFunction
                                                      : engine::ScriptKind::kStoredProcedure;
}

engine::ScriptAddress ScriptOf(const ResourcePath& path) {
  engine::ScriptAddress address{ContainerOf(path), ScriptKindOf(path.kind), {}};
  if (!path.is_feed) address.id = NameAt(path, 2);
  return address;
}

Result<HttpResponse> ListScripts(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListScripts(ScriptOf(call.path), options));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryScripts(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, ContainerOf(call.path)));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryScripts(ScriptOf(call.path), query));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> CreateScript(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto created, call.account.CreateScript(ScriptOf(call.path), call.request.body,
                                                                  call.request.headers.IsTrue(headers::kIsUpsert)));
  int status = created.created ? 201 : 200;
  return FromResource(std::move(created), status, false);
}

Result<HttpResponse> ReadScript(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto script, call.account.ReadScript(ScriptOf(call.path)));
  return FromResource(std::move(script), 200, false);
}

Result<HttpResponse> ReplaceScript(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplaceScript(ScriptOf(call.path), call.request.body,
                                                                    PreconditionsOf(call.request)));
  return FromResource(std::move(replaced), 200, false);
}

Result<HttpResponse> DeleteScript(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted,
                          call.account.DeleteScript(ScriptOf(call.path), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

// POST .../sprocs/{id}: runs the stored procedure with the arguments in the body (a JSON array)
// for the logical partition in the partition key header; with x-ms-documentdb-script-enable-logging,
// its console.log lines come back URL-encoded in x-ms-documentdb-script-log-results.
Result<HttpResponse> ExecuteStoredProcedure(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_ASSIGN_OR_RETURN(auto ran, call.account.ExecuteProcedure(ScriptOf(call.path), request.body,
                                                                   request.headers.Get(headers::kPartitionKey)));
  std::string log = std::move(ran.script_log);
  HttpResponse response = FromResource(std::move(ran), 200, false);
  if (request.headers.IsTrue(headers::kScriptEnableLogging)) {
    response.AddHeader(headers::kScriptLogResults, PercentEncode(log));
  }
  return response;
}

// --- Conflicts (always none: one write region) ---------------------------------------------

Result<HttpResponse> ListConflicts(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListConflicts(ContainerOf(call.path)));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryConflicts(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, ContainerOf(call.path)));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryConflicts(query));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> ReadConflict(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto conflict, call.account.ReadConflict(ContainerOf(call.path)));
  return FromResource(std::move(conflict), 200, false);
}

// A transactional batch (x-ms-cosmos-batch-atomic: true, the default) or a bulk request.
Result<HttpResponse> ExecuteBatch(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(request));
  engine::BatchRequest batch;
  batch.container = DocumentsOf(call);
  batch.body = request.body;
  batch.partition_key_header = request.headers.Get(headers::kPartitionKey);
  batch.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
  std::optional<std::string> atomic = request.headers.Get(headers::kIsBatchAtomic);
  batch.atomic = !atomic || request.headers.IsTrue(headers::kIsBatchAtomic);
  std::optional<std::string> continue_on_error = request.headers.Get(headers::kBatchContinueOnError);
  batch.continue_on_error = !continue_on_error || request.headers.IsTrue(headers::kBatchContinueOnError);
  COSMOS_ASSIGN_OR_RETURN(auto result, call.account.ExecuteBatch(batch));
  return FromBatch(std::move(result), WantsMinimalResponse(request));
}

// --- The table ----------------------------------------------------------------------------
// A new operation is a handler above and a line here; kParsesItem marks the handlers that write
// one document, whose body PrepareWrite parses off the write thread.

using enum ResourceKind;
using enum Addressed;
using enum Verb;

constexpr bool kParsesItem = true;

constexpr Route kRoutes[] = {
    {kAccount, kSingle, kGet, ReadAccount},

    {kDatabase, kFeed, kGet, ListTopLevel<&engine::Account::ListDatabases>},
    {kDatabase, kFeed, kQuery, QueryTopLevel<&engine::Account::QueryDatabases>},
    {kDatabase, kFeed, kPost, CreateDatabase},
    {kDatabase, kSingle, kGet, ReadDatabase},
    {kDatabase, kSingle, kDelete, DeleteDatabase},

    {kContainer, kFeed, kGet, ListContainers},
    {kContainer, kFeed, kQuery, QueryContainers},
    {kContainer, kFeed, kPost, CreateContainer},
    {kContainer, kSingle, kGet, ReadContainer},
    {kContainer, kSingle, kPut, ReplaceContainer},
    {kContainer, kSingle, kDelete, DeleteContainer},

    {kPartitionKeyRange, kFeed, kGet, ReadPartitionKeyRanges},

    {kOffer, kFeed, kGet, ListTopLevel<&engine::Account::ListOffers>},
    {kOffer, kFeed, kQuery, QueryTopLevel<&engine::Account::QueryOffers>},
    {kOffer, kSingle, kGet, ReadOffer},
    {kOffer, kSingle, kPut, ReplaceOffer},

    {kDocument, kFeed, kGet, ReadItemFeed},  // and the change feed (A-IM)
    {kDocument, kFeed, kQuery, QueryItems},
    {kDocument, kFeed, kPost, CreateItem, kParsesItem},
    {kDocument, kFeed, kBatch, ExecuteBatch},
    {kDocument, kSingle, kGet, ReadItem},
    {kDocument, kSingle, kPut, ReplaceItem, kParsesItem},
    {kDocument, kSingle, kDelete, DeleteItem},
    {kDocument, kSingle, kPatch, PatchItem},

    {kContainerOperation, kSingle, kPost, DeleteAllItemsByPartitionKey},

    {kUser, kFeed, kGet, ListUsers},
    {kUser, kFeed, kQuery, QueryUsers},
    {kUser, kFeed, kPost, CreateUser},  // and upsert (x-ms-documentdb-is-upsert)
    {kUser, kSingle, kGet, ReadUser},
    {kUser, kSingle, kPut, ReplaceUser},
    {kUser, kSingle, kDelete, DeleteUser},

    {kPermission, kFeed, kGet, ListPermissions},
    {kPermission, kFeed, kQuery, QueryPermissions},
    {kPermission, kFeed, kPost, CreatePermission},  // and upsert
    {kPermission, kSingle, kGet, ReadPermission},
    {kPermission, kSingle, kPut, ReplacePermission},
    {kPermission, kSingle, kDelete, DeletePermission},

    {kStoredProcedure, kFeed, kGet, ListScripts},
    {kStoredProcedure, kFeed, kQuery, QueryScripts},
    {kStoredProcedure, kFeed, kPost, CreateScript},  // and upsert
    {kStoredProcedure, kSingle, kGet, ReadScript},
    {kStoredProcedure, kSingle, kPut, ReplaceScript},
    {kStoredProcedure, kSingle, kDelete, DeleteScript},
    {kStoredProcedure, kSingle, kPost, ExecuteStoredProcedure},
    {kTrigger, kFeed, kGet, ListScripts},
    {kTrigger, kFeed, kQuery, QueryScripts},
    {kTrigger, kFeed, kPost, CreateScript},
    {kTrigger, kSingle, kGet, ReadScript},
    {kTrigger, kSingle, kPut, ReplaceScript},
    {kTrigger, kSingle, kDelete, DeleteScript},
    {kUserDefinedFunction, kFeed, kGet, ListScripts},
    {kUserDefinedFunction, kFeed, kQuery, QueryScripts},
    {kUserDefinedFunction, kFeed, kPost, CreateScript},
    {kUserDefinedFunction, kSingle, kGet, ReadScript},
    {kUserDefinedFunction, kSingle, kPut, ReplaceScript},
    {kUserDefinedFunction, kSingle, kDelete, DeleteScript},

    {kConflict, kFeed, kGet, ListConflicts},
    {kConflict, kFeed, kQuery, QueryConflicts},
    {kConflict, kSingle, kGet, ReadConflict},
    {kConflict, kSingle, kDelete, ReadConflict},  // nothing to delete: 404 as the read
};

}  // namespace

Verb VerbOf(const HttpRequest& request) {
  const std::string& method = request.method;  // case-sensitive, as in HTTP: "get" is no GET
  if (method == "GET") return kGet;
  if (method == "HEAD") return kHead;
  if (method == "POST") {
    if (IsQuery(request)) return kQuery;
    return request.headers.IsTrue(headers::kIsBatchRequest) ? kBatch : kPost;
  }
  if (method == "PUT") return kPut;
  if (method == "DELETE") return kDelete;
  if (method == "PATCH") return kPatch;
  return kOther;
}

const Route* FindRoute(const ResourcePath& path, Verb verb) {
  Addressed addressed = path.is_feed ? kFeed : kSingle;
  for (const Route& route : kRoutes) {
    if (route.kind == path.kind && route.addressed == addressed && route.verb == verb) return &route;
  }
  return nullptr;
}

Result<HttpResponse> Dispatch(const RouteCall& call) {
  const Route* route = FindRoute(call.path, VerbOf(call.request));
  if (!route) return WrongMethod(call.request);
  return route->handler(call);
}

}  // namespace cosmos::server
