// Thin RAII wrappers over SQLite: a Connection and its cached prepared Statements.
// With page_cache.cc and wal_vfs.cc, the only code that includes sqlite3.h.
// Thread-safety: none. A Connection and its Statements belong to one thread at a time;
// the Store serialises access with its own mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cosmos::storage::sqlite {

class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binding is 1-based, as in SQLite. Each Bind* returns *this for chaining.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, std::string_view value);
  // Binds text without copying it (Bind copies): for a statement run at once, while `value`
  // lives. Reset clears the binding before anything else can read it.
  Statement& BindUncopied(int index, std::string_view value);
  Statement& BindNull(int index);

  // Runs one step. Returns true when a row is available, false when done.
  Result<bool> Step();
  // Runs to completion, ignoring rows (for INSERT/UPDATE/DELETE).
  Status Run();
  // Clears bindings and rewinds; called automatically by Connection::Prepare.
  void Reset();
  // Rewinds without clearing bindings: ends the statement's read of the database.
  void Rewind();

  int64_t ColumnInt(int column) const;
  std::string ColumnText(int column) const;
  bool ColumnIsNull(int column) const;

 private:
  sqlite3_stmt* stmt_;
  bool listed_ = false;  // in its Connection's prepared_since_reset_
  friend class Connection;
};

class Connection {
 public:
  // Opens (creating if needed) the database at `path`; ":memory:" keeps it in memory. With
  // `batch_wal_writes`, each commit's WAL frames go to the file in one write (wal_vfs.h).
  static Result<std::unique_ptr<Connection>> Open(const std::string& path, bool batch_wal_writes = false);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Executes one or more statements without results (schema, pragmas), parsing them each time.
  Status Execute(std::string_view sql);
  // Runs one statement without results from the statement cache (BEGIN, COMMIT, SAVEPOINT...).
  Status Run(const std::string& sql);
  // Returns a cached prepared statement, reset and ready to bind. The reference stays valid
  // for the lifetime of the Connection; do not hold two uses of the same SQL at once.
  Result<Statement*> Prepare(const std::string& sql);

  // Whether a statement was prepared since the last ResetStatements.
  bool StatementsSinceReset() const { return !prepared_since_reset_.empty(); }
  int64_t Changes() const;
  // Rows inserted, updated or deleted since the connection opened.
  int64_t TotalChanges() const;
  // What a WAL commit hook asks of the connection that committed, there and then.
  enum class CheckpointAfterCommit {
    kNone,
    kPassive,  // copy what can be copied without waiting
    // copy everything and make the next write start the WAL over, waiting up to
    // kRestartWaitMs for reads of older snapshots to end (what can be done without them is done)
    kRestart,
  };
  static constexpr int kRestartWaitMs = 100;
  // In WAL mode: after each commit, calls `after_commit` with the WAL's size in pages. This
  // replaces SQLite's automatic checkpoint on this connection.
  void SetWalCommitHook(std::function<CheckpointAfterCommit(int wal_pages)> after_commit);
  // Copies what it can of the WAL into the database without waiting for other connections
  // (a passive checkpoint). Returns how many WAL frames the database now holds.
  Result<int> CheckpointPassive();
  // Copies all of the WAL into the database and truncates the WAL file to nothing, if that can
  // be done at once: returns false, having waited for no one, while a write or a read of an
  // older snapshot is open. New writes wait while it runs (its two fsyncs).
  Result<bool> CheckpointTruncate();
  // Rewinds every statement Prepare handed out since the last call, so that none keeps a read
  // snapshot (and the WAL) open.
  void ResetStatements();

 private:
  explicit Connection(sqlite3* db) : db_(db) {}

  sqlite3* db_;
  std::function<CheckpointAfterCommit(int)> wal_commit_hook_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> statements_;
  // Handed out by Prepare since the last ResetStatements: the only ones that can be mid-way.
  std::vector<Statement*> prepared_since_reset_;
};

}  // namespace cosmos::storage::sqlite
