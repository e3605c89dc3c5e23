#include "storage/store.h"

#include <string>

#include "storage/row_reading.h"
#include "storage/schema.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {
namespace {

int64_t ByteSize(std::string_view text) { return static_cast<int64_t>(text.size()); }

}  // namespace

Result<std::optional<DocumentRecord>> Transaction::FindDocument(int64_t container_seq,
                                                                std::string_view partition_key,
                                                                std::string_view id) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      std::string("SELECT ") + kDocumentColumns +
      " FROM documents WHERE container_seq = ? AND partition_key = ? AND id = ?"));
  stmt->Bind(1, container_seq).Bind(2, partition_key).Bind(3, id);
  return FirstRow<DocumentRecord>(stmt, ReadDocument);
}

Result<std::optional<DocumentRecord>> Transaction::FindDocumentBySeq(int64_t container_seq,
                                                                     int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      std::string("SELECT ") + kDocumentColumns +
      " FROM documents WHERE seq = ? AND container_seq = ?"));
  stmt->Bind(1, seq).Bind(2, container_seq);
  return FirstRow<DocumentRecord>(stmt, ReadDocument);
}

Result<std::vector<DocumentRecord>> Transaction::ListDocuments(int64_t container_seq, const DocumentScope& scope,
                                                               int64_t from_seq, int64_t limit, bool bodies) {
  // A logical partition is one range of documents_by_partition, in seq order (the index holds
  // the rowid), so a page reads only its rows. A key range is walked in seq order through
  // documents_by_container, skipping rows of other ranges: that costs a row per document of the
  // container's other physical partitions, but a page never sorts or rereads its range.
  std::string sql = std::string("SELECT ") + (bodies ? kDocumentColumns : kDocumentColumnsWithoutBody);
  if (scope.partition_key) {
    sql += " FROM documents INDEXED BY documents_by_partition"
           " WHERE container_seq = ?1 AND partition_key = ?2 AND seq >= ?5 ORDER BY seq LIMIT ?6";
  } else {
    sql += " FROM documents INDEXED BY documents_by_container WHERE container_seq = ?1";
    if (!scope.min_key.empty()) sql += " AND partition_key >= ?3";
    if (scope.max_key) sql += " AND partition_key < ?4";
    sql += " AND seq >= ?5 ORDER BY seq LIMIT ?6";
  }
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq);
  if (scope.partition_key) {
    stmt->Bind(2, *scope.partition_key);
  } else {
    if (!scope.min_key.empty()) stmt->Bind(3, scope.min_key);
    if (scope.max_key) stmt->Bind(4, *scope.max_key);
  }
  stmt->Bind(5, from_seq).Bind(6, limit);
  return CollectRows<DocumentRecord>(stmt, ReadDocument);
}

Status Transaction::InsertDocument(int64_t container_seq, const DocumentRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* insert, connection_->Prepare(
      "INSERT INTO documents(seq, container_seq, partition_key, id, body, etag, lsn, expires_at) "
      "VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"));
  insert->Bind(1, record.seq).Bind(2, container_seq).BindUncopied(3, record.partition_key)
      .BindUncopied(4, record.id).BindUncopied(5, record.body).BindUncopied(6, record.etag).Bind(7, record.lsn);
  if (record.expires_at > 0) {
    insert->Bind(8, record.expires_at);
  } else {
    insert->BindNull(8);
  }
  COSMOS_RETURN_IF_ERROR(insert->Run());
  if (connection_->Changes() == 0) return Status::Conflict("document exists: " + record.id);

  COSMOS_ASSIGN_OR_RETURN(auto* size, connection_->Prepare(
      "INSERT INTO logical_partitions(container_seq, partition_key, document_count, total_bytes) "
      "VALUES(?, ?, 1, ?) ON CONFLICT(container_seq, partition_key) DO UPDATE SET "
      "document_count = document_count + 1, total_bytes = total_bytes + excluded.total_bytes"));
  size->Bind(1, container_seq).BindUncopied(2, record.partition_key).Bind(3, ByteSize(record.body));
  return size->Run();
}

Status Transaction::UpdateDocument(int64_t container_seq, const DocumentRecord& record) {
  // Adjust the partition size first, while the old body is still there to measure.
  COSMOS_ASSIGN_OR_RETURN(auto* size, connection_->Prepare(
      "UPDATE logical_partitions SET total_bytes = total_bytes + ?1 - "
      "(SELECT length(CAST(body AS BLOB)) FROM documents WHERE seq = ?2) "
      "WHERE container_seq = ?3 AND partition_key = ?4"));
  size->Bind(1, ByteSize(record.body)).Bind(2, record.seq).Bind(3, container_seq)
      .Bind(4, record.partition_key);
  COSMOS_RETURN_IF_ERROR(size->Run());

  COSMOS_ASSIGN_OR_RETURN(auto* update, connection_->Prepare(
      "UPDATE documents SET body = ?, etag = ?, lsn = ?, expires_at = ?, id = ? WHERE seq = ? AND container_seq = ?"));
  update->BindUncopied(1, record.body).BindUncopied(2, record.etag).Bind(3, record.lsn).BindUncopied(5, record.id)
      .Bind(6, record.seq).Bind(7, container_seq);
  if (record.expires_at > 0) {
    update->Bind(4, record.expires_at);
  } else {
    update->BindNull(4);
  }
  COSMOS_RETURN_IF_ERROR(update->Run());
  if (connection_->Changes() == 0) return Status::NotFound("document vanished while writing");
  return Status();
}

Status Transaction::DeleteDocument(int64_t container_seq, const DocumentRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* remove, connection_->Prepare(
      "DELETE FROM documents WHERE seq = ? AND container_seq = ?"));
  remove->Bind(1, record.seq).Bind(2, container_seq);
  COSMOS_RETURN_IF_ERROR(remove->Run());
  if (connection_->Changes() == 0) return Status::NotFound("document vanished while writing");

  COSMOS_ASSIGN_OR_RETURN(auto* size, connection_->Prepare(
      "UPDATE logical_partitions SET document_count = document_count - 1, "
      "total_bytes = total_bytes - ? WHERE container_seq = ? AND partition_key = ?"));
  size->Bind(1, ByteSize(record.body)).Bind(2, container_seq).Bind(3, record.partition_key);
  COSMOS_RETURN_IF_ERROR(size->Run());
  COSMOS_ASSIGN_OR_RETURN(auto* prune, connection_->Prepare(
      "DELETE FROM logical_partitions WHERE container_seq = ? AND partition_key = ? "
      "AND document_count <= 0"));
  prune->Bind(1, container_seq).Bind(2, record.partition_key);
  COSMOS_RETURN_IF_ERROR(prune->Run());
  return DeleteUniqueKeyEntries(container_seq, record.seq);
}

Result<LogicalPartitionSize> Transaction::GetLogicalPartitionSize(int64_t container_seq,
                                                                  std::string_view partition_key) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT document_count, total_bytes FROM logical_partitions "
      "WHERE container_seq = ? AND partition_key = ?"));
  stmt->Bind(1, container_seq).Bind(2, partition_key);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  if (!has_row) return LogicalPartitionSize{};
  return LogicalPartitionSize{stmt->ColumnInt(0), stmt->ColumnInt(1)};
}

Result<LogicalPartitionSize> Transaction::MeasureKeyRange(int64_t container_seq, std::string_view min_key,
                                                          std::string_view max_key) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT coalesce(sum(document_count), 0), coalesce(sum(total_bytes), 0) FROM logical_partitions "
      "WHERE container_seq = ? AND partition_key >= ? AND partition_key < ?"));
  stmt->Bind(1, container_seq).Bind(2, min_key).Bind(3, max_key);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  if (!has_row) return LogicalPartitionSize{};
  return LogicalPartitionSize{stmt->ColumnInt(0), stmt->ColumnInt(1)};
}

Result<std::vector<std::pair<std::string, LogicalPartitionSize>>> Transaction::LargestLogicalPartitions(
    int64_t container_seq, std::string_view min_key, std::string_view max_key, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT partition_key, document_count, total_bytes FROM logical_partitions "
      "WHERE container_seq = ? AND partition_key >= ? AND partition_key < ? ORDER BY total_bytes DESC LIMIT ?"));
  stmt->Bind(1, container_seq).Bind(2, min_key).Bind(3, max_key).Bind(4, limit);
  std::vector<std::pair<std::string, LogicalPartitionSize>> largest;
  while (true) {
    COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
    if (!has_row) break;
    largest.emplace_back(stmt->ColumnText(0), LogicalPartitionSize{stmt->ColumnInt(1), stmt->ColumnInt(2)});
  }
  return largest;
}

Result<int64_t> Transaction::CountLogicalPartitions(int64_t container_seq, std::string_view min_key,
                                                   std::string_view max_key) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT COUNT(*) FROM logical_partitions "
      "WHERE container_seq = ? AND partition_key >= ? AND partition_key < ? AND document_count > 0"));
  stmt->Bind(1, container_seq).Bind(2, min_key).Bind(3, max_key);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  return has_row ? stmt->ColumnInt(0) : int64_t{0};
}

Status Transaction::SetDocumentExpiry(int64_t container_seq, int64_t document_seq, int64_t expires_at) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "UPDATE documents SET expires_at = ? WHERE seq = ? AND container_seq = ?"));
  if (expires_at > 0) {
    stmt->Bind(1, expires_at);
  } else {
    stmt->BindNull(1);
  }
  stmt->Bind(2, document_seq).Bind(3, container_seq);
  return stmt->Run();
}

Result<std::vector<std::pair<int64_t, DocumentRecord>>> Transaction::ListExpiredDocuments(int64_t now, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      std::string("SELECT ") + kDocumentColumns +
      ", container_seq FROM documents WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?"));
  stmt->Bind(1, now).Bind(2, limit);
  return CollectRows<std::pair<int64_t, DocumentRecord>>(stmt, [](const sqlite::Statement& row) {
    return std::make_pair(row.ColumnInt(7), ReadDocument(row));
  });
}

Status Transaction::RekeyDocument(int64_t container_seq, int64_t document_seq, std::string_view partition_key) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "UPDATE documents SET partition_key = ? WHERE seq = ? AND container_seq = ?"));
  stmt->Bind(1, partition_key).Bind(2, document_seq).Bind(3, container_seq);
  return stmt->Run();
}

Status Transaction::FinishRekeying() {
  return connection_->Execute(
      "DELETE FROM logical_partitions;"
      "INSERT INTO logical_partitions(container_seq, partition_key, document_count, total_bytes) "
      "  SELECT container_seq, partition_key, count(*), sum(length(CAST(body AS BLOB))) FROM documents "
      "  GROUP BY container_seq, partition_key;"
      "UPDATE unique_key_entries SET partition_key = "
      "  (SELECT partition_key FROM documents WHERE documents.seq = unique_key_entries.document_seq);"
      "PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";");
}

Status Transaction::InsertUniqueKeyEntry(int64_t container_seq, std::string_view partition_key,
                                         int key_index, std::string_view value,
                                         int64_t document_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO unique_key_entries(container_seq, partition_key, key_index, value, "
      "document_seq) VALUES(?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"));
  stmt->Bind(1, container_seq).Bind(2, partition_key).Bind(3, static_cast<int64_t>(key_index))
      .Bind(4, value).Bind(5, document_seq);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("unique key value exists");
  return Status();
}

Status Transaction::DeleteUniqueKeyEntries(int64_t container_seq, int64_t document_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "DELETE FROM unique_key_entries WHERE container_seq = ? AND document_seq = ?"));
  stmt->Bind(1, container_seq).Bind(2, document_seq);
  return stmt->Run();
}

}  // namespace cosmos::storage
