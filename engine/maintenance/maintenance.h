// Maintenance: the account's upkeep, charged to nobody. The background worker
// (background_worker.h) calls it about once a second: it deletes documents whose time to live ran
// out (already invisible to every read path) and builds, a batch at a time, the index of
// containers whose indexing policy changed. At start-up it brings a data file written by an
// older cosmolite up to date.
// Thread-safety: safe to call from many threads; each call is one write transaction.
#pragma once

#include <chrono>
#include <cstdint>

#include "common/result.h"
#include "engine/catalog/catalog.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

// Documents per maintenance transaction: bounds how long one step holds the store.
inline constexpr int64_t kMaintenanceBatch = 500;

class Maintenance {
 public:
  Maintenance(AccountContext& context, Catalog& catalog);

  // Deletes up to `limit` documents whose time to live ran out at or before `now` (seconds since
  // the epoch), logging each as a delete where the container keeps a change log. Returns how many.
  Result<int64_t> SweepExpiredDocuments(int64_t now, int64_t limit);
  // Builds the next `limit` documents' index entries of a container whose policy changed (or, as
  // a data file opens, of every container: its index is kept in memory only). Returns true while
  // work remains.
  Result<bool> ContinueIndexBuilds(int64_t limit);
  // Index builds, batch after batch, until none remains or `budget` has passed: at start-up, so
  // that a data file of moderate size serves its first query with its index. Returns true while
  // work remains (the background worker finishes it).
  Result<bool> ContinueIndexBuildsFor(std::chrono::milliseconds budget);

  // Brings a data file written by an older cosmolite up to date (documents keyed by effective
  // partition key, ranges and offers for every container). Call once, before serving.
  Status UpgradeDataFile();

 private:
  // Schema version 1 files: every document gets its effective-partition-key storage key.
  Status RekeyDocuments();

  AccountContext& context_;
  Catalog& catalog_;
};

}  // namespace cosmos::engine
