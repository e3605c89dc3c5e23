#include "storage/sqlite/connection.h"

#include "storage/sqlite/page_cache.h"
#include "storage/sqlite/wal_vfs.h"

#include <sqlite3.h>

#include <algorithm>

namespace cosmos::storage::sqlite {
namespace {

// How long a statement waits for a lock another connection holds before it fails as busy.
constexpr int kBusyTimeoutMs = 5000;

// What a client is told when the disk under the data file fills up: the write is refused whole,
// and writes work again once space is freed.
constexpr char kDiskFullMessage[] =
    "The emulator's disk is full: the write was not stored. Free space on the volume of its data directory and retry.";

Status SqliteError(sqlite3* db, std::string_view what) {
  if ((sqlite3_extended_errcode(db) & 0xFF) == SQLITE_FULL) return Status::InsufficientStorage(kDiskFullMessage);
  return Status::Internal(std::string(what) + ": " + sqlite3_errmsg(db));
}

}  // namespace

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindUncopied(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
  return *this;
}

Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(sqlite3_db_handle(stmt_), "sqlite step");
}

Status Statement::Run() {
  for (;;) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::Rewind() { sqlite3_reset(stmt_); }

int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::ColumnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  int size = sqlite3_column_bytes(stmt_, column);
  return text ? std::string(text, static_cast<size_t>(size)) : std::string();
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

namespace {

// Process-wide settings, before SQLite initialises (which the first open does): no memory
// statistics, whose bookkeeping takes a global mutex on every allocation SQLite makes (nothing
// here reads sqlite3_memory_used), and the page cache layer.
void ConfigureSqliteOnce() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    InstallPageCacheLayer();
    return true;
  }();
  (void)configured;
}

}  // namespace

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& path, bool batch_wal_writes) {
  ConfigureSqliteOnce();
  const char* vfs = batch_wal_writes ? RegisterWalBatchingVfs() : nullptr;
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, vfs) != SQLITE_OK) {
    Status status = SqliteError(db, "cannot open " + path);
    sqlite3_close(db);
    return status;
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return std::unique_ptr<Connection>(new Connection(db));
}

void Connection::SetWalCommitHook(std::function<CheckpointAfterCommit(int wal_pages)> after_commit) {
  wal_commit_hook_ = std::move(after_commit);
  sqlite3_wal_hook(
      db_,
      [](void* self, sqlite3* db, const char* schema, int pages) {
        // A checkpoint that fails or gives up loses nothing: the frames stay in the WAL.
        switch (static_cast<Connection*>(self)->wal_commit_hook_(pages)) {
          case CheckpointAfterCommit::kNone: break;
          case CheckpointAfterCommit::kPassive:
            (void)sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
            break;
          case CheckpointAfterCommit::kRestart:
            sqlite3_busy_timeout(db, kRestartWaitMs);
            (void)sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_RESTART, nullptr, nullptr);
            sqlite3_busy_timeout(db, kBusyTimeoutMs);
            break;
        }
        return SQLITE_OK;
      },
      this);
}

Result<int> Connection::CheckpointPassive() {
  int wal_frames = 0, checkpointed_frames = 0;
  int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_frames, &checkpointed_frames);
  if (rc == SQLITE_BUSY) return 0;
  if (rc != SQLITE_OK) return SqliteError(db_, "checkpoint");
  return std::max(checkpointed_frames, 0);
}

Result<bool> Connection::CheckpointTruncate() {
  // With the busy timeout, a truncating checkpoint would wait for open reads, and writes would
  // wait behind it: it must rather give up and let a later attempt try again.
  sqlite3_busy_timeout(db_, 0);
  int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  if (rc == SQLITE_BUSY) return false;
  if (rc != SQLITE_OK) return SqliteError(db_, "checkpoint");
  return true;
}

Connection::~Connection() {
  prepared_since_reset_.clear();
  statements_.clear();  // finalize before close
  sqlite3_close(db_);
}

Status Connection::Execute(std::string_view sql) {
  char* error = nullptr;
  std::string text(sql);
  if (int code = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error); code != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    if ((code & 0xFF) == SQLITE_FULL) return Status::InsufficientStorage(kDiskFullMessage);
    return Status::Internal("sqlite exec: " + message);
  }
  return Status();
}

Status Connection::Run(const std::string& sql) {
  COSMOS_ASSIGN_OR_RETURN(Statement * statement, Prepare(sql));
  return statement->Run();
}

void Connection::ResetStatements() {
  for (Statement* statement : prepared_since_reset_) {
    statement->Rewind();
    statement->listed_ = false;
  }
  prepared_since_reset_.clear();
}

Result<Statement*> Connection::Prepare(const std::string& sql) {
  auto found = statements_.find(sql);
  if (found != statements_.end()) {
    Statement* statement = found->second.get();
    statement->Reset();
    if (!statement->listed_) {
      statement->listed_ = true;
      prepared_since_reset_.push_back(statement);
    }
    return statement;
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "sqlite prepare");
  }
  auto inserted = statements_.emplace(sql, std::make_unique<Statement>(stmt));
  Statement* statement = inserted.first->second.get();
  statement->listed_ = true;
  prepared_since_reset_.push_back(statement);
  return statement;
}

int64_t Connection::Changes() const { return sqlite3_changes64(db_); }

int64_t Connection::TotalChanges() const { return sqlite3_total_changes64(db_); }

}  // namespace cosmos::storage::sqlite
