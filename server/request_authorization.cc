#include "server/request_authorization.h"

#include "server/headers.h"
#include "server/request_handler.h"

namespace cosmos::server {
namespace {

engine::AccessTarget TargetOf(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kAccount: return engine::AccessTarget::kAccount;
    case ResourceKind::kDatabase: return engine::AccessTarget::kDatabase;
    case ResourceKind::kContainer: return engine::AccessTarget::kContainer;
    case ResourceKind::kDocument: return engine::AccessTarget::kDocument;
    case ResourceKind::kPartitionKeyRange: return engine::AccessTarget::kPartitionKeyRange;
    case ResourceKind::kOffer: return engine::AccessTarget::kOffer;
    case ResourceKind::kContainerOperation: return engine::AccessTarget::kContainerOperation;
    case ResourceKind::kConflict: return engine::AccessTarget::kConflict;
    case ResourceKind::kUser: return engine::AccessTarget::kUser;
    case ResourceKind::kPermission: return engine::AccessTarget::kPermission;
    case ResourceKind::kStoredProcedure: return engine::AccessTarget::kStoredProcedure;
    case ResourceKind::kTrigger: return engine::AccessTarget::kTrigger;
    case ResourceKind::kUserDefinedFunction: return engine::AccessTarget::kUserDefinedFunction;
  }
  return engine::AccessTarget::kAccount;
}

}  // namespace

engine::AccessRequest AccessRequestOf(const HttpRequest& request, const ResourcePath& path, bool write) {
  engine::AccessRequest access;
  access.target = TargetOf(path.kind);
  access.is_feed = path.is_feed;
  access.write = write;
  access.ids = path.ids;
  access.is_rid_based = path.is_rid_based;
  access.partition_key = request.headers.Get(headers::kPartitionKey);
  access.query_plan = request.headers.IsTrue(headers::kIsQueryPlanRequest);
  access.method = request.method;
  access.path = request.target.substr(0, request.target.find('?'));
  return access;
}

RequestAuthorizer::RequestAuthorizer(engine::Account& account, MasterKeyAuth primary, const HandlerOptions& options)
    : account_(account),
      primary_(std::move(primary)),
      aad_(options.aad_mode, [this](std::string_view key) { return RoleOfKey(key); }, options.aad_reader_principals) {
  for (bool read_only : {false, true}) {
    for (const std::string& key : read_only ? options.read_only_keys : options.secondary_keys) {
      if (auto auth = MasterKeyAuth::Create(key); auth.ok()) other_keys_.push_back({std::move(auth).value(), read_only});
    }
  }
}

std::optional<RequestAuthorizer::KeyKind> RequestAuthorizer::KindOfKey(std::string_view key_text) const {
  std::optional<std::string> probe = MasterKeyAuth::KeyProbe(key_text);  // derived once for every key
  if (!probe) return std::nullopt;
  if (primary_.MatchesProbe(*probe)) return KeyKind::kWritable;
  for (const OtherKey& other : other_keys_) {
    if (other.auth.MatchesProbe(*probe)) return other.read_only ? KeyKind::kReadOnly : KeyKind::kWritable;
  }
  return std::nullopt;
}

std::optional<engine::DataPlaneRole> RequestAuthorizer::RoleOfKey(std::string_view key_text) const {
  std::optional<KeyKind> kind = KindOfKey(key_text);
  if (!kind) return std::nullopt;
  return *kind == KeyKind::kReadOnly ? engine::DataPlaneRole::kReader : engine::DataPlaneRole::kContributor;
}

Status RequestAuthorizer::Authorize(const HttpRequest& request, const ResourcePath& path, bool write,
                                    int64_t now_seconds) const {
  std::optional<std::string> header = request.headers.Get(headers::kAuthorization);
  std::optional<AuthorizationFields> fields = header ? ParseAuthorization(*header) : std::nullopt;
  if (fields && fields->type == "resource" && fields->version == "1.0") {
    return account_.AuthorizeResourceToken(fields->signature, AccessRequestOf(request, path, write), now_seconds);
  }
  if (fields && fields->type == "aad" && fields->version == "1.0") {
    COSMOS_ASSIGN_OR_RETURN(AadPrincipal principal, aad_.Verify(fields->signature, now_seconds));
    return engine::CheckDataPlaneRole(principal.role, principal.object_id, AccessRequestOf(request, path, write));
  }
  return VerifyMasterSignature(request, fields, path.auth_resource_type, path.auth_resource_link, write, now_seconds);
}

Status RequestAuthorizer::VerifyMasterSignature(const HttpRequest& request,
                                                const std::optional<AuthorizationFields>& fields,
                                                std::string_view resource_type, std::string_view resource_link,
                                                bool write, int64_t now_seconds) const {
  Status primary = primary_.Verify(request, fields, resource_type, resource_link, now_seconds);
  // Another key can only help when the signature itself did not match (not for a stale date).
  if (primary.ok() || primary.code() != ErrorCode::kUnauthorized || !fields) return primary;
  for (const OtherKey& other : other_keys_) {
    if (other.auth.Verify(request, fields, resource_type, resource_link, now_seconds).ok()) {
      // The service does not tell a read-only key's write from a wrong signature: both are the
      // 401 "MAC signature" answer (docs: troubleshoot-unauthorized).
      return other.read_only && write ? primary : Status();
    }
  }
  return primary;
}

Status RequestAuthorizer::AuthorizeAdmin(const HttpRequest& request, int64_t now_seconds) const {
  bool action = request.method != "GET" && request.method != "HEAD";
  if (std::optional<std::string> key = request.headers.Get(headers::kCosmoliteKey)) {
    std::optional<KeyKind> kind = KindOfKey(*key);
    if (!kind) return Status::Unauthorized("The x-cosmolite-key header does not hold the account key.");
    return *kind == KeyKind::kReadOnly && action
               ? Status::Unauthorized("A read-only key may read the administration endpoints, not act on them.")
               : Status();
  }
  std::optional<std::string> header = request.headers.Get(headers::kAuthorization);
  if (!header) {
    return Status::Unauthorized(
        "The cosmolite administration endpoints need the account key: send it in the x-cosmolite-key header, "
        "or sign the request with it as a request for the account (an empty resource type and link).");
  }
  // Only an account key: resource and Entra ID tokens fail here as a wrong master signature.
  return VerifyMasterSignature(request, ParseAuthorization(*header), "", "", action, now_seconds);
}

}  // namespace cosmos::server
