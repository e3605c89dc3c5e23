#include "storage/store.h"

#include <algorithm>
#include <chrono>

#include "storage/memory_index.h"
#include "storage/schema.h"
#include "storage/sqlite/connection.h"
#include "storage/wal_checkpointer.h"

namespace cosmos::storage {

Store::Store(std::unique_ptr<sqlite::Connection> connection, std::unique_ptr<WalCheckpointer> checkpointer,
             int opened_schema_version, std::string read_path, uint64_t committed_group, size_t index_fold_entries)
    : opened_schema_version_(opened_schema_version),
      connection_(std::move(connection)),
      open_group_(committed_group),
      committed_group_(committed_group),
      checkpointer_(std::move(checkpointer)),
      memory_index_(std::make_unique<MemoryIndex>(
          committed_group, index_fold_entries > 0 ? index_fold_entries : MemoryIndex::kDefaultFoldEntries)),
      read_path_(std::move(read_path)) {}

// The read connections and the checkpointer close before the writing connection, which, as the
// last, checkpoints a last time.
Store::~Store() {
  idle_readers_.clear();
  checkpointer_.reset();
}

Result<std::unique_ptr<sqlite::Connection>> Store::TakeReader() {
  {
    std::lock_guard<std::mutex> lock(readers_mu_);
    if (!idle_readers_.empty()) {
      auto reader = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return reader;
    }
  }
  COSMOS_ASSIGN_OR_RETURN(auto reader, sqlite::Connection::Open(read_path_));
  // A small page cache, as there is one per reading thread, and no memory map: each connection's
  // map of the file would count its pages once more in the process's RSS (4 query threads over
  // 100,000 documents: 412 MB instead of 52), for a gain only on the longest scans.
  COSMOS_RETURN_IF_ERROR(reader->Execute(
      "PRAGMA query_only = 1; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -8192; "
      "PRAGMA mmap_size = 0;"));
  return reader;
}

void Store::ReturnReader(std::unique_ptr<sqlite::Connection> reader) {
  std::lock_guard<std::mutex> lock(readers_mu_);
  idle_readers_.push_back(std::move(reader));
}

Result<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  bool in_memory = options.path.empty();
  COSMOS_ASSIGN_OR_RETURN(auto connection,
                          sqlite::Connection::Open(in_memory ? ":memory:" : options.path, /*batch_wal_writes=*/true));
  std::string pragmas = "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536;";
  if (options.max_pages > 0) pragmas += "PRAGMA max_page_count = " + std::to_string(options.max_pages) + ";";
  if (!in_memory) {
    pragmas += "PRAGMA journal_mode = WAL; PRAGMA mmap_size = 268435456;";
    // When the WAL starts over, a file that grew past the size the writer's checkpoints keep it
    // under (while reads held it) is cut back to it; a WAL file otherwise keeps its largest size.
    int64_t wal_limit = WalCheckpointer::FileLimitBytes(options.wal_restart_pages + WalCheckpointer::kRequestPages);
    pragmas += "PRAGMA journal_size_limit = " + std::to_string(wal_limit) + ";";
    pragmas += options.sync_every_commit ? "PRAGMA synchronous = FULL;" : "PRAGMA synchronous = NORMAL;";
  }
  COSMOS_RETURN_IF_ERROR(connection->Execute(pragmas));
  int version = 0;
  {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection->Prepare("PRAGMA user_version"));
    COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
    if (has_row) version = static_cast<int>(stmt->ColumnInt(0));
    stmt->Rewind();
  }
  if (version > kSchemaVersion) {
    return Status::Internal("the data file was written by a newer cosmolite (schema version " +
                            std::to_string(version) + ")");
  }
  // Versions 4 to 7 kept index entries (and 7 their sizes) in the file; now they live in memory
  // (memory_index.h).
  if (version >= 4 && version <= 7) {
    COSMOS_RETURN_IF_ERROR(connection->Execute("DROP TABLE IF EXISTS index_entries; DROP TABLE IF EXISTS index_sizes;"));
  }
  COSMOS_RETURN_IF_ERROR(connection->Execute(kSchemaSql));
  // Versions 1 and 2 had no expires_at column (time to live).
  bool has_expiry = false;
  {
    COSMOS_ASSIGN_OR_RETURN(auto* columns, connection->Prepare("SELECT name FROM pragma_table_info('documents')"));
    for (;;) {
      COSMOS_ASSIGN_OR_RETURN(bool has_row, columns->Step());
      if (!has_row) break;
      has_expiry = has_expiry || columns->ColumnText(0) == "expires_at";
    }
  }
  if (!has_expiry) {
    COSMOS_RETURN_IF_ERROR(connection->Execute("ALTER TABLE documents ADD COLUMN expires_at INTEGER"));
  }
  COSMOS_RETURN_IF_ERROR(connection->Execute(kExpiryIndexSql));
  // A new file or one of version 2 to 7 is current at once (the engine builds the offers a
  // version 3 file lacks); a version 1 file when the engine has rekeyed it.
  if (version == 0 || (version >= 2 && version < kSchemaVersion)) {
    COSMOS_RETURN_IF_ERROR(connection->Execute("PRAGMA user_version = " + std::to_string(kSchemaVersion)));
  }
  uint64_t committed_group = 0;
  std::unique_ptr<WalCheckpointer> checkpointer;
  if (!in_memory) {
    COSMOS_ASSIGN_OR_RETURN(committed_group, ReadCommittedGroup(*connection));
    // The index is kept in memory only: every container's is built again from its documents, by
    // the engine's index builds, and is not used until then.
    COSMOS_RETURN_IF_ERROR(connection->Execute(
        "INSERT OR REPLACE INTO index_builds(container_seq, after_seq, total, done) "
        "SELECT seq, 0, (SELECT count(*) FROM documents d WHERE d.container_seq = containers.seq), 0 FROM containers;"));
    COSMOS_ASSIGN_OR_RETURN(auto checkpoint_connection, sqlite::Connection::Open(options.path));
    // A connection learns that the file is in WAL mode when it first reads it; until then a
    // checkpoint does nothing.
    COSMOS_RETURN_IF_ERROR(checkpoint_connection->Execute("PRAGMA journal_mode = WAL"));
    checkpointer = std::make_unique<WalCheckpointer>(std::move(checkpoint_connection), options.wal_restart_pages,
                                                    std::chrono::milliseconds(options.wal_truncate_idle_ms));
    connection->SetWalCommitHook([raw = checkpointer.get()](int pages) { return raw->AfterCommit(pages); });
  }
  return std::unique_ptr<Store>(new Store(std::move(connection), std::move(checkpointer), version,
                                          in_memory ? "" : options.path, committed_group, options.index_fold_entries));
}

Result<uint64_t> Store::ReadCommittedGroup(sqlite::Connection& connection) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection.Prepare("SELECT value FROM store_state WHERE name = 'commit_group'"));
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  const uint64_t group = has_row ? static_cast<uint64_t>(stmt->ColumnInt(0)) : 0;
  stmt->Rewind();
  return group;
}

Result<Transaction> Store::BeginRead() {
  if (read_path_.empty()) return Transaction(std::unique_lock<std::mutex>(mu_), this, 0);
  COSMOS_ASSIGN_OR_RETURN(auto reader, TakeReader());
  // Registered before its snapshot begins, so that nothing the snapshot sees is purged.
  const uint64_t registration = memory_index_->OpenReader();
  if (Status begun = reader->Run("BEGIN"); !begun.ok()) {
    memory_index_->CloseReader(registration);
    return begun;
  }
  reader->ResetStatements();  // so that SnapshotTaken() tells of the statements after BEGIN
  return Transaction(this, std::move(reader), registration);
}

Result<Transaction> Store::BeginWrite(bool isolated) {
  writers_waiting_.fetch_add(1);
  std::unique_lock<std::mutex> lock(mu_);
  writers_waiting_.fetch_sub(1);
  if (!group_open_) {
    COSMOS_RETURN_IF_ERROR(connection_->Run("BEGIN IMMEDIATE"));
    group_open_ = true;
    group_writes_ = 0;
    ++open_group_;
  }
  if (std::this_thread::get_id() == batch_thread_) group_held_ = true;
  Transaction transaction(std::move(lock), this, open_group_);
  if (isolated) COSMOS_RETURN_IF_ERROR(transaction.Isolate());  // the destructor ends the write
  return transaction;
}

Status Store::FinishWrite(std::unique_lock<std::mutex>& lock, uint64_t group) {
  if (group_held_ && std::this_thread::get_id() == batch_thread_) return Status();  // EndBatch commits
  if (group_held_ || (writers_waiting_.load() > 0 && group_writes_ < kMaxWritesPerGroup)) {
    // Another writer (or the batch) will take the group over; wait for whoever commits it.
    group_committed_.wait(lock, [&] { return committed_group_ >= group; });
  } else {
    (void)CommitOpenGroup();
  }
  return failed_group_ == group ? failed_status_ : Status();
}

int64_t Store::CountedLsn(int64_t container_seq, int64_t row_lsn) const {
  auto counted = container_lsns_.find(container_seq);
  return counted == container_lsns_.end() ? row_lsn : std::max(row_lsn, counted->second);
}

Status Store::WriteCountedLsns() {
  std::sort(lsns_to_write_.begin(), lsns_to_write_.end());
  lsns_to_write_.erase(std::unique(lsns_to_write_.begin(), lsns_to_write_.end()), lsns_to_write_.end());
  for (int64_t container_seq : lsns_to_write_) {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("UPDATE containers SET lsn = ? WHERE seq = ?"));
    stmt->Bind(1, container_lsns_.at(container_seq)).Bind(2, container_seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status();
}

Status Store::WriteCommittedGroup() {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO store_state(name, value) VALUES('commit_group', ?1) "
      "ON CONFLICT(name) DO UPDATE SET value = excluded.value"));
  stmt->Bind(1, static_cast<int64_t>(open_group_));
  return stmt->Run();
}

Status Store::CommitOpenGroup() {
  // The rows take the counted LSNs with the group's last statement; they are cleared from the
  // list only once committed, so that a failed group's LSNs are written with a later one.
  const bool commit = group_writes_ > 0 && !group_spoiled_;
  Status status = commit ? WriteCountedLsns() : Status();
  if (status.ok() && commit && !read_path_.empty()) status = WriteCommittedGroup();
  if (status.ok()) status = commit ? connection_->Run("COMMIT") : connection_->Run("ROLLBACK");
  if (status.ok() && commit) lsns_to_write_.clear();
  if (status.ok() && commit) {
    memory_index_->Commit(open_group_);
  } else {
    memory_index_->RollBack();
  }
  if (status.ok() && group_spoiled_) {
    status = Status::Internal("a write failed part-way through; the writes that were to commit with it were undone");
  }
  group_spoiled_ = false;
  if (!status.ok()) {
    (void)connection_->Run("ROLLBACK");
    failed_group_ = open_group_;
    failed_status_ = status;
  }
  group_open_ = false;
  committed_group_ = open_group_;
  std::vector<std::function<void()>> done;
  done.swap(group_done_);
  for (auto& callback : done) callback();
  group_committed_.notify_all();
  return status;
}

void Store::BeginBatch() {
  std::lock_guard<std::mutex> lock(mu_);
  batch_thread_ = std::this_thread::get_id();
}

Status Store::EndBatch() {
  std::lock_guard<std::mutex> lock(mu_);
  batch_thread_ = std::thread::id();
  if (!group_held_) return Status();
  group_held_ = false;
  return CommitOpenGroup();
}

}  // namespace cosmos::storage
