#include "storage/store.h"

#include <algorithm>
#include <chrono>

#include "common/thread_name.h"
#include "storage/schema.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {
namespace {


constexpr char kDocumentColumns[] = "seq, partition_key, id, body, etag, lsn, expires_at";

DocumentRecord ReadDocument(const sqlite::Statement& stmt) {
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

int64_t ByteSize(std::string_view text) { return static_cast<int64_t>(text.size()); }

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

// Undoes one write of a commit group, leaving the group's other writes in place.
void RollBackSavepoint(sqlite::Connection& connection) {
  (void)connection.Run("ROLLBACK TO write");
  (void)connection.Run("RELEASE write");
}

}  // namespace

Transaction::Transaction(std::unique_lock<std::mutex> lock, Store* store, uint64_t group)
    : lock_(std::move(lock)),
      store_(store),
      connection_(store->connection_.get()),
      group_(group),
      write_open_(group != 0),
      changes_before_(group != 0 ? connection_->TotalChanges() : 0) {}

Transaction::Transaction(Store* store, std::unique_ptr<sqlite::Connection> reader)
    : store_(store), reader_(std::move(reader)), connection_(reader_.get()) {}

Transaction::Transaction(Transaction&& other) noexcept
    : lock_(std::move(other.lock_)),
      store_(other.store_),
      reader_(std::move(other.reader_)),
      connection_(other.connection_),
      group_(other.group_),
      write_open_(std::exchange(other.write_open_, false)),
      savepoint_open_(std::exchange(other.savepoint_open_, false)),
      changes_before_(other.changes_before_) {}

Transaction::~Transaction() {
  // A SELECT left mid-way would keep the connection's read snapshot open, and with it every WAL
  // frame since: the WAL could then never be checkpointed and lookups in it slow down.
  if (reader_) {
    reader_->ResetStatements();
    // A read transaction has nothing to commit; COMMIT ends its snapshot. A connection that
    // cannot end it is not reused.
    if (reader_->Run("COMMIT").ok()) store_->ReturnReader(std::move(reader_));
    return;
  }
  if (lock_.owns_lock()) connection_->ResetStatements();
  if (!write_open_) return;
  if (savepoint_open_) {
    RollBackSavepoint(*connection_);
  } else if (connection_->TotalChanges() != changes_before_) {
    store_->group_spoiled_ = true;  // part of this write is in the group and cannot come out alone
  }
  (void)store_->FinishWrite(lock_, group_);
}

Status Transaction::Isolate() {
  if (!write_open_ || savepoint_open_) return Status();
  if (connection_->TotalChanges() != changes_before_) {
    return Status::Internal("a write asked to be isolated after it changed something");
  }
  COSMOS_RETURN_IF_ERROR(connection_->Run("SAVEPOINT write"));
  savepoint_open_ = true;
  return Status();
}

Status Transaction::Commit() {
  if (!write_open_) return Status();
  write_open_ = false;
  connection_->ResetStatements();  // no statement may hold a snapshot across the group's COMMIT
  if (savepoint_open_) {
    savepoint_open_ = false;
    Status released = connection_->Run("RELEASE write");
    if (!released.ok()) {
      RollBackSavepoint(*connection_);
      (void)store_->FinishWrite(lock_, group_);
      return released;
    }
  }
  ++store_->group_writes_;
  return store_->FinishWrite(lock_, group_);
}

bool Transaction::SnapshotTaken() const { return reader_ && reader_->StatementsSinceReset(); }

void Transaction::AfterGroup(std::function<void()> done) {
  if (!lock_.owns_lock() || group_ == 0) return done();
  store_->group_done_.push_back(std::move(done));
}

Result<int64_t> Transaction::CommittedContainerLsn(int64_t container_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("SELECT lsn FROM containers WHERE seq = ?"));
  stmt->Bind(1, container_seq);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  int64_t lsn = has_row ? stmt->ColumnInt(0) : 0;
  stmt->Rewind();
  return lsn;
}

int64_t Transaction::ContainerLsn(int64_t container_seq, int64_t row_lsn) const {
  return reader_ ? row_lsn : store_->CountedLsn(container_seq, row_lsn);
}

Result<int64_t> Transaction::NextSeq(SeqKind kind) {
  const char* table = kind == SeqKind::kDatabase    ? "databases"
                      : kind == SeqKind::kContainer ? "containers"
                      : kind == SeqKind::kOffer     ? "offers"
                                                    : "documents";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0) + 1"));
  stmt->Bind(1, table);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  if (!has_row) return Status::Internal("sqlite_sequence returned no row");
  return stmt->ColumnInt(0);
}

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
                          "DELETE FROM databases WHERE seq = ?"}) {
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
  for (const char* sql : {"DELETE FROM documents WHERE container_seq = ?",
                          "DELETE FROM logical_partitions WHERE container_seq = ?",
                          "DELETE FROM unique_key_entries WHERE container_seq = ?",
                          "DELETE FROM partition_key_ranges WHERE container_seq = ?",
                          "DELETE FROM change_log WHERE container_seq = ?",
                          "DELETE FROM offers WHERE is_database = 0 AND resource_seq = ?",
                          "DELETE FROM index_entries WHERE container_seq = ?",
                          "DELETE FROM index_builds WHERE container_seq = ?",
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

Result<std::vector<DocumentPosition>> Transaction::LookupIndex(int64_t container_seq, std::string_view path,
                                                               std::string_view lower, bool lower_inclusive,
                                                               std::string_view upper, bool upper_inclusive,
                                                               const DocumentScope& scope) {
  std::string sql =
      "SELECT DISTINCT d.partition_key, d.id FROM index_entries e JOIN documents d ON d.seq = e.document_seq "
      "WHERE e.container_seq = ? AND e.path = ? AND e.value ";
  sql += lower_inclusive ? ">= ?" : "> ?";
  if (!upper.empty()) sql += upper_inclusive ? " AND e.value <= ?" : " AND e.value < ?";
  if (scope.partition_key) {
    sql += " AND d.partition_key = ?";
  } else {
    sql += " AND d.partition_key >= ?";
    if (scope.max_key) sql += " AND d.partition_key < ?";
  }
  sql += " ORDER BY d.partition_key, d.id";
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
  return CollectRows<DocumentPosition>(stmt, [](const sqlite::Statement& row) {
    return DocumentPosition{row.ColumnText(0), row.ColumnText(1)};
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

Status Transaction::StartIndexBuild(int64_t container_seq) {
  for (const char* sql : {"DELETE FROM index_entries WHERE container_seq = ?1",
                          "INSERT OR REPLACE INTO index_builds(container_seq, after_seq, total, done) "
                          "VALUES(?1, 0, (SELECT count(*) FROM documents WHERE container_seq = ?1), 0)"}) {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
    stmt->Bind(1, container_seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status();
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

Result<std::vector<DocumentRecord>> Transaction::ListDocumentsBySeq(int64_t container_seq, int64_t after_seq,
                                                                    int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      std::string("SELECT ") + kDocumentColumns +
      " FROM documents WHERE container_seq = ? AND seq > ? ORDER BY seq LIMIT ?"));
  stmt->Bind(1, container_seq).Bind(2, after_seq).Bind(3, limit);
  return CollectRows<DocumentRecord>(stmt, ReadDocument);
}

Result<int64_t> Transaction::NextLsn(int64_t container_seq) {
  auto counted = store_->container_lsns_.find(container_seq);
  if (counted == store_->container_lsns_.end()) {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("SELECT lsn FROM containers WHERE seq = ?"));
    stmt->Bind(1, container_seq);
    COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
    if (!has_row) return Status::Internal("container vanished while writing");
    counted = store_->container_lsns_.emplace(container_seq, stmt->ColumnInt(0)).first;
  }
  if (store_->lsns_to_write_.empty() || store_->lsns_to_write_.back() != container_seq) {
    store_->lsns_to_write_.push_back(container_seq);
  }
  return ++counted->second;
}

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

Result<std::vector<DocumentRecord>> Transaction::ListDocuments(
    int64_t container_seq, const DocumentScope& scope, const std::optional<DocumentPosition>& after,
    int64_t limit, bool include_after) {
  // One lower bound only: the cursor, or the start of the key range when the cursor lies before
  // it. With both, SQLite may start the index scan at the range start and filter its way to the
  // cursor, rescanning the range for every batch.
  bool cursor_inside = after && !scope.partition_key && after->partition_key >= scope.min_key;
  std::string sql = std::string("SELECT ") + kDocumentColumns + " FROM documents WHERE container_seq = ?1";
  if (scope.partition_key) {
    sql += " AND partition_key = ?2";
  } else {
    if (!scope.min_key.empty() && !cursor_inside) sql += " AND partition_key >= ?6";
    if (scope.max_key) sql += " AND partition_key < ?7";
  }
  if (after && scope.partition_key) {
    // Within one partition the cursor is an id bound: with the row-value form SQLite would seek
    // on (partition_key, id) alone, read past the partition's end and sort what it found.
    if (*scope.partition_key == after->partition_key) sql += include_after ? " AND id >= ?4" : " AND id > ?4";
    if (*scope.partition_key < after->partition_key) sql += " AND 0";  // the cursor is past the partition
  } else if (after && cursor_inside) {
    sql += include_after ? " AND (partition_key, id) >= (?3, ?4)" : " AND (partition_key, id) > (?3, ?4)";
  }
  sql += " ORDER BY partition_key, id LIMIT ?5";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
  stmt->Bind(1, container_seq);
  if (scope.partition_key) {
    stmt->Bind(2, *scope.partition_key);
  } else {
    if (!scope.min_key.empty() && !cursor_inside) stmt->Bind(6, scope.min_key);
    if (scope.max_key) stmt->Bind(7, *scope.max_key);
  }
  if (after && scope.partition_key && *scope.partition_key == after->partition_key) stmt->Bind(4, after->id);
  if (after && cursor_inside) stmt->Bind(3, after->partition_key).Bind(4, after->id);
  stmt->Bind(5, limit);
  return CollectRows<DocumentRecord>(stmt, ReadDocument);
}

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
      "UPDATE documents SET body = ?, etag = ?, lsn = ?, expires_at = ? WHERE seq = ? AND container_seq = ?"));
  update->BindUncopied(1, record.body).BindUncopied(2, record.etag).Bind(3, record.lsn).Bind(5, record.seq)
      .Bind(6, container_seq);
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

Status Transaction::AppendChange(int64_t container_seq, int64_t lsn, std::string_view partition_key,
                                 std::string_view entry, int64_t expires_at) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO change_log(container_seq, lsn, partition_key, entry, expires_at) VALUES(?, ?, ?, ?, ?)"));
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

Status Transaction::PruneChangeLog(int64_t now) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("DELETE FROM change_log WHERE expires_at <= ?"));
  stmt->Bind(1, now);
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

Result<std::optional<DocumentRecord>> Transaction::FindNextDocumentBySeq(int64_t container_seq, int64_t after_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      std::string("SELECT ") + kDocumentColumns +
      " FROM documents WHERE seq > ? AND container_seq = ? ORDER BY seq LIMIT 1"));
  stmt->Bind(1, after_seq).Bind(2, container_seq);
  return FirstRow<DocumentRecord>(stmt, ReadDocument);
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

// Checkpoints the WAL on a thread and connection of its own, so that copying pages into the
// database file, and its fsync, stay off the write path. Writers keep appending meanwhile; the
// WAL starts over from its beginning once a checkpoint has caught up with it.
class WalCheckpointer {
 public:
  // A commit that leaves at least this many WAL pages not yet in the database asks for a
  // checkpoint: SQLite's own threshold. (Asking at every commit would cost a pass, and an fsync,
  // for every few writes.)
  static constexpr int kRequestPages = 1000;
  // Past `inline_pages` (by default 40,000: 165 MB of 4 KB pages with frame headers) the
  // committing writer checkpoints too. Under steady writes the background pass always trails
  // the latest commit, and the WAL can start over only after a checkpoint that caught up; the
  // writer's pass, which has little left to copy, is that one. Its two fsyncs stall every write,
  // so it should be rare. At 10,000 pages it ran about four times a second under telemetry
  // ingest: 40,000 gave that ingest 10-15% more documents/s and halved the p99 of 1 KB creates
  // (about 14 ms to 7). Recovery after a crash reads at most this much WAL (about 60 ms to ready
  // at 165 MB).
  // Once the writes have paused for `truncate_after_idle`, a pass also truncates the WAL file.
  WalCheckpointer(std::unique_ptr<sqlite::Connection> connection, int inline_pages,
                  std::chrono::milliseconds truncate_after_idle)
      : inline_pages_(inline_pages),
        truncate_after_idle_(truncate_after_idle),
        connection_(std::move(connection)),
        thread_([this] { Loop(); }) {}
  ~WalCheckpointer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  // The hook for the writing connection (sqlite::Connection::SetWalCommitHook).
  bool AfterCommit(int wal_pages) {
    bool request;
    {
      std::lock_guard<std::mutex> lock(mu_);
      wal_written_ = true;
      last_commit_ = std::chrono::steady_clock::now();
      // Past the inline threshold the background pass is not asked again, so that it is idle
      // when the writer's own pass (which would otherwise find it busy and give up) runs.
      if (wal_pages >= inline_pages_) return true;
      if (wal_pages < checkpointed_pages_) checkpointed_pages_ = 0;  // the WAL started over
      request = !requested_ && wal_pages - checkpointed_pages_ >= kRequestPages;
      requested_ = requested_ || request;
    }
    if (request) wake_.notify_one();
    return false;
  }

 private:
  void Loop() {
    NameThisThread("cosmolite-ckpt");
    std::unique_lock<std::mutex> lock(mu_);
    auto asked = [&] { return stopping_ || requested_; };
    for (;;) {
      if (!wal_written_) {
        wake_.wait(lock, asked);
      } else if (!wake_.wait_until(lock, last_commit_ + truncate_after_idle_, asked)) {
        if (std::chrono::steady_clock::now() < last_commit_ + truncate_after_idle_) continue;
        wal_written_ = false;  // a commit during the pass sets it again
        lock.unlock();
        // Gives up at once while a write or an older read is open; the next pause tries again.
        Result<bool> truncated = connection_->CheckpointTruncate();
        lock.lock();
        if (truncated.ok() && *truncated) {
          checkpointed_pages_ = 0;
        } else {
          wal_written_ = true;
          last_commit_ = std::chrono::steady_clock::now();  // not before another pause
        }
        continue;
      }
      if (stopping_) return;
      lock.unlock();
      // A failed pass loses nothing: the frames stay in the WAL and a later request retries.
      Result<int> checkpointed = connection_->CheckpointPassive();
      lock.lock();
      requested_ = false;
      if (checkpointed.ok()) checkpointed_pages_ = *checkpointed;
    }
  }

  const int inline_pages_;
  const std::chrono::milliseconds truncate_after_idle_;
  std::unique_ptr<sqlite::Connection> connection_;  // used by the thread only
  std::mutex mu_;
  std::condition_variable wake_;
  bool requested_ = false;      // guarded by mu_: a pass is asked for or running
  int checkpointed_pages_ = 0;  // guarded by mu_: WAL pages in the database after the last pass
  bool stopping_ = false;       // guarded by mu_
  bool wal_written_ = false;    // guarded by mu_: commits since the WAL file was last truncated
  std::chrono::steady_clock::time_point last_commit_;  // guarded by mu_
  std::thread thread_;          // last: starts once the members above exist
};

Store::Store(std::unique_ptr<sqlite::Connection> connection, std::unique_ptr<WalCheckpointer> checkpointer,
             int opened_schema_version, std::string read_path)
    : opened_schema_version_(opened_schema_version),
      connection_(std::move(connection)),
      checkpointer_(std::move(checkpointer)),
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
  if (!in_memory) {
    pragmas += "PRAGMA journal_mode = WAL; PRAGMA mmap_size = 268435456;";
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
  // A new file or one of version 2 to 4 is current at once (the engine builds the indexes and
  // offers a version 3 file lacks, and the composite index entries of a version 4 file); a
  // version 1 file when the engine has rekeyed it.
  if (version == 0 || (version >= 2 && version < kSchemaVersion)) {
    COSMOS_RETURN_IF_ERROR(connection->Execute("PRAGMA user_version = " + std::to_string(kSchemaVersion)));
  }
  std::unique_ptr<WalCheckpointer> checkpointer;
  if (!in_memory) {
    COSMOS_ASSIGN_OR_RETURN(auto checkpoint_connection, sqlite::Connection::Open(options.path));
    // A connection learns that the file is in WAL mode when it first reads it; until then a
    // checkpoint does nothing.
    COSMOS_RETURN_IF_ERROR(checkpoint_connection->Execute("PRAGMA journal_mode = WAL"));
    checkpointer = std::make_unique<WalCheckpointer>(std::move(checkpoint_connection), options.wal_restart_pages,
                                                    std::chrono::milliseconds(options.wal_truncate_idle_ms));
    connection->SetWalCommitHook([raw = checkpointer.get()](int pages) { return raw->AfterCommit(pages); });
  }
  return std::unique_ptr<Store>(
      new Store(std::move(connection), std::move(checkpointer), version, in_memory ? "" : options.path));
}

Result<Transaction> Store::BeginRead() {
  if (read_path_.empty()) return Transaction(std::unique_lock<std::mutex>(mu_), this, 0);
  COSMOS_ASSIGN_OR_RETURN(auto reader, TakeReader());
  COSMOS_RETURN_IF_ERROR(reader->Run("BEGIN"));
  reader->ResetStatements();  // so that SnapshotTaken() tells of the statements after BEGIN
  return Transaction(this, std::move(reader));
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

Status Store::CommitOpenGroup() {
  // The rows take the counted LSNs with the group's last statement; they are cleared from the
  // list only once committed, so that a failed group's LSNs are written with a later one.
  const bool commit = group_writes_ > 0 && !group_spoiled_;
  Status status = commit ? WriteCountedLsns() : Status();
  if (status.ok()) status = commit ? connection_->Run("COMMIT") : connection_->Run("ROLLBACK");
  if (status.ok() && commit) lsns_to_write_.clear();
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
