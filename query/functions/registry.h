// The one registry of system functions. Each family registers itself from its own source file
// (string_functions.cc, math_functions.cc, ...); aggregates live here too, flagged as such.
// Names are matched case-insensitively, as the service does.
// Thread-safety: the registry is built once on first use and read-only afterwards.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/status.h"
#include "query/full_text_analyzer.h"
#include "query/functions/user_functions.h"
#include "query/value.h"

namespace cosmos::query {

struct Expr;

// The distance functions of VectorDistance (vector_functions.cc).
enum class VectorMetric { kCosine, kDotProduct, kEuclidean };
// "cosine", "dotproduct" or "euclidean", in any case; nullopt for anything else.
std::optional<VectorMetric> ParseVectorMetric(std::string_view name);

// Per-query state a function may need. One context is shared by all rows of one query
// execution, so that e.g. GetCurrentDateTime() returns the same instant for every row.
struct FunctionContext {
  std::chrono::system_clock::time_point query_start = std::chrono::system_clock::now();
  // Work units charged for function evaluation (string scans, regexes...): feeds the RU charge.
  uint64_t work = 0;
  // A function that must fail the query (e.g. an invalid regular expression) sets this.
  Status error;
  // The query's udf.name(...) calls go here; null: the query may call none.
  UserFunctions* user_functions = nullptr;
  // The call being evaluated (the evaluator sets it before each system function call), and the
  // distance function of each VectorDistance call of the query, resolved before it runs from the
  // call's options or the container's vector embedding policy (query/execution/vector_search.h).
  const Expr* call = nullptr;
  const std::unordered_map<const Expr*, VectorMetric>* vector_metrics = nullptr;
  // The VectorDistance calls over a path of the vector embedding policy: their vectors count as
  // float32, as the container stores them (query/functions/vector_kernel.h).
  const std::unordered_set<const Expr*>* packed_vector_calls = nullptr;
  // The language of each full-text call's text (its path's in the container's full-text policy),
  // and the statistics each FullTextScore of an ORDER BY RANK scores with (query/full_text_search.h).
  const std::unordered_map<const Expr*, TextLanguage>* text_languages = nullptr;
  const std::unordered_map<const Expr*, Bm25Statistics>* full_text_statistics = nullptr;
};

// Work accounting of the functions over text: one unit per call plus one per 64 bytes touched.
inline void ChargeText(FunctionContext& ctx, size_t text_bytes) { ctx.work += 1 + text_bytes / 64; }

// A scalar function: arguments already evaluated. Returns undefined for arguments of the wrong
// kinds, as the service does (it never raises a type error at run time).
using ScalarFunction = Value (*)(std::span<const Value> args, FunctionContext& ctx);

// An aggregate's running state.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual void Add(const Value& v) = 0;
  virtual Value Finish() const = 0;
};

struct FunctionDef {
  std::string name;        // canonical spelling, e.g. "ARRAY_CONTAINS", "StringEquals"
  int min_args = 0;
  int max_args = 0;        // -1 = variadic
  ScalarFunction scalar = nullptr;                      // null for aggregates
  std::unique_ptr<Accumulator> (*make_accumulator)() = nullptr;  // aggregates only
  bool is_aggregate() const { return make_accumulator != nullptr; }
};

class FunctionRegistry {
 public:
  static const FunctionRegistry& Instance();

  // Case-insensitive lookup; null when unknown.
  const FunctionDef* Find(std::string_view name) const;

  // Used by the family registration functions while the registry is built.
  void Add(FunctionDef def);
  // A scalar function, the common case of Add.
  void AddScalar(const char* name, int min_args, int max_args, ScalarFunction function) {
    Add({.name = name, .min_args = min_args, .max_args = max_args, .scalar = function});
  }

 private:
  FunctionRegistry() = default;
  std::unordered_map<std::string, FunctionDef> by_lower_name_;
};

// Family registration, one per source file in query/functions/.
void RegisterAggregateFunctions(FunctionRegistry& registry);
void RegisterStringFunctions(FunctionRegistry& registry);
void RegisterMathFunctions(FunctionRegistry& registry);
void RegisterArrayFunctions(FunctionRegistry& registry);
void RegisterTypeFunctions(FunctionRegistry& registry);        // IS_*, IIF, ToString, StringTo*, ObjectToArray
void RegisterDateTimeFunctions(FunctionRegistry& registry);
void RegisterSpatialFunctions(FunctionRegistry& registry);
void RegisterVectorFunctions(FunctionRegistry& registry);          // VectorDistance, _VectorScore
void RegisterFullTextFunctions(FunctionRegistry& registry);        // FullTextContains*, FullTextScore, RRF

}  // namespace cosmos::query
