// Security (security.h): users.
#include "engine/security/security.h"

#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/preconditions.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {

using storage::SeqKind;
using storage::UserRecord;

namespace {

std::string UserBody(const UserRecord& record, const std::string& etag) {
  std::string database_rid = ResourceId::ForDatabase(record.database_seq);
  std::string rid = SecurityResourceId::ForUser(record.database_seq, record.seq);
  Json body = {{"id", record.id},
               {"_rid", rid},
               {"_self", "dbs/" + database_rid + "/users/" + rid + "/"},
               {"_etag", etag},
               {"_permissions", "permissions/"},
               {"_ts", NowSeconds()}};
  return body.dump();
}

ResourceResponse UserAnswer(const UserRecord& record, const std::string& etag, double charge) {
  ResourceResponse response;
  response.body = record.body;
  response.etag = etag;
  response.request_charge = charge;
  response.owner_rid = ResourceId::ForDatabase(record.database_seq);
  return response;
}

Result<std::string> UserIdOf(const std::string& body) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "user definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  return definition["id"].get<std::string>();
}

}  // namespace

Security::Security(AccountContext& context) : context_(context) {}

Result<UserRecord> Security::FindUser(storage::Transaction& txn, const UserAddress& user, bool as_owner) {
  COSMOS_ASSIGN_OR_RETURN(auto database, engine::FindDatabase(txn, user.database, /*as_owner=*/true));
  std::optional<UserRecord> found;
  if (user.user.is_rid) {
    std::optional<SecurityResourceId> rid = SecurityResourceId::Parse(user.user.value);
    if (rid && rid->permission == 0 && rid->database == database.seq) {
      COSMOS_ASSIGN_OR_RETURN(found, txn.FindUserBySeq(rid->user));
    }
  } else {
    COSMOS_ASSIGN_OR_RETURN(found, txn.FindUser(database.seq, user.user.value));
  }
  if (!found) {
    return as_owner ? Status::OwnerResourceNotFound(kOwnerMissingMessage)
                    : Status::NotFound(kIdMissingMessage);
  }
  return std::move(*found);
}

Result<ResourceResponse> Security::CreateUser(const ResourceName& database, const std::string& body, bool upsert) {
  COSMOS_ASSIGN_OR_RETURN(std::string id, UserIdOf(body));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto owner, engine::FindDatabase(txn, database, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto existing, txn.FindUser(owner.seq, id));
  UserRecord record;
  if (existing) {
    if (!upsert) return Status::Conflict(kIdExistsMessage);
    record = std::move(*existing);
  } else {
    COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kUser));
    record.database_seq = owner.seq;
    record.id = id;
  }
  std::string etag = context_.NewEtag();
  record.body = UserBody(record, etag);
  Status written = existing ? txn.UpdateUser(record.seq, record.id, record.body) : txn.InsertUser(record);
  if (written.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(written);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response = UserAnswer(record, etag, MetadataWriteCharge());
  response.created = !existing;
  return response;
}

Result<ResourceResponse> Security::ReadUser(const UserAddress& user) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto record, FindUser(txn, user, /*as_owner=*/false));
  return UserAnswer(record, EtagOf(record.body), MetadataReadCharge());
}

Result<FeedResponse> Security::ListUsers(const ResourceName& database, const FeedOptions& options) {
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto owner, engine::FindDatabase(txn, database, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListUsers(owner.seq, after, page_size + 1));
  return SeqFeedPage(std::move(records), page_size, ResourceId::ForDatabase(owner.seq), "Users");
}

Result<ResourceResponse> Security::ReplaceUser(const UserAddress& user, const std::string& body,
                                               const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(std::string id, UserIdOf(body));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto record, FindUser(txn, user, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(record.body)));
  record.id = id;
  std::string etag = context_.NewEtag();
  record.body = UserBody(record, etag);
  Status written = txn.UpdateUser(record.seq, record.id, record.body);
  if (written.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(written);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return UserAnswer(record, etag, MetadataWriteCharge());
}

Result<ResourceResponse> Security::DeleteUser(const UserAddress& user, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto record, FindUser(txn, user, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(record.body)));
  COSMOS_RETURN_IF_ERROR(txn.DeleteUser(record.seq));
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  return response;
}

Result<std::pair<std::vector<std::pair<int64_t, std::string>>, std::string>> Security::UserBodies(
    const ResourceName& database) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto owner, engine::FindDatabase(txn, database, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListUsers(owner.seq));
  std::vector<std::pair<int64_t, std::string>> bodies;
  for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
  return std::make_pair(std::move(bodies), ResourceId::ForDatabase(owner.seq));
}

}  // namespace cosmos::engine
