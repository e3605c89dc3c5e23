// PartitionKeyRanges: the pkranges feed of a container, as the SDKs read it to route requests
// (the whole feed, or with A-IM: Incremental feed only what changed since the version they hold),
// and splits of a physical partition (an admin operation, and what a throughput increase does).
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "engine/api.h"
#include "engine/partitioning/partition_key.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

class PartitionKeyRanges {
 public:
  explicit PartitionKeyRanges(AccountContext& context);

  // The container's partition key ranges. With `incremental` (A-IM: Incremental feed) and an
  // If-None-Match equal to the current version, answers not_modified; with an older version,
  // only the ranges created since.
  Result<PartitionKeyRangesResponse> Read(const ContainerAddress& container,
                                          const std::optional<std::string>& if_none_match, bool incremental);
  // Splits one online range in two. Returns the ranges feed after the split.
  Result<PartitionKeyRangesResponse> Split(const ContainerAddress& container, int64_t range_id);

 private:
  AccountContext& context_;
};

// Splits the widest online ranges of a container, inside `txn`, until it has `wanted` of them.
Status SplitRangesUntil(storage::Transaction& txn, const PartitionKeyDefinition& definition, int64_t container_seq,
                        size_t wanted);

}  // namespace cosmos::engine
