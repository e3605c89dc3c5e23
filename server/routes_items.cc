// Routes (route_handlers.h): documents — point operations, the read feed, queries and query plans,
// the change feed, patch, partition deletes and batches.
#include "server/route_handlers.h"

#include <charconv>
#include <string_view>

#include "common/encoding.h"
#include "common/json.h"
#include "server/headers.h"
#include "server/request_reading.h"
#include "server/response_building.h"

namespace cosmos::server {

// --- Documents ----------------------------------------------------------------------------

// The latest-version change feed. Where it starts: If-None-Match "*" (now) or a previous page's
// etag (continue), If-Modified-Since (a point in time), or neither (the beginning).
Result<HttpResponse> ReadChangeFeed(const RouteCall& call) {
  const HttpRequest& request = call.request;
  std::string mode = ToLowerAscii(request.headers.Get(headers::kAIm).value_or(""));
  if (mode != "incremental feed" && mode != "full-fidelity feed") {
    return Status::BadRequest("A-IM must be 'Incremental feed' or 'Full-Fidelity Feed'.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
  engine::ChangeFeedRequest feed;
  feed.all_versions_and_deletes = mode == "full-fidelity feed";
  feed.container = DocumentsOf(call);
  feed.partition_key_header = request.headers.Get(headers::kPartitionKey);
  feed.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
  feed.start_epk = request.headers.Get(headers::kStartEpk);
  feed.end_epk = request.headers.Get(headers::kEndEpk);
  feed.max_item_count = options.max_item_count;
  std::optional<std::string> if_none_match = request.headers.Get(headers::kIfNoneMatch);
  std::optional<std::string> if_modified_since = request.headers.Get(headers::kIfModifiedSince);
  if (if_none_match && *if_none_match == "*") {
    feed.start_from = engine::ChangeFeedRequest::StartFrom::kNow;
  } else if (if_none_match && !if_none_match->empty()) {
    std::string_view text = *if_none_match;
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), feed.continuation_lsn);
    if (error != std::errc() || end != text.data() + text.size() || feed.continuation_lsn < 0) {
      return Status::BadRequest("The change feed continuation '" + *if_none_match + "' is malformed.");
    }
    feed.start_from = engine::ChangeFeedRequest::StartFrom::kContinuation;
  } else if (if_modified_since && !if_modified_since->empty()) {
    std::optional<int64_t> since = ParseHttpDate(*if_modified_since);
    if (!since) return Status::BadRequest("If-Modified-Since '" + *if_modified_since + "' is not an HTTP date.");
    feed.start_from = engine::ChangeFeedRequest::StartFrom::kTime;
    feed.since_seconds = *since;
  }
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.ReadChangeFeed(feed));
  std::string etag = page.etag;
  bool not_modified = page.not_modified;
  HttpResponse response = FromFeed(std::move(page), true);
  response.AddHeader(headers::kEtag, etag);
  if (not_modified) {
    response.status = 304;
    response.body.clear();
  }
  return response;
}

// GET .../docs: the change feed when the request names one (A-IM), else the documents.
Result<HttpResponse> ReadItemFeed(const RouteCall& call) {
  const HttpRequest& request = call.request;
  if (request.headers.Get(headers::kAIm)) return ReadChangeFeed(call);
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(request));
  options.partition_key_header = request.headers.Get(headers::kPartitionKey);
  options.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ReadItemFeed(DocumentsOf(call), options));
  return FromFeed(std::move(feed), true);
}

// One page of results, or the SDK's query plan.
Result<HttpResponse> QueryItems(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(request, DocumentsOf(call)));
  if (request.headers.IsTrue(headers::kIsQueryPlanRequest)) {
    COSMOS_ASSIGN_OR_RETURN(auto plan,
                            call.account.QueryPlan(query, request.headers.Get(headers::kSupportedQueryFeatures)));
    return FromQueryPlan(std::move(plan));
  }
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryItems(query));
  return FromQuery(std::move(page), true);
}

// Content-Location of a point operation: the document's name-based path, each id percent-encoded
// where a URL path may not carry it as is.
static std::string EncodePathSegment(const std::string& segment) {
  return PercentEncode(segment, "!$&'()*+,;=:@");  // RFC 3986: a path segment may carry these as they are
}

static HttpResponse WithContentLocation(HttpResponse response, const RouteCall& call, const std::string& id) {
  response.AddHeader(headers::kContentLocation, "/dbs/" + EncodePathSegment(NameAt(call.path, 0).value) + "/colls/" +
                                                    EncodePathSegment(NameAt(call.path, 1).value) + "/docs/" +
                                                    EncodePathSegment(id));
  return response;
}

// The write of the request's document, with the document as PrepareWrite parsed it.
static Result<engine::ItemWrite> ItemWriteOf(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(engine::ParsedItem* parsed_item, PreparedItem(call.context));
  return engine::ItemWrite{DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey),
                           call.request.body, PreconditionsOf(call.request), parsed_item};
}

static engine::ItemKey ItemKeyOf(const RouteCall& call) {
  return {DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey), NameAt(call.path, 2),
          call.request.headers.Get(headers::kConsistencyLevel)};
}

// The trigger ids of a header: comma-separated (the JS SDK joins them with ","; .NET sends a
// multi-value header, ", ").
static std::vector<std::string> TriggerIds(const HttpRequest& request, const char* header) {
  std::vector<std::string> ids;
  std::string value = request.headers.Get(header).value_or("");
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string id = value.substr(start, comma - start);
    id.erase(0, id.find_first_not_of(' '));
    id.erase(id.find_last_not_of(' ') + 1);
    if (!id.empty()) ids.push_back(std::move(id));
    start = comma + 1;
  }
  return ids;
}

// A write that names triggers: run with them (engine/scripts/scripts.h), or nullopt without.
static Result<std::optional<engine::ResourceResponse>> WithTriggers(const RouteCall& call,
                                                                    engine::TriggeredWrite::Operation operation,
                                                                    engine::ItemWrite write) {
  engine::TriggeredWrite triggered;
  triggered.pre_triggers = TriggerIds(call.request, headers::kPreTriggerInclude);
  triggered.post_triggers = TriggerIds(call.request, headers::kPostTriggerInclude);
  if (triggered.pre_triggers.empty() && triggered.post_triggers.empty()) return std::optional<engine::ResourceResponse>();
  triggered.operation = operation;
  triggered.write = std::move(write);
  // A create or an upsert addresses the feed: its key has no id.
  triggered.key = {DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey),
                   call.path.is_feed ? engine::ResourceName{} : NameAt(call.path, 2)};
  COSMOS_ASSIGN_OR_RETURN(auto written, call.account.WriteItemWithTriggers(triggered));
  return std::optional<engine::ResourceResponse>(std::move(written));
}

// A create, or an upsert with x-ms-documentdb-is-upsert.
Result<HttpResponse> CreateItem(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_RETURN_IF_ERROR(RejectUnsupportedPost(request));
  COSMOS_ASSIGN_OR_RETURN(engine::ItemWrite write, ItemWriteOf(call));
  bool upsert = request.headers.IsTrue(headers::kIsUpsert);
  using Operation = engine::TriggeredWrite::Operation;
  COSMOS_ASSIGN_OR_RETURN(auto triggered, WithTriggers(call, upsert ? Operation::kUpsert : Operation::kCreate, write));
  COSMOS_ASSIGN_OR_RETURN(auto written, triggered ? std::move(*triggered)
                                        : upsert ? call.account.UpsertItem(write)
                                                 : call.account.CreateItem(write));
  int status = written.created ? 201 : 200;
  // A pre-trigger may have renamed the document: its location is the written one's.
  std::string id = write.parsed != nullptr ? write.parsed->id : std::string();
  if (triggered) {
    Json document = Json::parse(written.body, nullptr, /*allow_exceptions=*/false);
    if (document.is_object() && document["id"].is_string()) id = document["id"].get<std::string>();
  }
  if (WantsMinimalResponse(request)) written.body.clear();
  return WithContentLocation(FromResource(std::move(written), status, true), call, id);
}

Result<HttpResponse> ReadItem(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto item, call.account.ReadItem(ItemKeyOf(call), PreconditionsOf(call.request)));
  int status = item.not_modified ? 304 : 200;
  return WithContentLocation(FromResource(std::move(item), status, true), call, NameAt(call.path, 2).value);
}

Result<HttpResponse> ReplaceItem(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(request));
  COSMOS_ASSIGN_OR_RETURN(engine::ItemWrite write, ItemWriteOf(call));
  COSMOS_ASSIGN_OR_RETURN(auto triggered, WithTriggers(call, engine::TriggeredWrite::Operation::kReplace, write));
  COSMOS_ASSIGN_OR_RETURN(auto replaced,
                          triggered ? std::move(*triggered) : call.account.ReplaceItem(write, NameAt(call.path, 2)));
  if (WantsMinimalResponse(request)) replaced.body.clear();
  return WithContentLocation(FromResource(std::move(replaced), 200, true), call, NameAt(call.path, 2).value);
}

Result<HttpResponse> DeleteItem(const RouteCall& call) {
  engine::ItemWrite write{DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey), {},
                         PreconditionsOf(call.request), nullptr};
  COSMOS_ASSIGN_OR_RETURN(auto triggered, WithTriggers(call, engine::TriggeredWrite::Operation::kDelete, write));
  COSMOS_ASSIGN_OR_RETURN(auto deleted, triggered ? std::move(*triggered)
                                                  : call.account.DeleteItem(ItemKeyOf(call), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, true);
}

// A partial document update. The SDKs send it with no Content-Type or application/json(_patch+json):
// none is required.
Result<HttpResponse> PatchItem(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto patched,
                          call.account.PatchItem(ItemKeyOf(call), call.request.body, PreconditionsOf(call.request)));
  if (WantsMinimalResponse(call.request)) patched.body.clear();
  return WithContentLocation(FromResource(std::move(patched), 200, true), call, NameAt(call.path, 2).value);
}

// POST /dbs/{db}/colls/{c}/operations/partitionkeydelete: every item of one logical partition
// (or hierarchical prefix) goes at once.
Result<HttpResponse> DeleteAllItemsByPartitionKey(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted, call.account.DeleteAllItemsByPartitionKey(
                                            DocumentsOf(call), call.request.headers.Get(headers::kPartitionKey)));
  return FromResource(std::move(deleted), 200, true);
}

// A transactional batch (x-ms-cosmos-batch-atomic: true, the default) or a bulk request.
Result<HttpResponse> ExecuteBatch(const RouteCall& call) {
  const HttpRequest& request = call.request;
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(request));
  engine::BatchRequest batch;
  batch.container = DocumentsOf(call);
  batch.body = request.body;
  batch.partition_key_header = request.headers.Get(headers::kPartitionKey);
  batch.partition_key_range_id = request.headers.Get(headers::kPartitionKeyRangeId);
  std::optional<std::string> atomic = request.headers.Get(headers::kIsBatchAtomic);
  batch.atomic = !atomic || request.headers.IsTrue(headers::kIsBatchAtomic);
  std::optional<std::string> continue_on_error = request.headers.Get(headers::kBatchContinueOnError);
  batch.continue_on_error = !continue_on_error || request.headers.IsTrue(headers::kBatchContinueOnError);
  COSMOS_ASSIGN_OR_RETURN(auto result, call.account.ExecuteBatch(batch));
  return FromBatch(std::move(result), WantsMinimalResponse(request));
}

}  // namespace cosmos::server
