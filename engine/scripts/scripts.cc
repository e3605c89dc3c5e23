#include "engine/scripts/scripts.h"

#include "common/encoding.h"
#include "engine/scripts/script_engine.h"
#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/preconditions.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {

using storage::ScriptRecord;
using storage::SeqKind;

const char* ScriptFeedKey(ScriptKind kind) {
  switch (kind) {
    case ScriptKind::kStoredProcedure: return "StoredProcedures";
    case ScriptKind::kTrigger: return "Triggers";
    case ScriptKind::kUserDefinedFunction: return "UserDefinedFunctions";
  }
  return "StoredProcedures";
}

namespace {

// Whether `value` is one of `allowed`, ignoring case; the canonical spelling when it is.
std::optional<std::string> OneOf(const Json& value, std::initializer_list<const char*> allowed) {
  if (!value.is_string()) return std::nullopt;
  std::string lowered = ToLowerAscii(value.get<std::string>());
  for (const char* name : allowed) {
    if (lowered == ToLowerAscii(name)) return std::string(name);
  }
  return std::nullopt;
}

// The definition's properties the service keeps, checked: id and body; a trigger's type and
// operation.
Result<Json> ScriptDefinition(ScriptKind kind, const std::string& text) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(text, "script definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  if (!definition.contains("body") || !definition["body"].is_string()) {
    return Status::BadRequest("The input content is invalid because the required properties - 'body; ' - are missing");
  }
  COSMOS_RETURN_IF_ERROR(ScriptEngine::CheckFunction(definition["body"].get<std::string>()));
  Json kept = {{"id", definition["id"]}, {"body", definition["body"]}};
  if (kind == ScriptKind::kTrigger) {
    auto type = OneOf(definition.value("triggerType", Json()), {"Pre", "Post"});
    if (!type) return Status::BadRequest("A trigger's triggerType must be \"Pre\" or \"Post\".");
    auto operation = OneOf(definition.value("triggerOperation", Json()),
                           {"All", "Create", "Replace", "Delete", "Update", "Upsert"});
    if (!operation) {
      return Status::BadRequest(
          "A trigger's triggerOperation must be \"All\", \"Create\", \"Replace\", \"Delete\", \"Update\" or \"Upsert\".");
    }
    kept["triggerType"] = *type;
    kept["triggerOperation"] = *operation;
  }
  return kept;
}

}  // namespace

const char* ScriptKindPath(ScriptKind kind) {
  switch (kind) {
    case ScriptKind::kStoredProcedure: return "sprocs";
    case ScriptKind::kTrigger: return "triggers";
    case ScriptKind::kUserDefinedFunction: return "udfs";
  }
  return "sprocs";
}

namespace {

// The stored body: the definition with the system properties.
std::string StoredBody(const ResolvedContainer& container, ScriptKind kind, int64_t seq, Json definition,
                       const std::string& etag) {
  std::string rid = ResourceId::ForScript(container.database.seq, container.container.seq, ScriptKindPath(kind), seq);
  definition["_rid"] = rid;
  definition["_self"] = ContainerSelf(container.database_rid, container.container_rid) + ScriptKindPath(kind) + "/" +
                        rid + "/";
  definition["_etag"] = etag;
  definition["_ts"] = NowSeconds();
  return definition.dump();
}

ResourceResponse Answer(const ResolvedContainer& container, std::string body, std::string etag, double charge) {
  ResourceResponse response;
  response.body = std::move(body);
  response.etag = std::move(etag);
  response.request_charge = charge;
  response.owner_path = container.OwnerPath();
  response.owner_rid = container.container_rid;
  return response;
}

}  // namespace

Scripts::Scripts(AccountContext& context, Admission& admission, Items& items, Queries& queries)
    : context_(context), admission_(admission), items_(items), queries_(queries) {}

Result<Scripts::FoundScript> Scripts::Find(storage::Transaction& txn, const ScriptAddress& address) {
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, address.container, /*as_owner=*/true));
  const char* kind = ScriptKindPath(address.kind);
  std::optional<ScriptRecord> found;
  if (address.id.is_rid) {
    std::optional<int64_t> seq = ResourceId::ParseScript(address.id.value, kind);
    if (seq) {
      COSMOS_ASSIGN_OR_RETURN(found, txn.FindScriptBySeq(*seq));
      if (found && (found->container_seq != container->container.seq || found->kind != kind)) found.reset();
    }
  } else {
    COSMOS_ASSIGN_OR_RETURN(found, txn.FindScript(container->container.seq, kind, address.id.value));
  }
  if (!found) return Status::NotFound(kIdMissingMessage);
  return FoundScript{std::move(container), std::move(*found)};
}

Result<ResourceResponse> Scripts::Create(const ScriptAddress& feed, const std::string& body, bool upsert) {
  COSMOS_ASSIGN_OR_RETURN(Json definition, ScriptDefinition(feed.kind, body));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, feed.container, /*as_owner=*/true));
  const char* kind = ScriptKindPath(feed.kind);
  std::string id = definition["id"].get<std::string>();
  COSMOS_ASSIGN_OR_RETURN(auto existing, txn.FindScript(container->container.seq, kind, id));
  if (existing && !upsert) return Status::Conflict(kIdExistsMessage);
  ScriptRecord record;
  if (existing) {
    record = std::move(*existing);
  } else {
    COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kScript));
    record.container_seq = container->container.seq;
    record.kind = kind;
    record.id = id;
  }
  std::string etag = context_.NewEtag();
  record.body = StoredBody(*container, feed.kind, record.seq, std::move(definition), etag);
  Status written = existing ? txn.UpdateScript(record.seq, record.id, record.body) : txn.InsertScript(record);
  if (written.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(written);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response = Answer(*container, std::move(record.body), etag, MetadataWriteCharge());
  response.created = !existing;
  return response;
}

Result<ResourceResponse> Scripts::Read(const ScriptAddress& script) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(FoundScript found, Find(txn, script));
  std::string etag = EtagOf(found.record.body);
  return Answer(*found.container, std::move(found.record.body), std::move(etag), MetadataReadCharge());
}

Result<FeedResponse> Scripts::List(const ScriptAddress& feed, const FeedOptions& options) {
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, feed.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records,
                          txn.ListScripts(container->container.seq, ScriptKindPath(feed.kind), after, page_size + 1));
  FeedResponse page = SeqFeedPage(std::move(records), page_size, container->container_rid, ScriptFeedKey(feed.kind));
  page.owner_path = container->OwnerPath();
  return page;
}

Result<ResourceResponse> Scripts::Replace(const ScriptAddress& script, const std::string& body,
                                          const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(Json definition, ScriptDefinition(script.kind, body));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(FoundScript found, Find(txn, script));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(found.record.body)));
  found.record.id = definition["id"].get<std::string>();
  std::string etag = context_.NewEtag();
  found.record.body = StoredBody(*found.container, script.kind, found.record.seq, std::move(definition), etag);
  Status written = txn.UpdateScript(found.record.seq, found.record.id, found.record.body);
  if (written.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(written);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return Answer(*found.container, std::move(found.record.body), etag, MetadataWriteCharge());
}

Result<ResourceResponse> Scripts::Delete(const ScriptAddress& script, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(FoundScript found, Find(txn, script));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(found.record.body)));
  COSMOS_RETURN_IF_ERROR(txn.DeleteScript(found.record.seq));
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response = Answer(*found.container, "", "", MetadataWriteCharge());
  return response;
}

Result<std::pair<std::vector<std::pair<int64_t, std::string>>, std::string>> Scripts::Bodies(
    const ScriptAddress& feed) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, feed.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListScripts(container->container.seq, ScriptKindPath(feed.kind)));
  std::vector<std::pair<int64_t, std::string>> bodies;
  for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
  return std::make_pair(std::move(bodies), container->container_rid);
}

}  // namespace cosmos::engine
