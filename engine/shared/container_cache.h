// ContainerCache: resolved containers by the address a request used, so that item operations
// skip the catalog lookups and the parse of the container definition.
// Thread-safety: internally synchronized. Writes (and an in-memory store's reads) use it inside a
// transaction that holds the store's lock, which orders their fills against catalog changes. A
// file store's reads run beside writes on snapshots of their own: they fill it only with
// InsertIfCurrent, which refuses an entry that a catalog change may have outdated.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/json.h"
#include "engine/catalog/container_definition.h"
#include "engine/indexing/indexing_policy.h"
#include "engine/catalog/throughput.h"
#include "engine/partitioning/partition_key.h"
#include "engine/partitioning/partitioning.h"
#include "query/computed_properties.h"
#include "storage/store.h"

namespace cosmos::engine {

// The all-versions change log of a container without a changeFeedPolicy keeps entries this long
// once a reader started it: the service serves that mode on any container of an account with
// continuous backup, whose shortest tier keeps 7 days.
inline constexpr int64_t kStartedChangeLogRetentionSeconds = 7 * 24 * 3600;

// The index entries at each path of one container version, as counted at an LSN: the planner asks
// whether every document has an entry on an ORDER BY path (planning/access_path.h), and a count
// of a large container costs more than the page it decides, so an unchanged container is not
// counted twice. A write moves the LSN; a new indexing policy or index build makes a new
// ResolvedContainer, with an empty cache.
// Thread-safety: internally synchronized.
class EntryCountCache {
 public:
  std::optional<int64_t> Find(const std::string& path, int64_t lsn) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto found = counts_.find(path);
    if (found == counts_.end() || found->second.first != lsn) return std::nullopt;
    return found->second.second;
  }
  void Store(const std::string& path, int64_t lsn, int64_t entries) {
    std::lock_guard<std::mutex> lock(mu_);
    counts_[path] = {lsn, entries};
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::pair<int64_t, int64_t>> counts_;  // path -> (lsn, entries)
};

// A container with its database, parsed definition and derived ids.
struct ResolvedContainer {
  storage::DatabaseRecord database;
  storage::ContainerRecord container;
  Json properties;
  PartitionKeyDefinition partition_key;
  UniqueKeyPolicy unique_keys;
  IndexingPolicy indexing;
  std::string database_rid;
  std::string container_rid;
  RoutingMap routing;  // its physical partitions
  // Time to live (defaultTtl): nullopt = off; -1 = on without a default; N = seconds.
  std::optional<int64_t> default_ttl;
  // How long the all-versions change log keeps an entry: the changeFeedPolicy's retention, or for
  // a container without one whose log a reader started, kStartedChangeLogRetentionSeconds; 0: none.
  int64_t change_log_retention_s = 0;
  // computedProperties, which its queries expand (query/computed_properties.h).
  std::shared_ptr<const query::ComputedProperties> computed;
  // The throughput its partitions share: its own offer's, else its database's (shared_throughput),
  // else the serverless ceiling.
  ContainerThroughput throughput;
  bool shared_throughput = false;
  // Set while its index is being built: queries scan rather than trust a partial index.
  std::optional<storage::IndexBuild> index_build;
  // The container's latest LSN, counting writes not yet committed. Guarded by the store's lock
  // (see above), advanced by writes; a read on a snapshot never reads it, but takes the LSN
  // committed with its snapshot (Transaction::CommittedContainerLsn).
  mutable int64_t lsn = 0;
  // Entries per index path, counted for the planner.
  mutable EntryCountCache entry_counts;

  std::string OwnerPath() const { return "dbs/" + database.id + "/colls/" + container.id; }
};

class ContainerCache {
 public:
  // `key` identifies the address as the request spelled it (by name or by rid).
  std::shared_ptr<const ResolvedContainer> Find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto found = entries_.find(key);
    return found == entries_.end() ? nullptr : found->second;
  }
  // For transactions that hold the store's lock.
  void Insert(const std::string& key, std::shared_ptr<const ResolvedContainer> container) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_[key] = std::move(container);
  }
  // For reads on a snapshot: `generation` is Generation() from before the snapshot began. The
  // entry is kept only if no catalog change is in flight and none has ended since.
  void InsertIfCurrent(const std::string& key, std::shared_ptr<const ResolvedContainer> container,
                       uint64_t generation) {
    std::lock_guard<std::mutex> lock(mu_);
    if (changes_in_flight_ == 0 && generation == generation_) entries_[key] = std::move(container);
  }
  uint64_t Generation() const {
    std::lock_guard<std::mutex> lock(mu_);
    return generation_;
  }
  // A change to a database or container definition (or to what the cache holds of it): the
  // write calls BeginChange when it makes the change, and EndChange must follow once the change
  // is committed or rolled back. Each forgets everything.
  void BeginChange() {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    ++generation_;
    ++changes_in_flight_;
  }
  void EndChange() {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    ++generation_;
    --changes_in_flight_;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const ResolvedContainer>> entries_;  // guarded by mu_
  uint64_t generation_ = 0;      // guarded by mu_: changes begun or ended so far
  int changes_in_flight_ = 0;    // guarded by mu_: begun, not yet committed or rolled back
};

}  // namespace cosmos::engine
