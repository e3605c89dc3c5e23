// ChangeFeed: the change feed of a container (GET .../docs with A-IM). The latest-version feed
// gives each document written since a point once, in its latest version, in LSN order within
// the scope (a logical partition, a hierarchical prefix, a physical partition or part of one);
// the all-versions-and-deletes feed (A-IM: Full-Fidelity Feed) replays the change log
// (change_log.h). An empty page at the end of the feed is 304 with the etag to continue from.
// Each page is admitted and charged on the physical partitions it reads (admission.h), so a busy
// feed can be throttled and shows in the partition and cost reports.
// A container without a changeFeedPolicy keeps no log until its first all-versions read, which
// starts it (that mode reads from now on, so nothing it could ask for is missing).
// Thread-safety: safe to call from many threads; each call is one read transaction (and the
// first all-versions read of a container one write).
#pragma once

#include "common/result.h"
#include "engine/admission/admission.h"
#include "engine/api.h"
#include "engine/partitioning/partitioning.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

class ChangeFeed {
 public:
  ChangeFeed(AccountContext& context, Admission& admission);

  // One page of the feed. kPartitionKeyRangeGone for a split range; kBadRequest for an
  // all-versions read from a start it cannot serve (the beginning, a time).
  Result<ChangeFeedResponse> Read(const ChangeFeedRequest& request);

 private:
  Result<ChangeFeedResponse> ReadLatestVersions(storage::Transaction& txn, const ResolvedContainer& container,
                                                const RequestScope& scope, const ChangeFeedRequest& request);
  // The all-versions-and-deletes feed: its first read on a container that keeps no log, then every read.
  Result<ChangeFeedResponse> StartChangeLog(const ChangeFeedRequest& request);
  Result<ChangeFeedResponse> ReadChangeLog(storage::Transaction& txn, const ResolvedContainer& container,
                                           const RequestScope& scope, const ChangeFeedRequest& request);

  AccountContext& context_;
  Admission& admission_;
};

}  // namespace cosmos::engine
