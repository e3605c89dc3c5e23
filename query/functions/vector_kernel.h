// The score of two embeddings stored as float32, the way the vector index scores them: both the
// index (engine/queries/search_sources.h) and VectorDistance over a path of the container's vector
// embedding policy call this one function, so that an ORDER BY served by the index and one
// evaluated on documents agree to the last bit. Products and sums are in float32, as the service
// stores the vectors, over sixteen partial sums (kept in vector registers) added in a fixed order;
// the cosine's division and square roots in double.
// Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "query/functions/registry.h"

namespace cosmos::query {

// cosine: the cosine of the angle (nullopt when either vector is zero: no direction);
// dotproduct: the dot product; euclidean: the distance.
std::optional<double> PackedVectorScore(const float* a, const float* b, size_t dimensions, VectorMetric metric);

// The dot product as PackedVectorScore sums it (a cosine's squared norms are PackedDot(a, a)).
float PackedDot(const float* a, const float* b, size_t dimensions);

// The dot product of int8 codes with a float vector, summed the same way: a vector index's
// estimate of a score before it computes the score itself.
float QuantizedDot(const int8_t* codes, const float* b, size_t dimensions);

}  // namespace cosmos::query
