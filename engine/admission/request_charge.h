// Request charges (RU): the deterministic cost model documented in docs/request-units.md. The
// same operation on the same data always costs the same. Every constant below is named in that
// document together with the published figure it was calibrated to.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "common/result.h"

namespace cosmos::engine {

// The consistency levels, strongest first (the order the service compares them in).
enum class ConsistencyLevel { kStrong, kBoundedStaleness, kSession, kConsistentPrefix, kEventual };

// Parses "Strong", "BoundedStaleness", "Session", "ConsistentPrefix" or "Eventual" (any case).
std::optional<ConsistencyLevel> ParseConsistencyLevel(std::string_view text);
const char* ConsistencyLevelName(ConsistencyLevel level);
// The level a read runs at: the request's x-ms-consistency-level when given, else the account
// default. A request may only relax the account's level: a stronger one is kBadRequest.
Result<ConsistencyLevel> ReadConsistency(ConsistencyLevel account_default, const std::optional<std::string>& header);

// A point read, or a read-feed page, returning `bytes` of documents at `level`: reads at Strong
// and Bounded Staleness read from two replicas and cost twice as much.
double ReadCharge(size_t bytes, ConsistencyLevel level = ConsistencyLevel::kSession);
// A create (or an upsert that inserts) of a document of `bytes` producing `index_terms` terms.
double CreateCharge(size_t bytes, int64_t index_terms);
// A replace (or an upsert that replaces): the new version is written and indexed, and the old
// version's index terms are removed.
double ReplaceCharge(size_t bytes, int64_t index_terms, int64_t old_index_terms);
// A delete of a document of `bytes` whose `index_terms` terms are removed.
double DeleteCharge(size_t bytes, int64_t index_terms);
// Database and container operations.
double MetadataReadCharge();
double MetadataWriteCharge();

// What one page of a query did; the charge is a function of these counts alone.
struct QueryWork {
  uint64_t documents_loaded = 0;  // documents read from storage and evaluated
  uint64_t document_bytes = 0;    // their size
  uint64_t output_bytes = 0;      // bytes of the page's results
  uint64_t expressions = 0;       // expressions evaluated
  uint64_t function_work = 0;     // system-function work units
  uint64_t index_entries = 0;     // index entries an index lookup read
  uint64_t index_seeks = 0;       // ranges of values looked up or walked in the index
  uint64_t rows_returned = 0;     // the page's results
  uint64_t partitions_visited = 1;  // physical partitions the page read: each pays the minimum
};
double QueryCharge(const QueryWork& work, ConsistencyLevel level = ConsistencyLevel::kSession);
// A stored procedure's run: a floor, plus its running time (the CPU it held a thread for).
double ScriptCharge(std::chrono::microseconds elapsed);
// A request that failed after authentication (not found, conflict, precondition, bad input).
double FailedRequestCharge();
// Whether a failure with `code` is charged FailedRequestCharge: every one but an authentication or
// authorization refusal and a throttled request (429), which consume nothing.
bool IsChargedFailure(ErrorCode code);

}  // namespace cosmos::engine
