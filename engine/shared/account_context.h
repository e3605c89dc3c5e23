// AccountContext: what every room of the engine shares — the store, the account's options, the
// cache of resolved containers and the source of etags — and the lookups a request starts with:
// a database or a container, by name or by _rid.
// Thread-safety: safe to share between threads (the cache is internally synchronized, the etag
// counter atomic); each lookup runs inside the caller's transaction.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "engine/api.h"
#include "engine/shared/container_cache.h"
#include "storage/store.h"

namespace cosmos::engine {

class AccountContext {
 public:
  AccountContext(std::unique_ptr<storage::Store> store, AccountOptions options);

  storage::Store& store() { return *store_; }
  const AccountOptions& options() const { return options_; }

  // Resolves a container by name or rid, from the cache when possible. A missing database or
  // container is kOwnerResourceNotFound when `as_owner`, else kNotFound; one whose _rid is not the
  // address's intended_rid is kIncorrectContainerRid.
  Result<std::shared_ptr<const ResolvedContainer>> FindContainer(storage::Transaction& txn,
                                                                 const ContainerAddress& address, bool as_owner);
  // The container as the cache holds it now, without a store: nullptr when not cached. Thread-safe;
  // for work done ahead of a write (Items::ParseItemFor), which the write checks still holds.
  std::shared_ptr<const ResolvedContainer> CachedContainer(const ContainerAddress& address) const;
  // Records a change to a database or container definition (or to anything the cache holds of
  // it: ranges, offers, index builds, LSNs) made by `txn`: the container cache forgets everything
  // now and again once the change is committed or rolled back.
  void ChangeCatalog(storage::Transaction& txn);
  // A new _etag, quoted. Seeded from the clock, so etags stay new across restarts.
  std::string NewEtag();

  // Raised at shutdown: running queries see it and end with 503 (query::Cancellation).
  void StopRunningWork() { stopping_.store(true); }
  const std::atomic<bool>* stop_flag() const { return &stopping_; }

 private:
  Result<std::shared_ptr<const ResolvedContainer>> ResolveContainer(storage::Transaction& txn,
                                                                    const ContainerAddress& address, bool as_owner);

  std::unique_ptr<storage::Store> store_;
  const AccountOptions options_;
  ContainerCache containers_;
  std::atomic<uint64_t> etag_counter_;
  std::atomic<bool> stopping_{false};
};

// Finds a database by id or rid. As the target of the request a missing database is
// kNotFound; as the owner of the target it is kOwnerResourceNotFound.
Result<storage::DatabaseRecord> FindDatabase(storage::Transaction& txn, const ResourceName& name, bool as_owner);

// The container's LSN as `txn` sees it: a read on a snapshot, the LSN committed with the
// snapshot; a transaction holding the store's lock, the count of the open group's writes too,
// which the cache keeps (and only such a transaction may read).
Result<int64_t> VisibleLsn(storage::Transaction& txn, const ResolvedContainer& container);

// Seconds since the epoch: the _ts of writes, and the clock time to live compares with.
int64_t NowSeconds();

}  // namespace cosmos::engine
