// Store: the SQLite database behind an emulator account — databases, containers, documents,
// logical-partition sizes and unique-key entries. It stores what the engine gives it and knows
// nothing of HTTP, Cosmos SQL or Cosmos validation rules.
// Thread-safety: Store is safe to share between threads. All access goes through a Transaction,
// which holds the store's lock for its lifetime, so each transaction is atomic and isolated.
//
// Group commit: concurrent write transactions share one SQLite transaction. Each is a SAVEPOINT
// inside it (so a failed one rolls back alone); the last writer of a group, the one that finds no
// other writer waiting, commits the group, and every writer's Commit() returns only after that
// COMMIT, so an acknowledged write is as durable as the store's sync mode. A read of an in-memory
// store that runs while a group is open sees the group's released writes before they commit.
//
// Reads: in a file store each read transaction runs on a connection of its own, taken from a
// pool, as one SQLite read transaction (a snapshot of what was committed when it began). Reads
// therefore run side by side with each other and with the writer, and see only committed
// writes — and a write is acknowledged only once committed. In an in-memory store (one
// connection) reads take the store's lock instead and may see writes of the open group.
//
// Write batches: a thread that runs many writes one after another (the server's write thread)
// brackets them with BeginBatch/EndBatch. Its writes then join one group that stays open, its
// Commit() returns as soon as the write is released into the group, and EndBatch commits the
// group; other threads' writes that join it meanwhile wait for that COMMIT as usual. The batch's
// writes are durable only once EndBatch returns OK, so its caller acknowledges them then.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.h"
#include "storage/records.h"

namespace cosmos::storage {

namespace sqlite {
class Connection;
}
class MemoryIndex;

struct StoreOptions {
  // SQLite file to open or create. Empty: keep everything in memory.
  std::string path;
  // true: fsync on every commit (synchronous=FULL), surviving power loss.
  // false: WAL with synchronous=NORMAL, surviving a process crash.
  bool sync_every_commit = false;
  // WAL pages past which the committing writer checkpoints too, so that the WAL can start over
  // (wal_checkpointer.h, WalCheckpointer, says why it is this large). Tests lower it.
  int wal_restart_pages = 40000;
  // Once no write has committed for this long, the WAL is copied into the database and its file
  // truncated, so that an idle emulator does not keep a large WAL on disk. Tests lower it.
  int wal_truncate_idle_ms = 2000;
  // Pages the data file may grow to (0: no limit): a write past it fails as on a full disk
  // (kInsufficientStorage). Tests use it to fill the "disk" quickly.
  int64_t max_pages = 0;
  // Entries an index path gathers before a commit folds them into a sorted run (memory_index.h);
  // 0: the index's default. Tests lower it, to exercise runs and their merges.
  size_t index_fold_entries = 0;
};

enum class SeqKind { kDatabase, kContainer, kDocument, kOffer, kUser, kPermission, kScript };

class Store;
class WalCheckpointer;

// An open transaction. A write (and an in-memory store's read) holds the store's lock; a file
// store's read holds a pooled read connection. Rolls back on destruction unless committed.
class Transaction {
 public:
  Transaction(Transaction&&) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  // Returns the next never-used sequence number of a kind (never reused, even after deletes). A
  // document seq is handed out once (one whose write fails is skipped); another kind's stays the
  // next until a row takes it.
  Result<int64_t> NextSeq(SeqKind kind);

  Result<std::optional<DatabaseRecord>> FindDatabase(std::string_view id);
  Result<std::optional<DatabaseRecord>> FindDatabaseBySeq(int64_t seq);
  // Up to `limit` databases (-1: all) with seq greater than `after_seq`, in seq order.
  Result<std::vector<DatabaseRecord>> ListDatabases(int64_t after_seq = 0, int64_t limit = -1);
  Status InsertDatabase(const DatabaseRecord& record);
  // Deletes the database with all of its containers and their documents.
  Status DeleteDatabase(int64_t seq);

  Result<std::optional<ContainerRecord>> FindContainer(int64_t database_seq, std::string_view id);
  Result<std::optional<ContainerRecord>> FindContainerBySeq(int64_t database_seq, int64_t seq);
  // By sequence number alone, whatever its database (background work that starts from a document).
  Result<std::optional<ContainerRecord>> FindContainerBySeq(int64_t seq);
  // Up to `limit` containers (-1: all) with seq greater than `after_seq`, in seq order.
  Result<std::vector<ContainerRecord>> ListContainers(int64_t database_seq, int64_t after_seq = 0,
                                                      int64_t limit = -1);
  Status InsertContainer(const ContainerRecord& record);
  Status UpdateContainerBody(int64_t seq, std::string_view body);
  // Deletes the container with all of its documents.
  Status DeleteContainer(int64_t seq);
  // Offers. Deleting a database or container deletes its offer too.
  Status InsertOffer(const OfferRecord& record);
  Result<std::optional<OfferRecord>> FindOfferBySeq(int64_t seq);
  Result<std::optional<OfferRecord>> FindOfferFor(bool is_database, int64_t resource_seq);
  // Up to `limit` offers (-1: all) with seq greater than `after_seq`, in seq order.
  Result<std::vector<OfferRecord>> ListOffers(int64_t after_seq = 0, int64_t limit = -1);
  Status UpdateOfferBody(int64_t seq, std::string_view body);

  // Users and permissions (security_tables.cc). Deleting a database deletes its users, and
  // deleting a user its permissions. Insert and update return kConflict when the id (or, for a
  // permission, the resource) is taken by another of the same owner.
  Result<std::optional<UserRecord>> FindUser(int64_t database_seq, std::string_view id);
  Result<std::optional<UserRecord>> FindUserBySeq(int64_t seq);
  // Up to `limit` users (-1: all) with seq greater than `after_seq`, in seq order.
  Result<std::vector<UserRecord>> ListUsers(int64_t database_seq, int64_t after_seq = 0, int64_t limit = -1);
  Status InsertUser(const UserRecord& record);
  Status UpdateUser(int64_t seq, std::string_view id, std::string_view body);
  Status DeleteUser(int64_t seq);
  Result<std::optional<PermissionRecord>> FindPermission(int64_t user_seq, std::string_view id);
  Result<std::optional<PermissionRecord>> FindPermissionBySeq(int64_t seq);
  Result<std::vector<PermissionRecord>> ListPermissions(int64_t user_seq, int64_t after_seq = 0, int64_t limit = -1);
  Status InsertPermission(const PermissionRecord& record);
  // Replaces the permission's id, body, resource and scope (its seq and user stay).
  Status UpdatePermission(const PermissionRecord& record);
  Status DeletePermission(int64_t seq);
  // Scripts of a container (script_tables.cc), by kind ("sprocs", "triggers", "udfs"). Deleting a
  // container deletes its scripts. Insert and update return kConflict for an id in use.
  Result<std::optional<ScriptRecord>> FindScript(int64_t container_seq, std::string_view kind, std::string_view id);
  Result<std::optional<ScriptRecord>> FindScriptBySeq(int64_t seq);
  // Up to `limit` scripts of a kind (-1: all) with seq greater than `after_seq`, in seq order.
  Result<std::vector<ScriptRecord>> ListScripts(int64_t container_seq, std::string_view kind, int64_t after_seq = 0,
                                                int64_t limit = -1);
  Status InsertScript(const ScriptRecord& record);
  Status UpdateScript(int64_t seq, std::string_view id, std::string_view body);
  Status DeleteScript(int64_t seq);

  // A named secret of the account, if one was stored.
  Result<std::optional<std::string>> FindSecret(std::string_view name);
  // Stores the secret unless one of that name exists (the existing one stays).
  Status InsertSecret(std::string_view name, std::string_view value);

  // Index entries of one document, of the logical partition `partition_key`. Inserting an entry
  // that exists, or deleting one that does not, is not an error.
  Status InsertIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                            const std::vector<IndexEntry>& entries);
  // The same for entries none of which is in the index yet: a new document's, or those a replaced
  // document gains. A repeated entry goes in once; kInternal if one turns out to be there already.
  Status InsertNewIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                               const std::vector<IndexEntry>& entries);
  Status DeleteIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                            const std::vector<IndexEntry>& entries);
  // The seqs of the documents with an entry at `path` between the bounds (encoded values; an
  // empty upper bound is open), restricted to `scope`, de-duplicated, in seq order. Adds the
  // entries read to `entries_read`. A logical-partition scope reads only that partition's entries
  // (by PartitionHash); a key range joins each entry with its document.
  Result<std::vector<int64_t>> LookupIndex(int64_t container_seq, std::string_view path, std::string_view lower,
                                           bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                                           const DocumentScope& scope, uint64_t& entries_read);
  // As LookupIndex, with each document's value (its entry's encoded value): (seq, value) in seq
  // order, one per document (the first of its values for a path of array elements).
  Result<std::vector<std::pair<int64_t, std::string>>> LookupIndexValues(int64_t container_seq, std::string_view path,
                                                                         std::string_view lower, bool lower_inclusive,
                                                                         std::string_view upper, bool upper_inclusive,
                                                                         const DocumentScope& scope,
                                                                         uint64_t& entries_read);
  // Index entries at `path` between the bounds (an empty upper bound is open), in (value,
  // partition_hash, document_seq) order (descending: reversed), after the cursor when given: up
  // to `limit`. With `partition_key`, only that logical partition's entries (by PartitionHash).
  Result<std::vector<IndexRow>> ScanIndex(int64_t container_seq, std::string_view path, std::string_view lower,
                                          bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                                          bool descending, const std::optional<std::string>& partition_key,
                                          const std::optional<IndexRow>& after, int64_t limit);
  // Calls visit(row) for every index entry at `path` the transaction sees, of one logical partition
  // when `partition_key` is given, in no particular order (MemoryIndex::Visit: `visit` must be
  // quick and must not use the store). Adds the entries visited to `entries_read`.
  // `prefetch_bytes`: how much of each value `visit` reads.
  Status VisitIndexEntries(int64_t container_seq, std::string_view path, const std::optional<std::string>& partition_key,
                           size_t prefetch_bytes, uint64_t& entries_read,
                           const std::function<void(const IndexRow&)>& visit);
  // How many index entries `path` has (documents with a scalar there): the latest count, even on a
  // snapshot (a planner's estimate).
  Result<int64_t> CountIndexEntries(int64_t container_seq, std::string_view path);
  // The size of a container's whole index: its entries, and their bytes (each entry's path and
  // encoded value, and 16 for the partition hash and document seq it points with), kept as entries
  // are inserted and deleted. The latest, even on a snapshot.
  Result<IndexSize> MeasureIndex(int64_t container_seq);
  // How many entries at `path` lie between the bounds (as LookupIndex takes them), of one logical
  // partition when `partition_key` is given, counting no further than `limit`: reads entries
  // only, never documents.
  Result<int64_t> CountIndexRange(int64_t container_seq, std::string_view path, std::string_view lower,
                                  bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                                  const std::optional<std::string>& partition_key, int64_t limit);
  // Index (re)builds: start one (dropping the container's entries), list, advance and finish.
  Status StartIndexBuild(int64_t container_seq);
  Result<std::vector<IndexBuild>> ListIndexBuilds();
  Status UpdateIndexBuild(const IndexBuild& build);
  Status FinishIndexBuild(int64_t container_seq);

  // Advances and returns the container's LSN; every document write takes one.
  Result<int64_t> NextLsn(int64_t container_seq);

  Result<std::optional<DocumentRecord>> FindDocument(int64_t container_seq,
                                                     std::string_view partition_key,
                                                     std::string_view id);
  Result<std::optional<DocumentRecord>> FindDocumentBySeq(int64_t container_seq, int64_t seq);
  // Up to `limit` documents of `scope` with seq at least `from_seq`, in seq order: the order they
  // were created in (a replace keeps a document's seq). Without `bodies`, every body is left
  // empty: the caller only counts or places the documents.
  Result<std::vector<DocumentRecord>> ListDocuments(int64_t container_seq, const DocumentScope& scope,
                                                    int64_t from_seq, int64_t limit, bool bodies = true);
  // The change feed: up to `limit` documents of `scope` last written after `after_lsn`, in LSN
  // order; with `since_ts`, only those whose _ts is at least that (seconds since the epoch).
  Result<std::vector<DocumentRecord>> ListChanges(int64_t container_seq, const DocumentScope& scope,
                                                  int64_t after_lsn, int64_t limit,
                                                  std::optional<int64_t> since_ts = std::nullopt);
  // Returns kConflict if (partition_key, id) exists already.
  Status InsertDocument(int64_t container_seq, const DocumentRecord& record);
  // Replaces body, etag and lsn of the document with record.seq.
  Status UpdateDocument(int64_t container_seq, const DocumentRecord& record);
  Status DeleteDocument(int64_t container_seq, const DocumentRecord& record);
  // Time to live: sets when a document expires (0: never), and lists documents of any container
  // that expired at or before `now` (seconds), oldest first.
  Status SetDocumentExpiry(int64_t container_seq, int64_t document_seq, int64_t expires_at);
  Result<std::vector<std::pair<int64_t, DocumentRecord>>> ListExpiredDocuments(int64_t now, int64_t limit);
  Result<LogicalPartitionSize> GetLogicalPartitionSize(int64_t container_seq,
                                                       std::string_view partition_key);

  // The all-versions-and-deletes change log of containers that keep one: an entry per write or
  // delete, under the container LSN it took, kept until `expires_at` (seconds since the epoch).
  // The writes of one transactional batch share an LSN, and their entries one row: its entry is
  // their JSON objects joined by commas, in the order they were appended.
  Status AppendChange(int64_t container_seq, int64_t lsn, std::string_view partition_key, std::string_view entry,
                      int64_t expires_at);
  // Up to `limit` entries of `scope` with an LSN above `after_lsn`, in LSN order: (lsn, entry).
  Result<std::vector<std::pair<int64_t, std::string>>> ListChangeLog(int64_t container_seq, const DocumentScope& scope,
                                                                     int64_t after_lsn, int64_t limit);
  // Drops entries whose retention ran out at or before `now`.
  Status PruneChangeLog(int64_t now);
  // Where the change log of a container without a changeFeedPolicy starts: nullopt until a reader
  // of the all-versions feed starts it (StartChangeLog) at the container's LSN then.
  Result<std::optional<int64_t>> FindChangeLogStart(int64_t container_seq);
  Status StartChangeLog(int64_t container_seq, int64_t since_lsn);

  // Every range of a container, gone ones included, in id order.
  Result<std::vector<PartitionKeyRangeRecord>> ListPartitionKeyRanges(int64_t container_seq);
  Status InsertPartitionKeyRange(int64_t container_seq, const PartitionKeyRangeRecord& range);
  Status MarkPartitionKeyRangeGone(int64_t container_seq, int64_t range_id);
  // Document count and bytes of the documents in [min_key, max_key) of one container.
  Result<LogicalPartitionSize> MeasureKeyRange(int64_t container_seq, std::string_view min_key,
                                               std::string_view max_key);
  // How many logical partitions in [min_key, max_key) hold a document.
  Result<int64_t> CountLogicalPartitions(int64_t container_seq, std::string_view min_key, std::string_view max_key);
  // The `limit` logical partitions in [min_key, max_key) holding the most bytes, largest first.
  Result<std::vector<std::pair<std::string, LogicalPartitionSize>>> LargestLogicalPartitions(
      int64_t container_seq, std::string_view min_key, std::string_view max_key, int64_t limit);

  // Data files written before partition keys started with the effective partition key
  // (schema version 1) keep their old keys until the engine rewrites them: every document's
  // partition_key, and with it the logical-partition sizes and unique-key entries.
  Status RekeyDocument(int64_t container_seq, int64_t document_seq, std::string_view partition_key);
  // Rebuilds logical_partitions and the unique-key entries' keys from the documents, then marks
  // the file as current.
  Status FinishRekeying();

  // Unique-key entries: one row per (unique key, logical partition, value).
  // Returns kConflict when another document already holds `value` for `key_index`.
  Status InsertUniqueKeyEntry(int64_t container_seq, std::string_view partition_key,
                              int key_index, std::string_view value, int64_t document_seq);
  Status DeleteUniqueKeyEntries(int64_t container_seq, int64_t document_seq);

  // Makes a write transaction's changes permanent; returns once they are committed to the file.
  // A no-op for read transactions.
  Status Commit();

  // Runs `done` once the commit group holding this write has committed or rolled back (in a
  // batch, when EndBatch commits it), on the thread that ends the group, with the store's lock
  // held: it must not use the store. For a read, runs it at once.
  void AfterGroup(std::function<void()> done);

  // A read of a file store: on a pooled connection, inside a snapshot of what was committed.
  bool OnSnapshot() const { return reader_ != nullptr; }
  // For such a read: its snapshot began, with its first statement.
  bool SnapshotTaken() const;

  // The LSN in a container's row: for a read on a snapshot, the container's LSN as committed
  // with the snapshot. (Under the store's lock the engine's count, which includes the open
  // group's writes, may be ahead of it.)
  Result<int64_t> CommittedContainerLsn(int64_t container_seq);

  // Lets this write fail, or be dropped, after it changed something, undoing its changes alone
  // (a SAVEPOINT). Call it before the first change; a no-op for isolated writes and reads.
  Status Isolate();

  // A part of an isolated write that may fail alone while the write goes on (one operation of a
  // stored procedure, which may catch its error): BeginPart, the part's changes, then EndPart —
  // `keep` false undoes the changes made since BeginPart. Parts do not nest.
  // REQUIRES: an isolated write (BeginWrite(true), or Isolate() called).
  Status BeginPart();
  Status EndPart(bool keep);

 private:
  friend class Store;
  Transaction(std::unique_lock<std::mutex> lock, Store* store, uint64_t group);
  // A read on a pooled connection, inside its BEGIN, registered with the memory index.
  Transaction(Store* store, std::unique_ptr<sqlite::Connection> reader, uint64_t reader_registration);

  // The LSN to report for a container row: a locked transaction also counts the open group's
  // writes (Store::CountedLsn); a pooled read sees committed rows only, which carry theirs.
  int64_t ContainerLsn(int64_t container_seq, int64_t row_lsn) const;
  // Rows changed so far through the store's connection and its memory index: a write compares
  // the count to learn whether it changed anything.
  int64_t ChangesSoFar() const;
  // The store's index (memory_index.h). Only a write changes it.
  MemoryIndex* memory_index() const;
  // The commit group whose index entries this transaction sees: a pooled read's snapshot's (read
  // with its first use), MemoryIndex::kLatest under the store's lock.
  Result<uint64_t> IndexSnapshot();
  // Erases every index entry of a container (with DeleteContainer and StartIndexBuild).
  Status EraseContainerIndex(int64_t container_seq);

  std::unique_lock<std::mutex> lock_;
  Store* store_;
  std::unique_ptr<sqlite::Connection> reader_;  // a pooled read's connection, returned at the end
  sqlite::Connection* connection_;
  uint64_t group_ = 0;           // commit group of a write transaction; 0 for reads
  bool write_open_ = false;      // a write that is neither committed nor ended
  bool savepoint_open_ = false;  // ... and isolated: its changes can be undone alone
  int64_t changes_before_ = 0;   // the connection's count of changed rows when the write began
  std::optional<uint64_t> reader_registration_;  // a pooled read's, until it ends (MemoryIndex::OpenReader)
  std::optional<uint64_t> index_snapshot_;       // IndexSnapshot(), once read
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  ~Store();

  // Starts a read or a write transaction. A write blocks while another write is open; so does
  // a read of an in-memory store (no BEGIN: the lock alone isolates it). A file store's read
  // never waits for writes.
  // An isolated write (a SAVEPOINT inside the group) can fail at any step and leave the group as
  // it was. A write that is not costs less (every page it touches is otherwise copied aside), but
  // if it fails, or is dropped, after changing something, its whole group is rolled back and
  // every write in it fails: begin one only when nothing after the first change can fail but the
  // storage itself, or call Isolate() before that change.
  Result<Transaction> BeginRead();
  Result<Transaction> BeginWrite(bool isolated = true);

  // A write batch of the calling thread (see the top of this file). Batches do not nest.
  void BeginBatch();
  // Commits the group holding the batch's writes (OK at once when it wrote nothing); on failure
  // none of them is durable.
  Status EndBatch();

  // The schema version the data file had when it was opened: 0 for a new file, 1 for a file whose
  // documents must be rekeyed (see Transaction::RekeyDocument), 2 or kSchemaVersion when current
  // (a version 2 file gains its expires_at column as it opens).
  int opened_schema_version() const { return opened_schema_version_; }

 private:
  friend class Transaction;
  Store(std::unique_ptr<sqlite::Connection> connection, std::unique_ptr<WalCheckpointer> checkpointer,
        int opened_schema_version, std::string read_path, uint64_t committed_group, size_t index_fold_entries);

  // The last commit group a file store committed, as of the connection's snapshot (store_state);
  // 0 before the first.
  static Result<uint64_t> ReadCommittedGroup(sqlite::Connection& connection);
  // Records the open group as the last committed, in the group's own transaction: a reader's
  // snapshot then tells which of the memory index's entries it sees. REQUIRES: mu_ held.
  Status WriteCommittedGroup();

  // Read connections of a file store: an idle one, or a new one. ReturnReader takes one back.
  Result<std::unique_ptr<sqlite::Connection>> TakeReader();
  void ReturnReader(std::unique_ptr<sqlite::Connection> reader);

  // Ends one write of the open group: passes the group on to a waiting writer, or commits it.
  // REQUIRES: `lock` holds mu_.
  Status FinishWrite(std::unique_lock<std::mutex>& lock, uint64_t group);
  // Commits (or, with no released write, rolls back) the open group and wakes its writers.
  // REQUIRES: mu_ held, group_open_.
  Status CommitOpenGroup();
  // A container's LSN: its row's, or the counted one when that is ahead. REQUIRES: mu_ held.
  int64_t CountedLsn(int64_t container_seq, int64_t row_lsn) const;
  // Writes the counted LSNs of lsns_to_write_ into their containers rows. REQUIRES: mu_ held.
  Status WriteCountedLsns();

  // At most this many writes share one commit, bounding the latency of the first.
  static constexpr int kMaxWritesPerGroup = 256;

  const int opened_schema_version_;
  std::atomic<int> writers_waiting_{0};  // writers blocked in BeginWrite
  std::mutex mu_;
  std::condition_variable group_committed_;
  std::unique_ptr<sqlite::Connection> connection_;  // guarded by mu_
  bool group_open_ = false;                          // guarded by mu_: a BEGIN is outstanding
  int group_writes_ = 0;                             // guarded by mu_
  // Group numbers go on from a file's last committed group (store_state), as the memory index's
  // versions are compared with them.
  uint64_t open_group_ = 0;                          // guarded by mu_: number of the latest group
  uint64_t committed_group_ = 0;                     // guarded by mu_: groups up to this one are done
  std::thread::id batch_thread_;                     // guarded by mu_: the thread inside a batch, if any
  bool group_held_ = false;                          // guarded by mu_: the open group holds batch writes
  bool group_spoiled_ = false;                       // guarded by mu_: a write not isolated failed part-way
  uint64_t failed_group_ = 0;                        // guarded by mu_: the last group whose COMMIT failed
  Status failed_status_;                             // guarded by mu_
  std::vector<std::function<void()>> group_done_;    // guarded by mu_: AfterGroup calls of the open group
  std::unique_ptr<WalCheckpointer> checkpointer_;    // file stores: checkpoints off the write path
  std::unique_ptr<MemoryIndex> memory_index_;        // the index (its own locks; one writer: mu_'s holder)
  const std::string read_path_;                      // file stores: what read connections open
  std::mutex readers_mu_;
  std::vector<std::unique_ptr<sqlite::Connection>> idle_readers_;  // guarded by readers_mu_
  // Container LSNs are counted here and written to the containers rows once per group commit:
  // an UPDATE of the row for every write cost about 8% of a create. A count never falls behind
  // its row (a write rolled back leaves a gap, as LSNs may), and is never forgotten: container
  // seqs are not reused, so the count of a deleted container is merely unused.
  std::unordered_map<int64_t, int64_t> container_lsns_;  // guarded by mu_
  std::vector<int64_t> lsns_to_write_;                   // guarded by mu_: containers whose row lags
  // The next document seq NextSeq hands out, once read from sqlite_sequence (0: not yet): every
  // create asked SQLite before. Counted ahead of the table, which learns a seq when its document
  // is inserted, so a seq whose write fails or rolls back is skipped, never handed out twice.
  int64_t next_document_seq_ = 0;  // guarded by mu_
};

}  // namespace cosmos::storage
