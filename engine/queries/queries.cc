#include "engine/queries/queries.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "engine/planning/access_path.h"
#include "engine/planning/cross_partition.h"
#include "engine/planning/index_utilization.h"
#include "engine/planning/partition_targets.h"
#include "engine/planning/search_paths.h"
#include "common/encoding.h"
#include "common/json_parse.h"
#include "engine/queries/document_sources.h"
#include "engine/queries/full_text_sources.h"
#include "engine/queries/search_sources.h"
#include "engine/scripts/user_function_runner.h"
#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/resource_id.h"
#include "query/execution/executor.h"
#include "query/plan/query_plan.h"

namespace cosmos::engine {
namespace {

constexpr char kCrossPartitionDisabledMessage[] =
    "Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to "
    "true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception.";
constexpr char kNeedsClientPlanMessage[] =
    "The provided cross partition query can not be directly served by the gateway. This is a first chance "
    "(internal) exception that all newer clients will know how to handle gracefully. This exception is traced, "
    "but unless you see it bubble up as an exception (which only happens on older SDK clients), then you can "
    "safely ignore this message.";

// The service's x-ms-documentdb-query-metrics format: key=value pairs separated by ';'.
std::string FormatQueryMetrics(const query::QueryPage& page, double elapsed_ms) {
  char buffer[640];
  std::snprintf(buffer, sizeof(buffer),
                "totalExecutionTimeInMs=%.2f;queryCompileTimeInMs=0.00;queryLogicalPlanBuildTimeInMs=0.00;"
                "queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=%.2f;"
                "indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;"
                "userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount=%llu;retrievedDocumentSize=%llu;"
                "outputDocumentCount=%llu;outputDocumentSize=%llu;writeOutputTimeInMs=0.00;indexUtilizationRatio=%.2f",
                elapsed_ms, elapsed_ms, static_cast<unsigned long long>(page.stats.documents_loaded),
                static_cast<unsigned long long>(page.stats.document_bytes),
                static_cast<unsigned long long>(page.stats.output_rows),
                static_cast<unsigned long long>(page.stats.output_bytes),
                page.stats.documents_loaded == 0
                    ? 0.0
                    : static_cast<double>(page.stats.output_rows) / static_cast<double>(page.stats.documents_loaded));
  return buffer;
}

// A continuation token this query cannot resume from (the executor checks its own part of it).
Status InvalidContinuation() {
  return Status::BadRequest("Invalid Continuation Token: the query cannot resume from it.");
}

struct ParsedQueryBody {
  std::string text;
  Json parameters;
};

Result<ParsedQueryBody> ParseQueryBody(std::string_view text) {
  // The body adds two levels to a parameter's value ({"parameters": [{"value": ...}]}).
  if (ShapeOfJsonText(text).depth > kMaxJsonNesting + 2) {
    return Status::BadRequest("The query parameters nest deeper than " + std::to_string(kMaxJsonNesting) + " levels.");
  }
  Json body = ParseJson(text);
  if (body.is_discarded() || !body.is_object() || !body.contains("query") || !body["query"].is_string()) {
    return Status::BadRequest("The query body must be a JSON object with a string 'query'.");
  }
  ParsedQueryBody parsed;
  parsed.text = body["query"].get<std::string>();
  if (body.contains("parameters")) parsed.parameters = std::move(body["parameters"]);
  return parsed;
}

query::PageRequest PageRequestOf(const QueryRequest& request, const AccountContext& context,
                                 std::chrono::steady_clock::time_point started) {
  query::PageRequest page_request;
  page_request.cancel_at = started + context.options().query_time_limit;
  page_request.stop = context.stop_flag();
  page_request.max_items = static_cast<uint64_t>(PageSize(request.max_item_count));
  page_request.max_bytes = kMaxPageBytes;
  page_request.continuation = request.continuation;
  return page_request;
}

void FillQueryResponse(QueryResponse& response, const query::QueryPage& page, const QueryRequest& request,
                       ConsistencyLevel consistency, std::chrono::steady_clock::time_point started,
                       const IndexReads& index_reads = {}, uint64_t partitions_visited = 1) {
  response.count = static_cast<int64_t>(page.rows.size());
  response.continuation = page.continuation;
  QueryWork work;
  work.documents_loaded = page.stats.documents_loaded;
  work.document_bytes = page.stats.document_bytes;
  work.output_bytes = page.stats.output_bytes;
  work.expressions = page.stats.expressions;
  work.function_work = page.function_work;
  work.index_entries = index_reads.entries;
  work.index_seeks = index_reads.seeks;
  work.rows_returned = page.rows.size();
  work.partitions_visited = partitions_visited;
  response.request_charge = QueryCharge(work, consistency);
  if (request.populate_query_metrics) {
    double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    response.query_metrics = FormatQueryMetrics(page, elapsed_ms);
  }
}

// A request's share of a query in the query log, as far as a plan request and a page share it.
QueryLogEntry LogEntryOf(const QueryRequest& request, const ResolvedContainer& container, const std::string& text,
                         const std::vector<int64_t>& range_ids, bool by_partition_key) {
  QueryLogEntry entry;
  entry.correlation_id = request.correlation_id;
  entry.container = container.OwnerPath();
  entry.text = text;
  entry.range_ids = range_ids;
  entry.by_partition_key = by_partition_key;
  return entry;
}

}  // namespace

Queries::Queries(AccountContext& context, Admission& admission) : context_(context), admission_(admission) {}

Result<QueryResponse> Queries::QueryResources(const QueryRequest& request,
                                              std::vector<std::pair<int64_t, std::string>> bodies,
                                              const char* feed_key, const std::string& owner_rid) {
  auto started = std::chrono::steady_clock::now();
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text));
  query::OpenSource open_source = [&](const Json* start) -> Result<std::unique_ptr<query::DocumentSource>> {
    if (start != nullptr && !start->is_number_integer()) {
      return InvalidContinuation();
    }
    return ResourceListSource(bodies, start ? start->get<int64_t>() : 0);
  };
  COSMOS_ASSIGN_OR_RETURN(auto page, query::ExecutePage(*prepared, body.parameters, open_source,
                                                        PageRequestOf(request, context_, started)));
  QueryResponse response;
  response.body = FeedBody(owner_rid, feed_key, page.rows);
  response.owner_rid = owner_rid;
  FillQueryResponse(response, page, request, ConsistencyLevel::kSession, started);
  return response;
}

Result<QueryResponse> Queries::QueryDatabases(const QueryRequest& request) {
  std::vector<std::pair<int64_t, std::string>> bodies;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListDatabases());
    for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
  }
  return QueryResources(request, std::move(bodies), "Databases", "");
}

Result<QueryResponse> Queries::QueryContainers(const ResourceName& database, const QueryRequest& request) {
  std::vector<std::pair<int64_t, std::string>> bodies;
  std::string owner_rid;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto owner, FindDatabase(txn, database, /*as_owner=*/true));
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListContainers(owner.seq));
    for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
    owner_rid = ResourceId::ForDatabase(owner.seq);
  }
  return QueryResources(request, std::move(bodies), "DocumentCollections", owner_rid);
}

Result<QueryResponse> Queries::QueryOffers(const QueryRequest& request) {
  if (context_.options().serverless) return Status::BadRequest(kServerlessOffersMessage);
  std::vector<std::pair<int64_t, std::string>> bodies;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListOffers());
    for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
  }
  return QueryResources(request, std::move(bodies), "Offers", "");
}

Result<QueryResponse> Queries::QueryConflicts(const QueryRequest& request) {
  std::string owner_rid;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
    owner_rid = container->container_rid;
  }
  return QueryResources(request, {}, "Conflicts", owner_rid);
}

Result<QueryPlanResponse> Queries::QueryPlan(const QueryRequest& request,
                                             const std::optional<std::string>& supported_features) {
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text, container->computed.get()));
  COSMOS_ASSIGN_OR_RETURN(auto plan, ContainerQueryPlan(*container, *prepared, body.parameters, supported_features));
  QueryPlanResponse response;
  response.range_ids = RangesReached(container->routing, plan["queryRanges"]);
  response.by_partition_key = plan["queryRanges"] != query::EffectiveQueryRanges({});
  response.body = plan.dump();
  QueryLogEntry entry = LogEntryOf(request, *container, body.text, response.range_ids, response.by_partition_key);
  entry.plan_request = true;
  query_log_.Record(entry);
  return response;
}

Result<QueryResponse> Queries::QueryItems(const QueryRequest& request) {
  auto started = std::chrono::steady_clock::now();
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto consistency, ReadConsistency(context_.options().default_consistency, request.consistency_level));

  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
  // Prepared for this container: its computed properties are part of the query.
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text, container->computed.get()));
  COSMOS_RETURN_IF_ERROR(container->indexing.CheckOrderBy(OrderByPaths(prepared->root())));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                   {request.partition_key_header, request.partition_key_range_id,
                                                    request.start_epk, request.end_epk}));
  // A filter that pins the partition key reads only those logical partitions.
  std::vector<storage::DocumentScope> scopes = {scope.documents};
  // A legacy non-partitioned container (partition_key.system_key) is one logical partition.
  bool one_logical_partition = scope.by_partition_key || container->partition_key.system_key;
  if (!scope.by_partition_key) {
    std::vector<int64_t> pinned_ranges;
    if (auto pinned = PinnedPartitions(*container, *prepared, body.parameters, scope.documents, pinned_ranges)) {
      scopes = std::move(*pinned);
      scope.range_ids = std::move(pinned_ranges);
      scope.by_partition_key = true;
      one_logical_partition = scopes.size() == 1 && scopes.front().partition_key.has_value();
    }
  }
  // A query that may reach more than one logical partition, named by neither a partition key (the
  // header or a filter that pins one full key) nor a range, is cross-partition, however many
  // physical partitions the container has: the service serves it only with the SDK's consent, and
  // only when the pages of each partition can simply follow one another; anything else goes back
  // to the SDK with the query plan.
  if (!one_logical_partition && !scope.by_range_id) {
    if (!request.enable_cross_partition) return Status::BadRequest(kCrossPartitionDisabledMessage);
    if (container->routing.online_count() > 1) {
      COSMOS_ASSIGN_OR_RETURN(auto plan, ContainerQueryPlan(*container, *prepared, body.parameters, std::nullopt));
      if (NeedsClientPipeline(plan) && !HasWholeContainerSubquery(*prepared)) {
        return Status::QueryNeedsClientPlan(kNeedsClientPlanMessage, plan.dump());
      }
    }
  }
  COSMOS_RETURN_IF_ERROR(admission_.Admit(*container, scope.range_ids));
  IndexReads index_reads;
  std::string access_path;
  COSMOS_ASSIGN_OR_RETURN(auto page, ReadPage(txn, *container, *prepared, body.parameters, scopes,
                                              PageRequestOf(request, context_, started), index_reads,
                                              access_path));
  QueryResponse response;
  response.body = FeedBody(container->container_rid, "Documents", page.rows);
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *container));
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  response.fan_out.range_ids = scope.range_ids;
  response.fan_out.by_partition_key = scope.by_partition_key;
  response.fan_out.documents_scanned = static_cast<int64_t>(page.stats.documents_loaded);
  response.fan_out.documents_returned = static_cast<int64_t>(page.rows.size());
  response.fan_out.access_path = access_path;
  response.range_ids = scope.range_ids;
  // A page that reads several physical partitions in one request pays each one's minimum, as the
  // service charges every partition a query visits: fan-out is never free.
  FillQueryResponse(response, page, request, consistency, started, index_reads, scope.range_ids.size());
  if (request.populate_index_metrics) {
    response.index_utilization = IndexUtilizationHeader(IndexUtilization(container->indexing, *prepared, body.parameters));
  }
  admission_.Charge(*container, scope.range_ids, response.request_charge);
  QueryLogEntry entry = LogEntryOf(request, *container, body.text, scope.range_ids, scope.by_partition_key);
  entry.request_charge = response.request_charge;
  entry.documents_scanned = response.fan_out.documents_scanned;
  entry.documents_returned = response.fan_out.documents_returned;
  entry.access_path = access_path;
  query_log_.Record(entry);
  return response;
}

Result<query::QueryPage> Queries::ReadPage(storage::Transaction& txn, const ResolvedContainer& container,
                                           const query::BoundQuery& prepared, const Json& parameters,
                                           const std::vector<storage::DocumentScope>& scopes,
                                           const query::PageRequest& page_request, IndexReads& index_reads,
                                           std::string& access_path) {
  // How to read: an index lookup, the index in ORDER BY order, or a scan (planning/access_path.h).
  COSMOS_ASSIGN_OR_RETURN(int64_t lsn, VisibleLsn(txn, container));
  StoredIndexStatistics statistics(txn, container.container.seq, &container.entry_counts, lsn);
  COSMOS_ASSIGN_OR_RETURN(AccessPath access,
                          ChooseAccessPath(container.indexing, !container.index_build, prepared, parameters, scopes,
                                           container.partition_key.paths, container.default_ttl.has_value(),
                                           statistics, static_cast<int64_t>(page_request.max_items)));
  const std::vector<ReadSegment> segments = ReadSegments(container.routing, scopes);
  // The lookup and those intersected with it, and their paths as x-cosmolite-access-path names
  // them ("/tag and /n").
  std::vector<IndexLookup> lookups;
  std::string lookup_paths;
  if (access.lookup) {
    lookups.push_back(*access.lookup);
    lookups.insert(lookups.end(), access.intersected.begin(), access.intersected.end());
    for (const IndexLookup& lookup : lookups) lookup_paths += (lookup_paths.empty() ? "" : " and ") + IndexName(lookup.path);
  }
  uint64_t lookup_seeks = 0;
  for (const IndexLookup& lookup : lookups) lookup_seeks += lookup.ranges.size();
  // A scan of logical partitions seeks each one's documents, as the service looks a partition key
  // value up in its index.
  const uint64_t scan_seeks = AllLogicalPartitions(scopes) ? scopes.size() : 0;
  uint64_t& index_entries_read = index_reads.entries;
  const auto vector_policy = container.properties.find("vectorEmbeddingPolicy");
  const std::optional<VectorOrder> vector_order =
      container.index_build ? std::nullopt
                            : FindVectorOrder(container.indexing, prepared, parameters,
                                              vector_policy != container.properties.end() ? *vector_policy : Json());
  // A hybrid search plan's statistics query over full-text indexes: one row from their entries.
  // (Documents that expire keep their entries until the sweep: those containers read documents.)
  const bool full_text_index_serves = !container.index_build && !container.default_ttl.has_value();
  if (full_text_index_serves) {
    COSMOS_ASSIGN_OR_RETURN(std::optional<Json> statistics_row,
                            StatisticsFromIndex(txn, container.container.seq, container.indexing.search(),
                                                prepared.root(), segments, index_reads.entries));
    if (statistics_row) {
      access_path = "full-text index statistics";
      query::QueryPage page;
      page.rows.push_back(statistics_row->dump());
      return page;
    }
  }
  // ORDER BY RANK FullTextScore over a full-text index: its corpus and statistics, read once.
  std::optional<FullTextOrder> full_text_order =
      full_text_index_serves ? FindFullTextOrder(container.indexing, prepared, parameters) : std::nullopt;
  std::optional<FullTextCorpus> full_text_corpus;
  if (full_text_order) {
    COSMOS_ASSIGN_OR_RETURN(full_text_corpus, ReadFullTextCorpus(txn, container.container.seq, *full_text_order->index,
                                                                 segments, index_entries_read));
    if (full_text_corpus && !full_text_order->statistics) {
      COSMOS_ASSIGN_OR_RETURN(full_text_order->statistics,
                              FullTextStatistics(txn, container.container.seq, *full_text_order->index,
                                                 *full_text_corpus, full_text_order->terms, index_entries_read));
    }
  }
  query::OpenSource open_source = [&](const Json* start) -> Result<std::unique_ptr<query::DocumentSource>> {
    const int64_t container_seq = container.container.seq;
    const ReadProperties& properties = prepared.document_properties();
    std::optional<OrderResume> resume;
    if (start != nullptr && start->is_object() && start->contains("walk")) {
      // A streaming page that walked a range inside its partition resumes the walk.
      const Json& walk = (*start)["walk"];
      std::optional<std::string> sort_key = walk.is_string() ? HexDecode(walk.get_ref<const std::string&>()) : std::nullopt;
      if (!access.partition_walk || !sort_key || !start->contains("p")) {
        return InvalidContinuation();
      }
      access_path = "index walk on " + access.partition_walk->path;
      index_reads.seeks += access.partition_walk->ranges.size();
      return IndexOrderSource(txn, container_seq, segments, *access.partition_walk, /*descending=*/false,
                              OrderResume{std::move(*sort_key), (*start)["p"], /*inclusive=*/true}, properties,
                              index_entries_read, access.rows_wanted, /*walk_positions=*/true);
    }
    // A sorted page after the first: the index order starts after the last row returned; any
    // other way reads from the start, and the executor skips the rows returned before.
    if (start != nullptr && start->is_object()) {
      std::optional<std::string> sort_key;
      if (start->contains("sort_key") && (*start)["sort_key"].is_string()) {
        sort_key = HexDecode((*start)["sort_key"].get_ref<const std::string&>());
      }
      if (!sort_key || !start->contains("position")) {
        return InvalidContinuation();
      }
      resume = OrderResume{std::move(*sort_key), (*start)["position"]};
      start = nullptr;
    }
    std::optional<ReadPosition> start_position;
    if (start != nullptr) {
      start_position = ReadPosition::FromJson(*start);
      if (!start_position) return InvalidContinuation();
    }
    if (full_text_corpus && start == nullptr) {
      access_path = "full-text index on " + full_text_order->index->path;
      return FullTextOrderSource(txn, container_seq, segments, *full_text_order->index, *full_text_corpus,
                                 full_text_order->terms, *full_text_order->statistics,
                                 prepared.properties_outside_order_by(), index_entries_read);
    }
    if (vector_order && start == nullptr) {
      // Every page reads the index from the most similar on; a later one skips the rows returned.
      access_path = "vector index on " + vector_order->index->path;
      return VectorOrderSource(txn, container_seq, segments, *vector_order->index, vector_order->query,
                               vector_order->metric, prepared.properties_outside_order_by(), index_entries_read);
    }
    if (access.ordered_scan && start == nullptr) {
      access_path = "index order on " + IndexName(access.ordered_scan->path) + (access.descending ? " (descending)" : "");
      index_reads.seeks += access.ordered_scan->ranges.size();
      return IndexOrderSource(txn, container_seq, segments, *access.ordered_scan, access.descending,
                              std::move(resume), properties, index_entries_read, access.rows_wanted);
    }
    if (!access.values_of.empty()) {
      std::string value_paths;
      for (const IndexLookup& value : access.values_of) {
        value_paths += (value_paths.empty() ? "" : " and ") + value.path;
        index_reads.seeks += value.ranges.size();
      }
      access_path = "index only on " + value_paths + (lookup_paths.empty() ? "" : " and " + lookup_paths);
      index_reads.seeks += lookup_seeks;
      return IndexValuesSource(txn, container_seq, segments, access.values_of, lookups, properties,
                               index_entries_read);
    }
    if (access.walk && start == nullptr) {
      access_path = "index walk on " + access.partition_walk->path;
      index_reads.seeks += access.partition_walk->ranges.size();
      return IndexOrderSource(txn, container_seq, segments, *access.partition_walk, /*descending=*/false,
                              std::nullopt, properties, index_entries_read, access.rows_wanted,
                              /*walk_positions=*/true);
    }
    if (access.lookup && access.scan_first) {
      access_path = "scan";
      index_reads.seeks += scan_seeks;
      return ScanThenLookupSource(txn, container_seq, segments, lookups, std::move(start_position), properties,
                                  kScanBudget, index_entries_read, [&](int64_t scanned) -> Result<bool> {
                                    COSMOS_ASSIGN_OR_RETURN(bool pays,
                                                            LookupPaysAfterScan(lookups, scopes, scanned, statistics));
                                    if (pays) {
                                      access_path = "scan, then index lookup on " + lookup_paths;
                                      index_reads.seeks += lookup_seeks;
                                    }
                                    return pays;
                                  });
    }
    if (access.lookup) {
      access_path = (access.index_only ? "index only on " : "index lookup on ") + lookup_paths;
      index_reads.seeks += lookup_seeks;
      return IndexLookupSource(txn, container_seq, segments, lookups, std::move(start_position), properties,
                               index_entries_read, access.index_only);
    }
    access_path = "scan";
    index_reads.seeks += scan_seeks;
    return ScanSource(txn, container_seq, segments, std::move(start_position), properties, index_entries_read);
  };
  // A query that calls UDFs runs them, the container's, in JavaScript (scripts/user_function_runner.h).
  // They may run until the page would be abandoned.
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(page_request.cancel_at - std::chrono::steady_clock::now());
  COSMOS_ASSIGN_OR_RETURN(auto user_functions,
                          UserFunctionRunner::ForQuery(txn, container, prepared,
                                                       std::clamp(left, std::chrono::milliseconds(1),
                                                                  context_.options().query_time_limit)));
  query::PageRequest request = page_request;
  request.user_functions = user_functions.get();
  if (auto policy = container.properties.find("vectorEmbeddingPolicy"); policy != container.properties.end()) {
    request.vector_embedding_policy = &*policy;
  }
  if (auto policy = container.properties.find("fullTextPolicy"); policy != container.properties.end()) {
    request.full_text_policy = &*policy;
  }
  if (full_text_corpus && query::IsSystemCall(*full_text_order->call, "FullTextScore")) {
    request.known_full_text_statistics[full_text_order->call] = *full_text_order->statistics;
  }
  // ORDER BY RANK FullTextScore: BM25 statistics of every document of the query's partitions.
  request.open_all_documents = [&]() -> Result<std::unique_ptr<query::DocumentSource>> {
    return ScanSource(txn, container.container.seq, segments, std::nullopt, prepared.document_properties(),
                      index_entries_read);
  };
  return query::ExecutePage(prepared, parameters, open_source, request);
}

Result<QueryResponse> Queries::QueryPartitionIn(storage::Transaction& txn, const ResolvedContainer& container,
                                                const QueryRequest& request) {
  auto started = std::chrono::steady_clock::now();
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text, container.computed.get()));
  COSMOS_RETURN_IF_ERROR(container.indexing.CheckOrderBy(OrderByPaths(prepared->root())));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container.partition_key, container.routing,
                                                   {request.partition_key_header, std::nullopt, std::nullopt,
                                                    std::nullopt}));
  IndexReads index_reads;
  std::string access_path;
  COSMOS_ASSIGN_OR_RETURN(auto page, ReadPage(txn, container, *prepared, body.parameters, {scope.documents},
                                              PageRequestOf(request, context_, started), index_reads,
                                              access_path));
  QueryResponse response;
  response.body = "[";
  for (size_t index = 0; index < page.rows.size(); ++index) {
    if (index > 0) response.body += ',';
    response.body += page.rows[index];
  }
  response.body += ']';
  response.range_ids = scope.range_ids;
  FillQueryResponse(response, page, request, ConsistencyLevel::kSession, started, index_reads);
  return response;
}

}  // namespace cosmos::engine
