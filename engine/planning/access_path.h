// AccessPath: how a query page reads a container's documents. Three ways, cheapest first for
// the query at hand:
//  - an ordered index scan: the documents in the query's ORDER BY order, read from the range
//    index of its one ORDER BY path (or the composite index of several), so that a page stops as
//    soon as it is full;
//  - an index lookup: only the documents the index names for the WHERE predicate on an indexed
//    path whose entries are fewest (index_lookup.h, counted), which the filter then checks; and of
//    those, only the ones other predicates' entries name too, when reading those entries costs
//    less than loading the documents they rule out (an index intersection). A lookup that names many
//    entries starts as a scan instead, and becomes the lookup only when the page is not full
//    after kScanBudget documents: a common value fills a page from the first documents, a rare
//    one is found in the index;
//  - a scan: every document of the query's scopes, in storage order;
//  - inside one logical partition, a walk of a range in index order: where a range names many
//    entries across the container and the partition holds a small share of its documents, a
//    page fills after about rows × (container documents ÷ partition documents) entries, so its
//    cost follows the partition's share and the page size, not the container's size.
// Inside logical partitions (every scope names one) a predicate on the partition key holds for
// every document read, so it never chooses the index; the index serves the other predicates
// there as anywhere else, reading only the partitions' entries.
// The choice reads a few counts from the store (IndexStatistics), never a document, so it can be
// tested with counts made up for the case.
// Thread-safety: ChooseAccessPath is a pure function of its arguments and the statistics' answers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "engine/indexing/indexing_policy.h"
#include "engine/planning/index_lookup.h"
#include "engine/shared/container_cache.h"
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
  // Documents in one scope (a logical partition or a range of keys).
  virtual Result<int64_t> DocumentsIn(const storage::DocumentScope& scope) = 0;
  // Entries at `path` within `range` (of one logical partition when `partition_key` is given),
  // counting no further than `limit`.
  virtual Result<int64_t> EntriesInRange(const std::string& path, const IndexValueRange& range,
                                         const std::optional<std::string>& partition_key, int64_t limit) = 0;
};

// The statistics of container `container_seq` as the transaction `txn` sees it: document counts
// are read once for the life of the object (one page's planning and reading), and with `cache`,
// EntriesAt is counted once per container LSN (`lsn`, the one `txn` sees).
class StoredIndexStatistics : public IndexStatistics {
 public:
  StoredIndexStatistics(storage::Transaction& txn, int64_t container_seq, EntryCountCache* cache = nullptr,
                        int64_t lsn = 0)
      : txn_(txn), container_seq_(container_seq), cache_(cache), lsn_(lsn) {}
  Result<int64_t> ContainerDocuments() override;
  Result<int64_t> EntriesAt(const std::string& path) override;
  Result<int64_t> DocumentsIn(const storage::DocumentScope& scope) override;
  Result<int64_t> EntriesInRange(const std::string& path, const IndexValueRange& range,
                                 const std::optional<std::string>& partition_key, int64_t limit) override;

 private:
  storage::Transaction& txn_;
  int64_t container_seq_;
  EntryCountCache* cache_;
  int64_t lsn_;
  std::optional<int64_t> container_documents_;
  std::map<std::string, int64_t> documents_in_;  // by DocumentsIn's key for the scope
};

struct AccessPath {
  // Set: the page reads in ORDER BY order from this index scan (backwards when `descending`); a
  // later page starts after the last row returned (document_sources.h's OrderResume).
  std::optional<IndexLookup> ordered_scan;
  bool descending = false;
  // Set: the documents this lookup names; nullopt: every document of the scopes.
  std::optional<IndexLookup> lookup;
  // Further lookups whose documents the lookup's are intersected with before any is loaded:
  // c.tag = 't3' AND c.n BETWEEN 1 AND 9 loads only the documents both name.
  std::vector<IndexLookup> intersected;
  // Inside one logical partition, a streaming query with a range on an indexed path: the range
  // walked in index order, reading only the partition's entries, loading only its matches. Rows
  // then come in the order of the range's values (a query without ORDER BY promises none). Set
  // whenever the query and scope allow it, so that a later page can resume the walk whatever
  // the counts say then; `walk` says whether this page starts one.
  std::optional<IndexLookup> partition_walk;
  bool walk = false;
  // The lookup reads more entries than its scopes' documents are worth (ScanFirstAbove): read
  // the scopes first, and after kScanBudget documents turn to the lookup if it still pays
  // (LookupPaysAfterScan).
  bool scan_first = false;
  // The lookups are the whole WHERE clause, answered exactly (LookupsAnswerAll), and the query reads
  // nothing else of a document: the documents are counted from their entries, never loaded
  // (SELECT VALUE COUNT(1) FROM c WHERE c.tag = @t).
  bool index_only = false;
  // Set (with index_only): the query reads only the values at these paths, each within its
  // entries' ranges (every value, or the WHERE clause's predicate on it), beside the lookups'
  // filter: each document is made from its entries there, never loaded (SELECT VALUE MAX(c.n)
  // FROM c WHERE c.tag = @t; SELECT c.tag, AVG(c.n) FROM c GROUP BY c.tag). A document whose
  // entry may be a cut string is loaded.
  std::vector<IndexLookup> values_of;
  // The rows a page returns at most (the page size, or TOP or LIMIT when smaller): an index read
  // in order fetches about this many entries at first.
  int64_t rows_wanted = 100;
};

// Whether every one of `scopes` (at least one) is one logical partition.
bool AllLogicalPartitions(const std::vector<storage::DocumentScope>& scopes);

// Documents a scan_first read loads before it considers the lookup.
inline constexpr int64_t kScanBudget = 64;
// Reading one index entry costs about this fraction of loading and filtering one document
// (bench: ~0.2 µs against 4-10 µs).
inline constexpr int64_t kEntriesPerDocument = 20;
// Reading one entry's value costs about this fraction of loading the document it stands for
// (bench_query_cost: a SUM over the container from the entries took half the time of loading each
// 256-byte document; with a filter on another path naming a tenth of the documents, reading the
// path's every entry took longer than loading that tenth).
inline constexpr int64_t kValueEntriesPerDocument = 3;
// A walk of a range inside one logical partition is taken only while it steps over fewer than
// this many entries per document of the partition. bench_query_cost: a step costs ~0.085 µs, a
// document loaded ~4.6 µs (×55), and a scan of the partition fills its page after reading
// about 40% of it; at 3,000 documents (30 per partition) the scan is quicker (175 against 237
// µs), at 10,000 (100 per partition) the walk (241 against 291 µs).
inline constexpr int64_t kWalkEntriesPerDocument = 20;
// A lookup that reads fewer entries than this costs less than loading a few documents: it is
// used over any scope without counting the documents there.
inline constexpr int64_t kCheapLookupEntries = 1024;
// Inside logical partitions a lookup is used up to kEntriesPerDocument entries per document of
// the partitions (it reads less than the whole partition would cost), up to this many; counting
// further would cost as much as the reads it might save.
inline constexpr int64_t kPartitionLookupEntries = 4096;

// Counting the entries of candidate lookups stops here: a lookup that reads more costs more than
// the counts are worth telling apart.
inline constexpr int64_t kMostEntriesCounted = int64_t{1} << 20;

// Whether a scan_first read of `scopes` that has read `scanned` documents without filling its
// page costs less by turning to `lookups` (intersected): when they read fewer than
// kEntriesPerDocument entries per document left to scan, and fewer than kPartitionLookupEntries.
// Counts no further.
Result<bool> LookupPaysAfterScan(const std::vector<IndexLookup>& lookups,
                                 const std::vector<storage::DocumentScope>& scopes, int64_t scanned,
                                 IndexStatistics& statistics);

// The document paths of a query's ORDER BY items, for the indexing policy's check (CheckOrderBy)
// and the ordered index scan. Empty when an item sorts by something other than a path from the
// root document (a JOIN alias's values, an expression); those are left to the scan.
std::vector<OrderByPath> OrderByPaths(const query::SelectQuery& query);

// How `prepared` (with `parameters`) reads the `scopes` of a container indexed by `policy` and
// partitioned on `partition_key_paths` ("/tenant"). While the container's index is being built
// (`index_ready` false) the index is not trusted and every query scans. Where documents expire
// (`documents_expire`: time to live is on) each must be loaded to tell whether it still exists.
// `page_rows`: the rows a page may return (x-ms-max-item-count).
Result<AccessPath> ChooseAccessPath(const IndexingPolicy& policy, bool index_ready, const query::BoundQuery& prepared,
                                    const Json& parameters, const std::vector<storage::DocumentScope>& scopes,
                                    const std::vector<std::string>& partition_key_paths, bool documents_expire,
                                    IndexStatistics& statistics, int64_t page_rows = 100);

}  // namespace cosmos::engine
