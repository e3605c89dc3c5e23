// A container's search indexes, kept in its index beside the range entries and in the same
// transaction as the document:
//  - a vector index (indexingPolicy.vectorIndexes, on a path of the vectorEmbeddingPolicy): one
//    entry per document whose value at the path is an array of the embedding's dimensions in
//    numbers, under "vector:<path>", holding the embedding packed as float32 (the policy's
//    storage type; int8 and uint8 values are exact in it) behind a quantized copy of it (one byte
//    per dimension, with its scale) and its squared norm, so that a search reads a quarter of the
//    bytes to bound every score and the floats of the few that may rank (engine/queries/
//    search_sources.h) without parsing a document;
//  - a full-text index (indexingPolicy.fullTextIndexes, in the language the fullTextPolicy gives
//    the path): under "fulltext:<path>", per document whose value at the path is a string, one
//    entry per distinct term (query/full_text_analyzer.h), "<term>\0<count>", and one "\0<terms>"
//    with its length in terms: what FullTextContains lookups and BM25 statistics read.
// Counts are 4 bytes, big-endian. Entry paths never start with '/': no document path meets them.
// Immutable once built; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "query/full_text_analyzer.h"
#include "storage/records.h"

namespace cosmos::engine {

struct VectorIndexPath {
  std::string path;                // "/embedding", as the policies write it
  std::vector<std::string> steps;  // {"embedding"}
  size_t dimensions = 0;
};

struct FullTextIndexPath {
  std::string path;
  std::vector<std::string> steps;
  query::TextLanguage language = query::TextLanguage::kEnglish;
};

class SearchIndexes {
 public:
  // From a container definition: its indexingPolicy's vectorIndexes and fullTextIndexes, with the
  // vectorEmbeddingPolicy's dimensions and the fullTextPolicy's languages. Indexes on paths
  // their policies lack have no entries (the policy checks refuse such containers).
  static SearchIndexes FromContainer(const Json& properties);

  const VectorIndexPath* VectorIndexOn(std::string_view path) const;
  const FullTextIndexPath* FullTextIndexOn(std::string_view path) const;
  bool empty() const { return vectors_.empty() && full_text_.empty(); }

  // Appends the search entries of `document`.
  void AddEntries(const Json& document, std::vector<storage::IndexEntry>& entries) const;

 private:
  std::vector<VectorIndexPath> vectors_;
  std::vector<FullTextIndexPath> full_text_;
};

// A vector index entry's parts: `scale` × codes[i] is dimension i within scale / 2; norm_sq is
// query::PackedDot(values, values); `values` the float32 embedding.
struct PackedVectorView {
  float scale;
  float norm_sq;
  const int8_t* codes;
  const float* values;
};
// The parts of an entry of an index of `dimensions`; nullopt for a value of another size.
std::optional<PackedVectorView> ViewPackedVector(std::string_view value, size_t dimensions);

// Where the entries of the index on `path` are kept.
std::string VectorEntryPath(std::string_view path);
std::string FullTextEntryPath(std::string_view path);

// A full-text index's entries for one term: its value bounds [lower, upper), and the count of an
// entry's value (nullopt for another shape).
struct FullTextTermRange {
  std::string lower;
  std::string upper;
};
FullTextTermRange FullTextTermBounds(std::string_view term);
// The entry holding the document's length in terms sorts before every term: ["", "\x01").
inline constexpr std::string_view kFullTextLengthLower{"\0", 1};
inline constexpr std::string_view kFullTextLengthUpper{"\x01", 1};
std::optional<uint32_t> FullTextEntryCount(std::string_view value);

}  // namespace cosmos::engine
