// Catalog: the account's databases and containers and their throughput offers — create, read,
// list, replace, delete — with the service's validation, system properties (_rid, _self, _etag,
// _ts), If-Match, and the request charges of metadata operations. Creating a container also
// creates its partition key ranges (one per 10,000 RU/s, at least --min-physical-partitions) and
// its offer; raising an offer past what the ranges serve splits them.
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "engine/api.h"
#include "engine/catalog/throughput.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

class Catalog {
 public:
  explicit Catalog(AccountContext& context);

  // Databases. Create returns kConflict if the id exists; the others kNotFound if missing.
  // Throughput given: the database shares it among its containers (an offer of its own).
  Result<ResourceResponse> CreateDatabase(const std::string& body, const ContainerThroughput& throughput);
  Result<ResourceResponse> ReadDatabase(const ResourceName& database);
  Result<FeedResponse> ListDatabases(const FeedOptions& options);
  // kPreconditionFailed when If-Match is stale.
  Result<ResourceResponse> DeleteDatabase(const ResourceName& database, const Preconditions& preconditions);

  // Containers. kOwnerResourceNotFound when the database is missing; kBadRequest for an
  // invalid definition or a replace that changes the partition key or unique keys. A container
  // gets an offer of its own with the throughput given, or 400 RU/s when neither it nor its
  // database states any (none on a serverless account); the throughput decides its ranges.
  // `legacy_api_version`: the request's x-ms-version predates 2018-12-31, which may still create a
  // container without a partition key (the legacy non-partitioned kind, kLegacyPartitionKey).
  Result<ResourceResponse> CreateContainer(const ResourceName& database, const std::string& body,
                                           const ContainerThroughput& throughput, bool legacy_api_version = false);
  // With `populate_quota_info`, also the container's quota and usage (documents, sizes in KB);
  // with `populate_partition_statistics`, the body's "statistics": per physical partition its
  // size, document count and largest logical partitions, as the service reports them.
  Result<ResourceResponse> ReadContainer(const ContainerAddress& container, bool populate_quota_info,
                                         bool populate_partition_statistics = false);
  Result<FeedResponse> ListContainers(const ResourceName& database, const FeedOptions& options);
  // A replace that changes the default TTL recomputes every document's expiry; one that changes
  // the indexing policy starts an index build (maintenance/maintenance.h finishes it).
  Result<ResourceResponse> ReplaceContainer(const ContainerAddress& container, const std::string& body,
                                            const Preconditions& preconditions);
  Result<ResourceResponse> DeleteContainer(const ContainerAddress& container, const Preconditions& preconditions);
  // A container's conflicts feed: conflicts arise only between regions that both accept writes,
  // and this account has one region, so the feed is empty and every conflict id is kNotFound
  // (kOwnerResourceNotFound when the container is missing).
  Result<FeedResponse> ListConflicts(const ContainerAddress& container);
  Result<ResourceResponse> ReadConflict(const ContainerAddress& container);

  // Offers. Read and replace take the offer's _rid; kNotFound when there is none, kBadRequest on
  // a serverless account. A replace below the minimum is kBadRequest; one that grows a container
  // past 10,000 RU/s per physical partition splits its ranges until each holds at most that.
  Result<ResourceResponse> ReadOffer(const std::string& offer_rid);
  Result<FeedResponse> ListOffers(const FeedOptions& options);
  Result<ResourceResponse> ReplaceOffer(const std::string& offer_rid, const std::string& body,
                                        const Preconditions& preconditions);

  // Creates the offer of a database or container inside `txn`.
  Status InsertOffer(storage::Transaction& txn, bool is_database, int64_t resource_seq,
                     const std::string& resource_self, const std::string& resource_rid,
                     const ContainerThroughput& throughput);

 private:
  AccountContext& context_;
};

}  // namespace cosmos::engine
