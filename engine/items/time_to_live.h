// Time to live. A container's defaultTtl: absent = off, -1 = on with no default, N = seconds. A
// document's `ttl` (-1 = never, N = seconds) counts only while the container has TTL on. A
// document expires at _ts + ttl: from then on it is invisible to every read path (each checks
// IsExpired), and the background sweep deletes it (maintenance/maintenance.h).
// Pure functions but RecomputeExpiries, which writes inside the caller's transaction.
#pragma once

#include <cstdint>
#include <optional>

#include "common/json.h"
#include "common/result.h"
#include "storage/store.h"

namespace cosmos::engine {

// A container's defaultTtl, or nullopt when TTL is off.
std::optional<int64_t> DefaultTtlOf(const Json& properties);

// When a document written at `ts` expires (seconds since the epoch), 0 for never. kBadRequest for
// a `ttl` that is not -1 or a positive integer on a container with TTL on.
Result<int64_t> ExpiresAt(const std::optional<int64_t>& default_ttl, const Json& document, int64_t ts);

inline bool IsExpired(const storage::DocumentRecord& record, int64_t now) {
  return record.expires_at > 0 && record.expires_at <= now;
}

// Turning TTL on or off, or changing the default, applies to the documents already there. A `ttl`
// written while TTL was off and not valid now falls back to the default.
Status RecomputeExpiries(storage::Transaction& txn, int64_t container_seq, const std::optional<int64_t>& default_ttl);

}  // namespace cosmos::engine
