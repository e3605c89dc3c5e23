#include "engine/maintenance/maintenance.h"

#include <map>
#include <optional>

#include "common/json_parse.h"
#include "engine/change_feed/change_log.h"
#include "engine/indexing/document_index.h"

namespace cosmos::engine {

using storage::DocumentRecord;

Maintenance::Maintenance(AccountContext& context, Catalog& catalog) : context_(context), catalog_(catalog) {}

Result<int64_t> Maintenance::SweepExpiredDocuments(int64_t now, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto expired, txn.ListExpiredDocuments(now, limit));
  std::map<int64_t, std::optional<Json>> logging;  // container seq -> its definition, when it keeps a log
  std::map<int64_t, IndexingPolicy> policies;       // container seq -> its indexing policy
  for (const auto& [container_seq, record] : expired) {
    auto [known, inserted] = logging.try_emplace(container_seq);
    if (inserted) {
      COSMOS_ASSIGN_OR_RETURN(auto container, txn.FindContainerBySeq(container_seq));
      if (container) {
        Json properties = Json::parse(container->body);
        policies[container_seq] = IndexingPolicy::ForContainer(properties);
        if (ChangeLogRetentionOf(properties) > 0) known->second = std::move(properties);
      }
    }
    COSMOS_RETURN_IF_ERROR(DeleteIndexedDocument(txn, container_seq, policies[container_seq], record));
    if (!known->second) continue;
    // An expiry is a delete in the all-versions-and-deletes feed, marked timeToLiveExpired.
    COSMOS_ASSIGN_OR_RETURN(auto definition, PartitionKeyDefinition::Parse((*known->second)["partitionKey"]));
    Json document = ParseJson(record.body);
    COSMOS_ASSIGN_OR_RETURN(int64_t lsn, txn.NextLsn(container_seq));
    ChangeLogEntry entry = DeletionEntry(lsn, now, record.lsn, record.id,
                                         PartitionKeyObject(definition, PartitionKeyValue::FromDocument(definition, document)));
    entry.ttl_expired = true;
    COSMOS_RETURN_IF_ERROR(txn.AppendChange(container_seq, lsn, record.partition_key, ChangeLogText(entry),
                                            now + ChangeLogRetentionOf(*known->second)));
  }
  COSMOS_RETURN_IF_ERROR(txn.PruneChangeLog(now));
  if (!expired.empty()) context_.ChangeCatalog(txn);  // their LSNs moved on
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return static_cast<int64_t>(expired.size());
}

Result<bool> Maintenance::ContinueIndexBuilds(int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto builds, txn.ListIndexBuilds());
  if (builds.empty()) return false;
  storage::IndexBuild build = builds.front();
  COSMOS_ASSIGN_OR_RETURN(auto container, txn.FindContainerBySeq(build.container_seq));
  if (!container) {
    COSMOS_RETURN_IF_ERROR(txn.FinishIndexBuild(build.container_seq));
    COSMOS_RETURN_IF_ERROR(txn.Commit());
    return builds.size() > 1;
  }
  IndexingPolicy policy = IndexingPolicy::ForContainer(Json::parse(container->body));
  COSMOS_ASSIGN_OR_RETURN(auto documents, txn.ListDocuments(build.container_seq, storage::DocumentScope::All(),
                                                            build.after_seq + 1, limit));
  for (const DocumentRecord& document : documents) {
    COSMOS_RETURN_IF_ERROR(
        txn.InsertIndexEntries(build.container_seq, document.seq, document.partition_key,
                               IndexEntriesOf(policy, document.body)));
    build.after_seq = document.seq;
  }
  build.done += static_cast<int64_t>(documents.size());
  bool finished = static_cast<int64_t>(documents.size()) < limit;
  if (finished) {
    COSMOS_RETURN_IF_ERROR(txn.FinishIndexBuild(build.container_seq));
    context_.ChangeCatalog(txn);  // queries may use the index from now on
  } else {
    COSMOS_RETURN_IF_ERROR(txn.UpdateIndexBuild(build));
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return !finished || builds.size() > 1;
}

Result<bool> Maintenance::ContinueIndexBuildsFor(std::chrono::milliseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    COSMOS_ASSIGN_OR_RETURN(bool more, ContinueIndexBuilds(kMaintenanceBatch));
    if (!more || std::chrono::steady_clock::now() >= deadline) return more;
  }
}

}  // namespace cosmos::engine
