// Transaction (store.h): stored procedures, triggers and user-defined functions.
#include "storage/row_reading.h"
#include "storage/sqlite/connection.h"
#include "storage/store.h"

namespace cosmos::storage {
namespace {

constexpr char kScriptColumns[] = "SELECT seq, container_seq, kind, id, body FROM scripts WHERE ";

ScriptRecord ReadScript(const sqlite::Statement& stmt) {
  return ScriptRecord{stmt.ColumnInt(0), stmt.ColumnInt(1), stmt.ColumnText(2), stmt.ColumnText(3),
                      stmt.ColumnText(4)};
}

}  // namespace

Result<std::optional<ScriptRecord>> Transaction::FindScript(int64_t container_seq, std::string_view kind,
                                                            std::string_view id) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(std::string(kScriptColumns) +
                                                           "container_seq = ? AND kind = ? AND id = ?"));
  stmt->Bind(1, container_seq).Bind(2, kind).Bind(3, id);
  return FirstRow<ScriptRecord>(stmt, ReadScript);
}

Result<std::optional<ScriptRecord>> Transaction::FindScriptBySeq(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(std::string(kScriptColumns) + "seq = ?"));
  stmt->Bind(1, seq);
  return FirstRow<ScriptRecord>(stmt, ReadScript);
}

Result<std::vector<ScriptRecord>> Transaction::ListScripts(int64_t container_seq, std::string_view kind,
                                                           int64_t after_seq, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(std::string(kScriptColumns) +
                                                           "container_seq = ? AND kind = ? AND seq > ? "
                                                           "ORDER BY seq LIMIT ?"));
  stmt->Bind(1, container_seq).Bind(2, kind).Bind(3, after_seq).Bind(4, limit);
  return CollectRows<ScriptRecord>(stmt, ReadScript);
}

Status Transaction::InsertScript(const ScriptRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO scripts(seq, container_seq, kind, id, body) VALUES(?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"));
  stmt->Bind(1, record.seq).Bind(2, record.container_seq).Bind(3, record.kind).Bind(4, record.id);
  stmt->Bind(5, record.body);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("script exists: " + record.id);
  return Status();
}

Status Transaction::UpdateScript(int64_t seq, std::string_view id, std::string_view body) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("UPDATE OR IGNORE scripts SET id = ?, body = ? WHERE seq = ?"));
  stmt->Bind(1, id).Bind(2, body).Bind(3, seq);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("script exists: " + std::string(id));
  return Status();
}

Status Transaction::DeleteScript(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("DELETE FROM scripts WHERE seq = ?"));
  stmt->Bind(1, seq);
  return stmt->Run();
}

}  // namespace cosmos::storage
