// Catalog (catalog.h): throughput offers.
#include "engine/catalog/catalog.h"

#include <algorithm>

#include "engine/partitioning/partition_key_ranges.h"
#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/preconditions.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {
namespace {

using storage::OfferRecord;
using storage::SeqKind;
using storage::Transaction;

constexpr char kOfferMissingMessage[] = "The offer with the specified id does not exist in the system.";

// The offer's resource: the container's or the database's seq, from its offerResourceId.
Result<OfferRecord> FindOfferByRid(Transaction& txn, const std::string& offer_rid) {
  std::optional<int64_t> seq = ResourceId::ParseOffer(offer_rid);
  if (!seq) return Status::NotFound(kOfferMissingMessage);
  COSMOS_ASSIGN_OR_RETURN(auto offer, txn.FindOfferBySeq(*seq));
  if (!offer) return Status::NotFound(kOfferMissingMessage);
  return std::move(*offer);
}

// The lowest manual RU/s an offer may be set to, from the most it ever had.
int64_t MinimumThroughputOf(const Json& offer) {
  const Json& parameters = offer["content"].value("offerMinimumThroughputParameters", Json::object());
  return MinimumThroughput(parameters.value("maxThroughputEverProvisioned", int64_t{0}));
}

}  // namespace

Status Catalog::InsertOffer(Transaction& txn, bool is_database, int64_t resource_seq, const std::string& resource_self,
                            const std::string& resource_rid, const ContainerThroughput& throughput) {
  OfferRecord record;
  COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kOffer));
  record.resource_seq = resource_seq;
  record.is_database = is_database;
  OfferIdentity identity{ResourceId::ForOffer(record.seq), resource_self, resource_rid};
  record.body = OfferBody(identity, throughput, throughput.ru_per_second(), context_.NewEtag(), NowSeconds()).dump();
  return txn.InsertOffer(record);
}

Result<ResourceResponse> Catalog::ReadOffer(const std::string& offer_rid) {
  if (context_.options().serverless) return Status::BadRequest(kServerlessOffersMessage);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto offer, FindOfferByRid(txn, offer_rid));
  ResourceResponse response;
  response.offer_min_throughput = MinimumThroughputOf(Json::parse(offer.body));
  response.etag = EtagOf(offer.body);
  response.body = std::move(offer.body);
  response.request_charge = MetadataReadCharge();
  return response;
}

Result<FeedResponse> Catalog::ListOffers(const FeedOptions& options) {
  if (context_.options().serverless) return Status::BadRequest(kServerlessOffersMessage);
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListOffers(after, page_size + 1));
  return SeqFeedPage(std::move(records), page_size, "", "Offers");
}

Result<ResourceResponse> Catalog::ReplaceOffer(const std::string& offer_rid, const std::string& body,
                                               const Preconditions& preconditions) {
  if (context_.options().serverless) return Status::BadRequest(kServerlessOffersMessage);
  COSMOS_ASSIGN_OR_RETURN(auto replacement, ParseObject(body, "offer"));
  COSMOS_ASSIGN_OR_RETURN(auto throughput, ThroughputOfOffer(replacement));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto offer, FindOfferByRid(txn, offer_rid));
  Json current = Json::parse(offer.body);
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, current["_etag"].get<std::string>()));
  if (replacement.contains("offerResourceId") && replacement["offerResourceId"] != current["offerResourceId"]) {
    return Status::BadRequest("The offerResourceId of an offer cannot be changed.");
  }
  int64_t max_ever = current["content"]["offerMinimumThroughputParameters"].value("maxThroughputEverProvisioned",
                                                                                   int64_t{0});
  COSMOS_RETURN_IF_ERROR(ValidateThroughput(throughput, max_ever));
  max_ever = std::max(max_ever, throughput.ru_per_second());
  OfferIdentity identity{current["_rid"].get<std::string>(), current["resource"].get<std::string>(),
                         current["offerResourceId"].get<std::string>()};
  std::string etag = context_.NewEtag();
  std::string updated = OfferBody(identity, throughput, max_ever, etag, NowSeconds()).dump();
  COSMOS_RETURN_IF_ERROR(txn.UpdateOfferBody(offer.seq, updated));
  if (!offer.is_database) {
    // More throughput than the ranges can serve: split, as the service does, to 10,000 RU/s each.
    COSMOS_ASSIGN_OR_RETURN(auto record, txn.FindContainerBySeq(offer.resource_seq));
    if (record) {
      COSMOS_ASSIGN_OR_RETURN(auto definition, PartitionKeyDefinition::Parse(Json::parse(record->body)["partitionKey"]));
      size_t wanted = static_cast<size_t>((throughput.ru_per_second() + kThroughputPerPhysicalPartition - 1) /
                                          kThroughputPerPhysicalPartition);
      COSMOS_RETURN_IF_ERROR(SplitRangesUntil(txn, definition, record->seq, wanted));
    }
  }
  context_.ChangeCatalog(txn);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.offer_min_throughput = MinimumThroughput(max_ever);
  response.body = std::move(updated);
  response.etag = std::move(etag);
  response.request_charge = MetadataWriteCharge();
  return response;
}

}  // namespace cosmos::engine
