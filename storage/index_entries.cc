#include "storage/store.h"

#include <algorithm>
#include <string>

#include "storage/row_reading.h"
#include "storage/schema.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {
namespace {

// " AND value >= ? AND value < ?" for the bounds (an empty upper bound is open), prefixed with
// `column_prefix` ("e." in a join).
std::string ValueBounds(const char* column_prefix, bool lower_inclusive, std::string_view upper,
                        bool upper_inclusive) {
  std::string sql = std::string(" AND ") + column_prefix + (lower_inclusive ? "value >= ?" : "value > ?");
  if (!upper.empty()) sql += std::string(" AND ") + column_prefix + (upper_inclusive ? "value <= ?" : "value < ?");
  return sql;
}

// Binds the bounds ValueBounds wrote, from parameter `next`; returns the next free parameter.
int BindBounds(sqlite::Statement* stmt, int next, std::string_view lower, std::string_view upper) {
  stmt->Bind(next++, lower);
  if (!upper.empty()) stmt->Bind(next++, upper);
  return next;
}

// An entry's share of index_sizes.
void CountEntry(const IndexEntry& entry, IndexSize& size) {
  ++size.entries;
  size.bytes += static_cast<int64_t>(entry.path.size() + entry.value.size()) + kIndexEntryPointerBytes;
}

}  // namespace

int64_t PartitionHash(std::string_view partition_key) {
  // FNV-1a: stable across builds and platforms, as a value kept in data files must be.
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char byte : partition_key) {
    hash ^= byte;
    hash *= 1099511628211ull;
  }
  return static_cast<int64_t>(hash);
}

Status Transaction::InsertIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                                       const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT OR IGNORE INTO index_entries(container_seq, path, value, partition_hash, document_seq) "
      "VALUES(?, ?, ?, ?, ?)"));
  const int64_t partition_hash = PartitionHash(partition_key);
  IndexSize added;
  for (const IndexEntry& entry : entries) {
    stmt->Reset();
    stmt->Bind(1, container_seq).BindUncopied(2, entry.path).BindUncopied(3, entry.value).Bind(4, partition_hash)
        .Bind(5, document_seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
    if (connection_->Changes() > 0) CountEntry(entry, added);
  }
  return AddToIndexSize(container_seq, added);
}

Status Transaction::DeleteIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                                       const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "DELETE FROM index_entries WHERE container_seq = ? AND path = ? AND value = ? AND partition_hash = ? "
      "AND document_seq = ?"));
  const int64_t partition_hash = PartitionHash(partition_key);
  IndexSize removed;
  for (const IndexEntry& entry : entries) {
    stmt->Reset();
    stmt->Bind(1, container_seq).Bind(2, entry.path).Bind(3, entry.value).Bind(4, partition_hash)
        .Bind(5, document_seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
    if (connection_->Changes() > 0) CountEntry(entry, removed);
  }
  return AddToIndexSize(container_seq, IndexSize{-removed.entries, -removed.bytes});
}

Status Transaction::AddToIndexSize(int64_t container_seq, const IndexSize& change) {
  if (change.entries == 0) return Status();
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO index_sizes(container_seq, entries, bytes) VALUES(?1, ?2, ?3) "
      "ON CONFLICT(container_seq) DO UPDATE SET entries = entries + ?2, bytes = bytes + ?3"));
  stmt->Bind(1, container_seq).Bind(2, change.entries).Bind(3, change.bytes);
  return stmt->Run();
}

namespace {

// The statement of LookupIndex and LookupIndexValues: `columns` of the entries at a path between
// bounds, restricted to a scope. A logical partition is a hash in the entry's key; a range of
// keys (a physical partition, a prefix of a hierarchical key) needs each entry's document row to
// compare its partition_key.
std::string ScopedLookupSql(const char* columns, const DocumentScope& scope, bool lower_inclusive,
                            std::string_view upper, bool upper_inclusive) {
  const bool whole_container = !scope.partition_key && scope.min_key.empty() && !scope.max_key;
  std::string sql;
  if (scope.partition_key || whole_container) {
    sql = std::string("SELECT ") + columns + " FROM index_entries e WHERE e.container_seq = ? AND e.path = ?" +
          ValueBounds("e.", lower_inclusive, upper, upper_inclusive);
    if (scope.partition_key) sql += " AND e.partition_hash = ?";
  } else {
    sql = std::string("SELECT ") + columns + " FROM index_entries e JOIN documents d ON d.seq = e.document_seq "
          "WHERE e.container_seq = ? AND e.path = ?" + ValueBounds("e.", lower_inclusive, upper, upper_inclusive) +
          " AND d.partition_key >= ?";
    if (scope.max_key) sql += " AND d.partition_key < ?";
  }
  return sql;
}

// Binds what ScopedLookupSql wrote.
void BindScopedLookup(sqlite::Statement* stmt, int64_t container_seq, std::string_view path, std::string_view lower,
                      std::string_view upper, const DocumentScope& scope) {
  const bool whole_container = !scope.partition_key && scope.min_key.empty() && !scope.max_key;
  stmt->Bind(1, container_seq).Bind(2, path);
  int next = BindBounds(stmt, 3, lower, upper);
  if (scope.partition_key) {
    stmt->Bind(next, PartitionHash(*scope.partition_key));
  } else if (!whole_container) {
    stmt->Bind(next++, scope.min_key);
    if (scope.max_key) stmt->Bind(next, *scope.max_key);
  }
}

}  // namespace

Result<std::vector<int64_t>> Transaction::LookupIndex(int64_t container_seq, std::string_view path,
                                                      std::string_view lower, bool lower_inclusive,
                                                      std::string_view upper, bool upper_inclusive,
                                                      const DocumentScope& scope, uint64_t& entries_read) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(ScopedLookupSql("e.document_seq", scope, lower_inclusive,
                                                                            upper, upper_inclusive)));
  BindScopedLookup(stmt, container_seq, path, lower, upper, scope);
  COSMOS_ASSIGN_OR_RETURN(auto seqs, CollectRows<int64_t>(stmt, [](const sqlite::Statement& row) {
    return row.ColumnInt(0);
  }));
  entries_read += seqs.size();
  // Several entries of one document (array elements) name it once.
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
  return seqs;
}

Result<std::vector<std::pair<int64_t, std::string>>> Transaction::LookupIndexValues(
    int64_t container_seq, std::string_view path, std::string_view lower, bool lower_inclusive, std::string_view upper,
    bool upper_inclusive, const DocumentScope& scope, uint64_t& entries_read) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(ScopedLookupSql("e.document_seq, e.value", scope,
                                                                            lower_inclusive, upper, upper_inclusive)));
  BindScopedLookup(stmt, container_seq, path, lower, upper, scope);
  using Row = std::pair<int64_t, std::string>;
  COSMOS_ASSIGN_OR_RETURN(auto rows, CollectRows<Row>(stmt, [](const sqlite::Statement& row) {
    return Row{row.ColumnInt(0), row.ColumnText(1)};
  }));
  entries_read += rows.size();
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.first < b.first; });
  rows.erase(std::unique(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.first == b.first; }),
             rows.end());
  return rows;
}

Result<std::vector<IndexRow>> Transaction::ScanIndex(int64_t container_seq, std::string_view path,
                                                     std::string_view lower, bool lower_inclusive,
                                                     std::string_view upper, bool upper_inclusive, bool descending,
                                                     const std::optional<std::string>& partition_key,
                                                     const std::optional<IndexRow>& after, int64_t limit) {
  std::string sql = "SELECT value, partition_hash, document_seq FROM index_entries WHERE container_seq = ? AND path = ?" +
                    ValueBounds("", lower_inclusive, upper, upper_inclusive);
  if (partition_key) sql += " AND partition_hash = ?";
  // The cursor as a row-value comparison: SQLite turns it into a seek on the primary key.
  if (after) {
    sql += descending ? " AND (value, partition_hash, document_seq) < (?, ?, ?)"
                      : " AND (value, partition_hash, document_seq) > (?, ?, ?)";
  }
  sql += descending ? " ORDER BY value DESC, partition_hash DESC, document_seq DESC LIMIT ?"
                    : " ORDER BY value, partition_hash, document_seq LIMIT ?";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq).Bind(2, path);
  int next = BindBounds(stmt, 3, lower, upper);
  if (partition_key) stmt->Bind(next++, PartitionHash(*partition_key));
  if (after) {
    stmt->Bind(next++, after->value);
    stmt->Bind(next++, after->partition_hash);
    stmt->Bind(next++, after->document_seq);
  }
  stmt->Bind(next, limit);
  return CollectRows<IndexRow>(stmt, [](const sqlite::Statement& row) {
    return IndexRow{row.ColumnText(0), row.ColumnInt(1), row.ColumnInt(2)};
  });
}

Result<int64_t> Transaction::CountIndexEntries(int64_t container_seq, std::string_view path) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT count(*) FROM index_entries WHERE container_seq = ? AND path = ?"));
  stmt->Bind(1, container_seq).Bind(2, path);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  return has_row ? stmt->ColumnInt(0) : 0;
}

Result<IndexSize> Transaction::MeasureIndex(int64_t container_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT entries, bytes FROM index_sizes WHERE container_seq = ?"));
  stmt->Bind(1, container_seq);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  if (!has_row) return IndexSize{};
  return IndexSize{stmt->ColumnInt(0), stmt->ColumnInt(1)};
}

Result<int64_t> Transaction::CountIndexRange(int64_t container_seq, std::string_view path, std::string_view lower,
                                             bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                                             const std::optional<std::string>& partition_key, int64_t limit) {
  std::string sql = "SELECT count(*) FROM (SELECT 1 FROM index_entries WHERE container_seq = ? AND path = ?" +
                    ValueBounds("", lower_inclusive, upper, upper_inclusive);
  if (partition_key) sql += " AND partition_hash = ?";
  sql += " LIMIT ?)";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq).Bind(2, path);
  int next = BindBounds(stmt, 3, lower, upper);
  if (partition_key) stmt->Bind(next++, PartitionHash(*partition_key));
  stmt->Bind(next, limit);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  return has_row ? stmt->ColumnInt(0) : 0;
}

}  // namespace cosmos::storage
