// The search policies of a container, validated as the service validates them (its 400 messages):
// the vectorEmbeddingPolicy with indexingPolicy.vectorIndexes, and the fullTextPolicy with
// indexingPolicy.fullTextIndexes. Both are kept as sent (unknown keys included): the SDKs read them
// back verbatim. Pure functions; thread-safe.
#pragma once

#include "common/json.h"
#include "common/status.h"

namespace cosmos::engine {

// Checks the vector embeddings (path, dataType float32/float16/int8/uint8, dimensions,
// distanceFunction cosine/dotproduct/euclidean) and that every vector index (flat, quantizedFlat,
// diskANN, with their options) is on an embedding's path and within its type's limits.
// `definition`: the container definition with its normalized indexingPolicy.
Status CheckVectorPolicies(const Json& definition);

// Checks the full-text policy (defaultLanguage, fullTextPaths with their languages) and that
// every full-text index is on one of its paths.
Status CheckFullTextPolicies(const Json& definition);

// Vector policies and vector indexes cannot change once a container exists (the service's rule);
// full-text ones can.
Status CheckSearchPolicyReplace(const Json& current, const Json& replacement);

}  // namespace cosmos::engine
