#include "storage/store.h"

#include "storage/row_reading.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {
namespace {

ContainerRecord ReadContainer(const sqlite::Statement& stmt) {
  ContainerRecord record;
  record.seq = stmt.ColumnInt(0);
  record.database_seq = stmt.ColumnInt(1);
  record.id = stmt.ColumnText(2);
  record.body = stmt.ColumnText(3);
  record.lsn = stmt.ColumnInt(4);
  return record;
}

DatabaseRecord ReadDatabase(const sqlite::Statement& stmt) {
  return DatabaseRecord{stmt.ColumnInt(0), stmt.ColumnText(1), stmt.ColumnText(2)};
}

}  // namespace

Result<std::optional<DatabaseRecord>> Transaction::FindDatabase(std::string_view id) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt,
                          connection_->Prepare("SELECT seq, id, body FROM databases WHERE id = ?"));
  stmt->Bind(1, id);
  return FirstRow<DatabaseRecord>(stmt, ReadDatabase);
}

Result<std::optional<DatabaseRecord>> Transaction::FindDatabaseBySeq(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt,
                          connection_->Prepare("SELECT seq, id, body FROM databases WHERE seq = ?"));
  stmt->Bind(1, seq);
  return FirstRow<DatabaseRecord>(stmt, ReadDatabase);
}

Result<std::vector<DatabaseRecord>> Transaction::ListDatabases(int64_t after_seq, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, id, body FROM databases WHERE seq > ? ORDER BY seq LIMIT ?"));
  stmt->Bind(1, after_seq).Bind(2, limit);
  return CollectRows<DatabaseRecord>(stmt, ReadDatabase);
}

Status Transaction::InsertDatabase(const DatabaseRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO databases(seq, id, body) VALUES(?, ?, ?) ON CONFLICT DO NOTHING"));
  stmt->Bind(1, record.seq).Bind(2, record.id).Bind(3, record.body);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("database exists: " + record.id);
  return Status();
}

Status Transaction::DeleteDatabase(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto containers, ListContainers(seq));
  for (const ContainerRecord& container : containers) {
    COSMOS_RETURN_IF_ERROR(DeleteContainer(container.seq));
  }
  for (const char* sql : {"DELETE FROM offers WHERE is_database = 1 AND resource_seq = ?",
                          "DELETE FROM permissions WHERE user_seq IN (SELECT seq FROM users WHERE database_seq = ?)",
                          "DELETE FROM users WHERE database_seq = ?", "DELETE FROM databases WHERE seq = ?"}) {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
    stmt->Bind(1, seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status();
}

Result<std::optional<ContainerRecord>> Transaction::FindContainer(int64_t database_seq,
                                                                  std::string_view id) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, database_seq, id, body, lsn FROM containers WHERE database_seq = ? AND id = ?"));
  stmt->Bind(1, database_seq).Bind(2, id);
  COSMOS_ASSIGN_OR_RETURN(auto found, FirstRow<ContainerRecord>(stmt, ReadContainer));
  if (found) found->lsn = ContainerLsn(found->seq, found->lsn);
  return found;
}

Result<std::optional<ContainerRecord>> Transaction::FindContainerBySeq(int64_t database_seq,
                                                                       int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, database_seq, id, body, lsn FROM containers WHERE database_seq = ? AND seq = ?"));
  stmt->Bind(1, database_seq).Bind(2, seq);
  COSMOS_ASSIGN_OR_RETURN(auto found, FirstRow<ContainerRecord>(stmt, ReadContainer));
  if (found) found->lsn = ContainerLsn(found->seq, found->lsn);
  return found;
}

Result<std::optional<ContainerRecord>> Transaction::FindContainerBySeq(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, database_seq, id, body, lsn FROM containers WHERE seq = ?"));
  stmt->Bind(1, seq);
  COSMOS_ASSIGN_OR_RETURN(auto found, FirstRow<ContainerRecord>(stmt, ReadContainer));
  if (found) found->lsn = ContainerLsn(found->seq, found->lsn);
  return found;
}

Result<std::vector<ContainerRecord>> Transaction::ListContainers(int64_t database_seq,
                                                                int64_t after_seq, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, database_seq, id, body, lsn FROM containers WHERE database_seq = ? AND seq > ? "
      "ORDER BY seq LIMIT ?"));
  stmt->Bind(1, database_seq).Bind(2, after_seq).Bind(3, limit);
  COSMOS_ASSIGN_OR_RETURN(auto containers, CollectRows<ContainerRecord>(stmt, ReadContainer));
  for (ContainerRecord& container : containers) container.lsn = ContainerLsn(container.seq, container.lsn);
  return containers;
}

Status Transaction::InsertContainer(const ContainerRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO containers(seq, database_seq, id, body, lsn) VALUES(?, ?, ?, ?, 0) "
      "ON CONFLICT DO NOTHING"));
  stmt->Bind(1, record.seq).Bind(2, record.database_seq).Bind(3, record.id).Bind(4, record.body);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("container exists: " + record.id);
  return Status();
}

Status Transaction::UpdateContainerBody(int64_t seq, std::string_view body) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt,
                          connection_->Prepare("UPDATE containers SET body = ? WHERE seq = ?"));
  stmt->Bind(1, body).Bind(2, seq);
  return stmt->Run();
}

Status Transaction::DeleteContainer(int64_t seq) {
  COSMOS_RETURN_IF_ERROR(EraseContainerIndex(seq));
  for (const char* sql : {"DELETE FROM documents WHERE container_seq = ?",
                          "DELETE FROM logical_partitions WHERE container_seq = ?",
                          "DELETE FROM unique_key_entries WHERE container_seq = ?",
                          "DELETE FROM partition_key_ranges WHERE container_seq = ?",
                          "DELETE FROM change_log WHERE container_seq = ?",
                          "DELETE FROM change_log_starts WHERE container_seq = ?",
                          "DELETE FROM offers WHERE is_database = 0 AND resource_seq = ?",
                          "DELETE FROM index_builds WHERE container_seq = ?",
                          "DELETE FROM scripts WHERE container_seq = ?",
                          "DELETE FROM containers WHERE seq = ?"}) {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
    stmt->Bind(1, seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status();
}

namespace {

OfferRecord ReadOffer(const sqlite::Statement& stmt) {
  OfferRecord record;
  record.seq = stmt.ColumnInt(0);
  record.resource_seq = stmt.ColumnInt(1);
  record.is_database = stmt.ColumnInt(2) != 0;
  record.body = stmt.ColumnText(3);
  return record;
}

}  // namespace

Status Transaction::InsertOffer(const OfferRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO offers(seq, resource_seq, is_database, body) VALUES(?, ?, ?, ?)"));
  stmt->Bind(1, record.seq).Bind(2, record.resource_seq).Bind(3, int64_t{record.is_database ? 1 : 0}).Bind(4, record.body);
  return stmt->Run();
}

Result<std::optional<OfferRecord>> Transaction::FindOfferBySeq(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, resource_seq, is_database, body FROM offers WHERE seq = ?"));
  stmt->Bind(1, seq);
  return FirstRow<OfferRecord>(stmt, ReadOffer);
}

Result<std::optional<OfferRecord>> Transaction::FindOfferFor(bool is_database, int64_t resource_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, resource_seq, is_database, body FROM offers WHERE is_database = ? AND resource_seq = ?"));
  stmt->Bind(1, int64_t{is_database ? 1 : 0}).Bind(2, resource_seq);
  return FirstRow<OfferRecord>(stmt, ReadOffer);
}

Result<std::vector<OfferRecord>> Transaction::ListOffers(int64_t after_seq, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT seq, resource_seq, is_database, body FROM offers WHERE seq > ? ORDER BY seq LIMIT ?"));
  stmt->Bind(1, after_seq).Bind(2, limit);
  return CollectRows<OfferRecord>(stmt, ReadOffer);
}

Status Transaction::UpdateOfferBody(int64_t seq, std::string_view body) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("UPDATE offers SET body = ? WHERE seq = ?"));
  stmt->Bind(1, body).Bind(2, seq);
  return stmt->Run();
}

Status Transaction::StartIndexBuild(int64_t container_seq) {
  COSMOS_RETURN_IF_ERROR(EraseContainerIndex(container_seq));
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT OR REPLACE INTO index_builds(container_seq, after_seq, total, done) "
      "VALUES(?1, 0, (SELECT count(*) FROM documents WHERE container_seq = ?1), 0)"));
  stmt->Bind(1, container_seq);
  return stmt->Run();
}

Result<std::vector<IndexBuild>> Transaction::ListIndexBuilds() {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT container_seq, after_seq, total, done FROM index_builds ORDER BY container_seq"));
  return CollectRows<IndexBuild>(stmt, [](const sqlite::Statement& row) {
    return IndexBuild{row.ColumnInt(0), row.ColumnInt(1), row.ColumnInt(2), row.ColumnInt(3)};
  });
}

Status Transaction::UpdateIndexBuild(const IndexBuild& build) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "UPDATE index_builds SET after_seq = ?, done = ? WHERE container_seq = ?"));
  stmt->Bind(1, build.after_seq).Bind(2, build.done).Bind(3, build.container_seq);
  return stmt->Run();
}

Status Transaction::FinishIndexBuild(int64_t container_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("DELETE FROM index_builds WHERE container_seq = ?"));
  stmt->Bind(1, container_seq);
  return stmt->Run();
}

Result<std::vector<PartitionKeyRangeRecord>> Transaction::ListPartitionKeyRanges(int64_t container_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT range_id, min_inclusive, max_exclusive, parents, version, gone FROM partition_key_ranges "
      "WHERE container_seq = ? ORDER BY range_id"));
  stmt->Bind(1, container_seq);
  return CollectRows<PartitionKeyRangeRecord>(stmt, [](const sqlite::Statement& row) {
    return PartitionKeyRangeRecord{row.ColumnInt(0), row.ColumnText(1), row.ColumnText(2),
                                   row.ColumnText(3), row.ColumnInt(4), row.ColumnInt(5) != 0};
  });
}

Status Transaction::InsertPartitionKeyRange(int64_t container_seq, const PartitionKeyRangeRecord& range) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO partition_key_ranges(container_seq, range_id, min_inclusive, max_exclusive, parents, "
      "version, gone) VALUES(?, ?, ?, ?, ?, ?, ?)"));
  stmt->Bind(1, container_seq).Bind(2, range.id).Bind(3, range.min_inclusive).Bind(4, range.max_exclusive)
      .Bind(5, range.parents).Bind(6, range.version).Bind(7, static_cast<int64_t>(range.gone ? 1 : 0));
  return stmt->Run();
}

Status Transaction::MarkPartitionKeyRangeGone(int64_t container_seq, int64_t range_id) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "UPDATE partition_key_ranges SET gone = 1 WHERE container_seq = ? AND range_id = ?"));
  stmt->Bind(1, container_seq).Bind(2, range_id);
  return stmt->Run();
}

}  // namespace cosmos::storage
