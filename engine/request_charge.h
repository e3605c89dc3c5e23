// Request charges (RU) for the foundation: a simple size-based model, about 1 RU per KB read and
// about 5 RU per KB written. Deterministic: the same operation on the same data costs the same.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cosmos::engine {

// A point read or feed page returning `bytes` of documents.
double ReadCharge(size_t bytes);
// A create, replace, upsert or delete of a document of `bytes`.
double WriteCharge(size_t bytes);
// Database and container operations.
double MetadataReadCharge();
double MetadataWriteCharge();
// One page of a query: a base cost, plus the documents it loaded, the bytes it returned and the
// expression and function work it did. Provisional until the cost-model issue calibrates it.
double QueryCharge(uint64_t documents_loaded, uint64_t document_bytes, uint64_t output_bytes, uint64_t expressions,
                   uint64_t function_work);
// A request that failed after authentication (not found, conflict, precondition, bad input).
double FailedRequestCharge();

}  // namespace cosmos::engine
