// IndexLookup: which index entries a query reads instead of scanning its documents. The
// predicates query/plan/index_filter.h finds on indexed paths become ranges of encoded values
// (engine/indexing_policy.h's EncodeIndexValue), ranked by the kind of predicate (equality and IN
// first, then STARTSWITH, then closed and open ranges); access_path.h counts their entries to
// choose among them.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/indexing/indexing_policy.h"
#include "query/plan/index_filter.h"

namespace cosmos::engine {

struct IndexValueRange {
  std::string lower;
  bool lower_inclusive = true;
  std::string upper;  // never empty: ranges are always bounded (by the next type at worst)
  bool upper_inclusive = true;
};

struct IndexLookup {
  std::string path;                    // as index entries store it: "/a/[]/b", or a composite
                                       // index's entry path ("composite:/a asc,/b asc")
  std::vector<IndexValueRange> ranges;
  bool equality = false;               // equality or IN: every range is one value
  // A composite index's lookup: the paths whose predicates its ranges hold (all of the index's
  // paths, or its leading ones: `complete` says which). Empty for a lookup of one path.
  std::vector<std::string> covers;
  bool complete = false;
  // A full-text lookup (one term of a FullTextContains / FullTextContainsAll) whose predicate's
  // phrases are one term each, so that its lookups answer it exactly: how many terms, hence
  // lookups, it has. 0 for any other lookup.
  size_t full_text_terms = 0;
};

// Every predicate on an indexed path as a lookup (two bounds of one range make one), the most
// selective kind first. Empty: no predicate can use the index.
std::vector<IndexLookup> IndexLookups(const IndexingPolicy& policy, const std::vector<query::IndexPredicate>& predicates);

// The lookups of the policy's composite indexes whose leading paths have equality predicates
// (IN of up to kMostCompositeTuples value combinations), the next path an equality, a range or
// STARTSWITH, or nothing: each range is the tuples of those values (EncodeCompositeValue's
// order), so a composite index on (/tenant, /ts) reads exactly the entries of
// c.tenant = @t AND c.ts >= @since. A lookup is `complete` when every path of its index has a
// predicate: every document that passes them has a scalar at each path, so an entry. One that
// covers the leading paths only names just the documents with a scalar at every path.
std::vector<IndexLookup> CompositeLookups(const IndexingPolicy& policy,
                                          const std::vector<query::IndexPredicate>& predicates);
inline constexpr size_t kMostCompositeTuples = 64;

// The first of IndexLookups; nullopt: no predicate can use the index, the query scans.
std::optional<IndexLookup> ChooseIndexLookup(const IndexingPolicy& policy,
                                             const std::vector<query::IndexPredicate>& predicates);

// Whether a document has an entry in the ranges of every one of `lookups` (some of IndexLookups of
// `predicates`) exactly when it passes every one of `predicates`: there is a lookup for each
// predicate (two bounds of one range are one; a complete composite lookup stands for those on
// each of its paths), and each is an equality or IN of values the index holds whole, or a range
// of numbers, on a path of property names. Strings are left out of ranges: the index orders them
// by UTF-8 bytes.
bool LookupsAnswerAll(const std::vector<IndexLookup>& lookups, const std::vector<query::IndexPredicate>& predicates);

}  // namespace cosmos::engine
