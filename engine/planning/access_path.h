// AccessPath: how a query page reads a container's documents. Three ways, cheapest first for
// the query at hand:
//  - an ordered index scan: the documents in the query's ORDER BY order, read from the range
//    index of its one ORDER BY path (or the composite index of several), so that a page stops as
//    soon as it is full;
//  - an index lookup: only the documents the index names for the most selective WHERE predicate
//    on an indexed path (index_lookup.h), which the filter then checks;
//  - a scan: every document of the query's scopes, in storage order.
// The choice reads a few counts from the store (IndexStatistics), never a document, so it can be
// tested with counts made up for the case.
// Thread-safety: ChooseAccessPath is a pure function of its arguments and the statistics' answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "engine/indexing/indexing_policy.h"
#include "engine/planning/index_lookup.h"
#include "query/binder.h"
#include "storage/store.h"

namespace cosmos::engine {

// What the planner asks of the store about one container. Counts read index entries or
// partition sizes only.
class IndexStatistics {
 public:
  virtual ~IndexStatistics() = default;
  // Documents in the container.
  virtual Result<int64_t> ContainerDocuments() = 0;
  // Entries at an index path: the documents with a scalar there (or, for a composite index's
  // entry path, with a scalar at each of its paths).
  virtual Result<int64_t> EntriesAt(const std::string& path) = 0;
  // Documents in one logical partition, named by its storage key.
  virtual Result<int64_t> PartitionDocuments(const std::string& partition_key) = 0;
  // Entries at `path` within `range`, counting no further than `limit`.
  virtual Result<int64_t> EntriesInRange(const std::string& path, const IndexValueRange& range, int64_t limit) = 0;
};

// The statistics of container `container_seq` as the transaction `txn` sees it.
class StoredIndexStatistics : public IndexStatistics {
 public:
  StoredIndexStatistics(storage::Transaction& txn, int64_t container_seq) : txn_(txn), container_seq_(container_seq) {}
  Result<int64_t> ContainerDocuments() override;
  Result<int64_t> EntriesAt(const std::string& path) override;
  Result<int64_t> PartitionDocuments(const std::string& partition_key) override;
  Result<int64_t> EntriesInRange(const std::string& path, const IndexValueRange& range, int64_t limit) override;

 private:
  storage::Transaction& txn_;
  int64_t container_seq_;
};

struct AccessPath {
  // Set: the first page reads in ORDER BY order from this index scan (backwards when
  // `descending`). A later page resumes from a document position, which only the two other ways
  // can do, so it falls back to them.
  std::optional<IndexLookup> ordered_scan;
  bool descending = false;
  // Set: the documents this lookup names; nullopt: every document of the scopes.
  std::optional<IndexLookup> lookup;
};

// The document paths of a query's ORDER BY items, for the indexing policy's check (CheckOrderBy)
// and the ordered index scan. Empty when an item sorts by something other than a path from the
// root document (a JOIN alias's values, an expression); those are left to the scan.
std::vector<OrderByPath> OrderByPaths(const query::SelectQuery& query);

// How `prepared` (with `parameters`) reads the `scopes` of a container indexed by `policy`.
// While the container's index is being built (`index_ready` false) the index is not trusted and
// every query scans.
Result<AccessPath> ChooseAccessPath(const IndexingPolicy& policy, bool index_ready, const query::BoundQuery& prepared,
                                    const Json& parameters, const std::vector<storage::DocumentScope>& scopes,
                                    IndexStatistics& statistics);

}  // namespace cosmos::engine
