// Expression evaluation with the service's semantics: undefined propagates, comparisons of
// different kinds are undefined, AND/OR/NOT use three-valued logic, undefined members are dropped
// from object and array literals.
// Thread-safety: an EvalContext belongs to one query execution (one thread).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "query/ast.h"
#include "query/binder.h"
#include "query/execution/cancellation.h"
#include "query/functions/registry.h"
#include "query/value.h"

namespace cosmos::query {

// A row of bindings: slot i holds the value of alias i (see SelectInfo for the layout).
using Row = std::vector<Value>;

// Work counted while a query runs; the engine turns it into a request charge and query metrics.
struct ExecutionStats {
  uint64_t documents_loaded = 0;   // documents read from storage
  uint64_t document_bytes = 0;     // their size
  uint64_t output_rows = 0;        // rows returned in the page
  uint64_t output_bytes = 0;       // their serialized size
  uint64_t expressions = 0;        // expression nodes evaluated (the "query engine" work)
};

struct EvalContext {
  const BoundQuery* query = nullptr;
  const std::unordered_map<std::string, Value>* parameters = nullptr;
  FunctionContext functions;
  ExecutionStats stats;
  // While projecting a group: the finished aggregates of the SELECT being projected, by slot.
  const std::vector<Value>* aggregate_results = nullptr;
  // While the top-level select consumes a stored document: its position in the source's order.
  const Json* document_position = nullptr;
  // ... and its sort key, when the source is in ORDER BY order (DocumentSource::in_order_by_order).
  const std::string* document_sort_key = nullptr;
  // ... and its ORDER BY values, when the source gave them (SourceDocument::order_keys).
  const std::vector<Value>* document_order_keys = nullptr;
  // Checked once per row the select runner expands: a page abandoned past its deadline or at
  // shutdown ends with its status.
  Cancellation cancellation;
};

// Evaluates `e` against `row`. Never fails: run-time errors of functions are left in
// ctx.functions.error for the caller to check once per row.
Value Evaluate(const Expr& e, const Row& row, EvalContext& ctx);

// The directions of `q`'s ORDER BY items (true: descending): as written, except that
// VectorDistance(...) lists the most similar first (query/vector_search.h).
std::vector<bool> OrderDescending(const SelectQuery& q, const EvalContext& ctx);
// Whether a score of ORDER BY RANK lists the most relevant first when descending: FullTextScore
// and fused ranks always, VectorDistance unless its distance function is euclidean.
bool ScoreDescends(const Expr& score, const EvalContext& ctx);

// Runs a subquery for one outer row and returns all its results (defined values only).
// Implemented by the select runner (query/execution/select_runner.cc).
Status RunSubquery(const SelectQuery& q, const Row& outer, EvalContext& ctx, std::vector<Value>& out);

// LIKE with % _ [set] [^set] and an optional escape character. Iterative, in at most
// O(len(text) x len(pattern)) steps.
bool LikeMatches(std::string_view text, std::string_view pattern, std::optional<char32_t> escape);

}  // namespace cosmos::query
