// Indexing policies: validation and the service's defaults for a container's indexingPolicy, and
// the questions the rest of the engine asks of a policy — is the value at this path indexed, how
// many index terms does this document produce (write cost), and can this ORDER BY be served.
// Paths follow the service's syntax: "/a/b/?" is the scalar at a.b, "/a/*" everything under a,
// "/a/[]/?" the scalars of the array a, "/*" the whole document; between an included and an
// excluded path that both match, the more specific one wins ("?" beats "*" at equal depth).
// Pure functions and immutable objects; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "engine/indexing/search_indexes.h"
#include "storage/store.h"

namespace cosmos::engine {

// Validates an indexingPolicy as a client sent it (nullptr: absent) and returns it with the
// service's defaults filled in. kBadRequest with the reason for an invalid policy.
Result<Json> NormalizeIndexingPolicy(const Json* given);

// A path of a document, as property names with "[]" for any array element: {"tags", "[]"}.
using DocumentPath = std::vector<std::string>;

// One ORDER BY item: the document path it sorts by and its direction.
struct OrderByPath {
  DocumentPath path;
  bool descending = false;
};

class IndexingPolicy {
 public:
  // `normalized` is the output of NormalizeIndexingPolicy.
  static IndexingPolicy FromNormalized(const Json& normalized);
  // A container's: its normalized indexingPolicy, with the search indexes its vector embedding
  // and full-text policies complete (search_indexes.h).
  static IndexingPolicy ForContainer(const Json& properties);
  const SearchIndexes& search() const { return search_; }

  // indexingMode "none": no index at all, only point operations and scans.
  bool indexing_disabled() const { return disabled_; }
  // True when the scalar at `path` has a range index. id and _ts are always indexed while
  // indexing is on, as the service does.
  bool IsIndexed(const DocumentPath& path) const;
  // The index terms a document produces: one per indexed scalar value of the client's
  // properties (arrays and objects contribute their members; the system properties _rid, _self,
  // _etag, _attachments and _ts are not counted, though _ts has an entry). Write charges grow with it.
  int64_t CountIndexedTerms(const Json& document) const;
  // The index entries of a document: one per indexed scalar (as counted above), with its path
  // ("/tags/[]") and its value encoded by EncodeIndexValue; then one per composite index whose
  // paths all hold scalars in the document, stored under CompositeEntryPath with the values
  // encoded by EncodeCompositeValue; then the search indexes' (search_indexes.h). Write charges
  // count them all.
  std::vector<storage::IndexEntry> IndexEntries(const Json& document) const;
  // The same for a document whose _ts the write has yet to set, so that the work can happen off
  // the write thread: every entry but those under the document's own "_ts" (a client's value,
  // which the stored one replaces). With TimestampIndexEntry(t) added, the same entries as
  // IndexEntries of the document with _ts = t. nullopt when a composite index includes _ts: its
  // entries need the stored value.
  std::optional<std::vector<storage::IndexEntry>> IndexEntriesBesideTimestamp(const Json& document) const;
  // The entry of a stored _ts; nullopt while indexing is off.
  std::optional<storage::IndexEntry> TimestampIndexEntry(int64_t ts) const;
  // Checks that an ORDER BY can be served as the service requires: one item needs a range index
  // on its path; several need a composite index with the same paths in the same order and
  // directions all equal or all inverted. kBadRequest with the service's message otherwise.
  Status CheckOrderBy(const std::vector<OrderByPath>& items) const;

  // The composite index that serves an ORDER BY of several items: the path its entries are
  // stored under, and whether the ORDER BY reads them backwards (every direction inverted).
  struct CompositeOrder {
    std::string entry_path;
    bool backwards = false;
  };
  std::optional<CompositeOrder> FindCompositeIndex(const std::vector<OrderByPath>& items) const;
  // The paths of every composite index, in the policy's order (none while indexing is off).
  std::vector<std::vector<OrderByPath>> CompositeIndexPaths() const;

 private:
  struct Rule {
    DocumentPath prefix;
    bool wildcard = false;  // "/*" (everything below) rather than "/?" (this scalar)
    bool included = false;
  };
  struct CompositeIndex {
    std::vector<OrderByPath> paths;
  };
  // Calls `visit(path)` for every indexed scalar of the document's client properties.
  template <typename Visit>
  void ForEachIndexed(const Json& document, Visit&& visit, bool skip_timestamp = false) const;
  std::vector<storage::IndexEntry> EntriesOf(const Json& document, bool skip_timestamp) const;
  template <typename Visit>
  void Walk(const Json& node, DocumentPath& path, Visit& visit) const;

  bool disabled_ = false;
  std::vector<Rule> rules_;
  std::vector<CompositeIndex> composites_;
  SearchIndexes search_;
};

// The entry of a document's _ts (always indexed while indexing is on, as on the service, so that
// `WHERE c._ts > @since` reads the index), and how many of `entries` write charges count: all but
// that one, which the system adds.
inline constexpr char kTimestampIndexPath[] = "/_ts";
int64_t ChargedIndexTerms(const std::vector<storage::IndexEntry>& entries);

// What replacing a document's index entries `before` with `after` changes: the entries to delete
// (in `before` only) and those to insert (in `after` only), each without repeats. Entries both
// versions share stay in the index untouched.
struct IndexEntryChanges {
  std::vector<storage::IndexEntry> stale;
  std::vector<storage::IndexEntry> added;
};
IndexEntryChanges DiffIndexEntries(std::vector<storage::IndexEntry> before, std::vector<storage::IndexEntry> after);

// An index value in an order-preserving byte form: the type first, in the service's type order
// (null, false, true, numbers, strings), then numbers as the 8 bytes (big-endian) of their ordered
// IEEE bits, 9 bytes in all, short enough for a std::string to hold without an allocation, and
// strings as their first kIndexedStringBytes UTF-8 bytes. Arrays and objects are not index
// values (nullopt). A cut string stands for every string that starts with it, so lookups treat
// such a bound as inclusive, and the query's WHERE clause settles the rest.
std::optional<std::string> EncodeIndexValue(const Json& value);
inline constexpr size_t kIndexedStringBytes = 128;
// True when EncodeIndexValue cut the value (a long string).
bool IndexValueCut(const Json& value);
// The value an EncodeIndexValue text stands for; nullopt when it may be cut (a string of
// kIndexedStringBytes bytes or more) or is not such a text. A number that is a whole one within
// ±2^53 comes back as an integer, as the JSON parser reads "5".
std::optional<Json> DecodeIndexValue(std::string_view encoded);
// The encoded ranges of a type, for range predicates: a value compares only with its own type.
inline constexpr char kIndexTypeNull = '0', kIndexTypeFalse = '1', kIndexTypeTrue = '2', kIndexTypeNumber = '3',
                      kIndexTypeString = '4';
// The text of a path as index entries store it: {"tags", "[]"} -> "/tags/[]".
std::string IndexPathText(const DocumentPath& path);

// The path of a composite index's entries: "composite:/a asc,/b desc" (never a document path,
// which starts with '/').
std::string CompositeEntryPath(const std::vector<OrderByPath>& paths);
// An index as x-cosmolite-access-path names it: a path's own ("/ts"), or a composite index's
// entry path as "composite (/tenant asc, /ts desc)".
std::string IndexName(const std::string& entry_path);

// A composite index value from its components' EncodeIndexValue texts and directions. Each
// component is escaped (0x00 -> 0x00 0xFF) and terminated (0x00 0x01), so none is a prefix of
// another, and inverted byte by byte when its path is descending: the bytes of whole values then
// sort in the composite index's order.
std::string EncodeCompositeValue(const std::vector<std::pair<std::string, bool>>& components);

// Splits "/a/\"b c\"/[]/?" into {"a", "b c", "[]", "?"}: quotes removed, terminal kept.
std::vector<std::string> SplitIndexPath(const std::string& path);

}  // namespace cosmos::engine
