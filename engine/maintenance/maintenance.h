// Maintenance: the account's upkeep, charged to nobody. The background worker
// (background_worker.h) calls it about once a second: it deletes documents whose time to live ran
// out (already invisible to every read path) and builds, a batch at a time, the index of
// containers whose indexing policy changed. At start-up it brings a data file written by an
// older cosmolite up to date.
// Thread-safety: safe to call from many threads; each call is one write transaction.
#pragma once

#include <cstdint>

#include "common/result.h"
#include "engine/catalog/catalog.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

class Maintenance {
 public:
  Maintenance(AccountContext& context, Catalog& catalog);

  // Deletes up to `limit` documents whose time to live ran out at or before `now` (seconds since
  // the epoch), logging each as a delete where the container keeps a change log. Returns how many.
  Result<int64_t> SweepExpiredDocuments(int64_t now, int64_t limit);
  // Builds the next `limit` documents' index entries of a container whose policy changed (or
  // whose data file predates indexes). Returns true while work remains.
  Result<bool> ContinueIndexBuilds(int64_t limit);

  // Brings a data file written by an older cosmolite up to date (documents keyed by effective
  // partition key, ranges and offers for every container, index builds). Call once, before serving.
  Status UpgradeDataFile();

 private:
  // Schema version 1 files: every document gets its effective-partition-key storage key.
  Status RekeyDocuments();
  // Schema version 4 to 6 files: every container rebuilds its index entries.
  Status RebuildIndexes();

  AccountContext& context_;
  Catalog& catalog_;
};

}  // namespace cosmos::engine
