#include "storage/store.h"

#include "storage/memory_index.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {
namespace {

// Undoes one write of a commit group, leaving the group's other writes in place.
void RollBackSavepoint(sqlite::Connection& connection, MemoryIndex& memory_index) {
  (void)connection.Run("ROLLBACK TO write");
  (void)connection.Run("RELEASE write");
  memory_index.RollBackToSavepoint();
  memory_index.ReleaseSavepoint();
}

}  // namespace

Transaction::Transaction(std::unique_lock<std::mutex> lock, Store* store, uint64_t group)
    : lock_(std::move(lock)),
      store_(store),
      connection_(store->connection_.get()),
      group_(group),
      write_open_(group != 0),
      changes_before_(group != 0 ? ChangesSoFar() : 0) {}

Transaction::Transaction(Store* store, std::unique_ptr<sqlite::Connection> reader, uint64_t reader_registration)
    : store_(store), reader_(std::move(reader)), connection_(reader_.get()), reader_registration_(reader_registration) {}

Transaction::Transaction(Transaction&& other) noexcept
    : lock_(std::move(other.lock_)),
      store_(other.store_),
      reader_(std::move(other.reader_)),
      connection_(other.connection_),
      group_(other.group_),
      write_open_(std::exchange(other.write_open_, false)),
      savepoint_open_(std::exchange(other.savepoint_open_, false)),
      changes_before_(other.changes_before_),
      reader_registration_(std::exchange(other.reader_registration_, std::nullopt)),
      index_snapshot_(other.index_snapshot_) {}

Transaction::~Transaction() {
  // A SELECT left mid-way would keep the connection's read snapshot open, and with it every WAL
  // frame since: the WAL could then never be checkpointed and lookups in it slow down.
  if (reader_) {
    reader_->ResetStatements();
    // A read transaction has nothing to commit; COMMIT ends its snapshot. A connection that
    // cannot end it is not reused.
    if (reader_->Run("COMMIT").ok()) store_->ReturnReader(std::move(reader_));
    if (reader_registration_) store_->memory_index_->CloseReader(*reader_registration_);
    return;
  }
  if (lock_.owns_lock()) connection_->ResetStatements();
  if (!write_open_) return;
  if (savepoint_open_) {
    RollBackSavepoint(*connection_, *memory_index());
  } else if (ChangesSoFar() != changes_before_) {
    store_->group_spoiled_ = true;  // part of this write is in the group and cannot come out alone
  }
  (void)store_->FinishWrite(lock_, group_);
}

Status Transaction::Isolate() {
  if (!write_open_ || savepoint_open_) return Status();
  if (ChangesSoFar() != changes_before_) {
    return Status::Internal("a write asked to be isolated after it changed something");
  }
  COSMOS_RETURN_IF_ERROR(connection_->Run("SAVEPOINT write"));
  memory_index()->Savepoint();
  savepoint_open_ = true;
  return Status();
}

Status Transaction::BeginPart() {
  if (!savepoint_open_) return Status::Internal("a part of a write that is not isolated");
  COSMOS_RETURN_IF_ERROR(connection_->Run("SAVEPOINT part"));
  memory_index()->Savepoint();
  return Status();
}

Status Transaction::EndPart(bool keep) {
  MemoryIndex* index = memory_index();
  if (!keep) {
    connection_->ResetStatements();  // no statement may be mid-way through rows being undone
    COSMOS_RETURN_IF_ERROR(connection_->Run("ROLLBACK TO part"));
    index->RollBackToSavepoint();
  }
  COSMOS_RETURN_IF_ERROR(connection_->Run("RELEASE part"));
  index->ReleaseSavepoint();
  return Status();
}

int64_t Transaction::ChangesSoFar() const {
  return connection_->TotalChanges() + static_cast<int64_t>(memory_index()->changes());
}

MemoryIndex* Transaction::memory_index() const { return store_->memory_index_.get(); }

Result<uint64_t> Transaction::IndexSnapshot() {
  if (!reader_) return MemoryIndex::kLatest;
  if (!index_snapshot_) {
    COSMOS_ASSIGN_OR_RETURN(index_snapshot_, Store::ReadCommittedGroup(*connection_));
  }
  return *index_snapshot_;
}

Status Transaction::Commit() {
  if (!write_open_) return Status();
  write_open_ = false;
  connection_->ResetStatements();  // no statement may hold a snapshot across the group's COMMIT
  if (savepoint_open_) {
    savepoint_open_ = false;
    Status released = connection_->Run("RELEASE write");
    if (released.ok()) {
      memory_index()->ReleaseSavepoint();
    } else {
      RollBackSavepoint(*connection_, *memory_index());
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
  const bool counted = kind == SeqKind::kDocument && !reader_;
  if (counted && store_->next_document_seq_ > 0) return store_->next_document_seq_++;
  const char* table = kind == SeqKind::kDatabase    ? "databases"
                      : kind == SeqKind::kContainer ? "containers"
                      : kind == SeqKind::kOffer     ? "offers"
                      : kind == SeqKind::kUser      ? "users"
                      : kind == SeqKind::kPermission ? "permissions"
                      : kind == SeqKind::kScript    ? "scripts"
                                                    : "documents";
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0) + 1"));
  stmt->Bind(1, table);
  COSMOS_ASSIGN_OR_RETURN(bool has_row, stmt->Step());
  if (!has_row) return Status::Internal("sqlite_sequence returned no row");
  const int64_t next = stmt->ColumnInt(0);
  if (counted) store_->next_document_seq_ = next + 1;
  return next;
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

}  // namespace cosmos::storage
