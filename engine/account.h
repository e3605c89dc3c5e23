// Account: the engine's front door, the one object the server calls. Each call is answered by
// the room of the engine that owns it — the catalog (databases, containers, offers), items,
// queries, the change feed, partition key ranges, admission (throttling, partition report),
// scripts (stored procedures, triggers, UDFs), security (users, permissions, resource tokens) and
// maintenance (TTL sweep, index builds, data-file upgrades) — which share one AccountContext.
// It speaks typed requests and JSON text (api.h), never HTTP.
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "engine/admission/admission.h"
#include "engine/api.h"
#include "engine/catalog/catalog.h"
#include "engine/change_feed/change_feed.h"
#include "engine/items/items.h"
#include "engine/maintenance/maintenance.h"
#include "engine/partitioning/partition_key_ranges.h"
#include "engine/queries/queries.h"
#include "engine/scripts/scripts.h"
#include "engine/security/security.h"
#include "engine/shared/account_context.h"
#include "storage/store.h"

namespace cosmos::engine {

class Account {
 public:
  explicit Account(std::unique_ptr<storage::Store> store, AccountOptions options = {});

  // Runs `writes` (calls of this account's methods, one after another on this thread) as one
  // write batch: their storage writes share one commit (storage/store.h). A write's result may
  // be acknowledged only when this returns OK; otherwise none of the batch's writes is durable.
  Status RunWriteBatch(const std::function<void()>& writes);

  // Databases, containers and offers: catalog/catalog.h says what each returns.
  Result<ResourceResponse> CreateDatabase(const std::string& body, const ContainerThroughput& throughput = {}) {
    return catalog_.CreateDatabase(body, throughput);
  }
  Result<ResourceResponse> ReadDatabase(const ResourceName& database) { return catalog_.ReadDatabase(database); }
  Result<FeedResponse> ListDatabases(const FeedOptions& options) { return catalog_.ListDatabases(options); }
  Result<ResourceResponse> DeleteDatabase(const ResourceName& database, const Preconditions& preconditions) {
    return catalog_.DeleteDatabase(database, preconditions);
  }
  Result<ResourceResponse> CreateContainer(const ResourceName& database, const std::string& body,
                                           const ContainerThroughput& throughput = {}, bool legacy_api_version = false) {
    return catalog_.CreateContainer(database, body, throughput, legacy_api_version);
  }
  Result<ResourceResponse> ReadContainer(const ContainerAddress& container, bool populate_quota_info = false,
                                         bool populate_partition_statistics = false) {
    return catalog_.ReadContainer(container, populate_quota_info, populate_partition_statistics);
  }
  Result<FeedResponse> ListContainers(const ResourceName& database, const FeedOptions& options) {
    return catalog_.ListContainers(database, options);
  }
  Result<FeedResponse> ListConflicts(const ContainerAddress& container) { return catalog_.ListConflicts(container); }
  Result<ResourceResponse> ReadConflict(const ContainerAddress& container) {
    return catalog_.ReadConflict(container);
  }
  Result<ResourceResponse> ReplaceContainer(const ContainerAddress& container, const std::string& body,
                                            const Preconditions& preconditions) {
    return catalog_.ReplaceContainer(container, body, preconditions);
  }
  Result<ResourceResponse> DeleteContainer(const ContainerAddress& container, const Preconditions& preconditions) {
    return catalog_.DeleteContainer(container, preconditions);
  }
  Result<ResourceResponse> ReadOffer(const std::string& offer_rid) { return catalog_.ReadOffer(offer_rid); }
  Result<FeedResponse> ListOffers(const FeedOptions& options) { return catalog_.ListOffers(options); }
  Result<ResourceResponse> ReplaceOffer(const std::string& offer_rid, const std::string& body,
                                        const Preconditions& preconditions) {
    return catalog_.ReplaceOffer(offer_rid, body, preconditions);
  }

  // Items and the read feed: items/items.h.
  static Result<ParsedItem> ParseItem(std::string_view body) { return Items::ParseItem(body); }
  Result<ParsedItem> ParseItemFor(const ContainerAddress& container, std::string_view body) const {
    return items_.ParseItemFor(container, body);
  }
  Result<ResourceResponse> CreateItem(const ItemWrite& write) { return items_.Create(write); }
  Result<ResourceResponse> UpsertItem(const ItemWrite& write) { return items_.Upsert(write); }
  Result<ResourceResponse> ReplaceItem(const ItemWrite& write, const ResourceName& id) {
    return items_.Replace(write, id);
  }
  Result<ResourceResponse> PatchItem(const ItemKey& key, std::string_view body, const Preconditions& preconditions) {
    return items_.Patch(key, body, preconditions);
  }
  Result<ResourceResponse> ReadItem(const ItemKey& key, const Preconditions& preconditions) {
    return items_.Read(key, preconditions);
  }
  Result<ResourceResponse> DeleteItem(const ItemKey& key, const Preconditions& preconditions) {
    return items_.Delete(key, preconditions);
  }
  Result<BatchResponse> ExecuteBatch(const BatchRequest& request) { return items_.Batch(request); }
  Result<ResourceResponse> DeleteAllItemsByPartitionKey(const ContainerAddress& container,
                                                        const std::optional<std::string>& partition_key_header) {
    return items_.DeletePartition(container, partition_key_header);
  }
  Result<FeedResponse> ReadItemFeed(const ContainerAddress& container, const FeedOptions& options) {
    return items_.ReadFeed(container, options);
  }

  // The change feed: change_feed/change_feed.h.
  Result<ChangeFeedResponse> ReadChangeFeed(const ChangeFeedRequest& request) { return change_feed_.Read(request); }

  // Queries and query plans: queries/queries.h.
  Result<QueryResponse> QueryItems(const QueryRequest& request) { return queries_.QueryItems(request); }
  Result<QueryPlanResponse> QueryPlan(const QueryRequest& request,
                                      const std::optional<std::string>& supported_features) {
    return queries_.QueryPlan(request, supported_features);
  }
  Result<QueryResponse> QueryDatabases(const QueryRequest& request) { return queries_.QueryDatabases(request); }
  Result<QueryResponse> QueryContainers(const ResourceName& database, const QueryRequest& request) {
    return queries_.QueryContainers(database, request);
  }
  Result<QueryResponse> QueryOffers(const QueryRequest& request) { return queries_.QueryOffers(request); }
  Result<QueryResponse> QueryConflicts(const QueryRequest& request) { return queries_.QueryConflicts(request); }
  // Recent item queries with their cost summed over all their requests (GET /_cosmolite/queries).
  const QueryLog& query_log() const { return queries_.query_log(); }

  // Stored procedures, triggers and UDFs as resources: scripts/scripts.h.
  Result<ResourceResponse> CreateScript(const ScriptAddress& feed, const std::string& body, bool upsert = false) {
    return scripts_.Create(feed, body, upsert);
  }
  Result<ResourceResponse> ReadScript(const ScriptAddress& script) { return scripts_.Read(script); }
  Result<FeedResponse> ListScripts(const ScriptAddress& feed, const FeedOptions& options) {
    return scripts_.List(feed, options);
  }
  Result<QueryResponse> QueryScripts(const ScriptAddress& feed, const QueryRequest& request) {
    COSMOS_ASSIGN_OR_RETURN(auto scripts, scripts_.Bodies(feed));
    return queries_.QueryResources(request, std::move(scripts.first), ScriptFeedKey(feed.kind), scripts.second);
  }
  Result<ResourceResponse> ReplaceScript(const ScriptAddress& script, const std::string& body,
                                         const Preconditions& preconditions) {
    return scripts_.Replace(script, body, preconditions);
  }
  Result<ResourceResponse> DeleteScript(const ScriptAddress& script, const Preconditions& preconditions) {
    return scripts_.Delete(script, preconditions);
  }
  Result<ResourceResponse> ExecuteProcedure(const ScriptAddress& procedure, std::string_view arguments,
                                            const std::optional<std::string>& partition_key_header) {
    return scripts_.ExecuteProcedure(procedure, arguments, partition_key_header);
  }
  Result<ResourceResponse> WriteItemWithTriggers(const TriggeredWrite& write) {
    return scripts_.WriteWithTriggers(write);
  }

  // Users, permissions and resource tokens: security/security.h.
  Result<ResourceResponse> CreateUser(const ResourceName& database, const std::string& body, bool upsert = false) {
    return security_.CreateUser(database, body, upsert);
  }
  Result<ResourceResponse> ReadUser(const UserAddress& user) { return security_.ReadUser(user); }
  Result<FeedResponse> ListUsers(const ResourceName& database, const FeedOptions& options) {
    return security_.ListUsers(database, options);
  }
  Result<QueryResponse> QueryUsers(const ResourceName& database, const QueryRequest& request) {
    COSMOS_ASSIGN_OR_RETURN(auto users, security_.UserBodies(database));
    return queries_.QueryResources(request, std::move(users.first), "Users", users.second);
  }
  Result<ResourceResponse> ReplaceUser(const UserAddress& user, const std::string& body,
                                       const Preconditions& preconditions) {
    return security_.ReplaceUser(user, body, preconditions);
  }
  Result<ResourceResponse> DeleteUser(const UserAddress& user, const Preconditions& preconditions) {
    return security_.DeleteUser(user, preconditions);
  }
  Result<ResourceResponse> CreatePermission(const UserAddress& user, const std::string& body, bool upsert,
                                            std::optional<int64_t> token_seconds) {
    return security_.CreatePermission(user, body, upsert, token_seconds);
  }
  Result<ResourceResponse> ReadPermission(const PermissionAddress& permission, std::optional<int64_t> token_seconds) {
    return security_.ReadPermission(permission, token_seconds);
  }
  Result<FeedResponse> ListPermissions(const UserAddress& user, const FeedOptions& options,
                                       std::optional<int64_t> token_seconds) {
    return security_.ListPermissions(user, options, token_seconds);
  }
  Result<QueryResponse> QueryPermissions(const UserAddress& user, const QueryRequest& request,
                                         std::optional<int64_t> token_seconds) {
    COSMOS_ASSIGN_OR_RETURN(auto permissions, security_.PermissionBodies(user, token_seconds));
    return queries_.QueryResources(request, std::move(permissions.first), "Permissions", permissions.second);
  }
  Result<ResourceResponse> ReplacePermission(const PermissionAddress& permission, const std::string& body,
                                             const Preconditions& preconditions, std::optional<int64_t> token_seconds) {
    return security_.ReplacePermission(permission, body, preconditions, token_seconds);
  }
  Result<ResourceResponse> DeletePermission(const PermissionAddress& permission, const Preconditions& preconditions) {
    return security_.DeletePermission(permission, preconditions);
  }
  Status AuthorizeResourceToken(std::string_view token, const AccessRequest& request, int64_t now_seconds) {
    return security_.AuthorizeResourceToken(token, request, now_seconds);
  }

  // Partition key ranges and splits: partitioning/partition_key_ranges.h.
  Result<PartitionKeyRangesResponse> ReadPartitionKeyRanges(const ContainerAddress& container,
                                                            const std::optional<std::string>& if_none_match,
                                                            bool incremental) {
    return ranges_.Read(container, if_none_match, incremental);
  }
  Result<PartitionKeyRangesResponse> SplitPartitionKeyRange(const ContainerAddress& container, int64_t range_id) {
    return ranges_.Split(container, range_id);
  }

  // RU and throttling per physical partition (GET /_cosmolite/partitions): admission/admission.h.
  Result<std::string> PartitionReport(int64_t largest_logical_partitions) {
    return admission_.PartitionReport(largest_logical_partitions);
  }
  // Monthly cost under provisioned, autoscale and serverless throughput of the RU consumed per
  // physical partition per second (GET /_cosmolite/cost-report): admission/cost_report.h.
  Result<std::string> CostReport(const CostWindow& window) { return admission_.CostReport(window); }
  void ClearUsageHistory() { admission_.ClearUsageHistory(); }

  // Upkeep, called by the BackgroundWorker, and the data-file upgrade at start-up:
  // maintenance/maintenance.h.
  Result<int64_t> SweepExpiredDocuments(int64_t now, int64_t limit) {
    return maintenance_.SweepExpiredDocuments(now, limit);
  }
  Result<bool> ContinueIndexBuilds(int64_t limit) { return maintenance_.ContinueIndexBuilds(limit); }
  Result<bool> ContinueIndexBuildsFor(std::chrono::milliseconds budget) {
    return maintenance_.ContinueIndexBuildsFor(budget);
  }
  Status UpgradeDataFile() { return maintenance_.UpgradeDataFile(); }

  const AccountOptions& options() const { return context_.options(); }

  // At shutdown: queries running now, and any started later, end at their next check with 503,
  // so that the server's workers come free (query::Cancellation). Safe from any thread.
  void StopRunningWork() { context_.StopRunningWork(); }

 private:
  AccountContext context_;
  Admission admission_;
  Catalog catalog_;
  Items items_;
  Queries queries_;
  Security security_;
  Scripts scripts_;
  ChangeFeed change_feed_;
  PartitionKeyRanges ranges_;
  Maintenance maintenance_;
};

}  // namespace cosmos::engine
