// Security (security.h): checking the resource tokens requests present.
#include <openssl/rand.h>

#include <vector>

#include "common/encoding.h"
#include "engine/security/security.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {

Result<std::string> RandomSecret() {
  std::vector<uint8_t> bytes(32);
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return Status::Internal("OpenSSL could not make a random secret");
  }
  return Base64Encode(bytes);
}

Result<ResolvedTarget> Security::ResolveTarget(storage::Transaction& txn, const AccessRequest& request) {
  ResolvedTarget target;
  if (request.ids.empty()) return target;
  ResourceName database{request.ids[0], request.is_rid_based};
  Result<storage::DatabaseRecord> found = engine::FindDatabase(txn, database, /*as_owner=*/false);
  if (!found.ok()) {
    if (found.status().code() == ErrorCode::kNotFound) return target;  // matches no scope
    return found.status();
  }
  target.database_seq = found->seq;
  bool names_container = request.ids.size() >= 2 && request.target != AccessTarget::kUser &&
                         request.target != AccessTarget::kPermission;
  if (names_container) {
    ContainerAddress address{database, {request.ids[1], request.is_rid_based}};
    auto container = context_.FindContainer(txn, address, /*as_owner=*/false);
    if (container.ok()) {
      target.container_seq = (*container)->container.seq;
    } else if (container.status().code() != ErrorCode::kNotFound) {
      return container.status();
    }
  }
  return target;
}

Status Security::AuthorizeResourceToken(std::string_view token, const AccessRequest& request, int64_t now_seconds) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(const ResourceTokenSigner* signer, Signer(txn, /*create=*/false));
  if (signer == nullptr) {
    return Status::Unauthorized("The resource token was not issued by this account: it has issued none.");
  }
  COSMOS_ASSIGN_OR_RETURN(ResourceTokenClaims claims, signer->Open(token));
  if (now_seconds >= claims.expires_at) {
    return Status::Unauthorized("The resource token has expired. Read the permission again for a new one.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto permission, txn.FindPermissionBySeq(claims.permission_seq));
  if (!permission || permission->user_seq != claims.user_seq) {
    return Status::Unauthorized("The permission that issued this resource token, or its user, has been deleted.");
  }
  COSMOS_ASSIGN_OR_RETURN(PermissionScope scope, PermissionScope::FromJson(Json::parse(permission->scope)));
  COSMOS_ASSIGN_OR_RETURN(ResolvedTarget target, ResolveTarget(txn, request));
  return CheckResourceGrant(scope, request, target);
}

}  // namespace cosmos::engine
