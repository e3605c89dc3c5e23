// Security (security.h): permissions and the resolution of their resource links.
#include <algorithm>

#include "common/encoding.h"
#include "engine/security/security.h"
#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/preconditions.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {

using storage::PermissionRecord;
using storage::SeqKind;
using storage::UserRecord;

namespace {

Result<int64_t> TokenSeconds(std::optional<int64_t> requested) {
  int64_t seconds = requested.value_or(Security::kDefaultTokenSeconds);
  if (seconds < Security::kMinTokenSeconds || seconds > Security::kMaxTokenSeconds) {
    return Status::BadRequest("The value of x-ms-documentdb-expiry-seconds must be between " +
                              std::to_string(Security::kMinTokenSeconds) + " and " +
                              std::to_string(Security::kMaxTokenSeconds) + " seconds.");
  }
  return seconds;
}

// A link's segments: "/dbs/a/colls/b/" → {dbs, a, colls, b}.
std::vector<std::string> Segments(const std::string& link) {
  std::vector<std::string> segments;
  size_t start = 0;
  while (start <= link.size()) {
    size_t slash = std::min(link.find('/', start), link.size());
    if (slash > start) segments.push_back(link.substr(start, slash - start));
    start = slash + 1;
  }
  return segments;
}

bool IsDatabaseRid(const std::string& text) {
  std::optional<ResourceId> rid = ResourceId::Parse(text);
  return rid && rid->container == 0;
}

Status UnknownResource(const std::string& link) {
  return Status::BadRequest("The permission's resource '" + link +
                            "' names no database, container, document, stored procedure, trigger or "
                            "user-defined function of the user's database.");
}

ResourceResponse PermissionAnswer(std::string body, double charge, const UserRecord& user) {
  ResourceResponse response;
  response.etag = EtagOf(body);
  response.body = std::move(body);
  response.request_charge = charge;
  response.owner_rid = SecurityResourceId::ForUser(user.database_seq, user.seq);
  return response;
}

}  // namespace

Result<PermissionRecord> Security::ResolvePermission(storage::Transaction& txn, const Json& definition,
                                                     int64_t database_seq) {
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  PermissionRecord record;
  record.id = definition["id"].get<std::string>();
  PermissionScope scope;
  const Json* mode = definition.contains("permissionMode") ? &definition["permissionMode"] : nullptr;
  std::string mode_text = mode && mode->is_string() ? ToLowerAscii(mode->get<std::string>()) : "";
  if (mode_text != "all" && mode_text != "read") {
    return Status::BadRequest("The permission's permissionMode must be \"All\" or \"Read\".");
  }
  scope.read_only = mode_text == "read";
  if (!definition.contains("resource") || !definition["resource"].is_string() ||
      definition["resource"].get<std::string>().empty()) {
    return Status::BadRequest("The permission's resource must be the link of the resource it grants access to.");
  }
  std::string link = definition["resource"].get<std::string>();
  std::vector<std::string> segments = Segments(link);
  bool well_formed = (segments.size() == 2 || segments.size() == 4 || segments.size() == 6) && segments[0] == "dbs" &&
                     (segments.size() < 4 || segments[2] == "colls");
  if (segments.size() == 6) {
    const std::string& type = segments[4];
    well_formed = well_formed && (type == "docs" || type == "sprocs" || type == "triggers" || type == "udfs");
  }
  if (!well_formed) return UnknownResource(link);

  ResourceName database{segments[1], IsDatabaseRid(segments[1])};
  Result<storage::DatabaseRecord> found_database = engine::FindDatabase(txn, database, /*as_owner=*/false);
  if (!found_database.ok() || found_database->seq != database_seq) return UnknownResource(link);
  scope.database_seq = database_seq;
  record.resource = "db:" + std::to_string(database_seq);
  if (segments.size() >= 4) {
    ContainerAddress address{database, {segments[3], database.is_rid}};
    auto container = context_.FindContainer(txn, address, /*as_owner=*/false);
    if (!container.ok()) return UnknownResource(link);
    scope.container_seq = (*container)->container.seq;
    record.resource += "/coll:" + std::to_string(scope.container_seq);
  }
  if (segments.size() == 6) {
    scope.child_type = segments[4];
    scope.child_id = segments[5];
    if (database.is_rid && scope.child_type == "docs") {  // a document's _self: find its id
      std::optional<ResourceId> rid = ResourceId::Parse(segments[5]);
      if (!rid || rid->document == 0) return UnknownResource(link);
      COSMOS_ASSIGN_OR_RETURN(auto document, txn.FindDocumentBySeq(scope.container_seq, rid->document));
      if (!document) return UnknownResource(link);
      scope.child_id = document->id;
    }
    record.resource += "/" + scope.child_type + ":" + scope.child_id;
  }
  if (definition.contains("resourcePartitionKey") && !definition["resourcePartitionKey"].is_null()) {
    const Json& key = definition["resourcePartitionKey"];
    scope.partition_key = key.is_array() ? key : Json::array({key});
  }
  record.scope = scope.ToJson().dump();
  return record;
}

Result<const ResourceTokenSigner*> Security::Signer(storage::Transaction& txn, bool create) {
  constexpr char kSecretName[] = "resource-token-signing-key";
  // Held across the lookup (always inside a transaction, so after the store's lock): the one
  // secret is made once, and a made one is stored again should the write that first stored it
  // have failed to commit.
  std::lock_guard lock(signer_mutex_);
  if (signer_ && !create) return &*signer_;
  COSMOS_ASSIGN_OR_RETURN(std::optional<std::string> secret, txn.FindSecret(kSecretName));
  if (!secret) {
    if (!create) return static_cast<const ResourceTokenSigner*>(nullptr);
    if (signer_secret_.empty()) {
      COSMOS_ASSIGN_OR_RETURN(signer_secret_, RandomSecret());
    }
    COSMOS_RETURN_IF_ERROR(txn.InsertSecret(kSecretName, signer_secret_));
    secret = signer_secret_;
  }
  if (!signer_) {
    signer_secret_ = *secret;
    signer_.emplace(*secret);
  }
  return &*signer_;
}

Result<std::string> Security::WithToken(storage::Transaction& txn, Json body, const PermissionRecord& record,
                                        int64_t token_seconds) {
  COSMOS_ASSIGN_OR_RETURN(const ResourceTokenSigner* signer, Signer(txn, /*create=*/false));
  if (signer == nullptr) return Status::Internal("the resource token signing key is missing");
  body["_token"] = signer->Issue({record.seq, record.user_seq, NowSeconds() + token_seconds});
  return body.dump();
}

Result<PermissionRecord> Security::FindPermission(storage::Transaction& txn, const PermissionAddress& permission,
                                                  int64_t* user_seq) {
  COSMOS_ASSIGN_OR_RETURN(auto user, FindUser(txn, permission.user, /*as_owner=*/true));
  *user_seq = user.seq;
  std::optional<PermissionRecord> found;
  if (permission.permission.is_rid) {
    std::optional<SecurityResourceId> rid = SecurityResourceId::Parse(permission.permission.value);
    if (rid && rid->user == user.seq && rid->permission != 0) {
      COSMOS_ASSIGN_OR_RETURN(found, txn.FindPermissionBySeq(rid->permission));
    }
  } else {
    COSMOS_ASSIGN_OR_RETURN(found, txn.FindPermission(user.seq, permission.permission.value));
  }
  if (!found) return Status::NotFound(kIdMissingMessage);
  return std::move(*found);
}

Result<ResourceResponse> Security::WritePermission(storage::Transaction& txn, const UserRecord& user,
                                                   Json definition, std::optional<PermissionRecord> existing,
                                                   int64_t token_seconds) {
  COSMOS_ASSIGN_OR_RETURN(PermissionRecord record, ResolvePermission(txn, definition, user.database_seq));
  record.user_seq = user.seq;
  if (existing) {
    record.seq = existing->seq;
  } else {
    COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kPermission));
  }
  std::string rid = SecurityResourceId::ForPermission(user.database_seq, user.seq, record.seq);
  Json body = Json::object();
  for (const char* property : {"id", "permissionMode", "resource", "resourcePartitionKey"}) {
    if (definition.contains(property) && !definition[property].is_null()) body[property] = definition[property];
  }
  body["_rid"] = rid;
  body["_self"] = "dbs/" + ResourceId::ForDatabase(user.database_seq) + "/users/" +
                  SecurityResourceId::ForUser(user.database_seq, user.seq) + "/permissions/" + rid + "/";
  body["_etag"] = context_.NewEtag();
  body["_ts"] = NowSeconds();
  record.body = body.dump();
  Status written = existing ? txn.UpdatePermission(record) : txn.InsertPermission(record);
  if (written.code() == ErrorCode::kConflict) {
    // The id, or the resource: a user holds one permission per resource.
    COSMOS_ASSIGN_OR_RETURN(auto same_id, txn.FindPermission(user.seq, record.id));
    if (same_id && (!existing || same_id->seq != existing->seq)) return Status::Conflict(kIdExistsMessage);
    return Status::Conflict("The user holds a permission on resource '" + body["resource"].get<std::string>() +
                            "' already; a user may hold one permission per resource.");
  }
  COSMOS_RETURN_IF_ERROR(written);
  COSMOS_ASSIGN_OR_RETURN(const ResourceTokenSigner* signer, Signer(txn, /*create=*/true));
  (void)signer;  // made (and stored) if there was none; WithToken uses it
  COSMOS_ASSIGN_OR_RETURN(std::string answer, WithToken(txn, std::move(body), record, token_seconds));
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response = PermissionAnswer(std::move(answer), MetadataWriteCharge(), user);
  response.created = !existing;
  return response;
}

Result<ResourceResponse> Security::CreatePermission(const UserAddress& user, const std::string& body, bool upsert,
                                                    std::optional<int64_t> token_seconds) {
  COSMOS_ASSIGN_OR_RETURN(int64_t seconds, TokenSeconds(token_seconds));
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "permission definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindUser(txn, user, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto existing, txn.FindPermission(owner.seq, definition["id"].get<std::string>()));
  if (existing && !upsert) return Status::Conflict(kIdExistsMessage);
  return WritePermission(txn, owner, std::move(definition), std::move(existing), seconds);
}

Result<ResourceResponse> Security::ReadPermission(const PermissionAddress& permission,
                                                  std::optional<int64_t> token_seconds) {
  COSMOS_ASSIGN_OR_RETURN(int64_t seconds, TokenSeconds(token_seconds));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  int64_t user_seq = 0;
  COSMOS_ASSIGN_OR_RETURN(auto record, FindPermission(txn, permission, &user_seq));
  COSMOS_ASSIGN_OR_RETURN(std::string body, WithToken(txn, Json::parse(record.body), record, seconds));
  COSMOS_ASSIGN_OR_RETURN(auto user, txn.FindUserBySeq(user_seq));
  return PermissionAnswer(std::move(body), MetadataReadCharge(), *user);
}

Result<FeedResponse> Security::ListPermissions(const UserAddress& user, const FeedOptions& options,
                                               std::optional<int64_t> token_seconds) {
  COSMOS_ASSIGN_OR_RETURN(int64_t seconds, TokenSeconds(token_seconds));
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindUser(txn, user, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListPermissions(owner.seq, after, page_size + 1));
  for (PermissionRecord& record : records) {
    COSMOS_ASSIGN_OR_RETURN(record.body, WithToken(txn, Json::parse(record.body), record, seconds));
  }
  return SeqFeedPage(std::move(records), page_size, SecurityResourceId::ForUser(owner.database_seq, owner.seq),
                     "Permissions");
}

Result<ResourceResponse> Security::ReplacePermission(const PermissionAddress& permission, const std::string& body,
                                                     const Preconditions& preconditions,
                                                     std::optional<int64_t> token_seconds) {
  COSMOS_ASSIGN_OR_RETURN(int64_t seconds, TokenSeconds(token_seconds));
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "permission definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  int64_t user_seq = 0;
  COSMOS_ASSIGN_OR_RETURN(auto existing, FindPermission(txn, permission, &user_seq));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(existing.body)));
  COSMOS_ASSIGN_OR_RETURN(auto user, txn.FindUserBySeq(user_seq));
  return WritePermission(txn, *user, std::move(definition), std::move(existing), seconds);
}

Result<ResourceResponse> Security::DeletePermission(const PermissionAddress& permission,
                                                    const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  int64_t user_seq = 0;
  COSMOS_ASSIGN_OR_RETURN(auto record, FindPermission(txn, permission, &user_seq));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(record.body)));
  COSMOS_RETURN_IF_ERROR(txn.DeletePermission(record.seq));
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  return response;
}

Result<std::pair<std::vector<std::pair<int64_t, std::string>>, std::string>> Security::PermissionBodies(
    const UserAddress& user, std::optional<int64_t> token_seconds) {
  COSMOS_ASSIGN_OR_RETURN(int64_t seconds, TokenSeconds(token_seconds));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindUser(txn, user, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListPermissions(owner.seq));
  std::vector<std::pair<int64_t, std::string>> bodies;
  for (PermissionRecord& record : records) {
    COSMOS_ASSIGN_OR_RETURN(std::string body, WithToken(txn, Json::parse(record.body), record, seconds));
    bodies.emplace_back(record.seq, std::move(body));
  }
  return std::make_pair(std::move(bodies), SecurityResourceId::ForUser(owner.database_seq, owner.seq));
}

}  // namespace cosmos::engine
