// Whether one document passes a filter written as the tail of a query — "FROM c WHERE
// c.status = 'open'" — as a conditional patch states it. The filter runs through the query
// engine like any query (the same functions, undefined and type rules), on that one document.
// Thread-safety: safe to call from many threads (the cache is internally synchronized).
#pragma once

#include <string>

#include "common/json.h"
#include "common/result.h"
#include "query/query_cache.h"

namespace cosmos::engine {

// kBadRequest, with the query engine's message, for a condition that is not valid Cosmos SQL.
Result<bool> DocumentMatches(query::PreparedQueryCache& cache, const std::string& condition, const Json& document);

}  // namespace cosmos::engine
