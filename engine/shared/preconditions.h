// Optimistic concurrency: If-Match against a resource's current _etag.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "common/result.h"
#include "engine/api.h"

namespace cosmos::engine {

// kPreconditionFailed when If-Match is given, is not "*", and differs from `current_etag`.
Status CheckIfMatch(const Preconditions& preconditions, const std::string& current_etag);

// The _etag of a stored resource body (database, offer).
std::string EtagOf(const std::string& resource_body);

}  // namespace cosmos::engine
