// Document sources of search queries, read from the search indexes (engine/indexing/
// search_indexes.h) rather than by scanning every document:
//  - VectorOrderSource: ORDER BY VectorDistance(path, vector) over a vector-indexed path: every
//    embedding's score bounded from its quantized copy, those that may rank scored from their
//    floats, the documents then loaded most similar first (ties in read order). Scores are those
//    VectorDistance gives on the documents (query/functions/vector_kernel.h), and a document comes
//    only once its score beats every bound left, so the order is exact whatever the index type.
// Thread-safety: a source belongs to one query page on one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/indexing/search_indexes.h"
#include "engine/partitioning/read_order.h"
#include "engine/queries/stored_source.h"
#include "query/execution/executor.h"
#include "query/functions/registry.h"
#include "storage/store.h"

namespace cosmos::engine {

// The documents of the segments with an embedding in `index`, in order of their score against
// `query` by `metric`, most similar first: in ORDER BY order, each with its score as sort key and
// as its ORDER BY value (so `properties` need not hold the embedding).
// Documents without an embedding the index holds (missing, of other dimensions, not numbers) are
// not among them: they have no score. Adds the entries read to `entries_read`.
std::unique_ptr<query::DocumentSource> VectorOrderSource(storage::Transaction& txn, int64_t container_seq,
                                                         const std::vector<ReadSegment>& segments,
                                                         const VectorIndexPath& index, std::vector<float> query,
                                                         query::VectorMetric metric, const ReadProperties& properties,
                                                         uint64_t& entries_read);

}  // namespace cosmos::engine
