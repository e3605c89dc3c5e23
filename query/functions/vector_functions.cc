// VectorDistance(a, b [, bruteForce [, {distanceFunction, dataType, ...}]]): the similarity score
// of two vectors, as the service documents it:
//  - cosine: the cosine of the angle, from -1 (opposite) to 1 (most similar);
//  - dotproduct: the dot product, larger is more similar;
//  - euclidean: the distance, 0 is most similar.
// The distance function is the call's `distanceFunction` option when written, else the container's
// vector embedding policy for the path compared, else cosine: resolved before the query runs
// (FunctionContext::vector_metrics), or read from the options when nothing was resolved. Answers are exact whatever the index type or
// bruteForce say (the service's approximate indexes may differ in their last digits of recall).
// Arguments that are not two arrays of numbers of one length give undefined, as a document
// without the embedding does.
#include <cmath>
#include <string>

#include "common/encoding.h"
#include "query/functions/registry.h"

namespace cosmos::query {

std::optional<VectorMetric> ParseVectorMetric(std::string_view name) {
  if (EqualsIgnoreCaseAscii(name, "cosine")) return VectorMetric::kCosine;
  if (EqualsIgnoreCaseAscii(name, "dotproduct")) return VectorMetric::kDotProduct;
  if (EqualsIgnoreCaseAscii(name, "euclidean")) return VectorMetric::kEuclidean;
  return std::nullopt;
}

namespace {

// The metric the call's options name, if they name one.
std::optional<VectorMetric> OptionMetric(std::span<const Value> args) {
  if (args.size() < 4 || !args[3].is_object()) return std::nullopt;
  for (const auto& [name, value] : args[3].json().items()) {
    if (EqualsIgnoreCaseAscii(name, "distanceFunction") && value.is_string()) {
      return ParseVectorMetric(value.get_ref<const std::string&>());
    }
  }
  return std::nullopt;
}

// The metric the query resolved for the call being evaluated, if it did.
std::optional<VectorMetric> ResolvedMetric(const FunctionContext& ctx) {
  if (ctx.vector_metrics == nullptr || ctx.call == nullptr) return std::nullopt;
  auto found = ctx.vector_metrics->find(ctx.call);
  if (found == ctx.vector_metrics->end()) return std::nullopt;
  return found->second;
}

Value VectorDistance(std::span<const Value> args, FunctionContext& ctx) {
  if (!args[0].is_array() || !args[1].is_array()) return Value();
  const Json& a = args[0].json();
  const Json& b = args[1].json();
  if (a.size() != b.size() || a.empty()) return Value();
  // Resolved once for the query (options first, then the policy); else from the options here.
  std::optional<VectorMetric> resolved = ResolvedMetric(ctx);
  const VectorMetric metric = resolved ? *resolved : OptionMetric(args).value_or(VectorMetric::kCosine);
  double dot = 0, norm_a = 0, norm_b = 0, squared = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number() || !b[i].is_number()) return Value();
    const double x = a[i].get<double>(), y = b[i].get<double>();
    dot += x * y;
    norm_a += x * x;
    norm_b += y * y;
    squared += (x - y) * (x - y);
  }
  ctx.work += 1 + a.size() / 16;
  switch (metric) {
    case VectorMetric::kDotProduct:
      return Value::Number(dot);
    case VectorMetric::kEuclidean:
      return Value::Number(std::sqrt(squared));
    case VectorMetric::kCosine:
      break;
  }
  // A zero vector has no direction: it is similar to nothing.
  if (norm_a == 0 || norm_b == 0) return Value();
  return Value::Number(dot / (std::sqrt(norm_a) * std::sqrt(norm_b)));
}

}  // namespace

void RegisterVectorFunctions(FunctionRegistry& registry) {
  registry.AddScalar("VectorDistance", 2, 4, VectorDistance);
  // The hybrid search plan's component queries score vectors with _VectorScore(path, vector): the
  // distance function of the container's policy for the path, resolved like VectorDistance's.
  registry.AddScalar("_VectorScore", 2, 2, VectorDistance);
}

}  // namespace cosmos::query
