#include "engine/shared/account_context.h"

#include <chrono>
#include <cstdio>

#include "engine/catalog/throughput.h"
#include "engine/change_feed/change_log.h"
#include "engine/items/time_to_live.h"
#include "engine/shared/messages.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {
namespace {

using storage::ContainerRecord;
using storage::DatabaseRecord;
using storage::Transaction;

// The address as the request spelled it: each part by name or by rid, length-prefixed.
std::string CacheKey(const ContainerAddress& address) {
  std::string key;
  for (const ResourceName* name : {&address.database, &address.container}) {
    key += name->is_rid ? 'r' : 'n';
    key += std::to_string(name->value.size()) + ':' + name->value;
  }
  return key;
}

}  // namespace

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

AccountContext::AccountContext(std::unique_ptr<storage::Store> store, AccountOptions options)
    : store_(std::move(store)),
      options_(options),
      etag_counter_(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count())) {}

Result<DatabaseRecord> FindDatabase(Transaction& txn, const ResourceName& name, bool as_owner) {
  std::optional<DatabaseRecord> found;
  if (name.is_rid) {
    std::optional<ResourceId> rid = ResourceId::Parse(name.value);
    if (rid && rid->container == 0) {
      COSMOS_ASSIGN_OR_RETURN(found, txn.FindDatabaseBySeq(rid->database));
    }
  } else {
    COSMOS_ASSIGN_OR_RETURN(found, txn.FindDatabase(name.value));
  }
  if (!found) {
    return as_owner ? Status::OwnerResourceNotFound(kOwnerMissingMessage)
                    : Status::NotFound(kIdMissingMessage);
  }
  return std::move(*found);
}

Result<int64_t> VisibleLsn(Transaction& txn, const ResolvedContainer& container) {
  if (txn.OnSnapshot()) return txn.CommittedContainerLsn(container.container.seq);
  return container.lsn;
}

void AccountContext::ChangeCatalog(Transaction& txn) {
  containers_.BeginChange();
  txn.AfterGroup([this] { containers_.EndChange(); });
}

Result<std::shared_ptr<const ResolvedContainer>> AccountContext::FindContainer(Transaction& txn,
                                                                        const ContainerAddress& address,
                                                                        bool as_owner) {
  COSMOS_ASSIGN_OR_RETURN(auto container, ResolveContainer(txn, address, as_owner));
  if (!address.intended_rid.empty() && address.intended_rid != container->container_rid) {
    return Status::IncorrectContainerRid(kIncorrectContainerRidMessage);
  }
  return container;
}

std::shared_ptr<const ResolvedContainer> AccountContext::CachedContainer(const ContainerAddress& address) const {
  return containers_.Find(CacheKey(address));
}

Result<std::shared_ptr<const ResolvedContainer>> AccountContext::ResolveContainer(Transaction& txn,
                                                                           const ContainerAddress& address,
                                                                           bool as_owner) {
  std::string key = CacheKey(address);
  if (auto cached = containers_.Find(key)) return cached;
  // A read on a snapshot fills the cache only if its snapshot starts after this point (no
  // statement yet): one taken earlier might predate a catalog change that ended since.
  std::optional<uint64_t> generation;
  if (txn.OnSnapshot() && !txn.SnapshotTaken()) generation = containers_.Generation();

  COSMOS_ASSIGN_OR_RETURN(auto database, FindDatabase(txn, address.database, /*as_owner=*/true));
  std::optional<ContainerRecord> found;
  if (address.container.is_rid) {
    std::optional<ResourceId> rid = ResourceId::Parse(address.container.value);
    if (rid && rid->database == database.seq && rid->container != 0 && rid->document == 0) {
      COSMOS_ASSIGN_OR_RETURN(found, txn.FindContainerBySeq(database.seq, rid->container));
    }
  } else {
    COSMOS_ASSIGN_OR_RETURN(found, txn.FindContainer(database.seq, address.container.value));
  }
  if (!found) {
    return as_owner ? Status::OwnerResourceNotFound(kOwnerMissingMessage)
                    : Status::NotFound(kIdMissingMessage);
  }
  auto resolved = std::make_shared<ResolvedContainer>();
  resolved->properties = Json::parse(found->body);
  COSMOS_ASSIGN_OR_RETURN(resolved->partition_key,
                          PartitionKeyDefinition::Parse(resolved->properties["partitionKey"]));
  resolved->unique_keys = UniqueKeyPolicy::FromDefinition(resolved->properties);
  resolved->indexing = IndexingPolicy::ForContainer(resolved->properties);
  COSMOS_ASSIGN_OR_RETURN(auto ranges, txn.ListPartitionKeyRanges(found->seq));
  resolved->routing = RoutingMap(std::move(ranges));
  COSMOS_ASSIGN_OR_RETURN(auto offer, txn.FindOfferFor(/*is_database=*/false, found->seq));
  if (!offer) {
    COSMOS_ASSIGN_OR_RETURN(offer, txn.FindOfferFor(/*is_database=*/true, database.seq));
    resolved->shared_throughput = offer.has_value();
  }
  if (offer) {
    COSMOS_ASSIGN_OR_RETURN(resolved->throughput, ThroughputOfOffer(Json::parse(offer->body)));
  } else if (options_.serverless) {
    resolved->throughput.manual = kServerlessContainerThroughput;
  }
  COSMOS_ASSIGN_OR_RETURN(auto builds, txn.ListIndexBuilds());
  for (const storage::IndexBuild& build : builds) {
    if (build.container_seq == found->seq) resolved->index_build = build;
  }
  resolved->default_ttl = DefaultTtlOf(resolved->properties);
  resolved->change_log_retention_s = ChangeLogRetentionOf(resolved->properties);
  COSMOS_ASSIGN_OR_RETURN(resolved->computed,
                          query::ComputedProperties::Parse(resolved->properties.value("computedProperties", Json())));
  if (resolved->change_log_retention_s == 0) {
    COSMOS_ASSIGN_OR_RETURN(auto started, txn.FindChangeLogStart(found->seq));
    if (started) resolved->change_log_retention_s = kStartedChangeLogRetentionSeconds;
  }
  resolved->database_rid = ResourceId::ForDatabase(database.seq);
  resolved->container_rid = ResourceId::ForContainer(database.seq, found->seq);
  resolved->lsn = found->lsn;
  resolved->database = std::move(database);
  resolved->container = std::move(*found);
  if (!txn.OnSnapshot()) {
    containers_.Insert(key, resolved);
  } else if (generation) {
    containers_.InsertIfCurrent(key, resolved, *generation);
  }
  return std::shared_ptr<const ResolvedContainer>(std::move(resolved));
}

std::string AccountContext::NewEtag() {
  uint64_t value = etag_counter_.fetch_add(1, std::memory_order_relaxed);
  char text[48];
  std::snprintf(text, sizeof text, "\"00000000-0000-0000-%04x-%012llx\"",
                static_cast<unsigned>((value >> 48) & 0xFFFF),
                static_cast<unsigned long long>(value & 0xFFFFFFFFFFFFULL));
  return text;
}

}  // namespace cosmos::engine
