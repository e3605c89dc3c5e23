// Row reading, shared by the files that implement Transaction: the document columns every
// document query selects, in that order, with their reader, and the loops that run a prepared
// query and collect its rows. Internal to storage/.
// Thread-safety: none of its own; a Statement belongs to the transaction that prepared it.
#pragma once

#include <optional>
#include <vector>

#include "common/result.h"
#include "storage/records.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {

inline constexpr char kDocumentColumns[] = "seq, partition_key, id, body, etag, lsn, expires_at";
// The same columns with an empty body in its place, for ReadDocument.
inline constexpr char kDocumentColumnsWithoutBody[] = "seq, partition_key, id, '', etag, lsn, expires_at";

inline DocumentRecord ReadDocument(const sqlite::Statement& stmt) {
  DocumentRecord record;
  record.seq = stmt.ColumnInt(0);
  record.partition_key = stmt.ColumnText(1);
  record.id = stmt.ColumnText(2);
  record.body = stmt.ColumnText(3);
  record.etag = stmt.ColumnText(4);
  record.lsn = stmt.ColumnInt(5);
  record.expires_at = stmt.ColumnIsNull(6) ? 0 : stmt.ColumnInt(6);
  return record;
}

// Runs a prepared query and collects every row through `read`.
template <typename Record, typename Reader>
Result<std::vector<Record>> CollectRows(sqlite::Statement* stmt, Reader read) {
  std::vector<Record> rows;
  for (;;) {
    Result<bool> has_row = stmt->Step();
    if (!has_row.ok()) return has_row.status();
    if (!has_row.value()) return rows;
    rows.push_back(read(*stmt));
  }
}

// Runs a prepared query expected to return at most one row.
template <typename Record, typename Reader>
Result<std::optional<Record>> FirstRow(sqlite::Statement* stmt, Reader read) {
  Result<bool> has_row = stmt->Step();
  if (!has_row.ok()) return has_row.status();
  if (!has_row.value()) return std::optional<Record>();
  return std::optional<Record>(read(*stmt));
}

}  // namespace cosmos::storage
