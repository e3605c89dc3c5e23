// Catalog (catalog.h): containers.
#include "engine/catalog/catalog.h"

#include <algorithm>

#include "common/json_parse.h"
#include "engine/admission/request_charge.h"
#include "engine/catalog/container_definition.h"
#include "engine/items/time_to_live.h"
#include "engine/partitioning/partitioning.h"
#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/preconditions.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {

using storage::ContainerRecord;
using storage::SeqKind;

Result<ResourceResponse> Catalog::CreateContainer(const ResourceName& database, const std::string& body,
                                                  const ContainerThroughput& throughput, bool legacy_api_version) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "container definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  if (legacy_api_version && (!definition.contains("partitionKey") || definition["partitionKey"].is_null())) {
    definition["partitionKey"] = Json::parse(kLegacyPartitionKey);
  }
  COSMOS_ASSIGN_OR_RETURN(auto normalized, NormalizeContainerDefinition(definition));
  COSMOS_ASSIGN_OR_RETURN(auto partition_key, PartitionKeyDefinition::Parse(normalized["partitionKey"]));
  COSMOS_RETURN_IF_ERROR(CheckRequestedThroughput(throughput, context_.options().serverless));
  int range_count = InitialRangeCount(throughput.ru_per_second(), context_.options().min_physical_partitions);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindDatabase(txn, database, /*as_owner=*/true));
  // Without throughput of its own, a container shares its database's, or gets the default.
  ContainerThroughput own_throughput = throughput;
  if (!throughput.given() && !context_.options().serverless) {
    COSMOS_ASSIGN_OR_RETURN(auto database_offer, txn.FindOfferFor(/*is_database=*/true, owner.seq));
    if (!database_offer) own_throughput.manual = kDefaultContainerThroughput;
  }
  ContainerRecord record;
  COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kContainer));
  record.database_seq = owner.seq;
  record.id = normalized["id"].get<std::string>();
  std::string database_rid = ResourceId::ForDatabase(owner.seq);
  std::string rid = ResourceId::ForContainer(owner.seq, record.seq);
  std::string etag = context_.NewEtag();
  normalized["_rid"] = rid;
  normalized["_ts"] = NowSeconds();
  normalized["_self"] = ContainerSelf(database_rid, rid);
  normalized["_etag"] = etag;
  normalized["_docs"] = "docs/";
  normalized["_sprocs"] = "sprocs/";
  normalized["_triggers"] = "triggers/";
  normalized["_udfs"] = "udfs/";
  normalized["_conflicts"] = "conflicts/";
  record.body = normalized.dump();
  Status inserted = txn.InsertContainer(record);
  if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(inserted);
  for (const auto& range : InitialRanges(partition_key, range_count)) {
    COSMOS_RETURN_IF_ERROR(txn.InsertPartitionKeyRange(record.seq, range));
  }
  if (own_throughput.given()) {
    COSMOS_RETURN_IF_ERROR(InsertOffer(txn, /*is_database=*/false, record.seq, normalized["_self"].get<std::string>(),
                                       rid, own_throughput));
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.body = std::move(record.body);
  response.etag = etag;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + owner.id;
  response.owner_rid = database_rid;
  return response;
}

namespace {

// The service's PartitionKeyRangeStatistics: one entry per online range, with the logical
// partitions that hold the most of it (the service samples; this counts).
Result<Json> PartitionStatistics(storage::Transaction& txn, const ResolvedContainer& container) {
  constexpr int64_t kLargestKeys = 3;
  Json statistics = Json::array();
  for (const RoutingMap::Range* range : container.routing.online()) {
    const std::string& min = range->min_inclusive;
    const std::string& max = range->max_exclusive;
    COSMOS_ASSIGN_OR_RETURN(auto size, txn.MeasureKeyRange(container.container.seq, min, max));
    COSMOS_ASSIGN_OR_RETURN(auto largest, txn.LargestLogicalPartitions(container.container.seq, min, max, kLargestKeys));
    Json keys = Json::array();
    for (const auto& [storage_key, key_size] : largest) {
      Json value = ParseJson(std::string_view(storage_key).substr(storage_key.find(' ') + 1));
      keys.push_back({{"partitionKey", value.is_discarded() ? Json::array() : value},
                      {"sizeInKB", (key_size.total_bytes + 1023) / 1024}});
    }
    COSMOS_ASSIGN_OR_RETURN(auto distinct, txn.CountLogicalPartitions(container.container.seq, min, max));
    statistics.push_back({{"id", std::to_string(range->id)},
                          {"sizeInKB", (size.total_bytes + 1023) / 1024},
                          {"documentCount", size.document_count},
                          {"sampledDistinctPartitionKeyCount", distinct},
                          {"partitionKeys", std::move(keys)}});
  }
  return statistics;
}

}  // namespace

Result<ResourceResponse> Catalog::ReadContainer(const ContainerAddress& container, bool populate_quota_info,
                                                bool populate_partition_statistics) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, context_.FindContainer(txn, container, /*as_owner=*/false));
  ResourceResponse response;
  response.index_transformation_progress = 100;
  if (resolved->index_build && resolved->index_build->total > 0) {
    response.index_transformation_progress =
        std::min<int64_t>(99, resolved->index_build->done * 100 / resolved->index_build->total);
  } else if (resolved->index_build) {
    response.index_transformation_progress = 0;
  }
  if (populate_quota_info) {
    COSMOS_ASSIGN_OR_RETURN(auto stored, txn.MeasureKeyRange(resolved->container.seq, "", kMaxEffectivePartitionKey));
    int64_t stored_kb = (stored.total_bytes + 1023) / 1024;
    int64_t partition_cap_kb = context_.options().logical_partition_cap_bytes / 1024;
    // Sizes in KB, as the service reports them; a container's own size is not capped (-1).
    response.resource_quota = "documentSize=" + std::to_string(kMaxDocumentBytes / 1024) +
                              ";documentsSize=" + std::to_string(partition_cap_kb) +
                              ";documentsCount=-1;collectionSize=-1;";
    // collectionSize is the documents and their index, as the service's; documentsSize the documents.
    COSMOS_ASSIGN_OR_RETURN(auto index, txn.MeasureIndex(resolved->container.seq));
    int64_t collection_kb = (stored.total_bytes + index.bytes + 1023) / 1024;
    response.resource_usage = "documentSize=" + std::to_string(stored_kb) + ";documentsSize=" +
                              std::to_string(stored_kb) + ";documentsCount=" + std::to_string(stored.document_count) +
                              ";collectionSize=" + std::to_string(collection_kb) + ";";
  }
  response.etag = resolved->properties["_etag"].get<std::string>();
  response.body = resolved->container.body;
  if (populate_partition_statistics) {
    Json body = resolved->properties;
    COSMOS_ASSIGN_OR_RETURN(body["statistics"], PartitionStatistics(txn, *resolved));
    response.body = body.dump();
  }
  response.request_charge = MetadataReadCharge();
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *resolved));
  response.owner_path = "dbs/" + resolved->database.id;
  response.owner_rid = resolved->database_rid;
  return response;
}

Result<FeedResponse> Catalog::ListContainers(const ResourceName& database, const FeedOptions& options) {
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindDatabase(txn, database, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListContainers(owner.seq, after, page_size + 1));
  FeedResponse response =
      SeqFeedPage(std::move(records), page_size, ResourceId::ForDatabase(owner.seq), "DocumentCollections");
  response.owner_path = "dbs/" + owner.id;
  return response;
}

Result<FeedResponse> Catalog::ListConflicts(const ContainerAddress& container) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, context_.FindContainer(txn, container, /*as_owner=*/true));
  FeedResponse response;
  response.body = FeedBody(resolved->container_rid, "Conflicts", std::vector<std::string>{});
  response.request_charge = MetadataReadCharge();
  response.owner_path = resolved->OwnerPath();
  response.owner_rid = resolved->container_rid;
  return response;
}

Result<ResourceResponse> Catalog::ReadConflict(const ContainerAddress& container) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_RETURN_IF_ERROR(context_.FindContainer(txn, container, /*as_owner=*/true).status());
  return Status::NotFound(kIdMissingMessage);
}

Result<ResourceResponse> Catalog::ReplaceContainer(const ContainerAddress& container,
                                                   const std::string& body,
                                                   const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "container definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, context_.FindContainer(txn, container, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, resolved->properties["_etag"].get<std::string>()));
  if (definition["id"] != resolved->container.id) {
    return Status::BadRequest("The id in the container definition does not match the id in the path.");
  }
  // A replace that leaves out the partition key keeps the one the container has.
  if (!definition.contains("partitionKey")) definition["partitionKey"] = resolved->properties["partitionKey"];
  COSMOS_ASSIGN_OR_RETURN(auto normalized, NormalizeContainerDefinition(definition));
  COSMOS_RETURN_IF_ERROR(CheckContainerReplace(resolved->properties, normalized));
  std::string etag = context_.NewEtag();
  for (const char* system : {"_rid", "_self", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"}) {
    normalized[system] = resolved->properties[system];
  }
  normalized["_ts"] = NowSeconds();
  normalized["_etag"] = etag;
  std::string text = normalized.dump();
  COSMOS_RETURN_IF_ERROR(txn.UpdateContainerBody(resolved->container.seq, text));
  std::optional<int64_t> default_ttl = DefaultTtlOf(normalized);
  if (default_ttl != resolved->default_ttl) {
    COSMOS_RETURN_IF_ERROR(RecomputeExpiries(txn, resolved->container.seq, default_ttl));
  }
  // A new indexing policy (or full-text policy, whose languages the full-text index's terms come
  // from): the index is rebuilt in the background; queries scan until it is done.
  const auto full_text_policy = [](const Json& properties) {
    return properties.contains("fullTextPolicy") ? properties["fullTextPolicy"] : Json();
  };
  if (normalized["indexingPolicy"] != resolved->properties["indexingPolicy"] ||
      full_text_policy(normalized) != full_text_policy(resolved->properties)) {
    COSMOS_RETURN_IF_ERROR(txn.StartIndexBuild(resolved->container.seq));
  }
  context_.ChangeCatalog(txn);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.body = std::move(text);
  response.etag = etag;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + resolved->database.id;
  response.owner_rid = resolved->database_rid;
  return response;
}

Result<ResourceResponse> Catalog::DeleteContainer(const ContainerAddress& container,
                                                  const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, context_.FindContainer(txn, container, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, resolved->properties["_etag"].get<std::string>()));
  COSMOS_RETURN_IF_ERROR(txn.DeleteContainer(resolved->container.seq));
  context_.ChangeCatalog(txn);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + resolved->database.id;
  response.owner_rid = resolved->database_rid;
  return response;
}

}  // namespace cosmos::engine
