// IndexLookup: which index entries a query reads instead of scanning its documents. Of the
// predicates query/plan/index_filter.h finds, it picks the one on an indexed path that names the
// fewest documents (equality and IN first, then STARTSWITH, then closed and open ranges) and turns
// it into ranges of encoded values (engine/indexing_policy.h's EncodeIndexValue).
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
  std::string path;                    // as index entries store it: "/a/[]/b"
  std::vector<IndexValueRange> ranges;
  bool equality = false;               // equality or IN: every range is one value
};

// nullopt: no predicate can use the index; the query scans.
std::optional<IndexLookup> ChooseIndexLookup(const IndexingPolicy& policy,
                                             const std::vector<query::IndexPredicate>& predicates);

// Whether a document has an entry in `lookup`'s ranges exactly when it passes every one of
// `predicates` (those it was chosen from): they are one predicate (or two bounds of one range),
// an equality or IN of values the index holds whole, or a range of numbers, on a path of
// property names. Strings are left out of ranges: the index orders them by UTF-8 bytes.
bool LookupAnswersAll(const IndexLookup& lookup, const std::vector<query::IndexPredicate>& predicates);

}  // namespace cosmos::engine
