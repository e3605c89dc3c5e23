// MemoryIndex: a store's index entries, kept in process memory rather than in SQLite. A file
// store rebuilds them from its documents when it opens (the engine's index builds).
//
// Why: in SQLite, an entry costs a B-tree descent through the page cache, the copy of every page
// it changes into the journal (or the WAL), and a statement; a 1 KB document of 20 properties has
// 22 entries, and they were two thirds of the write thread's time. Here the entries of a
// container's path are kept in the order lookups want, (value, partition hash, document seq), and
// none is written to disk.
//
// Layout, per container and path: a small B-tree of the entries added lately (`recent`), and
// sorted runs of older ones, each about twice the size of the next newer. A commit that finds
// `recent` full moves it into a new run and merges runs of like size (a log-structured merge).
// Why: one B-tree of a million entries per path made every insertion a descent of cache misses
// (about 1 us each, 22 per document); `recent` stays in the CPU's cache, and a merge copies runs
// sequentially, each entry about log2(entries / fold size) times in its life. A lookup merges
// the sources; a removal searches them for the entry.
//
// Versions: every entry carries the commit group that added it (`born`) and the one that removed
// it (`died`, or none yet), so that a read on a SQLite snapshot sees the entries of that snapshot
// and no other: those born at or before its group and not dead by then. A removed entry stays
// until no open reader can see it: Commit purges it from `recent`, and a merge drops it from runs.
// Writers see the latest entries, their open group's included (kLatest). Entries of the open
// group are always in `recent` (runs form only at a commit).
//
// Transactions: every change is logged so that it can be undone, mirroring the store's SQLite
// transaction: Savepoint/RollBackToSavepoint/ReleaseSavepoint follow SAVEPOINT, ROLLBACK TO and
// RELEASE; Commit forgets the log, RollBack undoes all of it.
//
// Thread-safety: one writer at a time (the store's lock serializes writes, and the undo log is
// the writer's). Scans and counts may run on any thread beside it: the entries sit behind a
// reader-writer lock, which a scan takes for a few hundred entries at a time.
#pragma once

#include <absl/container/btree_set.h>  // and its internal btree_set_container (Rows below)

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/records.h"
#include "storage/schema.h"

namespace cosmos::storage {

// The bounds of a scan over one path's entries, as LookupIndex takes them: encoded values, an
// empty upper bound open; `after` (optional) resumes strictly past a row in the scan's direction;
// `partition_hash`, when set, keeps one logical partition's rows; `snapshot`, the commit group
// whose entries the scan sees (kLatest: the writer's view, the open group's changes included).
struct IndexScan {
  std::string_view lower;
  bool lower_inclusive = true;
  std::string_view upper;
  bool upper_inclusive = false;
  bool descending = false;
  const IndexRow* after = nullptr;
  std::optional<int64_t> partition_hash;
  uint64_t snapshot;
};

class MemoryIndex {
 public:
  // A view after every group, the open one included. Group numbers never come near it.
  static constexpr uint64_t kLatest = std::numeric_limits<uint64_t>::max() - 1;

  // Entries a path's `recent` gathers before a commit folds them into a run (each path folds at
  // between this and 1.5 times it, so that paths filled together do not all merge at one commit).
  static constexpr size_t kDefaultFoldEntries = 1024;

  // `committed_group`: the last group the store committed before (numbers go on from it).
  // `fold_entries`: kDefaultFoldEntries but in tests, which make runs with few entries.
  explicit MemoryIndex(uint64_t committed_group, size_t fold_entries = kDefaultFoldEntries)
      : fold_entries_(fold_entries), committed_group_(committed_group) {}

  // Changes of the writer of commit group `group`.
  // True when no entry `row` was there (and is now).
  bool Insert(int64_t container_seq, std::string_view path, IndexRow row, uint64_t group);
  // Insert for a row known not to be alive in the index (a new document's, or one its replace
  // gains): looks for it among `recent` only, not in the runs. False when it was there.
  bool InsertNew(int64_t container_seq, std::string_view path, IndexRow row, uint64_t group);
  // True when the entry was there (and is gone).
  bool Erase(int64_t container_seq, std::string_view path, const IndexRow& row, uint64_t group);
  // Removes every entry of a container.
  void EraseContainer(int64_t container_seq, uint64_t group);

  // Calls visit(row) for the rows of `path` within the scan that its snapshot sees, in key order
  // (backwards when descending), until it returns false. `visit` runs without the index's lock.
  void Scan(int64_t container_seq, std::string_view path, const IndexScan& scan,
            const std::function<bool(const IndexRow&)>& visit) const;
  // Calls visit(row) for every row of `path` the snapshot sees (of one logical partition when
  // `partition_hash` is set), in no particular order and without copying them: vector search reads
  // every embedding. `visit` runs under the index's shared lock, which writers wait for: it must
  // be quick and must not call back into the index.
  // `prefetch_bytes`: how much of each value `visit` reads (fetched ahead of it).
  void Visit(int64_t container_seq, std::string_view path, uint64_t snapshot, std::optional<int64_t> partition_hash,
             size_t prefetch_bytes, const std::function<void(const IndexRow&)>& visit) const;
  // How many entries `path` has now (the latest view: the count a planner estimates from).
  int64_t Count(int64_t container_seq, std::string_view path) const;
  // A container's entries now, and their bytes: each entry's path and value, and
  // kIndexEntryPointerBytes for the partition hash and document seq it points with.
  IndexSize Size(int64_t container_seq) const;

  // A reader of a SQLite snapshot registers before it begins: what it will see cannot be purged
  // until it closes. Returns the registration, the group last committed, which the snapshot
  // (taken later) sees at least.
  uint64_t OpenReader();
  void CloseReader(uint64_t registration);

  void Savepoint() { savepoints_.push_back(undo_.size()); }
  void RollBackToSavepoint();  // undoes the changes since the innermost savepoint, which stays open
  void ReleaseSavepoint() { savepoints_.pop_back(); }
  // The transaction of group `group` committed: its changes stay; forget how to undo them, and
  // purge the removed entries no reader can see any more.
  void Commit(uint64_t group);
  void RollBack();  // undoes every change of the transaction

  // Changes made so far (never decreasing): a transaction compares it to learn whether it changed
  // anything.
  uint64_t changes() const { return changes_; }
  // Entries held, removed ones awaiting their purge included (tests).
  int64_t HeldEntries() const;

 private:
  static constexpr uint64_t kAlive = std::numeric_limits<uint64_t>::max();

  // A row with the first 16 bytes of its value (zero-padded) packed big-endian in two integers:
  // most comparisons end there, without reading the value's characters, which a value longer than
  // 15 bytes keeps on the heap, a cache miss away.
  struct Entry {
    Entry(IndexRow row, uint64_t born);
    bool SeenBy(uint64_t snapshot) const { return born <= snapshot && died > snapshot; }
    uint64_t head[2];
    IndexRow row;
    uint64_t born;
    mutable uint64_t died = kAlive;  // not part of the key: changes in place
  };
  struct EntryLess {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.head[0] != b.head[0]) return a.head[0] < b.head[0];
      if (a.head[1] != b.head[1]) return a.head[1] < b.head[1];
      if (int by_value = CompareBeyondHead(a.row.value, b.row.value); by_value != 0) return by_value < 0;
      if (a.row.partition_hash != b.row.partition_hash) return a.row.partition_hash < b.row.partition_hash;
      if (a.row.document_seq != b.row.document_seq) return a.row.document_seq < b.row.document_seq;
      return a.born < b.born;
    }
  };
  // absl::btree_set's own container with nodes of kNodeBytes instead of the 256 its public alias
  // fixes: a 256-byte node holds three of these entries, a nearly binary tree.
  static constexpr int kNodeBytes = 2048;
  using Rows = absl::container_internal::btree_set_container<absl::container_internal::btree<
      absl::container_internal::set_params<Entry, EntryLess, std::allocator<Entry>, kNodeBytes, /*IsMulti=*/false>>>;
  // Values whose heads are equal, in byte order: past the head, or, when neither goes past it, by
  // length (the longer is the shorter with NULs after it).
  static int CompareBeyondHead(const std::string& a, const std::string& b);
  // Committed entries in key order, and the span of their documents' seqs: a search for one
  // document's entry skips the runs that cannot hold it.
  struct Run {
    std::vector<Entry> entries;
    int64_t min_seq;
    int64_t max_seq;
  };
  struct PathRows {
    Rows recent;            // entries added since the last fold, every one of the open group's among them
    std::vector<Run> runs;  // the largest (oldest) first
    size_t fold_at;         // recent's size at which a commit folds it into a run
    bool fold_due = false;  // listed in folds_due_
    uint64_t runs_version = 0;  // changes whenever `runs` does (a scan's positions in them stay valid until then)
    int64_t live = 0;       // entries not removed
    int64_t purged = 0;     // entries in runs that no reader can see, dropped when their run merges
    IndexSize* size;        // the container's
    int64_t path_bytes;
  };
  // The runs hold more entries no reader sees than live ones (and at least a fold's worth): the
  // next fold merges them all, dropping the dead.
  static bool MoreDeadThanAlive(const PathRows& path) {
    return path.purged > path.live && path.purged >= static_cast<int64_t>(path.fold_at);
  }
  // Where an entry was found: in `recent`, or in a run (entries there change only in `died`).
  struct Found {
    const Entry* entry = nullptr;
    bool in_recent = false;
  };
  using PathKey = std::pair<int64_t, std::string>;
  struct PathLess {
    using is_transparent = void;
    bool operator()(const PathKey& a, const PathKey& b) const { return a < b; }
    bool operator()(const PathKey& a, const std::pair<int64_t, std::string_view>& b) const {
      return a.first != b.first ? a.first < b.first : std::string_view(a.second) < b.second;
    }
    bool operator()(const std::pair<int64_t, std::string_view>& a, const PathKey& b) const {
      return a.first != b.first ? a.first < b.first : a.second < std::string_view(b.second);
    }
  };
  // One change, and so what undoes it.
  enum class Change { kInserted, kErased, kRemoved, kRestored };
  struct Undo {
    PathRows* path;
    Entry entry;  // its key, and for kErased its versions
    Change change;
    uint64_t group;
  };
  // A removed entry, purged once no reader's snapshot predates `died`.
  struct Grave {
    PathRows* path;
    Entry entry;
  };

  const PathRows* Find(int64_t container_seq, std::string_view path) const;
  // The path's rows, made if new. REQUIRES: mu_ held exclusively.
  PathRows& FindOrAdd(int64_t container_seq, std::string_view path);
  // Calls visit(found) for each version of `row` (alive or removed), in `recent` and the runs.
  static void ForEachVersion(const PathRows& path, const IndexRow& row, const std::function<void(Found)>& visit);
  // The entry of exactly `key`'s row and birth, if held.
  static Found Locate(const PathRows& path, const Entry& key);
  // Adds `row`, born in `group`, to `recent`. False when it was there. REQUIRES: mu_ held exclusively.
  bool AddRecent(PathRows& path, IndexRow row, uint64_t group);
  // Removes an entry found alive: marks it dead in `group`, or erases it if `group` added it.
  // REQUIRES: mu_ held exclusively.
  void Remove(PathRows& path, Found entry, uint64_t group);
  // Counts an entry in (+1) or out (-1) of its path's live entries and its container's size.
  // REQUIRES: mu_ held exclusively.
  static void Count(PathRows& path, const Entry& entry, int sign);
  void UndoTo(size_t mark);
  // The oldest group a reader may still view: entries removed in it or before are seen by none.
  uint64_t OldestView() const;
  void Purge(uint64_t oldest_view);
  // Moves the full `recent`s into runs and merges runs of like size, dropping the entries no
  // reader can see (removed in `oldest_view` or before).
  void Fold(uint64_t oldest_view);
  static Run Merge(Run older, Run newer, uint64_t oldest_view, PathRows& path);

  const size_t fold_entries_;
  mutable std::shared_mutex mu_;  // guards paths_ and what it holds
  // A node map, so that the PathRows an Undo points to stay put; a path's set stays (empty) when
  // its entries go, and container seqs are never reused.
  std::map<PathKey, PathRows, PathLess> paths_;
  std::map<int64_t, IndexSize> sizes_;  // by container: nodes stay put for PathRows::size
  // The writer's alone (the store's lock serializes writers).
  std::vector<Undo> undo_;
  std::vector<size_t> savepoints_;  // positions in undo_
  std::deque<Grave> graves_;        // in the order of their groups
  std::vector<PathRows*> folds_due_;  // paths whose `recent` reached fold_at in this group
  uint64_t changes_ = 0;

  mutable std::mutex readers_mu_;       // guards the two below
  uint64_t committed_group_;            // the last group committed
  std::multiset<uint64_t> readers_;     // the registrations of open readers
};

}  // namespace cosmos::storage
