#include "engine/partitioning/partition_key_ranges.h"

#include <charconv>

#include "engine/partitioning/partitioning.h"
#include "engine/shared/feeds.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {
namespace {

// The ranges feed as the service writes it. `since_version` > 0 lists only the ranges created
// after that version (the incremental feed), the ranges they replaced included.
PartitionKeyRangesResponse RangesFeed(const ResolvedContainer& container, int64_t container_lsn,
                                      int64_t since_version) {
  const RoutingMap& routing = container.routing;
  Json ranges = Json::array();
  double fraction = routing.online_count() == 0 ? 1.0 : 1.0 / static_cast<double>(routing.online_count());
  for (const RoutingMap::Range& range : routing.all()) {
    if (range.gone || range.version <= since_version) continue;
    std::string rid = ResourceId::ForPartitionKeyRange(container.database.seq, container.container.seq, range.id);
    Json parents = Json::parse(range.parents, nullptr, /*allow_exceptions=*/false);
    ranges.push_back(Json{{"_rid", rid},
                          {"id", std::to_string(range.id)},
                          {"_etag", QuotedNumber(range.version)},
                          {"minInclusive", range.min_inclusive},
                          {"maxExclusive", range.max_exclusive},
                          {"ridPrefix", range.id},
                          {"_self", ContainerSelf(container.database_rid, container.container_rid) + "pkranges/" + rid + "/"},
                          {"throughputFraction", fraction},
                          {"status", "online"},
                          {"parents", parents.is_array() ? parents : Json::array()},
                          {"_ts", container.properties["_ts"]},
                          {"lsn", container_lsn}});
  }
  PartitionKeyRangesResponse response;
  response.count = static_cast<int64_t>(ranges.size());
  response.body = Json{{"_rid", container.container_rid}, {"PartitionKeyRanges", std::move(ranges)},
                       {"_count", response.count}}.dump();
  response.etag = QuotedNumber(routing.version());
  response.owner_path = container.OwnerPath();
  response.owner_rid = container.container_rid;
  return response;
}

}  // namespace

PartitionKeyRanges::PartitionKeyRanges(AccountContext& context) : context_(context) {}

Result<PartitionKeyRangesResponse> PartitionKeyRanges::Read(const ContainerAddress& address,
                                                            const std::optional<std::string>& if_none_match,
                                                            bool incremental) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, address, /*as_owner=*/true));
  int64_t since_version = 0;
  if (incremental && if_none_match) {
    std::string text = *if_none_match;
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), since_version);
    if (error != std::errc() || end != text.data() + text.size()) since_version = 0;  // unknown: send all
  }
  if (since_version >= container->routing.version()) {
    PartitionKeyRangesResponse response;
    response.not_modified = true;
    response.etag = QuotedNumber(container->routing.version());
    response.owner_path = container->OwnerPath();
    response.owner_rid = container->container_rid;
    return response;
  }
  COSMOS_ASSIGN_OR_RETURN(int64_t container_lsn, VisibleLsn(txn, *container));
  return RangesFeed(*container, container_lsn, since_version);
}

Result<PartitionKeyRangesResponse> PartitionKeyRanges::Split(const ContainerAddress& address, int64_t range_id) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, address, /*as_owner=*/false));
  const RoutingMap::Range* range = container->routing.FindById(range_id);
  if (range == nullptr || range->gone) {
    return Status::NotFound("The partition key range " + std::to_string(range_id) + " is not an online range.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto children, SplitRange(container->partition_key, container->routing, *range));
  COSMOS_RETURN_IF_ERROR(txn.MarkPartitionKeyRangeGone(container->container.seq, range_id));
  for (const auto& child : children) {
    COSMOS_RETURN_IF_ERROR(txn.InsertPartitionKeyRange(container->container.seq, child));
  }
  context_.ChangeCatalog(txn);
  COSMOS_ASSIGN_OR_RETURN(auto updated, context_.FindContainer(txn, address, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return RangesFeed(*updated, updated->lsn, 0);
}

Status SplitRangesUntil(storage::Transaction& txn, const PartitionKeyDefinition& definition, int64_t container_seq,
                        size_t wanted) {
  while (true) {
    COSMOS_ASSIGN_OR_RETURN(auto ranges, txn.ListPartitionKeyRanges(container_seq));
    RoutingMap routing(std::move(ranges));
    if (routing.online_count() >= wanted) return Status();
    // The first of the online ranges with the fewest ancestors is the widest.
    const RoutingMap::Range* widest = nullptr;
    for (const RoutingMap::Range* range : routing.online()) {
      if (widest == nullptr || range->parents.size() < widest->parents.size()) widest = range;
    }
    COSMOS_ASSIGN_OR_RETURN(auto children, SplitRange(definition, routing, *widest));
    COSMOS_RETURN_IF_ERROR(txn.MarkPartitionKeyRangeGone(container_seq, widest->id));
    for (const auto& child : children) COSMOS_RETURN_IF_ERROR(txn.InsertPartitionKeyRange(container_seq, child));
  }
}

}  // namespace cosmos::engine
