// A stored document's place in its container's index: the entries it has under the indexing
// policy, and deleting a document together with them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/indexing/indexing_policy.h"
#include "storage/store.h"

namespace cosmos::engine {

// The index entries a stored document has under the container's policy (none when indexing is off).
std::vector<storage::IndexEntry> IndexEntriesOf(const IndexingPolicy& policy, const std::string& body);

// Deletes a document together with its index entries, inside the caller's transaction.
Status DeleteIndexedDocument(storage::Transaction& txn, int64_t container_seq, const IndexingPolicy& policy,
                             const storage::DocumentRecord& record);

}  // namespace cosmos::engine
