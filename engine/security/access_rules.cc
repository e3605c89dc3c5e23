#include "engine/security/access_rules.h"

namespace cosmos::engine {
namespace {

bool IsScript(AccessTarget target) {
  return target == AccessTarget::kStoredProcedure || target == AccessTarget::kTrigger ||
         target == AccessTarget::kUserDefinedFunction;
}

// The path segment a script target sits under, as a permission's child type names it.
const char* ScriptChildType(AccessTarget target) {
  return target == AccessTarget::kStoredProcedure ? "sprocs" : target == AccessTarget::kTrigger ? "triggers" : "udfs";
}

bool IsContainerChild(AccessTarget target) {
  return target == AccessTarget::kDocument || target == AccessTarget::kPartitionKeyRange ||
         target == AccessTarget::kConflict || target == AccessTarget::kContainerOperation || IsScript(target);
}

// The partition key a request names, as a JSON array; nullopt when it names none or garbage.
std::optional<Json> RequestPartitionKey(const AccessRequest& request) {
  if (!request.partition_key) return std::nullopt;
  Json parsed = Json::parse(*request.partition_key, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  if (!parsed.is_array()) parsed = Json::array({parsed});
  return parsed;
}

}  // namespace

Json PermissionScope::ToJson() const {
  Json json = {{"db", database_seq}, {"coll", container_seq}, {"readOnly", read_only}};
  if (!child_type.empty()) {
    json["childType"] = child_type;
    json["childId"] = child_id;
  }
  if (partition_key) json["pk"] = *partition_key;
  return json;
}

Result<PermissionScope> PermissionScope::FromJson(const Json& json) {
  if (!json.is_object() || !json.contains("db") || !json["db"].is_number_integer()) {
    return Status::Internal("a stored permission scope is damaged");
  }
  PermissionScope scope;
  scope.database_seq = json["db"].get<int64_t>();
  scope.container_seq = json.value("coll", int64_t{0});
  scope.read_only = json.value("readOnly", true);
  scope.child_type = json.value("childType", std::string());
  scope.child_id = json.value("childId", std::string());
  if (json.contains("pk")) scope.partition_key = json["pk"];
  return scope;
}

Status InsufficientPermissions() {
  return Status::Forbidden(
      "Insufficient permissions provided in the authorization header for the corresponding request. Please retry "
      "with another authorization header.");
}

Status CheckResourceGrant(const PermissionScope& scope, const AccessRequest& request, const ResolvedTarget& target) {
  if (request.target == AccessTarget::kAccount) {
    return request.write ? InsufficientPermissions() : Status();  // the SDKs start by reading it
  }
  if (request.target == AccessTarget::kOffer || request.target == AccessTarget::kUser ||
      request.target == AccessTarget::kPermission) {
    return InsufficientPermissions();
  }
  if (target.database_seq == 0 || target.database_seq != scope.database_seq) return InsufficientPermissions();
  bool write_allowed = !scope.read_only;

  if (request.target == AccessTarget::kDatabase) {
    // The database itself (a feed of databases names none): only under a database-wide scope.
    if (request.is_feed || scope.container_seq != 0) return InsufficientPermissions();
    return request.write && !write_allowed ? InsufficientPermissions() : Status();
  }
  if (scope.container_seq == 0) {  // database-wide: its containers and all they hold
    return request.write && !write_allowed ? InsufficientPermissions() : Status();
  }
  if (request.target == AccessTarget::kContainer) {
    if (request.is_feed || target.container_seq != scope.container_seq) return InsufficientPermissions();
    if (!request.write) return Status();  // its definition: also under a narrower scope
    return scope.child_type.empty() && write_allowed ? Status() : InsufficientPermissions();
  }
  if (!IsContainerChild(request.target) || target.container_seq != scope.container_seq) {
    return InsufficientPermissions();
  }
  // Routing metadata and query plans read no document.
  if (request.target == AccessTarget::kPartitionKeyRange || request.query_plan) return Status();
  if (request.write && !write_allowed) return InsufficientPermissions();
  if (!scope.child_type.empty()) {
    // One document (or script): only requests that name it.
    bool same_type = request.target == AccessTarget::kDocument ? scope.child_type == "docs"
                     : IsScript(request.target)               ? scope.child_type == ScriptChildType(request.target)
                                                              : false;
    bool names_it = same_type && !request.is_feed && request.ids.size() >= 3 && request.ids[2] == scope.child_id;
    if (!names_it) return InsufficientPermissions();
  }
  if (scope.partition_key) {
    std::optional<Json> named = RequestPartitionKey(request);
    if (!named || *named != *scope.partition_key) return InsufficientPermissions();
  }
  return Status();
}

Status CheckDataPlaneRole(DataPlaneRole role, const std::string& principal_id, const AccessRequest& request) {
  // Running a stored procedure is a data action; managing scripts (reads too) is not.
  bool executes_procedure = request.target == AccessTarget::kStoredProcedure && !request.is_feed &&
                            request.method == "POST";
  bool management = request.target == AccessTarget::kUser || request.target == AccessTarget::kPermission ||
                    (IsScript(request.target) && !executes_procedure) ||
                    (request.write && (request.target == AccessTarget::kDatabase ||
                                       request.target == AccessTarget::kContainer ||
                                       request.target == AccessTarget::kOffer));
  if (management) {
    return Status::AadOperationNotAllowed("The given request [" + request.method + " " + request.path +
                                          "] cannot be authorized by AAD token in data plane.");
  }
  if (!request.write || role == DataPlaneRole::kContributor) return Status();
  std::string resource = "/";
  for (size_t index = 0; index < request.ids.size() && index < 2; ++index) {
    resource += (index == 0 ? "dbs/" : "/colls/") + request.ids[index];
  }
  return Status::RbacPermissionMissing(
      "Request blocked by Auth cosmolite : Request is blocked because principal [" + principal_id +
      "] does not have required RBAC permissions to perform action "
      "[Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/write] on resource [" + resource +
      "]. Learn more: https://aka.ms/cosmos-native-rbac.");
}

}  // namespace cosmos::engine
