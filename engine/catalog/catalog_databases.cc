// Catalog (catalog.h): databases.
#include "engine/catalog/catalog.h"

#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/preconditions.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {

using storage::DatabaseRecord;
using storage::SeqKind;

Catalog::Catalog(AccountContext& context) : context_(context) {}

Result<ResourceResponse> Catalog::CreateDatabase(const std::string& body, const ContainerThroughput& throughput) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "database definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_RETURN_IF_ERROR(CheckRequestedThroughput(throughput, context_.options().serverless));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  DatabaseRecord record;
  COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kDatabase));
  record.id = definition["id"].get<std::string>();
  std::string rid = ResourceId::ForDatabase(record.seq);
  std::string etag = context_.NewEtag();
  Json resource = {{"id", record.id},         {"_rid", rid},          {"_self", DatabaseSelf(rid)},
                   {"_etag", etag},           {"_colls", "colls/"},   {"_users", "users/"},
                   {"_ts", NowSeconds()}};
  record.body = resource.dump();
  Status inserted = txn.InsertDatabase(record);
  if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(inserted);
  if (throughput.given()) {
    COSMOS_RETURN_IF_ERROR(InsertOffer(txn, /*is_database=*/true, record.seq, DatabaseSelf(rid), rid, throughput));
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.body = std::move(record.body);
  response.etag = etag;
  response.request_charge = MetadataWriteCharge();
  return response;
}

Result<ResourceResponse> Catalog::ReadDatabase(const ResourceName& database) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto record, FindDatabase(txn, database, /*as_owner=*/false));
  ResourceResponse response;
  response.etag = EtagOf(record.body);
  response.body = std::move(record.body);
  response.request_charge = MetadataReadCharge();
  return response;
}

Result<FeedResponse> Catalog::ListDatabases(const FeedOptions& options) {
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListDatabases(after, page_size + 1));
  return SeqFeedPage(std::move(records), page_size, "", "Databases");
}

Result<ResourceResponse> Catalog::DeleteDatabase(const ResourceName& database,
                                                 const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto record, FindDatabase(txn, database, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(record.body)));
  COSMOS_RETURN_IF_ERROR(txn.DeleteDatabase(record.seq));
  context_.ChangeCatalog(txn);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  return response;
}

}  // namespace cosmos::engine
