// Routes (route_handlers.h): the account, databases, containers with their partition key ranges,
// offers and conflicts.
#include "server/route_handlers.h"

#include "common/encoding.h"
#include "common/json.h"
#include "server/headers.h"
#include "server/request_reading.h"
#include "server/response_building.h"

namespace cosmos::server {

// --- The account --------------------------------------------------------------------------

// The port of a Host header ("name:port", "[v6]:port"), if it names one.
static std::optional<std::string> PortOf(const std::string& host) {
  size_t colon = host.rfind(':');
  if (colon == std::string::npos || host.find(']', colon) != std::string::npos || colon + 1 == host.size()) {
    return std::nullopt;
  }
  return host.substr(colon + 1);
}

// The host of a Host header without its port ("[v6]" keeps its brackets); "localhost" without one.
static std::string HostNameOf(const std::string& host) {
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


// --- Offers (throughput) ------------------------------------------------------------------

static HttpResponse FromOffer(engine::ResourceResponse offer) {
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

}  // namespace cosmos::server
