// Document sources: where a query page's documents come from (query/execution/executor.h pulls
// them one at a time). Each reads inside the caller's transaction, skips documents whose time to
// live ran out, parses only the top-level `properties` the query reads (nullopt: whole
// documents), and gives each document the position a continuation resumes from. The sources
// keep references to their arguments: those must outlive them.
// Thread-safety: a source belongs to one query page on one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/partitioning/read_order.h"
#include "engine/planning/index_lookup.h"
#include "query/execution/executor.h"
#include "storage/store.h"

namespace cosmos::engine {

using ReadProperties = std::optional<std::vector<std::string>>;

// Every document of the segments, in read order (engine/partitioning/read_order.h), from
// `start` (inclusive) when given, a batch at a time. When the query reads no property of the
// documents (`properties` is an empty list) they are never loaded: each is an index entry read,
// added to `entries_read`, and an index_only document.
std::unique_ptr<query::DocumentSource> ScanSource(storage::Transaction& txn, int64_t container_seq,
                                                  const std::vector<ReadSegment>& segments,
                                                  std::optional<ReadPosition> start, const ReadProperties& properties,
                                                  uint64_t& entries_read);

// The documents every one of `lookups` names (one lookup, or several intersected) within the
// segments, in read order, from `start` (inclusive). The WHERE clause still runs on each: the
// lookups may name more documents than match. Adds the entries they read to `entries_read`. When
// `index_only` (the lookups are the whole filter and the query reads nothing else) no document is
// loaded: each is an index_only document that satisfies the WHERE clause.
std::unique_ptr<query::DocumentSource> IndexLookupSource(storage::Transaction& txn, int64_t container_seq,
                                                         const std::vector<ReadSegment>& segments,
                                                         const std::vector<IndexLookup>& lookups,
                                                         std::optional<ReadPosition> start,
                                                         const ReadProperties& properties, uint64_t& entries_read,
                                                         bool index_only = false);

// The documents `lookups` name, read as a scan first: ScanSource's documents until
// `scan_budget` of them were read; then, if `lookup_pays(scan_budget)` says so,
// IndexLookupSource's after the last one scanned, in the same read order (otherwise the scan
// goes on). A page that fills from the first documents never reads the index; one that does not
// stops loading documents the filter rejects.
using LookupPays = std::function<Result<bool>(int64_t documents_scanned)>;
std::unique_ptr<query::DocumentSource> ScanThenLookupSource(storage::Transaction& txn, int64_t container_seq,
                                                            const std::vector<ReadSegment>& segments,
                                                            const std::vector<IndexLookup>& lookups,
                                                            std::optional<ReadPosition> start,
                                                            const ReadProperties& properties, int64_t scan_budget,
                                                            uint64_t& entries_read, LookupPays lookup_pays);

// Where a later page starts in index order: after the document at `position` whose sort key is
// `sort_key` (a sorted query's, query/execution/executor.h's OpenSource), or at it when
// `inclusive` (a streaming page's, which resumes at the document it stopped in).
struct OrderResume {
  std::string sort_key;
  Json position;
  bool inclusive = false;
};

// The documents of the segments in the order of a query's ORDER BY, read from the index at its
// path (one item) or from its composite index (several), backwards when `descending`, within
// the scan's ranges; equal values in read-position order. With `resume`, only the documents from
// it. Adds the entries it reads to `entries_read`.
// With `walk_positions` the source serves a streaming page that walks a range lookup inside one
// logical partition (planning/access_path.h's partition walk): each document's position is
// {"walk": <its sort key, hex>, "p": <its read position>}, from which the walk resumes.
// `rows_wanted` (AccessPath::rows_wanted) sizes the first read of entries; each later read
// fetches twice as many, up to 256. A page of n rows takes n + 1 documents (the last tells
// whether there are more), a sorted one another to see that none ties with them, and the source
// reads one entry beyond those, where the last run of equal values ends: n + 3; a resumed page
// reads the last row returned again: n + 4.
std::unique_ptr<query::DocumentSource> IndexOrderSource(storage::Transaction& txn, int64_t container_seq,
                                                        const std::vector<ReadSegment>& segments,
                                                        const IndexLookup& scan, bool descending,
                                                        std::optional<OrderResume> resume,
                                                        const ReadProperties& properties, uint64_t& entries_read,
                                                        int64_t rows_wanted, bool walk_positions = false);

// The values at each of `values`' paths, within its ranges, of the documents with an entry at
// every one of them that every one of `lookups` names, in read order: each is an index_only
// document made of those values alone ({"a": {"b": 1}, "c": 2} for /a/b and /c) that satisfies
// the WHERE clause. A document whose entry may hold only the start of a long string is loaded
// instead.
// Serves sorted, grouped, aggregated and DISTINCT pages, which never resume from a position.
// Adds the entries read to `entries_read`.
std::unique_ptr<query::DocumentSource> IndexValuesSource(storage::Transaction& txn, int64_t container_seq,
                                                         const std::vector<ReadSegment>& segments,
                                                         const std::vector<IndexLookup>& values,
                                                         const std::vector<IndexLookup>& lookups,
                                                         const ReadProperties& properties, uint64_t& entries_read);

// Metadata resources (databases, containers, offers) held in memory, as (seq, body) in seq
// order, from `start_seq`.
std::unique_ptr<query::DocumentSource> ResourceListSource(const std::vector<std::pair<int64_t, std::string>>& bodies,
                                                          int64_t start_seq);

}  // namespace cosmos::engine
