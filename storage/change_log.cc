#include "storage/store.h"

#include <string>

#include "storage/row_reading.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {
namespace {

// The partition_key condition of a scope, as parameters ?3 (one logical partition) or ?4/?5 (a
// key range), for the LSN-ordered listings (change feed, change log).
void AppendScopeFilter(const DocumentScope& scope, std::string& sql) {
  if (scope.partition_key) {
    sql += " AND partition_key = ?3";
  } else {
    if (!scope.min_key.empty()) sql += " AND partition_key >= ?4";
    if (scope.max_key) sql += " AND partition_key < ?5";
  }
}

void BindScopeFilter(const DocumentScope& scope, sqlite::Statement& stmt) {
  if (scope.partition_key) {
    stmt.Bind(3, *scope.partition_key);
  } else {
    if (!scope.min_key.empty()) stmt.Bind(4, scope.min_key);
    if (scope.max_key) stmt.Bind(5, *scope.max_key);
  }
}

}  // namespace

Result<std::vector<DocumentRecord>> Transaction::ListChanges(int64_t container_seq, const DocumentScope& scope,
                                                             int64_t after_lsn, int64_t limit,
                                                             std::optional<int64_t> since_ts) {
  std::string sql = std::string("SELECT ") + kDocumentColumns + " FROM documents WHERE container_seq = ?1 AND lsn > ?2";
  AppendScopeFilter(scope, sql);
  if (since_ts) sql += " AND json_extract(body, '$._ts') >= ?6";
  sql += " ORDER BY lsn LIMIT ?7";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq).Bind(2, after_lsn).Bind(7, limit);
  BindScopeFilter(scope, *stmt);
  if (since_ts) stmt->Bind(6, *since_ts);
  return CollectRows<DocumentRecord>(stmt, ReadDocument);
}

Status Transaction::AppendChange(int64_t container_seq, int64_t lsn, std::string_view partition_key,
                                 std::string_view entry, int64_t expires_at) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO change_log(container_seq, lsn, partition_key, entry, expires_at) VALUES(?, ?, ?, ?, ?) "
      "ON CONFLICT(container_seq, lsn) DO UPDATE SET entry = entry || ',' || excluded.entry, "
      "expires_at = MAX(expires_at, excluded.expires_at)"));
  stmt->Bind(1, container_seq).Bind(2, lsn).BindUncopied(3, partition_key).BindUncopied(4, entry).Bind(5, expires_at);
  return stmt->Run();
}

Result<std::vector<std::pair<int64_t, std::string>>> Transaction::ListChangeLog(int64_t container_seq,
                                                                                const DocumentScope& scope,
                                                                                int64_t after_lsn, int64_t limit) {
  std::string sql = "SELECT lsn, entry FROM change_log WHERE container_seq = ?1 AND lsn > ?2";
  AppendScopeFilter(scope, sql);
  sql += " ORDER BY lsn LIMIT ?6";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq).Bind(2, after_lsn).Bind(6, limit);
  BindScopeFilter(scope, *stmt);
  return CollectRows<std::pair<int64_t, std::string>>(
      stmt, [](const sqlite::Statement& row) { return std::make_pair(row.ColumnInt(0), row.ColumnText(1)); });
}

Result<std::optional<int64_t>> Transaction::FindChangeLogStart(int64_t container_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt,
                          connection_->Prepare("SELECT since_lsn FROM change_log_starts WHERE container_seq = ?"));
  stmt->Bind(1, container_seq);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  if (!has_row) return std::optional<int64_t>();
  return std::optional<int64_t>(stmt->ColumnInt(0));
}

Status Transaction::StartChangeLog(int64_t container_seq, int64_t since_lsn) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT OR IGNORE INTO change_log_starts(container_seq, since_lsn) VALUES(?, ?)"));
  stmt->Bind(1, container_seq).Bind(2, since_lsn);
  return stmt->Run();
}

Status Transaction::PruneChangeLog(int64_t now) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("DELETE FROM change_log WHERE expires_at <= ?"));
  stmt->Bind(1, now);
  return stmt->Run();
}

}  // namespace cosmos::storage
