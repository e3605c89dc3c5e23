// Transaction (store.h): users, permissions and the account's secrets.
#include "storage/row_reading.h"
#include "storage/sqlite/connection.h"
#include "storage/store.h"

namespace cosmos::storage {
namespace {

constexpr char kUserColumns[] = "seq, database_seq, id, body";
constexpr char kPermissionColumns[] = "seq, user_seq, id, body, resource, scope";

UserRecord ReadUser(const sqlite::Statement& stmt) {
  return UserRecord{stmt.ColumnInt(0), stmt.ColumnInt(1), stmt.ColumnText(2), stmt.ColumnText(3)};
}

PermissionRecord ReadPermission(const sqlite::Statement& stmt) {
  return PermissionRecord{stmt.ColumnInt(0),  stmt.ColumnInt(1),  stmt.ColumnText(2),
                          stmt.ColumnText(3), stmt.ColumnText(4), stmt.ColumnText(5)};
}

std::string Select(const char* columns, const char* table, const char* where) {
  return std::string("SELECT ") + columns + " FROM " + table + " WHERE " + where;
}

}  // namespace

Result<std::optional<UserRecord>> Transaction::FindUser(int64_t database_seq, std::string_view id) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(Select(kUserColumns, "users", "database_seq = ? AND id = ?")));
  stmt->Bind(1, database_seq).Bind(2, id);
  return FirstRow<UserRecord>(stmt, ReadUser);
}

Result<std::optional<UserRecord>> Transaction::FindUserBySeq(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(Select(kUserColumns, "users", "seq = ?")));
  stmt->Bind(1, seq);
  return FirstRow<UserRecord>(stmt, ReadUser);
}

Result<std::vector<UserRecord>> Transaction::ListUsers(int64_t database_seq, int64_t after_seq, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      Select(kUserColumns, "users", "database_seq = ? AND seq > ? ORDER BY seq LIMIT ?")));
  stmt->Bind(1, database_seq).Bind(2, after_seq).Bind(3, limit);
  return CollectRows<UserRecord>(stmt, ReadUser);
}

Status Transaction::InsertUser(const UserRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO users(seq, database_seq, id, body) VALUES(?, ?, ?, ?) ON CONFLICT DO NOTHING"));
  stmt->Bind(1, record.seq).Bind(2, record.database_seq).Bind(3, record.id).Bind(4, record.body);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("user exists: " + record.id);
  return Status();
}

Status Transaction::UpdateUser(int64_t seq, std::string_view id, std::string_view body) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("UPDATE OR IGNORE users SET id = ?, body = ? WHERE seq = ?"));
  stmt->Bind(1, id).Bind(2, body).Bind(3, seq);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("user exists: " + std::string(id));
  return Status();
}

Status Transaction::DeleteUser(int64_t seq) {
  for (const char* sql : {"DELETE FROM permissions WHERE user_seq = ?", "DELETE FROM users WHERE seq = ?"}) {
    COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(sql));
    stmt->Bind(1, seq);
    COSMOS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status();
}

Result<std::optional<PermissionRecord>> Transaction::FindPermission(int64_t user_seq, std::string_view id) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt,
                          connection_->Prepare(Select(kPermissionColumns, "permissions", "user_seq = ? AND id = ?")));
  stmt->Bind(1, user_seq).Bind(2, id);
  return FirstRow<PermissionRecord>(stmt, ReadPermission);
}

Result<std::optional<PermissionRecord>> Transaction::FindPermissionBySeq(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(Select(kPermissionColumns, "permissions", "seq = ?")));
  stmt->Bind(1, seq);
  return FirstRow<PermissionRecord>(stmt, ReadPermission);
}

Result<std::vector<PermissionRecord>> Transaction::ListPermissions(int64_t user_seq, int64_t after_seq,
                                                                   int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      Select(kPermissionColumns, "permissions", "user_seq = ? AND seq > ? ORDER BY seq LIMIT ?")));
  stmt->Bind(1, user_seq).Bind(2, after_seq).Bind(3, limit);
  return CollectRows<PermissionRecord>(stmt, ReadPermission);
}

Status Transaction::InsertPermission(const PermissionRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO permissions(seq, user_seq, id, body, resource, scope) VALUES(?, ?, ?, ?, ?, ?) "
      "ON CONFLICT DO NOTHING"));
  stmt->Bind(1, record.seq).Bind(2, record.user_seq).Bind(3, record.id).Bind(4, record.body);
  stmt->Bind(5, record.resource).Bind(6, record.scope);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("permission exists: " + record.id);
  return Status();
}

Status Transaction::UpdatePermission(const PermissionRecord& record) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "UPDATE OR IGNORE permissions SET id = ?, body = ?, resource = ?, scope = ? WHERE seq = ?"));
  stmt->Bind(1, record.id).Bind(2, record.body).Bind(3, record.resource).Bind(4, record.scope).Bind(5, record.seq);
  COSMOS_RETURN_IF_ERROR(stmt->Run());
  if (connection_->Changes() == 0) return Status::Conflict("permission exists: " + record.id);
  return Status();
}

Status Transaction::DeletePermission(int64_t seq) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("DELETE FROM permissions WHERE seq = ?"));
  stmt->Bind(1, seq);
  return stmt->Run();
}

Result<std::optional<std::string>> Transaction::FindSecret(std::string_view name) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare("SELECT value FROM account_secrets WHERE name = ?"));
  stmt->Bind(1, name);
  return FirstRow<std::string>(stmt, [](const sqlite::Statement& row) { return row.ColumnText(0); });
}

Status Transaction::InsertSecret(std::string_view name, std::string_view value) {
  COSMOS_ASSIGN_OR_RETURN(auto* stmt, connection_->Prepare(
      "INSERT INTO account_secrets(name, value) VALUES(?, ?) ON CONFLICT DO NOTHING"));
  stmt->Bind(1, name).Bind(2, value);
  return stmt->Run();
}

}  // namespace cosmos::storage
