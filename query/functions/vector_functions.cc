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
#include <cstdint>
#include <string>

#include <vector>

#include "common/encoding.h"
#include "query/functions/registry.h"
#include "query/functions/vector_kernel.h"

namespace cosmos::query {

std::optional<VectorMetric> ParseVectorMetric(std::string_view name) {
  if (EqualsIgnoreCaseAscii(name, "cosine")) return VectorMetric::kCosine;
  if (EqualsIgnoreCaseAscii(name, "dotproduct")) return VectorMetric::kDotProduct;
  if (EqualsIgnoreCaseAscii(name, "euclidean")) return VectorMetric::kEuclidean;
  return std::nullopt;
}

namespace {

// Sixteen partial sums of a product: lane i adds the products of dimensions i, i + 16, ... The
// loop keeps them in vector registers (four with SSE, two with AVX2, the same sums either way:
// no fused multiply-add, whose rounding differs, is enabled). Summed in a fixed order.
constexpr size_t kLanes = 16;

template <typename Product>
__attribute__((target_clones("avx2", "default"))) inline float SumOfProducts(const float* a, const float* b,
                                                                              size_t n, Product product) {
  float lanes[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t lane = 0; lane < kLanes; ++lane) lanes[lane] += product(a[i + lane], b[i + lane]);
  }
  for (size_t lane = 0; i < n; ++i, ++lane) lanes[lane] += product(a[i], b[i]);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

float Dot(const float* a, const float* b, size_t n) {
  return SumOfProducts(a, b, n, [](float x, float y) { return x * y; });
}

__attribute__((target_clones("avx2", "default"))) float CodesDot(const int8_t* codes, const float* b, size_t n) {
  float lanes[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t lane = 0; lane < kLanes; ++lane) lanes[lane] += static_cast<float>(codes[i + lane]) * b[i + lane];
  }
  for (size_t lane = 0; i < n; ++i, ++lane) lanes[lane] += static_cast<float>(codes[i]) * b[i];
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

float SquaredDistance(const float* a, const float* b, size_t n) {
  return SumOfProducts(a, b, n, [](float x, float y) { return (x - y) * (x - y); });
}

}  // namespace

float PackedDot(const float* a, const float* b, size_t dimensions) { return Dot(a, b, dimensions); }

float QuantizedDot(const int8_t* codes, const float* b, size_t dimensions) { return CodesDot(codes, b, dimensions); }

std::optional<double> PackedVectorScore(const float* a, const float* b, size_t dimensions, VectorMetric metric) {
  switch (metric) {
    case VectorMetric::kDotProduct:
      return Dot(a, b, dimensions);
    case VectorMetric::kEuclidean:
      return std::sqrt(static_cast<double>(SquaredDistance(a, b, dimensions)));
    case VectorMetric::kCosine:
      break;
  }
  // Three passes: one that sums three products at once is not kept in vector registers.
  const double norm_a = Dot(a, a, dimensions), norm_b = Dot(b, b, dimensions);
  if (norm_a == 0 || norm_b == 0) return std::nullopt;
  return Dot(a, b, dimensions) / (std::sqrt(norm_a) * std::sqrt(norm_b));
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
  if (ctx.packed_vector_calls != nullptr && ctx.packed_vector_calls->contains(ctx.call)) {
    // A path of the vector embedding policy: stored as float32, scored as the index scores it.
    std::vector<float> x(a.size()), y(b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_number() || !b[i].is_number()) return Value();
      x[i] = static_cast<float>(a[i].get<double>());
      y[i] = static_cast<float>(b[i].get<double>());
    }
    ctx.work += 1 + a.size() / 16;
    std::optional<double> score = PackedVectorScore(x.data(), y.data(), x.size(), metric);
    return score ? Value::Number(*score) : Value();
  }
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
  // The hybrid search plan's component queries score vectors with _VectorScore(path, vector
  // [, bruteForce, options]): VectorDistance's arguments, the options the query wrote carried over.
  registry.AddScalar("_VectorScore", 2, 4, VectorDistance);
}

}  // namespace cosmos::query
