// ExecutePage: runs one page of a bound query over a stream of documents and returns the rows,
// a continuation token when more remain, and the work done.
//
// Continuation tokens are opaque to clients; two kinds exist:
//  - streaming selects resume at a document position given by the source (plus the number of
//    rows of that document already returned and the count of rows produced before it, for
//    OFFSET/LIMIT/TOP), so a page reads only what it returns (and one row ahead);
//  - sorted, grouped, aggregated and DISTINCT selects are recomputed and resume after the rows
//    already returned. ORDER BY keeps only the rows up to the end of the requested page; over a
//    source in ORDER BY order it starts after the last row returned instead.
// Thread-safety: stateless; a DocumentSource belongs to one call.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "query/binder.h"
#include "query/execution/evaluator.h"

namespace cosmos::query {

// One stored document, parsed, with its position in the source's order.
struct SourceDocument {
  std::shared_ptr<const Json> json;
  size_t bytes = 0;
  Json position;  // opaque to the executor; handed back to OpenSource to resume
  // The source never loaded the document: the query reads none of it (SELECT VALUE COUNT(1)
  // FROM c), so `json` is an empty object and the document counts as an index entry read, not
  // as a document retrieved.
  bool index_only = false;
  // The source vouches that the document satisfies the query's WHERE clause (an index lookup
  // that is the whole filter), which is then not evaluated: an index_only document has no
  // properties to evaluate it on.
  bool satisfies_where = false;
  // Sources in ORDER BY order: the document's sort key, as the source orders it; equal keys are
  // equal strings.
  std::string sort_key;
  // The values of the query's ORDER BY items for this document when the source computed them
  // (a vector index's score, identical to what evaluating the item gives): the select uses them
  // instead of evaluating its ORDER BY, and the source need not parse what only ORDER BY reads.
  std::vector<Value> order_keys;
};

class DocumentSource {
 public:
  virtual ~DocumentSource() = default;
  // Fills `doc` with the next document; false at the end.
  virtual Result<bool> Next(SourceDocument& doc) = 0;
  // True when the source yields every document the query can sort, in the order of the query's
  // ORDER BY items, with sort_key set: a sorted select may then stop reading once it
  // holds the rows it needs and a greater key arrives.
  virtual bool in_order_by_order() const { return false; }
  // True when the source was opened to resume after a row (OpenSource) and yields only the
  // documents after it.
  virtual bool resumed() const { return false; }
};

// Opens the container's documents in a stable order, starting at `start` (inclusive) when given.
// A streaming select starts at a position a source gave. A sorted select's later page passes
// {"sort_key": <hex>, "position": <position>}, the last row's: a source in ORDER BY order may
// start right after that document (and says so with resumed()); any other reads from the start.
using OpenSource = std::function<Result<std::unique_ptr<DocumentSource>>(const Json* start)>;

struct PageRequest {
  uint64_t max_items = 100;
  size_t max_bytes = 4 * 1024 * 1024;
  std::optional<std::string> continuation;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  // A page of a streaming query that has run this long ends after the document in hand, with a
  // continuation (possibly with no rows), as the service ends a page at its execution budget.
  std::chrono::milliseconds time_budget{5000};
  // Work that cannot end its page early (a sorted or aggregated page, one row that takes
  // forever) is abandoned past `cancel_at` (408) or once `*stop` is raised (503).
  std::chrono::steady_clock::time_point cancel_at = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* stop = nullptr;
  // The udf.name(...) calls of the query (BoundQuery::user_functions); null when it makes none.
  UserFunctions* user_functions = nullptr;
  // The container's vectorEmbeddingPolicy, or null: the distance function of VectorDistance over
  // a vector path, when the call names none (query/vector_search.h).
  const Json* vector_embedding_policy = nullptr;
  // The container's fullTextPolicy, or null: the language of each full-text call's text.
  const Json* full_text_policy = nullptr;
  // Opens every document the query may read, unfiltered (its partitions'): ORDER BY RANK
  // FullTextScore scores with BM25 statistics of them (query/full_text_search.h). Null: the
  // query's own source, from the start.
  std::function<Result<std::unique_ptr<DocumentSource>>()> open_all_documents;
  // Statistics the caller already has for FullTextScore calls of the ORDER BY RANK (from a
  // full-text index): those calls gather none.
  std::unordered_map<const Expr*, Bm25Statistics> known_full_text_statistics;
};

struct QueryPage {
  std::vector<std::string> rows;  // compact JSON text of each result
  std::optional<std::string> continuation;
  ExecutionStats stats;
  uint64_t function_work = 0;
};

// `parameters`: the request's [{"name": "@p", "value": ...}] (or null/empty).
Result<QueryPage> ExecutePage(const BoundQuery& query, const Json& parameters, const OpenSource& open_source,
                              const PageRequest& request);

// Parses the parameters array of a query body. 400 for a malformed list.
Result<std::unordered_map<std::string, Value>> ParseParameters(const Json& parameters);

}  // namespace cosmos::query
