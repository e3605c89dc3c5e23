#include "storage/store.h"

#include <string>

#include "storage/row_reading.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {

Status Transaction::InsertIndexEntries(int64_t container_seq, int64_t document_seq,
                                       const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT OR IGNORE INTO index_entries(container_seq, path, value, document_seq) VALUES(?, ?, ?, ?)"));
  for (const IndexEntry& entry : entries) {
    stmt->Reset();
    stmt->Bind(1, container_seq).BindUncopied(2, entry.path).BindUncopied(3, entry.value).Bind(4, document_seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status();
}

Status Transaction::DeleteIndexEntries(int64_t container_seq, int64_t document_seq,
                                       const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "DELETE FROM index_entries WHERE container_seq = ? AND path = ? AND value = ? AND document_seq = ?"));
  for (const IndexEntry& entry : entries) {
    stmt->Reset();
    stmt->Bind(1, container_seq).Bind(2, entry.path).Bind(3, entry.value).Bind(4, document_seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status();
}

Result<std::vector<IndexedDocument>> Transaction::LookupIndex(int64_t container_seq, std::string_view path,
                                                              std::string_view lower, bool lower_inclusive,
                                                              std::string_view upper, bool upper_inclusive,
                                                              const DocumentScope& scope) {
  std::string sql =
      "SELECT DISTINCT d.seq, d.partition_key FROM index_entries e JOIN documents d ON d.seq = e.document_seq "
      "WHERE e.container_seq = ? AND e.path = ? AND e.value ";
  sql += lower_inclusive ? ">= ?" : "> ?";
  if (!upper.empty()) sql += upper_inclusive ? " AND e.value <= ?" : " AND e.value < ?";
  if (scope.partition_key) {
    sql += " AND d.partition_key = ?";
  } else {
    sql += " AND d.partition_key >= ?";
    if (scope.max_key) sql += " AND d.partition_key < ?";
  }
  sql += " ORDER BY d.seq";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq).Bind(2, path).Bind(3, lower);
  int next = 4;
  if (!upper.empty()) stmt->Bind(next++, upper);
  if (scope.partition_key) {
    stmt->Bind(next, *scope.partition_key);
  } else {
    stmt->Bind(next++, scope.min_key);
    if (scope.max_key) stmt->Bind(next, *scope.max_key);
  }
  return CollectRows<IndexedDocument>(stmt, [](const sqlite::Statement& row) {
    return IndexedDocument{row.ColumnInt(0), row.ColumnText(1)};
  });
}

Result<std::vector<std::pair<std::string, int64_t>>> Transaction::ScanIndex(
    int64_t container_seq, std::string_view path, std::string_view lower, bool lower_inclusive,
    std::string_view upper, bool upper_inclusive, bool descending,
    const std::optional<std::pair<std::string, int64_t>>& after, int64_t limit) {
  std::string sql = "SELECT value, document_seq FROM index_entries WHERE container_seq = ? AND path = ? AND value ";
  sql += lower_inclusive ? ">= ?" : "> ?";
  if (!upper.empty()) sql += upper_inclusive ? " AND value <= ?" : " AND value < ?";
  // The cursor as a row-value comparison: SQLite turns it into a seek on the primary key.
  if (after) sql += descending ? " AND (value, document_seq) < (?, ?)" : " AND (value, document_seq) > (?, ?)";
  sql += descending ? " ORDER BY value DESC, document_seq DESC LIMIT ?" : " ORDER BY value, document_seq LIMIT ?";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq).Bind(2, path).Bind(3, lower);
  int next = 4;
  if (!upper.empty()) stmt->Bind(next++, upper);
  if (after) {
    stmt->Bind(next++, after->first);
    stmt->Bind(next++, after->second);
  }
  stmt->Bind(next, limit);
  return CollectRows<std::pair<std::string, int64_t>>(stmt, [](const sqlite::Statement& row) {
    return std::make_pair(row.ColumnText(0), row.ColumnInt(1));
  });
}

Result<int64_t> Transaction::CountIndexEntries(int64_t container_seq, std::string_view path) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT count(*) FROM index_entries WHERE container_seq = ? AND path = ?"));
  stmt->Bind(1, container_seq).Bind(2, path);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  return has_row ? stmt->ColumnInt(0) : 0;
}

Result<int64_t> Transaction::CountIndexRange(int64_t container_seq, std::string_view path, std::string_view lower,
                                             bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                                             int64_t limit) {
  std::string sql = "SELECT count(*) FROM (SELECT 1 FROM index_entries WHERE container_seq = ? AND path = ? AND value ";
  sql += lower_inclusive ? ">= ?" : "> ?";
  if (!upper.empty()) sql += upper_inclusive ? " AND value <= ?" : " AND value < ?";
  sql += " LIMIT ?)";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq).Bind(2, path).Bind(3, lower);
  int next = 4;
  if (!upper.empty()) stmt->Bind(next++, upper);
  stmt->Bind(next, limit);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  return has_row ? stmt->ColumnInt(0) : 0;
}

}  // namespace cosmos::storage
