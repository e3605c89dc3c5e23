#include "engine/scripts/partition_collection.h"

#include <cstdio>
#include <vector>

#include "common/json_parse.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {
namespace {

// The status number and code a script's error object carries (ErrorCodes in server_api.js): the
// HTTP status the same failure has on the wire.
std::pair<int, const char*> ScriptErrorOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadRequest:
    case ErrorCode::kPartitionKeyMismatch: return {400, "BadRequest"};
    case ErrorCode::kForbidden:
    case ErrorCode::kLogicalPartitionFull: return {403, "Forbidden"};
    case ErrorCode::kNotFound:
    case ErrorCode::kOwnerResourceNotFound: return {404, "NotFound"};
    case ErrorCode::kConflict: return {409, "Conflict"};
    case ErrorCode::kPreconditionFailed: return {412, "PreconditionFailed"};
    case ErrorCode::kRequestEntityTooLarge: return {413, "RequestEntityTooLarge"};
    case ErrorCode::kRequestRateTooLarge: return {429, "TooManyRequests"};
    case ErrorCode::kRequestTimeout: return {408, "RequestTimeout"};
    default: return {500, "InternalServerError"};
  }
}

std::string ErrorAnswer(const Status& status) {
  auto [number, code] = ScriptErrorOf(status.code());
  Json error = {{"number", number}, {"code", code}, {"message", status.message()}};
  return R"({"accepted":true,"error":)" + error.dump() + "}";
}

// A link's segments without the slashes around it: "/dbs/a/colls/b/" → {dbs, a, colls, b}.
std::vector<std::string> Segments(const std::string& link) {
  std::vector<std::string> segments;
  size_t start = 0;
  while (start <= link.size()) {
    size_t slash = link.find('/', start);
    if (slash == std::string::npos) slash = link.size();
    if (slash > start) segments.push_back(link.substr(start, slash - start));
    start = slash + 1;
  }
  return segments;
}

Status OutsideCollection(const std::string& link) {
  return Status::BadRequest(
      "Function is not allowed to operate on resources outside current collection. Make sure that the link "
      "provided, \"" + link + "\", belongs to current collection.");
}

const Json& OptionsOf(const Json& request) {
  static const Json kNone = Json::object();
  auto found = request.find("options");
  return found != request.end() && found->is_object() ? *found : kNone;
}

std::optional<std::string> StringOption(const Json& options, const char* name) {
  auto found = options.find(name);
  if (found == options.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

}  // namespace

PartitionCollection::PartitionCollection(Items& items, Queries& queries, storage::Transaction& txn,
                                         const ResolvedContainer& container, const ContainerAddress& address,
                                         std::string partition_key_header,
                                         std::chrono::steady_clock::time_point budget_ends)
    : items_(items),
      queries_(queries),
      txn_(txn),
      container_(container),
      address_(address),
      partition_key_header_(std::move(partition_key_header)),
      budget_ends_(budget_ends) {}

std::string PartitionCollection::SelfLink() const {
  return ContainerSelf(container_.database_rid, container_.container_rid);
}

std::string PartitionCollection::AltLink() const { return container_.OwnerPath(); }

Status PartitionCollection::CheckCollectionLink(const std::string& link) const {
  std::vector<std::string> segments = Segments(link);
  bool ours = segments.size() == 4 && segments[0] == "dbs" && segments[2] == "colls" &&
              ((segments[1] == container_.database_rid && segments[3] == container_.container_rid) ||
               (segments[1] == container_.database.id && segments[3] == container_.container.id));
  if (!ours) return OutsideCollection(link);
  return Status();
}

Result<ResourceName> PartitionCollection::DocumentOf(const std::string& link) const {
  std::vector<std::string> segments = Segments(link);
  if (segments.size() == 6 && segments[0] == "dbs" && segments[2] == "colls" && segments[4] == "docs") {
    if (segments[1] == container_.database_rid && segments[3] == container_.container_rid) {
      return ResourceName{segments[5], true};
    }
    if (segments[1] == container_.database.id && segments[3] == container_.container.id) {
      return ResourceName{segments[5], false};
    }
  }
  return OutsideCollection(link);
}

std::string PartitionCollection::Handle(std::string_view request_text) {
  if (std::chrono::steady_clock::now() >= budget_ends_) return R"({"accepted":false})";
  Json request = ParseJson(request_text);
  if (!request.is_object() || !request["op"].is_string() || !request["link"].is_string()) {
    return ErrorAnswer(Status::BadRequest("A collection call needs a link."));
  }
  const std::string op = request["op"].get<std::string>();
  // An operation that fails leaves nothing behind, whatever the script does next. Reads change
  // nothing, and a write refuses before its first change (items.h: the invariant the point writes'
  // unisolated transactions rely on) but for a unique key's conflict: only those writes need a part
  // of their own, which costs about a fifth of a create.
  const bool is_write = op == "create" || op == "upsert" || op == "replace" || op == "delete";
  const bool own_part = is_write && !container_.unique_keys.keys.empty();
  Status began = own_part ? txn_.BeginPart() : Status();
  if (!began.ok()) return ErrorAnswer(began);
  Result<std::string> answer = op == "create"    ? Write(request, Items::WriteMode::kCreate)
                               : op == "upsert"  ? Write(request, Items::WriteMode::kUpsert)
                               : op == "replace" ? Write(request, Items::WriteMode::kReplace)
                               : op == "delete"  ? Delete(request)
                               : op == "read"    ? Read(request)
                               : op == "query"   ? Query(request)
                                                 : Result<std::string>(Status::BadRequest("Unknown operation " + op));
  Status ended = own_part ? txn_.EndPart(answer.ok()) : Status();
  if (!ended.ok()) return ErrorAnswer(ended);
  if (!answer.ok()) return ErrorAnswer(answer.status());
  return std::move(*answer);
}

Result<std::string> PartitionCollection::Write(const Json& request, Items::WriteMode mode) {
  const std::string link = request["link"].get<std::string>();
  const Json& options = OptionsOf(request);
  std::optional<ResourceName> replaced;
  if (mode == Items::WriteMode::kReplace) {
    COSMOS_ASSIGN_OR_RETURN(replaced, DocumentOf(link));
  } else {
    COSMOS_RETURN_IF_ERROR(CheckCollectionLink(link));
  }
  // The document is given an id by server_api.js unless the script asked it not to.
  const Json& body = request.contains("body") ? request["body"] : Json();
  std::string text;
  COSMOS_ASSIGN_OR_RETURN(ParsedItem parsed, Items::ParseDocument(body, text));
  Preconditions preconditions;
  preconditions.if_match = StringOption(options, "etag");
  ItemWrite write{address_, partition_key_header_, text, preconditions, &parsed};
  Items::Step step(txn_, container_, /*admit=*/false);
  COSMOS_ASSIGN_OR_RETURN(ResourceResponse done,
                          items_.WriteIn(step, write, parsed, mode, replaced ? &*replaced : nullptr));
  request_charge_ += done.request_charge;
  ++documents_touched_;
  last_lsn_ = done.lsn;
  return R"({"accepted":true,"resource":)" + done.body + R"(,"options":{}})";
}

Result<std::string> PartitionCollection::Delete(const Json& request) {
  COSMOS_ASSIGN_OR_RETURN(ResourceName id, DocumentOf(request["link"].get<std::string>()));
  Preconditions preconditions;
  preconditions.if_match = StringOption(OptionsOf(request), "etag");
  Items::Step step(txn_, container_, /*admit=*/false);
  COSMOS_ASSIGN_OR_RETURN(ResourceResponse done,
                          items_.DeleteIn(step, ItemKey{address_, partition_key_header_, id}, preconditions));
  request_charge_ += done.request_charge;
  ++documents_touched_;
  last_lsn_ = done.lsn;
  return std::string(R"({"accepted":true,"options":{}})");
}

Result<std::string> PartitionCollection::Read(const Json& request) {
  COSMOS_ASSIGN_OR_RETURN(ResourceName id, DocumentOf(request["link"].get<std::string>()));
  Preconditions preconditions;
  preconditions.if_none_match = StringOption(OptionsOf(request), "ifNoneMatch");
  Items::Step step(txn_, container_, /*admit=*/false);
  COSMOS_ASSIGN_OR_RETURN(ResourceResponse done, items_.ReadIn(step, ItemKey{address_, partition_key_header_, id},
                                                               preconditions, ConsistencyLevel::kSession));
  request_charge_ += done.request_charge;
  ++documents_touched_;
  if (done.not_modified) return std::string(R"({"accepted":true,"options":{"notModified":true}})");
  return R"({"accepted":true,"resource":)" + done.body + R"(,"options":{}})";
}

Result<std::string> PartitionCollection::Query(const Json& request) {
  COSMOS_RETURN_IF_ERROR(CheckCollectionLink(request["link"].get<std::string>()));
  const Json& options = OptionsOf(request);
  Json query_body;
  const Json& query = request.contains("query") ? request["query"] : Json();
  if (query.is_string()) {
    query_body = {{"query", query}};
  } else if (query.is_object() && query.contains("query")) {
    query_body = query;
  } else {
    return Status::BadRequest("The query must be a string or an object with a string 'query'.");
  }
  std::string query_text = query_body.dump();
  QueryRequest page;
  page.container = address_;
  page.body = query_text;
  page.partition_key_header = partition_key_header_;
  if (auto size = options.find("pageSize"); size != options.end() && size->is_number_integer()) {
    page.max_item_count = size->get<int64_t>();
  }
  page.continuation = StringOption(options, "continuation");
  COSMOS_ASSIGN_OR_RETURN(QueryResponse done, queries_.QueryPartitionIn(txn_, container_, page));
  request_charge_ += done.request_charge;
  documents_touched_ += done.count;
  Json continuation = done.continuation ? Json(*done.continuation) : Json();
  return R"({"accepted":true,"resources":)" + done.body +
         R"(,"options":{"continuation":)" + continuation.dump() + "}}";
}

}  // namespace cosmos::engine
