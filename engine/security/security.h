// Security: users of a database and their permissions — create, upsert, read, list, replace,
// delete, with the service's validation, system properties and If-Match — and the resource tokens
// permissions hand out: issued on every permission answer (x-ms-documentdb-expiry-seconds long,
// 10 to 18,000 seconds, one hour by default), checked on every request that presents one
// (resource_token.h says how they are made; access_rules.h what they allow).
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "engine/api.h"
#include "engine/security/access_rules.h"
#include "engine/security/resource_token.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

// 32 random bytes, base64: a new signing secret.
Result<std::string> RandomSecret();

class Security {
 public:
  static constexpr int64_t kDefaultTokenSeconds = 3600;
  static constexpr int64_t kMinTokenSeconds = 10;
  static constexpr int64_t kMaxTokenSeconds = 18000;

  explicit Security(AccountContext& context);

  // Users. kOwnerResourceNotFound when the database is missing, kNotFound when the user is,
  // kConflict for an id in use, kPreconditionFailed for a stale If-Match. `upsert`: replace the
  // user of that id if there is one. A replace may change the id (a rename).
  Result<ResourceResponse> CreateUser(const ResourceName& database, const std::string& body, bool upsert);
  Result<ResourceResponse> ReadUser(const UserAddress& user);
  Result<FeedResponse> ListUsers(const ResourceName& database, const FeedOptions& options);
  Result<ResourceResponse> ReplaceUser(const UserAddress& user, const std::string& body,
                                       const Preconditions& preconditions);
  Result<ResourceResponse> DeleteUser(const UserAddress& user, const Preconditions& preconditions);
  // The users' bodies (seq, JSON) for a query, and the database's rid.
  Result<std::pair<std::vector<std::pair<int64_t, std::string>>, std::string>> UserBodies(
      const ResourceName& database);

  // Permissions: as users, under a user (kOwnerResourceNotFound when it is missing). A
  // permission's body is {id, permissionMode: "All"|"Read", resource: a link to the database, a
  // container or a container's child, resourcePartitionKey?}; kBadRequest when the resource names
  // nothing in the user's database, kConflict when the user holds a permission on it already.
  // Every answer carries a fresh `_token` valid for `token_seconds` (nullopt: the default);
  // kBadRequest when that is outside 10..18,000.
  Result<ResourceResponse> CreatePermission(const UserAddress& user, const std::string& body, bool upsert,
                                            std::optional<int64_t> token_seconds);
  Result<ResourceResponse> ReadPermission(const PermissionAddress& permission, std::optional<int64_t> token_seconds);
  Result<FeedResponse> ListPermissions(const UserAddress& user, const FeedOptions& options,
                                       std::optional<int64_t> token_seconds);
  Result<ResourceResponse> ReplacePermission(const PermissionAddress& permission, const std::string& body,
                                             const Preconditions& preconditions, std::optional<int64_t> token_seconds);
  Result<ResourceResponse> DeletePermission(const PermissionAddress& permission, const Preconditions& preconditions);
  // The permissions' bodies, tokens included, for a query, and the user's rid.
  Result<std::pair<std::vector<std::pair<int64_t, std::string>>, std::string>> PermissionBodies(
      const UserAddress& user, std::optional<int64_t> token_seconds);

  // Whether a request presenting a resource token (the sig field of type=resource) may go on:
  // kUnauthorized for a token that is malformed, forged, expired or whose permission is gone;
  // kForbidden (access_rules.h) for a request outside the permission's scope.
  Status AuthorizeResourceToken(std::string_view token, const AccessRequest& request, int64_t now_seconds);

 private:
  // The signer, made once from the secret in the store; with `create`, the secret is made and
  // stored inside `txn` (a write) when there is none. Null when there is none and not `create`.
  Result<const ResourceTokenSigner*> Signer(storage::Transaction& txn, bool create);
  Result<storage::UserRecord> FindUser(storage::Transaction& txn, const UserAddress& user, bool as_owner);
  Result<storage::PermissionRecord> FindPermission(storage::Transaction& txn, const PermissionAddress& permission,
                                                   int64_t* user_seq);
  // Validates a permission definition and resolves its resource within the user's database.
  Result<storage::PermissionRecord> ResolvePermission(storage::Transaction& txn, const Json& definition,
                                                      int64_t database_seq);
  // A permission's body (parsed) with a new _token valid for `token_seconds`, as text.
  Result<std::string> WithToken(storage::Transaction& txn, Json body, const storage::PermissionRecord& record,
                                int64_t token_seconds);
  Result<ResolvedTarget> ResolveTarget(storage::Transaction& txn, const AccessRequest& request);
  Result<ResourceResponse> WritePermission(storage::Transaction& txn, const storage::UserRecord& user,
                                           Json definition, std::optional<storage::PermissionRecord> existing,
                                           int64_t token_seconds);

  AccountContext& context_;
  std::mutex signer_mutex_;
  std::optional<ResourceTokenSigner> signer_;  // set once, never reset
  std::string signer_secret_;                   // its secret (base64), or one made but not yet stored
};

}  // namespace cosmos::engine
