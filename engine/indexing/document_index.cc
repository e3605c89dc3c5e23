#include "engine/indexing/document_index.h"

#include "common/json_parse.h"

namespace cosmos::engine {

std::vector<storage::IndexEntry> IndexEntriesOf(const IndexingPolicy& policy, const std::string& body) {
  if (policy.indexing_disabled()) return {};
  return policy.IndexEntries(ParseJson(body));
}

Status DeleteIndexedDocument(storage::Transaction& txn, int64_t container_seq, const IndexingPolicy& policy,
                             const storage::DocumentRecord& record) {
  COSMOS_RETURN_IF_ERROR(
      txn.DeleteIndexEntries(container_seq, record.seq, record.partition_key, IndexEntriesOf(policy, record.body)));
  return txn.DeleteDocument(container_seq, record);
}

}  // namespace cosmos::engine
