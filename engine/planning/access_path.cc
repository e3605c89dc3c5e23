#include "engine/planning/access_path.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/partitioning/partitioning.h"
#include "query/plan/index_filter.h"
#include "query/plan/query_plan.h"

namespace cosmos::engine {
namespace {

// The documents in `scopes`.
Result<int64_t> DocumentsInScopes(const std::vector<storage::DocumentScope>& scopes, IndexStatistics& statistics) {
  int64_t documents = 0;
  for (const storage::DocumentScope& scope : scopes) {
    COSMOS_ASSIGN_OR_RETURN(int64_t in_scope, statistics.DocumentsIn(scope));
    documents += in_scope;
  }
  return documents;
}

// The predicates the index may serve for a read of `scopes`. When every scope is one logical
// partition, those on the partition key hold for each document read: they would name the whole
// partition, and are left to the filter.
std::vector<query::IndexPredicate> UsefulPredicates(std::vector<query::IndexPredicate> predicates,
                                                    const std::vector<storage::DocumentScope>& scopes,
                                                    const std::vector<std::string>& partition_key_paths) {
  if (!AllLogicalPartitions(scopes)) return predicates;
  std::erase_if(predicates, [&](const query::IndexPredicate& predicate) {
    std::string path = IndexPathText(predicate.path);
    return std::find(partition_key_paths.begin(), partition_key_paths.end(), path) != partition_key_paths.end();
  });
  return predicates;
}

// How many entries `lookup` reads over `scopes`, counting no further than `limit`. A value of one
// logical partition is a seek to its entries; a range walks the range's entries of every
// partition, filtering, so it is counted over the container once.
Result<int64_t> EntriesToRead(const IndexLookup& lookup, const std::vector<storage::DocumentScope>& scopes,
                              int64_t limit, IndexStatistics& statistics) {
  std::vector<std::optional<std::string>> partitions;
  if (lookup.equality && AllLogicalPartitions(scopes)) {
    for (const storage::DocumentScope& scope : scopes) partitions.push_back(scope.partition_key);
  } else {
    partitions.push_back(std::nullopt);
  }
  int64_t entries = 0;
  for (const std::optional<std::string>& partition : partitions) {
    for (const IndexValueRange& range : lookup.ranges) {
      COSMOS_ASSIGN_OR_RETURN(int64_t counted, statistics.EntriesInRange(lookup.path, range, partition, limit - entries));
      entries += counted;
      if (entries >= limit) return entries;
    }
  }
  return entries;
}

// The entries of every one of `lookups`, counting no further than `limit`.
Result<int64_t> EntriesToRead(const std::vector<IndexLookup>& lookups, const std::vector<storage::DocumentScope>& scopes,
                              int64_t limit, IndexStatistics& statistics) {
  int64_t entries = 0;
  for (const IndexLookup& lookup : lookups) {
    COSMOS_ASSIGN_OR_RETURN(int64_t counted, EntriesToRead(lookup, scopes, limit - entries, statistics));
    entries += counted;
    if (entries >= limit) break;
  }
  return entries;
}

// The documents whose entries `lookup` is counted among: a logical partition's for a seek to its
// values, the container's otherwise.
Result<int64_t> DocumentsCountedOver(const IndexLookup& lookup, const std::vector<storage::DocumentScope>& scopes,
                                     IndexStatistics& statistics) {
  if (lookup.equality && AllLogicalPartitions(scopes)) return DocumentsInScopes(scopes, statistics);
  return statistics.ContainerDocuments();
}

// The document paths whose predicates `lookup` holds.
std::vector<std::string> PathsOf(const IndexLookup& lookup) {
  return lookup.covers.empty() ? std::vector<std::string>{lookup.path} : lookup.covers;
}

// Whether two lookups hold a predicate on the same path (a composite index's lookup and one of its
// paths' own): intersecting them would read entries for nothing.
bool Overlap(const IndexLookup& a, const IndexLookup& b) {
  std::vector<std::string> theirs = PathsOf(b);
  for (const std::string& path : PathsOf(a)) {
    if (std::find(theirs.begin(), theirs.end(), path) != theirs.end()) return true;
  }
  return false;
}

// Of `candidates` (at least two, IndexLookups order), the lookups a read of `scopes` uses: the one
// with the fewest entries (counted no further than `counted_up_to`, nor than the fewest so far),
// then each other whose entries cost less to read than loading the documents it would rule out,
// estimated as if the predicates were independent: with N documents, a lookup of n entries rules
// out (1 - n/N) of the documents named so far.
Result<std::vector<IndexLookup>> ChooseLookups(std::vector<IndexLookup> candidates,
                                               const std::vector<storage::DocumentScope>& scopes,
                                               int64_t counted_up_to, IndexStatistics& statistics) {
  std::vector<int64_t> entries(candidates.size());
  size_t fewest = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    int64_t limit = i == 0 ? counted_up_to : entries[fewest];
    COSMOS_ASSIGN_OR_RETURN(entries[i], EntriesToRead(candidates[i], scopes, limit, statistics));
    if (entries[i] < entries[fewest]) fewest = i;
  }
  std::vector<IndexLookup> chosen = {candidates[fewest]};
  // Even the fewest reach the count's cap: the read starts as a scan, and counting the others
  // further would cost more than it might spare.
  if (entries[fewest] >= counted_up_to) return chosen;
  double named = static_cast<double>(entries[fewest]);  // documents the chosen lookups name, estimated
  std::vector<size_t> others;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (i != fewest) others.push_back(i);
  }
  std::stable_sort(others.begin(), others.end(), [&](size_t a, size_t b) { return entries[a] < entries[b]; });
  for (size_t i : others) {
    if (std::any_of(chosen.begin(), chosen.end(), [&](const IndexLookup& lookup) { return Overlap(lookup, candidates[i]); })) {
      continue;
    }
    int64_t budget = static_cast<int64_t>(named) * kEntriesPerDocument;
    if (budget == 0) break;
    // A count cut at the fewest so far may be short of what this one needs to know.
    if (entries[i] >= entries[fewest]) {
      COSMOS_ASSIGN_OR_RETURN(entries[i], EntriesToRead(candidates[i], scopes, budget, statistics));
    }
    if (entries[i] >= budget) continue;
    COSMOS_ASSIGN_OR_RETURN(int64_t documents, DocumentsCountedOver(candidates[i], scopes, statistics));
    double kept = documents == 0 ? 0.0 : std::min(1.0, static_cast<double>(entries[i]) / static_cast<double>(documents));
    double spared = named * (1.0 - kept);
    if (static_cast<double>(entries[i]) >= spared * kEntriesPerDocument) continue;
    chosen.push_back(candidates[i]);
    named -= spared;
  }
  return chosen;
}

// How many entries a lookup may read before a scan of `scopes` is tried first. Logical
// partitions are counted (one row each) and a lookup pays there while it reads less than their
// documents would cost; other scopes are not, and a lookup is tried first while it is cheap.
Result<int64_t> ScanFirstAbove(const std::vector<storage::DocumentScope>& scopes, IndexStatistics& statistics) {
  if (!AllLogicalPartitions(scopes)) return kCheapLookupEntries;
  COSMOS_ASSIGN_OR_RETURN(int64_t documents, DocumentsInScopes(scopes, statistics));
  return std::clamp(kEntriesPerDocument * documents, kCheapLookupEntries, kPartitionLookupEntries);
}

// The rows a page of `prepared` returns at most: `page_rows`, or fewer under a TOP or LIMIT.
int64_t RowsWanted(const query::BoundQuery& prepared, const Json& parameters, int64_t page_rows) {
  int64_t rows = std::max<int64_t>(page_rows, 1);
  const query::SelectQuery& q = prepared.root();
  for (const query::Expr* count : {q.top.get(), q.limit.get()}) {
    if (count == nullptr) continue;
    if (std::optional<uint64_t> value = query::CountValue(*count, parameters)) {
      rows = std::min(rows, std::max<int64_t>(static_cast<int64_t>(*value), 1));
    }
  }
  return rows;
}

// The index scan that yields a query's documents in its ORDER BY order, when one can: a single
// ORDER BY item on an indexed path (or several, in a composite index), one FROM source, no
// grouping, aggregate or DISTINCT. When the WHERE clause bounds the same path (or, for a composite
// index, its leading paths: one of `composites`), the scan keeps to those bounds (documents
// outside fail the filter anyway); otherwise every document must have a scalar there, or the
// scan would miss the ones that sort as undefined, arrays or objects. `rows_wanted`: the rows a page returns at most.
Result<std::optional<IndexLookup>> OrderedIndexScan(const IndexingPolicy& policy, const query::BoundQuery& prepared,
                                                    const std::vector<query::IndexPredicate>& predicates,
                                                    const std::vector<IndexLookup>& composites,
                                                    const std::optional<IndexLookup>& lookup,
                                                    const std::vector<storage::DocumentScope>& scopes,
                                                    int64_t rows_wanted, IndexStatistics& statistics,
                                                    bool& descending) {
  const query::SelectQuery& q = prepared.root();
  const query::SelectInfo& info = prepared.info(q);
  if (q.order_by.empty() || q.from.size() != 1 || q.distinct || info.is_grouped() || info.is_aggregate() ||
      info.container_subquery) {
    return std::optional<IndexLookup>();
  }
  std::vector<OrderByPath> paths = OrderByPaths(q);
  if (paths.size() != q.order_by.size()) return std::optional<IndexLookup>();
  IndexLookup scan;
  IndexValueRange every_value;
  if (paths.size() == 1) {
    if (!policy.IsIndexed(paths[0].path)) return std::optional<IndexLookup>();
    descending = paths[0].descending;
    scan.path = IndexPathText(paths[0].path);
    every_value = {std::string(1, kIndexTypeNull), true, std::string(1, kIndexTypeString + 1), false};
  } else {
    // Several items: the composite index that CheckOrderBy found, read backwards when the query
    // inverts its directions. Its values are component tuples (EncodeCompositeValue), whose
    // first byte is never 0xff.
    auto composite = policy.FindCompositeIndex(paths);
    if (!composite) return std::optional<IndexLookup>();
    descending = composite->backwards;
    scan.path = composite->entry_path;
    every_value = {std::string(), true, std::string(1, '\xff'), false};
  }
  // The predicates on the ORDER BY path bound the walk (documents outside fail the filter).
  std::vector<query::IndexPredicate> on_path;
  for (const query::IndexPredicate& predicate : predicates) {
    if (IndexPathText(predicate.path) == scan.path) on_path.push_back(predicate);
  }
  std::optional<IndexLookup> bounds = on_path.empty() ? std::nullopt : ChooseIndexLookup(policy, on_path);
  if (paths.size() > 1) {
    for (const IndexLookup& composite : composites) {
      if (composite.path == scan.path) bounds = composite;
    }
  }
  // A composite lookup of the leading paths names only documents with a scalar at every path.
  if (!bounds || (!bounds->covers.empty() && !bounds->complete)) {
    // The index order holds every document only when each has an entry on the path (a scalar
    // there, or at every path of the composite index); otherwise the query sorts what it reads.
    COSMOS_ASSIGN_OR_RETURN(int64_t documents, statistics.ContainerDocuments());
    COSMOS_ASSIGN_OR_RETURN(int64_t entries, statistics.EntriesAt(scan.path));
    if (entries != documents) return std::optional<IndexLookup>();
  }
  // An equality elsewhere names `named` of N documents (those it is counted over: its logical
  // partitions', or the container's). Sorting them loads all of them; the walk loads about
  // rows × N / named before its page is full (a match every N / named steps). The walk pays while
  // named² ≥ rows × N: a rare value is sorted, a common one (a tenant, a status) walked. With
  // predicates on two other paths the matches are rarer than either names, and the lookups,
  // intersected, find them for less than the walk. (An equality on a composite index's leading
  // path bounds its scan instead: the scan reads the equality's documents only, in order.)
  const bool composite_bounds = bounds && !bounds->covers.empty();
  if (lookup && lookup->equality && lookup->path != scan.path && !composite_bounds) {
    std::vector<std::string> other_paths;
    for (const query::IndexPredicate& predicate : predicates) {
      std::string path = IndexPathText(predicate.path);
      if (path != scan.path && std::find(other_paths.begin(), other_paths.end(), path) == other_paths.end()) {
        other_paths.push_back(std::move(path));
      }
    }
    if (other_paths.size() > 1) return std::optional<IndexLookup>();
    COSMOS_ASSIGN_OR_RETURN(int64_t documents, DocumentsCountedOver(*lookup, scopes, statistics));
    double walked_before_full = static_cast<double>(rows_wanted) * static_cast<double>(documents);
    int64_t enough = static_cast<int64_t>(std::ceil(std::sqrt(walked_before_full)));
    COSMOS_ASSIGN_OR_RETURN(int64_t named, EntriesToRead(*lookup, scopes, enough, statistics));
    if (named < enough) return std::optional<IndexLookup>();
  }
  if (bounds) {
    scan.ranges = bounds->ranges;
  } else {
    scan.ranges.push_back(std::move(every_value));
  }
  std::sort(scan.ranges.begin(), scan.ranges.end(),
            [](const IndexValueRange& a, const IndexValueRange& b) { return a.lower < b.lower; });
  scan.ranges.erase(std::unique(scan.ranges.begin(), scan.ranges.end(),
                                [](const IndexValueRange& a, const IndexValueRange& b) {
                                  return a.lower == b.lower && a.upper == b.upper;
                                }),
                    scan.ranges.end());
  return std::optional<IndexLookup>(std::move(scan));
}

// The values at the paths a sorted, grouped, aggregated or DISTINCT query reads
// (query::PathsRead), to be read from their index entries instead of its documents, when:
//  - the WHERE clause is absent, or the `candidates` answer all of it exactly;
//  - every document the filter passes has a scalar at each path (a predicate on the path says
//    so, or every document of the container has an entry at it): an array, an object or no value
//    would aggregate, group or be distinct differently, and has no entry;
//  - reading the entries costs less than loading the documents: a path's own predicate reads no
//    more than the lookups would anyway; the other paths' entries are read over the container and
//    must be fewer than kValueEntriesPerDocument per document the filter names.
// Empty when the query loads its documents.
Result<std::vector<IndexLookup>> ValuesFromIndex(const IndexingPolicy& policy, const query::BoundQuery& prepared,
                                                 const Json& parameters,
                                                 const std::vector<query::IndexPredicate>& predicates,
                                                 const std::vector<query::IndexPredicate>& useful,
                                                 const std::vector<IndexLookup>& candidates,
                                                 const std::vector<storage::DocumentScope>& scopes,
                                                 IndexStatistics& statistics) {
  const query::SelectQuery& q = prepared.root();
  std::optional<std::vector<std::vector<std::string>>> paths = query::PathsRead(q);
  if (prepared.is_streaming() || !paths || policy.indexing_disabled()) return std::vector<IndexLookup>();
  for (const std::vector<std::string>& path : *paths) {
    if (!policy.IsIndexed(path)) return std::vector<IndexLookup>();
  }
  if (q.where && (useful.size() != predicates.size() || !query::WhereIsIndexPredicates(q, parameters) ||
                  !LookupsAnswerAll(candidates, predicates))) {
    return std::vector<IndexLookup>();
  }
  std::vector<IndexLookup> values;
  int64_t entries_read_whole = 0;  // of the paths without a predicate of their own
  for (const std::vector<std::string>& path : *paths) {
    IndexLookup& value = values.emplace_back();
    value.path = IndexPathText(path);
    auto own = std::find_if(candidates.begin(), candidates.end(),
                            [&](const IndexLookup& lookup) { return lookup.path == value.path; });
    if (own != candidates.end()) {
      value.ranges = own->ranges;
      value.equality = own->equality;
      continue;
    }
    COSMOS_ASSIGN_OR_RETURN(int64_t documents, statistics.ContainerDocuments());
    COSMOS_ASSIGN_OR_RETURN(int64_t entries, statistics.EntriesAt(value.path));
    if (entries != documents) return std::vector<IndexLookup>();
    entries_read_whole += entries;
    value.ranges.push_back({std::string(1, kIndexTypeNull), true, std::string(1, kIndexTypeString + 1), false});
  }
  if (entries_read_whole == 0) return values;
  int64_t named = std::numeric_limits<int64_t>::max();
  if (candidates.empty()) {
    COSMOS_ASSIGN_OR_RETURN(named, DocumentsInScopes(scopes, statistics));
  } else {
    for (const IndexLookup& candidate : candidates) {
      int64_t limit = std::min(named, entries_read_whole / kValueEntriesPerDocument + 1);
      COSMOS_ASSIGN_OR_RETURN(int64_t counted, EntriesToRead(candidate, scopes, limit, statistics));
      named = std::min(named, counted);
    }
  }
  if (named * kValueEntriesPerDocument <= entries_read_whole) return std::vector<IndexLookup>();
  return values;
}

}  // namespace

bool AllLogicalPartitions(const std::vector<storage::DocumentScope>& scopes) {
  return !scopes.empty() && std::all_of(scopes.begin(), scopes.end(), [](const storage::DocumentScope& scope) {
    return scope.partition_key.has_value();
  });
}

Result<int64_t> StoredIndexStatistics::ContainerDocuments() {
  if (!container_documents_) {
    COSMOS_ASSIGN_OR_RETURN(auto stored, txn_.MeasureKeyRange(container_seq_, "", kMaxEffectivePartitionKey));
    container_documents_ = stored.document_count;
  }
  return *container_documents_;
}

Result<int64_t> StoredIndexStatistics::EntriesAt(const std::string& path) {
  if (cache_ != nullptr) {
    if (std::optional<int64_t> cached = cache_->Find(path, lsn_)) return *cached;
  }
  COSMOS_ASSIGN_OR_RETURN(int64_t entries, txn_.CountIndexEntries(container_seq_, path));
  if (cache_ != nullptr) cache_->Store(path, lsn_, entries);
  return entries;
}

Result<int64_t> StoredIndexStatistics::DocumentsIn(const storage::DocumentScope& scope) {
  // A logical partition by its key; a range of keys by its bounds ('\n' never ends a key).
  std::string key = scope.partition_key ? "p" + *scope.partition_key
                                        : "r" + scope.min_key + '\n' + scope.max_key.value_or(kMaxEffectivePartitionKey);
  if (auto found = documents_in_.find(key); found != documents_in_.end()) return found->second;
  int64_t documents = 0;
  if (scope.partition_key) {
    COSMOS_ASSIGN_OR_RETURN(auto partition, txn_.GetLogicalPartitionSize(container_seq_, *scope.partition_key));
    documents = partition.document_count;
  } else {
    COSMOS_ASSIGN_OR_RETURN(auto stored, txn_.MeasureKeyRange(container_seq_, scope.min_key,
                                                              scope.max_key.value_or(kMaxEffectivePartitionKey)));
    documents = stored.document_count;
  }
  documents_in_.emplace(std::move(key), documents);
  return documents;
}

Result<int64_t> StoredIndexStatistics::EntriesInRange(const std::string& path, const IndexValueRange& range,
                                                      const std::optional<std::string>& partition_key,
                                                      int64_t limit) {
  return txn_.CountIndexRange(container_seq_, path, range.lower, range.lower_inclusive, range.upper,
                              range.upper_inclusive, partition_key, limit);
}

Result<bool> LookupPaysAfterScan(const std::vector<IndexLookup>& lookups,
                                 const std::vector<storage::DocumentScope>& scopes, int64_t scanned,
                                 IndexStatistics& statistics) {
  COSMOS_ASSIGN_OR_RETURN(int64_t documents, DocumentsInScopes(scopes, statistics));
  int64_t limit = std::min(kEntriesPerDocument * std::max<int64_t>(documents - scanned, 0), kPartitionLookupEntries);
  if (limit == 0) return false;
  COSMOS_ASSIGN_OR_RETURN(int64_t entries, EntriesToRead(lookups, scopes, limit, statistics));
  return entries < limit;
}

std::vector<OrderByPath> OrderByPaths(const query::SelectQuery& query) {
  std::vector<OrderByPath> paths;
  // Only a FROM over the container's documents themselves maps to the policy's paths.
  if (query.from.empty() || query.from.front().iterate ||
      query.from.front().collection->kind != query::ExprKind::kIdentifier) {
    return paths;
  }
  for (const query::OrderByItem& item : query.order_by) {
    std::optional<DocumentPath> path = query::DocumentPathSteps(*item.expr, query.from.front().alias);
    if (!path) return {};
    paths.push_back({std::move(*path), item.descending});
  }
  return paths;
}

Result<AccessPath> ChooseAccessPath(const IndexingPolicy& policy, bool index_ready, const query::BoundQuery& prepared,
                                    const Json& parameters, const std::vector<storage::DocumentScope>& scopes,
                                    const std::vector<std::string>& partition_key_paths, bool documents_expire,
                                    IndexStatistics& statistics, int64_t page_rows) {
  AccessPath access;
  access.rows_wanted = RowsWanted(prepared, parameters, page_rows);
  if (!index_ready) return access;
  std::vector<query::IndexPredicate> predicates = query::FindIndexPredicates(prepared.root(), parameters);
  std::vector<query::IndexPredicate> useful = UsefulPredicates(predicates, scopes, partition_key_paths);
  std::vector<IndexLookup> candidates = IndexLookups(policy, useful);
  std::vector<IndexLookup> composites = CompositeLookups(policy, useful);
  if (!candidates.empty()) access.lookup = candidates.front();
  // The walk: the first range (in IndexLookups order), when the page streams from one partition.
  if (prepared.is_streaming() && scopes.size() == 1 && scopes.front().partition_key) {
    for (const IndexLookup& candidate : candidates) {
      if (!candidate.equality) {
        access.partition_walk = candidate;
        break;
      }
    }
  }
  // A query that reads the values at a few paths: from their entries.
  if (!documents_expire) {
    COSMOS_ASSIGN_OR_RETURN(access.values_of, ValuesFromIndex(policy, prepared, parameters, predicates, useful,
                                                              candidates, scopes, statistics));
    if (!access.values_of.empty()) {
      // The filter: every lookup but the (first) one on each path read, whose ranges the values
      // keep to; a second one there (c.n = 1 AND c.n = 2) still filters.
      access.lookup.reset();
      std::vector<bool> own_skipped(access.values_of.size(), false);
      for (IndexLookup& candidate : candidates) {
        bool skipped = false;
        for (size_t i = 0; i < access.values_of.size() && !skipped; ++i) {
          if (!own_skipped[i] && candidate.path == access.values_of[i].path) own_skipped[i] = skipped = true;
        }
        if (skipped) continue;
        if (!access.lookup) {
          access.lookup = std::move(candidate);
        } else {
          access.intersected.push_back(std::move(candidate));
        }
      }
      access.index_only = true;
      return access;
    }
  }
  // ORDER BY from the index: a page reads only as far as its rows reach.
  COSMOS_ASSIGN_OR_RETURN(access.ordered_scan,
                          OrderedIndexScan(policy, prepared, useful, composites, access.lookup, scopes,
                                           access.rows_wanted, statistics, access.descending));
  if (access.ordered_scan) return access;
  // The lookups that may filter: composite indexes' that hold every one of their paths' predicates
  // (the fewest entries, as a rule), then the paths' own.
  std::vector<IndexLookup> filters;
  for (IndexLookup& composite : composites) {
    if (composite.complete) filters.push_back(std::move(composite));
  }
  filters.insert(filters.end(), std::make_move_iterator(candidates.begin()), std::make_move_iterator(candidates.end()));
  if (filters.empty()) return access;
  access.lookup = filters.front();
  // Only a streaming page can stop once it is full; a sorted or aggregated one needs every match,
  // which the lookups name at less than a scan's cost.
  int64_t scan_first_above = kMostEntriesCounted;
  if (prepared.is_streaming()) {
    COSMOS_ASSIGN_OR_RETURN(scan_first_above, ScanFirstAbove(scopes, statistics));
  }
  // Of several predicates: the one with the fewest entries, and the others that pay.
  std::vector<IndexLookup> lookups = {*access.lookup};
  if (filters.size() > 1) {
    COSMOS_ASSIGN_OR_RETURN(lookups, ChooseLookups(std::move(filters), scopes, scan_first_above, statistics));
  }
  // The query reads nothing of a document but the filter, and the entries of the lookups, all of
  // them, answer it exactly: the documents are counted from the entries, never loaded.
  const std::optional<std::vector<std::string>>& read_outside_where = prepared.properties_outside_where();
  access.index_only = !documents_expire && read_outside_where && read_outside_where->empty() &&
                      useful.size() == predicates.size() &&
                      query::WhereIsIndexPredicates(prepared.root(), parameters) &&
                      LookupsAnswerAll(lookups, predicates);
  access.lookup = lookups.front();
  access.intersected.assign(lookups.begin() + 1, lookups.end());
  if (!access.index_only && prepared.is_streaming()) {
    // Inside one logical partition a range can be walked: the page fills after about
    // rows × (container documents ÷ partition documents) entries. It pays when the lookup would
    // read more (it reads all its entries before it loads a document) and the partition costs
    // more to read whole.
    int64_t walked = std::numeric_limits<int64_t>::max();
    if (access.partition_walk) {
      COSMOS_ASSIGN_OR_RETURN(int64_t container_documents, statistics.ContainerDocuments());
      COSMOS_ASSIGN_OR_RETURN(int64_t partition_documents, DocumentsInScopes(scopes, statistics));
      double estimate = static_cast<double>(access.rows_wanted) *
                        static_cast<double>(container_documents) /
                        static_cast<double>(std::max<int64_t>(partition_documents, 1));
      // A small partition costs less to read whole than the walk through everyone else's entries.
      if (estimate < static_cast<double>(kWalkEntriesPerDocument * partition_documents)) {
        walked = static_cast<int64_t>(std::min(std::ceil(estimate), static_cast<double>(kMostEntriesCounted)));
      }
    }
    // The lookup's own entries decide (those intersected with it name fewer documents still): one
    // that reads many starts as a scan, unless the walk is cheaper. Counted no further than decides.
    COSMOS_ASSIGN_OR_RETURN(int64_t entries, EntriesToRead(*access.lookup, scopes, std::min(walked, scan_first_above),
                                                           statistics));
    access.walk = walked < scan_first_above && entries >= walked;
    access.scan_first = !access.walk && entries >= scan_first_above;
  }
  return access;
}

}  // namespace cosmos::engine
