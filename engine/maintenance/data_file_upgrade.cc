// Maintenance (maintenance.h): upgrades of data files written by older cosmolite versions.
#include "engine/maintenance/maintenance.h"

#include "engine/partitioning/partitioning.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {

Status Maintenance::UpgradeDataFile() {
  int version = context_.store().opened_schema_version();
  // Indexes need nothing here: a file store starts a build of every container's as it opens.
  if (version == 0 || version >= 4) return Status();
  if (version == 1) COSMOS_RETURN_IF_ERROR(RekeyDocuments());
  // Before version 4 there were no offers: every container gets the default offer (unless its
  // database shares throughput).
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const auto& database : databases) {
    COSMOS_ASSIGN_OR_RETURN(auto database_offer, txn.FindOfferFor(/*is_database=*/true, database.seq));
    COSMOS_ASSIGN_OR_RETURN(auto containers, txn.ListContainers(database.seq));
    for (const auto& container : containers) {
      COSMOS_ASSIGN_OR_RETURN(auto offer, txn.FindOfferFor(/*is_database=*/false, container.seq));
      if (offer || database_offer || context_.options().serverless) continue;
      ContainerThroughput throughput;
      throughput.manual = kDefaultContainerThroughput;
      std::string rid = ResourceId::ForContainer(database.seq, container.seq);
      COSMOS_RETURN_IF_ERROR(catalog_.InsertOffer(txn, /*is_database=*/false, container.seq,
                                                  ContainerSelf(ResourceId::ForDatabase(database.seq), rid), rid,
                                                  throughput));
    }
  }
  context_.ChangeCatalog(txn);
  return txn.Commit();
}

Status Maintenance::RekeyDocuments() {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const auto& database : databases) {
    COSMOS_ASSIGN_OR_RETURN(auto containers, txn.ListContainers(database.seq));
    for (const auto& container : containers) {
      Json properties = Json::parse(container.body);
      COSMOS_ASSIGN_OR_RETURN(auto definition, PartitionKeyDefinition::Parse(properties["partitionKey"]));
      for (const auto& range : InitialRanges(definition, InitialRangeCount(0, context_.options().min_physical_partitions))) {
        COSMOS_RETURN_IF_ERROR(txn.InsertPartitionKeyRange(container.seq, range));
      }
      // Rekey in sequence order: a rekeyed document moves within the key order being listed.
      int64_t after_seq = 0;
      for (;;) {
        COSMOS_ASSIGN_OR_RETURN(auto batch,
                                txn.ListDocuments(container.seq, storage::DocumentScope::All(), after_seq + 1, 1));
        if (batch.empty()) break;
        const storage::DocumentRecord* next = &batch.front();
        after_seq = next->seq;
        Json document = Json::parse(next->body);
        std::string key = StoragePartitionKey(definition, PartitionKeyValue::FromDocument(definition, document));
        COSMOS_RETURN_IF_ERROR(txn.RekeyDocument(container.seq, next->seq, key));
      }
    }
  }
  COSMOS_RETURN_IF_ERROR(txn.FinishRekeying());
  context_.ChangeCatalog(txn);
  return txn.Commit();
}

}  // namespace cosmos::engine
