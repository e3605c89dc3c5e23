#include "storage/store.h"

#include <algorithm>
#include <functional>
#include <string>

#include "storage/memory_index.h"
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
  const int64_t partition_hash = PartitionHash(partition_key);
  IndexSize added;
  if (MemoryIndex* index = memory_index()) {
    for (const IndexEntry& entry : entries) {
      if (index->Insert(container_seq, entry.path, IndexRow{entry.value, partition_hash, document_seq})) {
        CountEntry(entry, added);
      }
    }
    return AddToIndexSize(container_seq, added);
  }
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT OR IGNORE INTO index_entries(container_seq, path, value, partition_hash, document_seq) "
      "VALUES(?, ?, ?, ?, ?)"));
  for (const IndexEntry& entry : entries) {
    stmt->Reset();
    stmt->Bind(1, container_seq).BindUncopied(2, entry.path).BindUncopied(3, entry.value).Bind(4, partition_hash)
        .Bind(5, document_seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
    if (connection_->Changes() > 0) CountEntry(entry, added);
  }
  return AddToIndexSize(container_seq, added);
}

namespace {

// Rows of index_entries one InsertNewIndexEntries statement inserts at most: a 1 KB document of 20
// properties has about as many entries, and 160 parameters stay far below SQLite's limit.
constexpr size_t kIndexRowsPerStatement = 32;

// "INSERT OR IGNORE INTO index_entries(...) VALUES(?, ?, ?, ?, ?), ... " with `rows` rows.
const std::string& MultiRowInsertSql(size_t rows) {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> built(kIndexRowsPerStatement + 1);
    for (size_t count = 1; count <= kIndexRowsPerStatement; ++count) {
      std::string sql = "INSERT OR IGNORE INTO index_entries(container_seq, path, value, partition_hash, document_seq) VALUES";
      for (size_t row = 0; row < count; ++row) sql += row == 0 ? "(?,?,?,?,?)" : ",(?,?,?,?,?)";
      built[count] = std::move(sql);
    }
    return built;
  }();
  return texts[rows];
}

}  // namespace

Status Transaction::InsertNewIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                                          const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  // In key order, which also puts repeats side by side: consecutive rows then land on nearby pages.
  std::vector<const IndexEntry*> sorted;
  sorted.reserve(entries.size());
  for (const IndexEntry& entry : entries) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const IndexEntry* a, const IndexEntry* b) {
    int by_path = a->path.compare(b->path);
    return by_path != 0 ? by_path < 0 : a->value < b->value;
  });
  sorted.erase(std::unique(sorted.begin(), sorted.end(), [](const IndexEntry* a, const IndexEntry* b) { return *a == *b; }),
               sorted.end());
  const int64_t partition_hash = PartitionHash(partition_key);
  IndexSize added;
  if (MemoryIndex* index = memory_index()) {
    for (const IndexEntry* entry : sorted) {
      if (!index->Insert(container_seq, entry->path, IndexRow{entry->value, partition_hash, document_seq})) {
        return Status::Internal("an index entry of a new document was in the index already");
      }
      CountEntry(*entry, added);
    }
    return AddToIndexSize(container_seq, added);
  }
  for (size_t first = 0; first < sorted.size(); first += kIndexRowsPerStatement) {
    const size_t rows = std::min(kIndexRowsPerStatement, sorted.size() - first);
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(MultiRowInsertSql(rows)));
    stmt->Reset();
    for (size_t row = 0; row < rows; ++row) {
      const IndexEntry& entry = *sorted[first + row];
      const int column = static_cast<int>(row * 5);
      stmt->Bind(column + 1, container_seq).BindUncopied(column + 2, entry.path).BindUncopied(column + 3, entry.value)
          .Bind(column + 4, partition_hash).Bind(column + 5, document_seq);
      CountEntry(entry, added);
    }
    COSMOS_RETURN_IF_ERROR(stmt->Run());
    // Every row must have gone in, or index_sizes would count one twice.
    if (connection_->Changes() != static_cast<int64_t>(rows)) {
      return Status::Internal("an index entry of a new document was in the index already");
    }
  }
  return AddToIndexSize(container_seq, added);
}

Status Transaction::DeleteIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                                       const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  const int64_t partition_hash = PartitionHash(partition_key);
  IndexSize removed;
  if (MemoryIndex* index = memory_index()) {
    for (const IndexEntry& entry : entries) {
      if (index->Erase(container_seq, entry.path, IndexRow{entry.value, partition_hash, document_seq})) {
        CountEntry(entry, removed);
      }
    }
    return AddToIndexSize(container_seq, IndexSize{-removed.entries, -removed.bytes});
  }
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "DELETE FROM index_entries WHERE container_seq = ? AND path = ? AND value = ? AND partition_hash = ? "
      "AND document_seq = ?"));
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

// The PartitionHash of a logical partition, if one is named.
std::optional<int64_t> HashOf(const std::optional<std::string>& partition_key) {
  return partition_key ? std::optional<int64_t>(PartitionHash(*partition_key)) : std::nullopt;
}

// The memory index's rows that ScopedLookupSql would select, in key order: a logical partition's
// by their hash, a key range's by their document's partition_key (as the SQL joins documents).
Status ScanScoped(const MemoryIndex& index, sqlite::Connection& connection, int64_t container_seq, std::string_view path,
                  std::string_view lower, bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                  const DocumentScope& scope, const std::function<void(const IndexRow&)>& take) {
  const bool whole_container = !scope.partition_key && scope.min_key.empty() && !scope.max_key;
  const IndexScan scan{lower, lower_inclusive, upper, upper_inclusive, /*descending=*/false, /*after=*/nullptr,
                       HashOf(scope.partition_key)};
  if (scope.partition_key || whole_container) {
    index.Scan(container_seq, path, scan, [&](const IndexRow& row) {
      take(row);
      return true;
    });
    return Status();
  }
  COSMOS_ASSIGN_OR_RETURN(auto* key_of, connection.Prepare("SELECT partition_key FROM documents WHERE seq = ?"));
  Status status;
  index.Scan(container_seq, path, scan, [&](const IndexRow& row) {
    key_of->Reset();
    key_of->Bind(1, row.document_seq);
    Result<bool> has_row = key_of->Step();
    if (!has_row.ok()) {
      status = has_row.status();
      return false;
    }
    if (!*has_row) return true;
    std::string key = key_of->ColumnText(0);
    if (key >= scope.min_key && (!scope.max_key || key < *scope.max_key)) take(row);
    return true;
  });
  key_of->Reset();
  return status;
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
  std::vector<int64_t> seqs;
  if (const MemoryIndex* index = memory_index()) {
    COSMOS_RETURN_IF_ERROR(ScanScoped(*index, *connection_, container_seq, path, lower, lower_inclusive, upper,
                                      upper_inclusive, scope,
                                      [&seqs](const IndexRow& row) { seqs.push_back(row.document_seq); }));
  } else {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(ScopedLookupSql("e.document_seq", scope, lower_inclusive,
                                                                              upper, upper_inclusive)));
    BindScopedLookup(stmt, container_seq, path, lower, upper, scope);
    COSMOS_ASSIGN_OR_RETURN(seqs, CollectRows<int64_t>(stmt, [](const sqlite::Statement& row) {
      return row.ColumnInt(0);
    }));
  }
  entries_read += seqs.size();
  // Several entries of one document (array elements) name it once.
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
  return seqs;
}

Result<std::vector<std::pair<int64_t, std::string>>> Transaction::LookupIndexValues(
    int64_t container_seq, std::string_view path, std::string_view lower, bool lower_inclusive, std::string_view upper,
    bool upper_inclusive, const DocumentScope& scope, uint64_t& entries_read) {
  using Row = std::pair<int64_t, std::string>;
  std::vector<Row> rows;
  if (const MemoryIndex* index = memory_index()) {
    COSMOS_RETURN_IF_ERROR(ScanScoped(*index, *connection_, container_seq, path, lower, lower_inclusive, upper,
                                      upper_inclusive, scope,
                                      [&rows](const IndexRow& row) { rows.emplace_back(row.document_seq, row.value); }));
  } else {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(ScopedLookupSql("e.document_seq, e.value", scope,
                                                                              lower_inclusive, upper, upper_inclusive)));
    BindScopedLookup(stmt, container_seq, path, lower, upper, scope);
    COSMOS_ASSIGN_OR_RETURN(rows, CollectRows<Row>(stmt, [](const sqlite::Statement& row) {
      return Row{row.ColumnInt(0), row.ColumnText(1)};
    }));
  }
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
  if (const MemoryIndex* index = memory_index()) {
    const IndexScan scan{lower, lower_inclusive, upper, upper_inclusive, descending, after ? &*after : nullptr,
                         HashOf(partition_key)};
    std::vector<IndexRow> rows;
    if (limit <= 0) return rows;
    index->Scan(container_seq, path, scan, [&](const IndexRow& row) {
      rows.push_back(row);
      return static_cast<int64_t>(rows.size()) < limit;
    });
    return rows;
  }
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
  if (const MemoryIndex* index = memory_index()) return index->Count(container_seq, path);
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
  if (const MemoryIndex* index = memory_index()) {
    const IndexScan scan{lower, lower_inclusive, upper, upper_inclusive, /*descending=*/false, /*after=*/nullptr,
                         HashOf(partition_key)};
    int64_t count = 0;
    if (limit <= 0) return count;
    index->Scan(container_seq, path, scan, [&](const IndexRow&) { return ++count < limit; });
    return count;
  }
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

Status Transaction::EraseContainerIndex(int64_t container_seq) {
  if (MemoryIndex* index = memory_index()) {
    index->EraseContainer(container_seq);
    return Status();
  }
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("DELETE FROM index_entries WHERE container_seq = ?"));
  stmt->Bind(1, container_seq);
  return stmt->Run();
}

}  // namespace cosmos::storage
