#include "bench/cosmos_request.h"

#include <nlohmann/json.hpp>

namespace cosmos::bench {

Request BuildRequest(const CosmosCall& call, const MasterKeySigner& signer, const std::string& date,
                     const std::string& host_header) {
  Request request(call.verb, call.path, 11);
  request.set(http::field::host, host_header);
  request.set("x-ms-date", date);
  request.set("x-ms-version", kApiVersion);
  auto verb = http::to_string(call.verb);
  request.set(http::field::authorization, signer.Authorization(std::string_view(verb.data(), verb.size()),
                                                               call.resource_type, call.resource_link, date));
  request.set(http::field::accept, "application/json");
  if (!call.partition_key.empty()) request.set("x-ms-documentdb-partitionkey", call.partition_key);
  if (call.upsert) request.set("x-ms-documentdb-is-upsert", "True");
  for (const auto& [name, value] : call.headers) request.set(name, value);
  if (!call.body.empty() || call.verb == http::verb::post || call.verb == http::verb::put) {
    request.set(http::field::content_type, call.content_type);
    request.body() = call.body;
  }
  request.keep_alive(true);
  request.prepare_payload();
  return request;
}

std::string JsonString(const std::string& text) { return nlohmann::json(text).dump(); }

CosmosCall CreateDatabaseCall(const std::string& database) {
  CosmosCall call;
  call.verb = http::verb::post;
  call.path = "/dbs";
  call.resource_type = "dbs";
  call.body = nlohmann::json{{"id", database}}.dump();
  return call;
}

CosmosCall CreateContainerCall(const std::string& database, const std::string& container,
                               const std::string& partition_key_path, int64_t throughput,
                               const std::string& indexing_policy) {
  CosmosCall call;
  call.verb = http::verb::post;
  call.path = "/dbs/" + UrlEncode(database) + "/colls";
  call.resource_type = "colls";
  call.resource_link = "dbs/" + database;
  nlohmann::json body = {{"id", container}, {"partitionKey", {{"paths", {partition_key_path}}, {"kind", "Hash"}}}};
  if (!indexing_policy.empty()) body["indexingPolicy"] = nlohmann::json::parse(indexing_policy);
  call.body = body.dump();
  if (throughput > 0) call.headers.emplace_back("x-ms-offer-throughput", std::to_string(throughput));
  return call;
}

CosmosCall ReadPartitionKeyRangesCall(const std::string& database, const std::string& container) {
  CosmosCall call;
  call.path = "/dbs/" + UrlEncode(database) + "/colls/" + UrlEncode(container) + "/pkranges";
  call.resource_type = "pkranges";
  call.resource_link = "dbs/" + database + "/colls/" + container;
  return call;
}

CosmosCall DeleteContainerCall(const std::string& database, const std::string& container) {
  CosmosCall call;
  call.verb = http::verb::delete_;
  call.path = "/dbs/" + UrlEncode(database) + "/colls/" + UrlEncode(container);
  call.resource_type = "colls";
  call.resource_link = "dbs/" + database + "/colls/" + container;
  return call;
}

namespace {

// A request on a container's document feed (create, bulk, read feed, query, change feed).
CosmosCall DocsCall(http::verb verb, const std::string& database, const std::string& container) {
  CosmosCall call;
  call.verb = verb;
  call.path = "/dbs/" + UrlEncode(database) + "/colls/" + UrlEncode(container) + "/docs";
  call.resource_type = "docs";
  call.resource_link = "dbs/" + database + "/colls/" + container;
  return call;
}

}  // namespace

CosmosCall CreateDocumentCall(const std::string& database, const std::string& container, std::string body,
                              const std::string& partition_key_value, bool upsert) {
  CosmosCall call = DocsCall(http::verb::post, database, container);
  call.body = std::move(body);
  call.partition_key = "[" + JsonString(partition_key_value) + "]";
  call.upsert = upsert;
  return call;
}

CosmosCall BulkCall(const std::string& database, const std::string& container, std::string operations,
                    const std::string& range_id) {
  CosmosCall call = DocsCall(http::verb::post, database, container);
  call.body = std::move(operations);
  call.headers.emplace_back("x-ms-cosmos-is-batch-request", "True");
  call.headers.emplace_back("x-ms-cosmos-batch-atomic", "False");
  call.headers.emplace_back("x-ms-cosmos-batch-continue-on-error", "True");
  call.headers.emplace_back("x-ms-documentdb-partitionkeyrangeid", range_id);
  return call;
}

namespace {

// A request on one document (read, delete).
CosmosCall DocumentCall(http::verb verb, const std::string& database, const std::string& container,
                        const std::string& id, const std::string& partition_key_value) {
  CosmosCall call;
  call.verb = verb;
  call.path = "/dbs/" + UrlEncode(database) + "/colls/" + UrlEncode(container) + "/docs/" + UrlEncode(id);
  call.resource_type = "docs";
  call.resource_link = "dbs/" + database + "/colls/" + container + "/docs/" + id;
  call.partition_key = "[" + JsonString(partition_key_value) + "]";
  return call;
}

}  // namespace

CosmosCall ReadDocumentCall(const std::string& database, const std::string& container, const std::string& id,
                            const std::string& partition_key_value) {
  return DocumentCall(http::verb::get, database, container, id, partition_key_value);
}

CosmosCall DeleteDocumentCall(const std::string& database, const std::string& container, const std::string& id,
                              const std::string& partition_key_value) {
  return DocumentCall(http::verb::delete_, database, container, id, partition_key_value);
}

CosmosCall ReadFeedCall(const std::string& database, const std::string& container, int max_item_count,
                        const std::string& continuation) {
  CosmosCall call = DocsCall(http::verb::get, database, container);
  call.headers.emplace_back("x-ms-max-item-count", std::to_string(max_item_count));
  if (!continuation.empty()) call.headers.emplace_back("x-ms-continuation", continuation);
  return call;
}

CosmosCall ChangeFeedCall(const std::string& database, const std::string& container, const std::string& range_id,
                          const std::string& etag, int max_item_count) {
  CosmosCall call = ReadFeedCall(database, container, max_item_count, "");
  call.headers.emplace_back("a-im", "Incremental feed");
  call.headers.emplace_back("x-ms-documentdb-partitionkeyrangeid", range_id);
  if (!etag.empty()) call.headers.emplace_back("if-none-match", etag);
  return call;
}

CosmosCall QueryDocumentsCall(const std::string& database, const std::string& container, const std::string& query,
                              const std::vector<std::pair<std::string, std::string>>& parameters,
                              const QueryCallOptions& page) {
  CosmosCall call = DocsCall(http::verb::post, database, container);
  call.content_type = "application/query+json";
  // Built as text: the values are already JSON, and this runs once per request on the client threads.
  call.body = "{\"query\":" + JsonString(query) + ",\"parameters\":[";
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (i > 0) call.body += ',';
    call.body += "{\"name\":" + JsonString(parameters[i].first) + ",\"value\":" + parameters[i].second + "}";
  }
  call.body += "]}";
  call.headers.emplace_back("x-ms-documentdb-isquery", "True");
  if (page.partition_key_value.empty()) {
    call.headers.emplace_back("x-ms-documentdb-query-enablecrosspartition", "True");
  } else {
    call.partition_key = "[" + JsonString(page.partition_key_value) + "]";
  }
  if (!page.partition_key_range_id.empty()) {
    call.headers.emplace_back("x-ms-documentdb-partitionkeyrangeid", page.partition_key_range_id);
  }
  if (page.query_plan) {
    call.headers.emplace_back("x-ms-cosmos-is-query-plan-request", "True");
    call.headers.emplace_back("x-ms-cosmos-supported-query-features",
                              "Aggregate,CompositeAggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top");
  }
  if (page.max_item_count != 0) call.headers.emplace_back("x-ms-max-item-count", std::to_string(page.max_item_count));
  if (!page.continuation.empty()) call.headers.emplace_back("x-ms-continuation", page.continuation);
  return call;
}

}  // namespace cosmos::bench
