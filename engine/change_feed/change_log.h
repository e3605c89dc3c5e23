// The all-versions-and-deletes change log. Containers whose changeFeedPolicy has a
// retentionDuration (minutes) keep an entry for every create, replace, delete and time-to-live
// expiry, in the service's wire format 2021-09-15: {"current"?, "metadata": {...}}. Item writes
// and the expiry sweep append entries; the change feed reads them.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "engine/partitioning/partition_key.h"

namespace cosmos::engine {

// How long a container keeps an entry, in seconds; 0 when it keeps no log.
int64_t ChangeLogRetentionOf(const Json& properties);

// The partition key as the change log's metadata names it: {"pk": "a"} (path without its '/').
Json PartitionKeyObject(const PartitionKeyDefinition& definition, const PartitionKeyValue& value);

struct ChangeLogEntry {
  const char* operation = "create";            // create | replace | delete
  int64_t lsn = 0;
  int64_t crts = 0;                            // seconds
  int64_t previous_lsn = 0;                    // replace and delete: the LSN of the version replaced
  std::optional<std::string_view> current;     // the document after the write (not for deletes)
  std::string id;                              // deletes: which document
  Json partition_key;
  bool ttl_expired = false;
};

// The entry of a delete (or expiry) of document `id`, whose version at `previous_lsn` it ends.
ChangeLogEntry DeletionEntry(int64_t lsn, int64_t crts, int64_t previous_lsn, std::string id, Json partition_key);

// The entry's JSON text as the feed returns it.
std::string ChangeLogText(const ChangeLogEntry& entry);

}  // namespace cosmos::engine
