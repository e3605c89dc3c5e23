#include "engine/change_feed/change_feed.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json_parse.h"
#include "engine/items/time_to_live.h"
#include "engine/shared/feeds.h"

namespace cosmos::engine {
namespace {

// A change-feed page. An empty page that `may_end` the feed is 304: nothing new, and every later
// change in the scope will take an LSN above the container's, so the etag moves there.
// `container_lsn`: the container's LSN as the reading transaction sees it.
ChangeFeedResponse ChangeFeedPage(const ResolvedContainer& container, int64_t container_lsn, const RequestScope& scope,
                                  std::vector<std::string> bodies, size_t bytes, int64_t after_lsn, int64_t reached,
                                  bool may_end) {
  ChangeFeedResponse response;
  response.not_modified = bodies.empty() && may_end;
  if (response.not_modified) reached = std::max(after_lsn, container_lsn);
  response.etag = QuotedNumber(reached);
  response.count = static_cast<int64_t>(bodies.size());
  response.body = FeedBody(container.container_rid, "Documents", bodies);
  response.request_charge = bodies.empty() ? MetadataReadCharge() : ReadCharge(bytes);
  response.lsn = container_lsn;
  response.owner_path = container.OwnerPath();
  response.owner_rid = container.container_rid;
  response.range_ids = scope.range_ids;
  return response;
}

// A transactional batch writes at most this many documents under one LSN.
constexpr int64_t kMaxWritesPerLsn = 100;

// The entries of a change-log row: one, or a batch's joined by commas (storage/store.h), which are
// parsed apart (a row of one entry is passed on as it is).
void AppendEntries(std::string row, std::vector<std::string>& bodies) {
  Json entries = ParseJson("[" + row + "]");
  if (!entries.is_array() || entries.size() <= 1) {
    bodies.push_back(std::move(row));
    return;
  }
  for (const Json& entry : entries) bodies.push_back(entry.dump());
}

// The stored text with "_lsn" added, as the change feed returns documents.
std::string WithLsn(std::string body, int64_t lsn) {
  size_t end = body.rfind('}');
  if (end == std::string::npos) return body;
  std::string field = ",\"_lsn\":";
  field += std::to_string(lsn);
  body.insert(end, field);
  return body;
}

}  // namespace

ChangeFeed::ChangeFeed(AccountContext& context, Admission& admission) : context_(context), admission_(admission) {}

Result<ChangeFeedResponse> ChangeFeed::Read(const ChangeFeedRequest& request) {
  std::shared_ptr<const ResolvedContainer> container;
  std::optional<Result<ChangeFeedResponse>> page;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
    COSMOS_ASSIGN_OR_RETURN(container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
    COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                     {request.partition_key_header, request.partition_key_range_id,
                                                      request.start_epk, request.end_epk}));
    // A feed read uses the throughput of the partitions it reads, as any read does.
    COSMOS_RETURN_IF_ERROR(admission_.Admit(*container, scope.range_ids));
    if (!request.all_versions_and_deletes) {
      page = ReadLatestVersions(txn, *container, scope, request);
    } else if (container->change_log_retention_s > 0) {
      page = ReadChangeLog(txn, *container, scope, request);
    }
  }
  // Started outside the read: an in-memory store's reads hold the lock a write needs.
  if (!page) page = StartChangeLog(request);
  if (page->ok()) admission_.Charge(*container, page->value().range_ids, page->value().request_charge);
  return std::move(*page);
}

Result<ChangeFeedResponse> ChangeFeed::ReadLatestVersions(storage::Transaction& txn, const ResolvedContainer& container,
                                                          const RequestScope& scope, const ChangeFeedRequest& request) {
  int64_t page_items = PageSize(request.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(int64_t container_lsn, VisibleLsn(txn, container));
  int64_t after_lsn = 0;
  std::optional<int64_t> since;
  switch (request.start_from) {
    case ChangeFeedRequest::StartFrom::kBeginning: break;
    case ChangeFeedRequest::StartFrom::kNow: after_lsn = container_lsn; break;
    case ChangeFeedRequest::StartFrom::kTime: since = request.since_seconds; break;
    case ChangeFeedRequest::StartFrom::kContinuation: after_lsn = request.continuation_lsn; break;
  }
  std::vector<storage::DocumentRecord> rows;
  if (request.start_from != ChangeFeedRequest::StartFrom::kNow) {
    COSMOS_ASSIGN_OR_RETURN(rows, txn.ListChanges(container.container.seq, scope.documents, after_lsn, page_items,
                                                  since));
  }
  // A full page may end inside the documents of one transactional batch, which share an LSN; the
  // next page continues after that LSN, so the page takes the whole batch.
  bool more = static_cast<int64_t>(rows.size()) == page_items;
  if (more && !rows.empty()) {
    const int64_t last_lsn = rows.back().lsn;
    COSMOS_ASSIGN_OR_RETURN(auto group, txn.ListChanges(container.container.seq, scope.documents, last_lsn - 1,
                                                        kMaxWritesPerLsn, since));
    while (!rows.empty() && rows.back().lsn == last_lsn) rows.pop_back();
    for (auto& row : group) {
      if (row.lsn == last_lsn) rows.push_back(std::move(row));
    }
  }
  std::vector<std::string> bodies;
  size_t bytes = 0;
  int64_t reached = after_lsn;
  int64_t now = NowSeconds();
  for (auto& row : rows) {
    // The byte limit ends a page only between LSNs, never inside a batch.
    if (bytes > 0 && bytes + row.body.size() > kMaxPageBytes && row.lsn != reached) break;
    reached = row.lsn;
    if (IsExpired(row, now)) continue;  // time to live: invisible from its expiry
    bytes += row.body.size();
    bodies.push_back(WithLsn(std::move(row.body), row.lsn));
  }
  // A full page of expired documents is progress, not the end: it answers an empty page.
  return ChangeFeedPage(container, container_lsn, scope, std::move(bodies), bytes, after_lsn, reached, !more);
}

// The first all-versions read of a container without a changeFeedPolicy: the mode reads from now
// on, so the log it needs starts here. Every later write of the container is logged, and this
// request answers as from now: nothing yet, continuing at the container's LSN.
Result<ChangeFeedResponse> ChangeFeed::StartChangeLog(const ChangeFeedRequest& request) {
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
    COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
    if (container->change_log_retention_s == 0) {
      COSMOS_RETURN_IF_ERROR(txn.StartChangeLog(container->container.seq, container->lsn));
      context_.ChangeCatalog(txn);
      COSMOS_RETURN_IF_ERROR(txn.Commit());
    }
  }
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                   {request.partition_key_header, request.partition_key_range_id,
                                                    request.start_epk, request.end_epk}));
  ChangeFeedRequest from_now = request;
  from_now.start_from = ChangeFeedRequest::StartFrom::kNow;
  return ReadChangeLog(txn, *container, scope, from_now);
}

Result<ChangeFeedResponse> ChangeFeed::ReadChangeLog(storage::Transaction& txn, const ResolvedContainer& container,
                                                     const RequestScope& scope, const ChangeFeedRequest& request) {
  if (request.start_from != ChangeFeedRequest::StartFrom::kNow &&
      request.start_from != ChangeFeedRequest::StartFrom::kContinuation) {
    return Status::BadRequest("The all versions and deletes change feed starts from now or from a continuation only.");
  }
  COSMOS_ASSIGN_OR_RETURN(int64_t container_lsn, VisibleLsn(txn, container));
  int64_t after_lsn =
      request.start_from == ChangeFeedRequest::StartFrom::kNow ? container_lsn : request.continuation_lsn;
  std::vector<std::pair<int64_t, std::string>> entries;
  if (request.start_from == ChangeFeedRequest::StartFrom::kContinuation) {
    COSMOS_ASSIGN_OR_RETURN(entries, txn.ListChangeLog(container.container.seq, scope.documents, after_lsn,
                                                       PageSize(request.max_item_count)));
  }
  std::vector<std::string> bodies;
  int64_t reached = after_lsn;
  size_t bytes = 0;
  for (auto& [lsn, entry] : entries) {
    if (bytes > 0 && bytes + entry.size() > kMaxPageBytes) break;
    bytes += entry.size();
    reached = lsn;
    AppendEntries(std::move(entry), bodies);
  }
  return ChangeFeedPage(container, container_lsn, scope, std::move(bodies), bytes, after_lsn, reached,
                        /*may_end=*/true);
}

}  // namespace cosmos::engine
