#include "engine/account.h"

#include <charconv>
#include <chrono>
#include <cstdio>

#include "common/json.h"
#include "common/json_scan.h"
#include "engine/container_cache.h"
#include "engine/container_definition.h"
#include "engine/partition_key.h"
#include "engine/request_charge.h"
#include "engine/resource_id.h"
#include "query/execution/executor.h"
#include "query/plan/query_plan.h"

namespace cosmos::engine {
namespace {

using storage::ContainerRecord;
using storage::DatabaseRecord;
using storage::DocumentRecord;
using storage::SeqKind;
using storage::Transaction;

// Messages as the service words them, so that users can search for them.
constexpr char kIdExistsMessage[] = "Entity with the specified id already exists in the system.";
constexpr char kIdMissingMessage[] = "Entity with the specified id does not exist in the system.";
constexpr char kOwnerMissingMessage[] = "Owner resource does not exist";
constexpr char kPreconditionMessage[] =
    "Operation cannot be performed because one of the specified precondition is not met.";
constexpr char kPartitionKeyMismatchMessage[] =
    "PartitionKey extracted from document doesn't match the one specified in the header.";
constexpr char kPartitionKeyMissingMessage[] =
    "The partition key supplied in x-ms-partitionkey header has fewer components than defined in "
    "the the collection.";
constexpr char kUniqueKeyMessage[] = "Unique index constraint violation.";

// Pages of a feed stop at this many items or roughly this many bytes, whichever comes first.
constexpr int64_t kDefaultPageItems = 100;
constexpr int64_t kMaxPageItems = 1000;
constexpr size_t kMaxPageBytes = 4 * 1024 * 1024;

// Properties the service owns on every document; client-sent values are replaced.
constexpr const char* kDocumentSystemProperties[] = {"_rid", "_self", "_etag", "_attachments", "_ts"};

struct SystemProperties {
  std::string rid;
  std::string self;
  std::string etag;
  int64_t ts = 0;
};

// The stored text of a document: the client's properties, then the system properties.
// A compact body without system properties of its own is extended in place; anything else is
// re-serialized from the parsed document.
std::string DocumentText(std::string_view body, bool compact, Json& document,
                         const SystemProperties& system) {
  bool has_system_property = false;
  for (const char* name : kDocumentSystemProperties) has_system_property |= document.contains(name);
  if (compact && !has_system_property && body.size() > 2 && body.back() == '}') {
    std::string text;
    text.reserve(body.size() + 160);
    text.append(body, 0, body.size() - 1);
    text += ",\"_rid\":\"" + system.rid + "\",\"_self\":\"" + system.self + "\",\"_etag\":" +
            Json(system.etag).dump() + ",\"_attachments\":\"attachments/\",\"_ts\":" +
            std::to_string(system.ts) + "}";
    return text;
  }
  for (const char* name : kDocumentSystemProperties) document.erase(name);
  document["_rid"] = system.rid;
  document["_self"] = system.self;
  document["_etag"] = system.etag;
  document["_attachments"] = "attachments/";
  document["_ts"] = system.ts;
  return document.dump();
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The service's nesting limit; it also keeps recursive JSON serialization off a deep stack.
constexpr int kMaxNestingDepth = 128;

struct TextShape {
  int depth = 0;         // deepest nesting of objects and arrays
  bool compact = true;   // no whitespace outside strings
};

// One pass over JSON text, ignoring what is inside strings.
TextShape ShapeOf(std::string_view text) {
  TextShape shape;
  int depth = 0;
  bool in_string = false;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    char c = text[pos];
    if (in_string) {
      if (c == '\\') {
        ++pos;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      shape.depth = std::max(shape.depth, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      shape.compact = false;
    }
  }
  return shape;
}

// Parses a JSON object. `compact`, when given, tells whether the text has no whitespace outside
// strings (then it can be extended in place instead of re-serialized).
Result<Json> ParseObject(std::string_view body, const char* what, bool* compact = nullptr) {
  TextShape shape = ShapeOf(body);
  if (compact) *compact = shape.compact;
  if (shape.depth > kMaxNestingDepth) {
    return Status::BadRequest(std::string("The ") + what + " nests deeper than 128 levels.");
  }
  Json parsed = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return Status::BadRequest(std::string("The ") + what + " is not valid JSON.");
  }
  if (!parsed.is_object()) {
    return Status::BadRequest(std::string("The ") + what + " must be a JSON object.");
  }
  return parsed;
}

size_t CodePoints(const std::string& utf8) {
  size_t count = 0;
  for (unsigned char c : utf8) count += (c & 0xC0) != 0x80;
  return count;
}

bool HasForbiddenIdCharacter(const std::string& id) {
  return id.find_first_of("/\\?#") != std::string::npos;
}

// Database and container ids.
Status ValidateResourceId(const Json& object) {
  auto id = object.find("id");
  if (id == object.end()) {
    return Status::BadRequest("The input content is invalid because the required properties - 'id; ' - are missing");
  }
  if (!id->is_string() || id->get<std::string>().empty()) {
    return Status::BadRequest("The id must be a non-empty string.");
  }
  const std::string& text = id->get_ref<const std::string&>();
  if (CodePoints(text) > kMaxResourceNameChars) {
    return Status::BadRequest("The id '" + text.substr(0, 40) + "...' is longer than 255 characters.");
  }
  if (HasForbiddenIdCharacter(text) || text.back() == ' ') {
    return Status::BadRequest("The id '" + text +
                              "' is invalid: it cannot contain '/', '\\', '?' or '#' or end with a space.");
  }
  return Status();
}

Status ValidateItemId(const Json& document) {
  auto id = document.find("id");
  if (id == document.end()) {
    return Status::BadRequest("The input content is invalid because the required properties - 'id; ' - are missing");
  }
  if (!id->is_string()) return Status::BadRequest("The id of a document must be a string.");
  const std::string& text = id->get_ref<const std::string&>();
  if (text.empty()) return Status::BadRequest("The id of a document cannot be empty.");
  if (text.size() > kMaxItemIdBytes) {
    return Status::BadRequest("The id of a document is longer than 1023 bytes.");
  }
  if (HasForbiddenIdCharacter(text)) {
    return Status::BadRequest("The id '" + text +
                              "' is invalid: it cannot contain '/', '\\', '?' or '#'.");
  }
  return Status();
}

std::string DatabaseSelf(const std::string& database_rid) { return "dbs/" + database_rid + "/"; }

std::string ContainerSelf(const std::string& database_rid, const std::string& container_rid) {
  return "dbs/" + database_rid + "/colls/" + container_rid + "/";
}

// Finds a database by id or rid. As the target of the request a missing database is
// kNotFound; as the owner of the target it is kOwnerResourceNotFound.
Result<DatabaseRecord> FindDatabase(Transaction& txn, const ResourceName& name, bool as_owner) {
  std::optional<DatabaseRecord> found;
  if (name.is_rid) {
    std::optional<ResourceId> rid = ResourceId::Parse(name.value);
    if (rid && rid->container == 0) {
      COSMOS_ASSIGN_OR_RETURN(found, txn.FindDatabaseBySeq(rid->database));
    }
  } else {
    COSMOS_ASSIGN_OR_RETURN(found, txn.FindDatabase(name.value));
  }
  if (!found) {
    return as_owner ? Status::OwnerResourceNotFound(kOwnerMissingMessage)
                    : Status::NotFound(kIdMissingMessage);
  }
  return std::move(*found);
}

// The partition key a point operation names in its header. Required on every item operation.
Result<PartitionKeyValue> HeaderPartitionKey(const ResolvedContainer& container,
                                             const std::optional<std::string>& header) {
  if (!header || header->empty()) return Status::BadRequest(kPartitionKeyMissingMessage);
  return PartitionKeyValue::FromHeader(container.partition_key, *header);
}

Result<std::optional<DocumentRecord>> FindItem(Transaction& txn, const ResolvedContainer& container,
                                               const ItemKey& key) {
  COSMOS_ASSIGN_OR_RETURN(auto partition_key, HeaderPartitionKey(container, key.partition_key_header));
  if (key.id.is_rid) {
    std::optional<ResourceId> rid = ResourceId::Parse(key.id.value);
    if (!rid || rid->document == 0 || rid->container != container.container.seq) {
      return std::optional<DocumentRecord>();
    }
    COSMOS_ASSIGN_OR_RETURN(auto found, txn.FindDocumentBySeq(container.container.seq, rid->document));
    if (found && found->partition_key != partition_key.StorageKey()) found.reset();
    return found;
  }
  return txn.FindDocument(container.container.seq, partition_key.StorageKey(), key.id.value);
}

int64_t PageSize(int64_t max_item_count) {
  if (max_item_count > 0) return std::min(max_item_count, kMaxPageItems);
  return max_item_count == -1 ? kMaxPageItems : kDefaultPageItems;
}

// Database and container feeds continue after the sequence number of the last resource returned.
Result<int64_t> SeqContinuation(const std::optional<std::string>& continuation) {
  if (!continuation || continuation->empty()) return int64_t{0};
  int64_t seq = 0;
  auto [end, error] = std::from_chars(continuation->data(), continuation->data() + continuation->size(), seq);
  if (error != std::errc() || end != continuation->data() + continuation->size() || seq < 0) {
    return Status::BadRequest("The continuation token '" + *continuation + "' is malformed.");
  }
  return seq;
}

std::string EtagOf(const std::string& resource_body) {
  return Json::parse(resource_body)["_etag"].get<std::string>();
}

Status CheckIfMatch(const Preconditions& preconditions, const std::string& current_etag) {
  if (preconditions.if_match && *preconditions.if_match != "*" && *preconditions.if_match != current_etag) {
    return Status::PreconditionFailed(kPreconditionMessage);
  }
  return Status();
}

// Assembles {"_rid":..., "<key>":[bodies...], "_count":N} without re-parsing the bodies.
std::string FeedBody(const std::string& owner_rid, const char* key,
                     const std::vector<std::string>& bodies) {
  size_t total = 64 + owner_rid.size();
  for (const std::string& body : bodies) total += body.size() + 1;
  std::string out;
  out.reserve(total);
  out += "{\"_rid\":";
  out += Json(owner_rid).dump();
  out += ",\"";
  out += key;
  out += "\":[";
  for (size_t index = 0; index < bodies.size(); ++index) {
    if (index > 0) out += ',';
    out += bodies[index];
  }
  out += "],\"_count\":";
  out += std::to_string(bodies.size());
  out += '}';
  return out;
}

}  // namespace

Account::Account(std::unique_ptr<storage::Store> store)
    : store_(std::move(store)),
      etag_counter_(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count())) {}

// The address as the request spelled it: each part by name or by rid, length-prefixed.
std::string CacheKey(const ContainerAddress& address) {
  std::string key;
  for (const ResourceName* name : {&address.database, &address.container}) {
    key += name->is_rid ? 'r' : 'n';
    key += std::to_string(name->value.size()) + ':' + name->value;
  }
  return key;
}

Result<std::shared_ptr<const ResolvedContainer>> Account::FindContainer(Transaction& txn,
                                                                        const ContainerAddress& address,
                                                                        bool as_owner) {
  std::string key = CacheKey(address);
  if (auto cached = containers_.Find(key)) return cached;

  COSMOS_ASSIGN_OR_RETURN(auto database, FindDatabase(txn, address.database, /*as_owner=*/true));
  std::optional<ContainerRecord> found;
  if (address.container.is_rid) {
    std::optional<ResourceId> rid = ResourceId::Parse(address.container.value);
    if (rid && rid->database == database.seq && rid->container != 0 && rid->document == 0) {
      COSMOS_ASSIGN_OR_RETURN(found, txn.FindContainerBySeq(database.seq, rid->container));
    }
  } else {
    COSMOS_ASSIGN_OR_RETURN(found, txn.FindContainer(database.seq, address.container.value));
  }
  if (!found) {
    return as_owner ? Status::OwnerResourceNotFound(kOwnerMissingMessage)
                    : Status::NotFound(kIdMissingMessage);
  }
  auto resolved = std::make_shared<ResolvedContainer>();
  resolved->properties = Json::parse(found->body);
  COSMOS_ASSIGN_OR_RETURN(resolved->partition_key,
                          PartitionKeyDefinition::Parse(resolved->properties["partitionKey"]));
  resolved->unique_keys = UniqueKeyPolicy::FromDefinition(resolved->properties);
  resolved->database_rid = ResourceId::ForDatabase(database.seq);
  resolved->container_rid = ResourceId::ForContainer(database.seq, found->seq);
  resolved->lsn = found->lsn;
  resolved->database = std::move(database);
  resolved->container = std::move(*found);
  containers_.Insert(key, resolved);
  return std::shared_ptr<const ResolvedContainer>(std::move(resolved));
}

std::string Account::NewEtag() {
  uint64_t value = etag_counter_.fetch_add(1, std::memory_order_relaxed);
  char text[48];
  std::snprintf(text, sizeof text, "\"00000000-0000-0000-%04x-%012llx\"",
                static_cast<unsigned>((value >> 48) & 0xFFFF),
                static_cast<unsigned long long>(value & 0xFFFFFFFFFFFFULL));
  return text;
}

// ---- Databases ---------------------------------------------------------------------------

Result<ResourceResponse> Account::CreateDatabase(const std::string& body) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "database definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  DatabaseRecord record;
  COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kDatabase));
  record.id = definition["id"].get<std::string>();
  std::string rid = ResourceId::ForDatabase(record.seq);
  std::string etag = NewEtag();
  Json resource = {{"id", record.id},         {"_rid", rid},          {"_self", DatabaseSelf(rid)},
                   {"_etag", etag},           {"_colls", "colls/"},   {"_users", "users/"},
                   {"_ts", NowSeconds()}};
  record.body = resource.dump();
  Status inserted = txn.InsertDatabase(record);
  if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(inserted);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.body = std::move(record.body);
  response.etag = etag;
  response.request_charge = MetadataWriteCharge();
  return response;
}

Result<ResourceResponse> Account::ReadDatabase(const ResourceName& database) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto record, FindDatabase(txn, database, /*as_owner=*/false));
  ResourceResponse response;
  response.etag = EtagOf(record.body);
  response.body = std::move(record.body);
  response.request_charge = MetadataReadCharge();
  return response;
}

Result<FeedResponse> Account::ListDatabases(const FeedOptions& options) {
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListDatabases(after, page_size + 1));
  FeedResponse response;
  if (static_cast<int64_t>(records.size()) > page_size) {
    records.resize(page_size);
    response.continuation = std::to_string(records.back().seq);
  }
  std::vector<std::string> bodies;
  for (auto& record : records) bodies.push_back(std::move(record.body));
  response.count = static_cast<int64_t>(bodies.size());
  response.body = FeedBody("", "Databases", bodies);
  response.request_charge = MetadataReadCharge();
  return response;
}

Result<ResourceResponse> Account::DeleteDatabase(const ResourceName& database,
                                                 const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto record, FindDatabase(txn, database, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, EtagOf(record.body)));
  COSMOS_RETURN_IF_ERROR(txn.DeleteDatabase(record.seq));
  containers_.Clear();
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  return response;
}

// ---- Containers --------------------------------------------------------------------------

Result<ResourceResponse> Account::CreateContainer(const ResourceName& database,
                                                  const std::string& body) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "container definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_ASSIGN_OR_RETURN(auto normalized, NormalizeContainerDefinition(definition));
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindDatabase(txn, database, /*as_owner=*/true));
  ContainerRecord record;
  COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kContainer));
  record.database_seq = owner.seq;
  record.id = normalized["id"].get<std::string>();
  std::string database_rid = ResourceId::ForDatabase(owner.seq);
  std::string rid = ResourceId::ForContainer(owner.seq, record.seq);
  std::string etag = NewEtag();
  normalized["_rid"] = rid;
  normalized["_ts"] = NowSeconds();
  normalized["_self"] = ContainerSelf(database_rid, rid);
  normalized["_etag"] = etag;
  normalized["_docs"] = "docs/";
  normalized["_sprocs"] = "sprocs/";
  normalized["_triggers"] = "triggers/";
  normalized["_udfs"] = "udfs/";
  normalized["_conflicts"] = "conflicts/";
  record.body = normalized.dump();
  Status inserted = txn.InsertContainer(record);
  if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
  COSMOS_RETURN_IF_ERROR(inserted);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.body = std::move(record.body);
  response.etag = etag;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + owner.id;
  response.owner_rid = database_rid;
  return response;
}

Result<ResourceResponse> Account::ReadContainer(const ContainerAddress& container) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, FindContainer(txn, container, /*as_owner=*/false));
  ResourceResponse response;
  response.etag = resolved->properties["_etag"].get<std::string>();
  response.body = resolved->container.body;
  response.request_charge = MetadataReadCharge();
  response.lsn = resolved->lsn;
  response.owner_path = "dbs/" + resolved->database.id;
  response.owner_rid = resolved->database_rid;
  return response;
}

Result<FeedResponse> Account::ListContainers(const ResourceName& database, const FeedOptions& options) {
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindDatabase(txn, database, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListContainers(owner.seq, after, page_size + 1));
  FeedResponse response;
  if (static_cast<int64_t>(records.size()) > page_size) {
    records.resize(page_size);
    response.continuation = std::to_string(records.back().seq);
  }
  std::vector<std::string> bodies;
  for (auto& record : records) bodies.push_back(std::move(record.body));
  response.owner_rid = ResourceId::ForDatabase(owner.seq);
  response.owner_path = "dbs/" + owner.id;
  response.count = static_cast<int64_t>(bodies.size());
  response.body = FeedBody(response.owner_rid, "DocumentCollections", bodies);
  response.request_charge = MetadataReadCharge();
  return response;
}

Result<ResourceResponse> Account::ReplaceContainer(const ContainerAddress& container,
                                                   const std::string& body,
                                                   const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "container definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, FindContainer(txn, container, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, resolved->properties["_etag"].get<std::string>()));
  if (definition["id"] != resolved->container.id) {
    return Status::BadRequest("The id in the container definition does not match the id in the path.");
  }
  // A replace that leaves out the partition key keeps the one the container has.
  if (!definition.contains("partitionKey")) definition["partitionKey"] = resolved->properties["partitionKey"];
  COSMOS_ASSIGN_OR_RETURN(auto normalized, NormalizeContainerDefinition(definition));
  COSMOS_RETURN_IF_ERROR(CheckContainerReplace(resolved->properties, normalized));
  std::string etag = NewEtag();
  for (const char* system : {"_rid", "_self", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"}) {
    normalized[system] = resolved->properties[system];
  }
  normalized["_ts"] = NowSeconds();
  normalized["_etag"] = etag;
  std::string text = normalized.dump();
  COSMOS_RETURN_IF_ERROR(txn.UpdateContainerBody(resolved->container.seq, text));
  containers_.Clear();
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.body = std::move(text);
  response.etag = etag;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + resolved->database.id;
  response.owner_rid = resolved->database_rid;
  return response;
}

Result<ResourceResponse> Account::DeleteContainer(const ContainerAddress& container,
                                                  const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, FindContainer(txn, container, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, resolved->properties["_etag"].get<std::string>()));
  COSMOS_RETURN_IF_ERROR(txn.DeleteContainer(resolved->container.seq));
  containers_.Clear();
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + resolved->database.id;
  response.owner_rid = resolved->database_rid;
  return response;
}

// ---- Items -------------------------------------------------------------------------------

Result<ResourceResponse> Account::CreateItem(const ItemWrite& write) {
  return WriteItem(write, WriteMode::kCreate, nullptr);
}

Result<ResourceResponse> Account::UpsertItem(const ItemWrite& write) {
  return WriteItem(write, WriteMode::kUpsert, nullptr);
}

Result<ResourceResponse> Account::ReplaceItem(const ItemWrite& write, const ResourceName& id) {
  return WriteItem(write, WriteMode::kReplace, &id);
}

Result<ResourceResponse> Account::WriteItem(const ItemWrite& write, WriteMode mode,
                                            const ResourceName* replace_id) {
  if (write.body.size() > kMaxDocumentBytes) {
    return Status::RequestEntityTooLarge("Request size is too large");
  }
  bool compact = false;
  COSMOS_ASSIGN_OR_RETURN(auto document, ParseObject(write.body, "document", &compact));
  COSMOS_RETURN_IF_ERROR(ValidateItemId(document));
  std::string id = document["id"].get<std::string>();

  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, write.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto header_key,
                          HeaderPartitionKey(*container, write.partition_key_header));
  PartitionKeyValue document_key = PartitionKeyValue::FromDocument(container->partition_key, document);
  if (!(header_key == document_key)) {
    return Status::PartitionKeyMismatch(kPartitionKeyMismatchMessage);
  }
  std::string partition_key = document_key.StorageKey();

  std::optional<DocumentRecord> existing;
  if (mode == WriteMode::kReplace) {
    ItemKey key{write.container, write.partition_key_header, *replace_id};
    COSMOS_ASSIGN_OR_RETURN(existing, FindItem(txn, *container, key));
    if (!existing) return Status::NotFound(kIdMissingMessage);
    if (existing->id != id) {
      return Status::BadRequest("The id in the document does not match the id in the path.");
    }
  } else if (mode == WriteMode::kUpsert) {
    COSMOS_ASSIGN_OR_RETURN(existing, txn.FindDocument(container->container.seq, partition_key, id));
  }  // a create learns of a duplicate id from the insert itself
  // If-Match guards a replace of an existing document; an upsert that inserts ignores it.
  if (existing) COSMOS_RETURN_IF_ERROR(CheckIfMatch(write.preconditions, existing->etag));

  DocumentRecord record;
  if (existing) {
    record.seq = existing->seq;
  } else {
    COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kDocument));
  }
  COSMOS_ASSIGN_OR_RETURN(record.lsn, txn.NextLsn(container->container.seq));
  container->lsn = std::max(container->lsn, record.lsn);
  record.partition_key = partition_key;
  record.id = id;
  record.etag = NewEtag();
  // Unique-key values come from the client's properties alone.
  std::vector<std::string> unique_values = container->unique_keys.ValuesOf(document);
  SystemProperties system;
  system.rid = ResourceId::ForDocument(container->database.seq, container->container.seq, record.seq);
  system.self = ContainerSelf(container->database_rid, container->container_rid) + "docs/" + system.rid + "/";
  system.etag = record.etag;
  system.ts = NowSeconds();
  record.body = DocumentText(write.body, compact, document, system);

  if (existing) {
    COSMOS_RETURN_IF_ERROR(txn.UpdateDocument(container->container.seq, record));
    if (!unique_values.empty()) {
      COSMOS_RETURN_IF_ERROR(txn.DeleteUniqueKeyEntries(container->container.seq, record.seq));
    }
  } else {
    Status inserted = txn.InsertDocument(container->container.seq, record);
    if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kIdExistsMessage);
    COSMOS_RETURN_IF_ERROR(inserted);
  }
  for (size_t index = 0; index < unique_values.size(); ++index) {
    Status inserted = txn.InsertUniqueKeyEntry(container->container.seq, partition_key,
                                               static_cast<int>(index), unique_values[index], record.seq);
    if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kUniqueKeyMessage);
    COSMOS_RETURN_IF_ERROR(inserted);
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());

  ResourceResponse response;
  response.request_charge = WriteCharge(record.body.size());
  response.body = std::move(record.body);
  response.etag = std::move(record.etag);
  response.created = !existing;
  response.lsn = record.lsn;
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

Result<ResourceResponse> Account::ReadItem(const ItemKey& key, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, key.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto found, FindItem(txn, *container, key));
  if (!found) return Status::NotFound(kIdMissingMessage);
  ResourceResponse response;
  response.request_charge = ReadCharge(found->body.size());
  response.not_modified = preconditions.if_none_match && *preconditions.if_none_match == found->etag;
  if (!response.not_modified) response.body = std::move(found->body);
  response.etag = std::move(found->etag);
  response.lsn = container->lsn;
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

Result<ResourceResponse> Account::DeleteItem(const ItemKey& key, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, key.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto found, FindItem(txn, *container, key));
  if (!found) return Status::NotFound(kIdMissingMessage);
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, found->etag));
  COSMOS_ASSIGN_OR_RETURN(int64_t lsn, txn.NextLsn(container->container.seq));
  container->lsn = std::max(container->lsn, lsn);
  COSMOS_RETURN_IF_ERROR(txn.DeleteDocument(container->container.seq, *found));
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = WriteCharge(found->body.size());
  response.lsn = lsn;
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

Result<FeedResponse> Account::ReadItemFeed(const ContainerAddress& address, const FeedOptions& options) {
  std::optional<storage::DocumentPosition> after;
  if (options.continuation && !options.continuation->empty()) {
    Json token = Json::parse(*options.continuation, nullptr, /*allow_exceptions=*/false);
    if (token.is_discarded() || !token.is_array() || token.size() != 2 || !token[0].is_string() ||
        !token[1].is_string()) {
      return Status::BadRequest("The continuation token '" + *options.continuation + "' is malformed.");
    }
    after = storage::DocumentPosition{token[0].get<std::string>(), token[1].get<std::string>()};
  }
  int64_t page_items = PageSize(options.max_item_count);

  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, address, /*as_owner=*/true));
  std::optional<std::string> partition_key;
  if (options.partition_key_header && !options.partition_key_header->empty()) {
    COSMOS_ASSIGN_OR_RETURN(auto value, PartitionKeyValue::FromHeader(container->partition_key,
                                                                      *options.partition_key_header));
    partition_key = value.StorageKey();
  }
  // One row more than the page tells whether another page follows.
  COSMOS_ASSIGN_OR_RETURN(auto rows, txn.ListDocuments(container->container.seq, partition_key,
                                                       after, page_items + 1));
  std::vector<std::string> bodies;
  size_t bytes = 0;
  std::optional<storage::DocumentPosition> last;
  for (auto& row : rows) {
    if (static_cast<int64_t>(bodies.size()) == page_items || (bytes > 0 && bytes + row.body.size() > kMaxPageBytes)) {
      break;
    }
    bytes += row.body.size();
    last = storage::DocumentPosition{row.partition_key, row.id};
    bodies.push_back(std::move(row.body));
  }
  FeedResponse response;
  if (bodies.size() < rows.size() && last) {
    response.continuation = Json::array({last->partition_key, last->id}).dump(-1, ' ', /*ensure_ascii=*/true);
  }
  response.count = static_cast<int64_t>(bodies.size());
  response.body = FeedBody(container->container_rid, "Documents", bodies);
  response.request_charge = ReadCharge(bytes);
  response.lsn = container->lsn;
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

}  // namespace cosmos::engine

namespace cosmos::engine {
namespace {

// Streams a container's documents (or one logical partition's) in (partition key, id) order,
// reading a batch at a time inside the caller's read transaction.
class StoredDocumentSource : public query::DocumentSource {
 public:
  // `properties`: the only top-level properties the query reads, or nullopt for whole documents.
  StoredDocumentSource(storage::Transaction& txn, int64_t container_seq, std::optional<std::string> partition_key,
                       std::optional<storage::DocumentPosition> start,
                       const std::optional<std::vector<std::string>>& properties)
      : txn_(txn), container_seq_(container_seq), partition_key_(std::move(partition_key)), next_(std::move(start)),
        include_next_(next_.has_value()), properties_(properties) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    if (index_ == batch_.size()) {
      if (exhausted_) return false;
      COSMOS_ASSIGN_OR_RETURN(batch_, txn_.ListDocuments(container_seq_, partition_key_, next_, kBatch, include_next_));
      index_ = 0;
      include_next_ = false;
      exhausted_ = batch_.size() < static_cast<size_t>(kBatch);
      if (batch_.empty()) return false;
      next_ = storage::DocumentPosition{batch_.back().partition_key, batch_.back().id};
    }
    storage::DocumentRecord& record = batch_[index_++];
    Json parsed = properties_ ? ParseSelectedProperties(record.body, *properties_)
                              : Json::parse(record.body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return Status::Internal("stored document is not valid JSON: " + record.id);
    doc.json = std::make_shared<const Json>(std::move(parsed));
    doc.bytes = record.body.size();
    doc.position = Json::array({std::move(record.partition_key), std::move(record.id)});
    return true;
  }

 private:
  static constexpr int64_t kBatch = 256;
  storage::Transaction& txn_;
  int64_t container_seq_;
  std::optional<std::string> partition_key_;
  std::optional<storage::DocumentPosition> next_;
  bool include_next_;
  const std::optional<std::vector<std::string>>& properties_;
  bool exhausted_ = false;
  std::vector<storage::DocumentRecord> batch_;
  size_t index_ = 0;
};

// The service's x-ms-documentdb-query-metrics format: key=value pairs separated by ';'.
std::string FormatQueryMetrics(const query::QueryPage& page, double elapsed_ms) {
  char buffer[640];
  std::snprintf(buffer, sizeof(buffer),
                "totalExecutionTimeInMs=%.2f;queryCompileTimeInMs=0.00;queryLogicalPlanBuildTimeInMs=0.00;"
                "queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=%.2f;"
                "indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;"
                "userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount=%llu;retrievedDocumentSize=%llu;"
                "outputDocumentCount=%llu;outputDocumentSize=%llu;writeOutputTimeInMs=0.00;indexUtilizationRatio=%.2f",
                elapsed_ms, elapsed_ms, static_cast<unsigned long long>(page.stats.documents_loaded),
                static_cast<unsigned long long>(page.stats.document_bytes),
                static_cast<unsigned long long>(page.stats.output_rows),
                static_cast<unsigned long long>(page.stats.output_bytes),
                page.stats.documents_loaded == 0
                    ? 0.0
                    : static_cast<double>(page.stats.output_rows) / static_cast<double>(page.stats.documents_loaded));
  return buffer;
}

// Metadata resources (databases, containers) held in memory for a query.
class ResourceListSource : public query::DocumentSource {
 public:
  ResourceListSource(const std::vector<std::pair<int64_t, std::string>>& bodies, int64_t start_seq)
      : bodies_(bodies) {
    while (next_ < bodies_.size() && bodies_[next_].first < start_seq) ++next_;
  }
  Result<bool> Next(query::SourceDocument& doc) override {
    if (next_ == bodies_.size()) return false;
    const auto& [seq, body] = bodies_[next_++];
    doc.json = std::make_shared<const Json>(Json::parse(body));
    doc.bytes = body.size();
    doc.position = seq;
    return true;
  }

 private:
  const std::vector<std::pair<int64_t, std::string>>& bodies_;
  size_t next_ = 0;
};

struct ParsedQueryBody {
  std::string text;
  Json parameters;
};

Result<ParsedQueryBody> ParseQueryBody(std::string_view text) {
  Json body = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object() || !body.contains("query") || !body["query"].is_string()) {
    return Status::BadRequest("The query body must be a JSON object with a string 'query'.");
  }
  ParsedQueryBody parsed;
  parsed.text = body["query"].get<std::string>();
  if (body.contains("parameters")) parsed.parameters = std::move(body["parameters"]);
  return parsed;
}

query::PageRequest PageRequestOf(const QueryRequest& request) {
  query::PageRequest page_request;
  page_request.max_items = static_cast<uint64_t>(PageSize(request.max_item_count));
  page_request.max_bytes = kMaxPageBytes;
  page_request.continuation = request.continuation;
  return page_request;
}

void FillQueryResponse(QueryResponse& response, const query::QueryPage& page, const QueryRequest& request,
                       std::chrono::steady_clock::time_point started) {
  response.count = static_cast<int64_t>(page.rows.size());
  response.continuation = page.continuation;
  response.request_charge = QueryCharge(page.stats.documents_loaded, page.stats.document_bytes,
                                        page.stats.output_bytes, page.stats.expressions, page.function_work);
  if (request.populate_query_metrics) {
    double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    response.query_metrics = FormatQueryMetrics(page, elapsed_ms);
  }
}

}  // namespace

Result<QueryResponse> Account::QueryResources(const QueryRequest& request,
                                              std::vector<std::pair<int64_t, std::string>> bodies,
                                              const char* feed_key, const std::string& owner_rid) {
  auto started = std::chrono::steady_clock::now();
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text));
  query::OpenSource open_source = [&](const Json* start) -> Result<std::unique_ptr<query::DocumentSource>> {
    if (start != nullptr && !start->is_number_integer()) {
      return Status::BadRequest("Invalid continuation token: the query cannot resume from it.");
    }
    return std::unique_ptr<query::DocumentSource>(new ResourceListSource(bodies, start ? start->get<int64_t>() : 0));
  };
  COSMOS_ASSIGN_OR_RETURN(auto page, query::ExecutePage(*prepared, body.parameters, open_source, PageRequestOf(request)));
  QueryResponse response;
  response.body = FeedBody(owner_rid, feed_key, page.rows);
  response.owner_rid = owner_rid;
  FillQueryResponse(response, page, request, started);
  return response;
}

Result<QueryResponse> Account::QueryDatabases(const QueryRequest& request) {
  std::vector<std::pair<int64_t, std::string>> bodies;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListDatabases());
    for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
  }
  return QueryResources(request, std::move(bodies), "Databases", "");
}

Result<QueryResponse> Account::QueryContainers(const ResourceName& database, const QueryRequest& request) {
  std::vector<std::pair<int64_t, std::string>> bodies;
  std::string owner_rid;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto owner, FindDatabase(txn, database, /*as_owner=*/true));
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListContainers(owner.seq));
    for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
    owner_rid = ResourceId::ForDatabase(owner.seq);
  }
  return QueryResources(request, std::move(bodies), "DocumentCollections", owner_rid);
}

Result<std::string> Account::QueryPlan(const QueryRequest& request,
                                       const std::optional<std::string>& supported_features) {
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text));
  query::QueryPlanOptions options;
  if (supported_features) options.supported_features = query::QueryFeatureSet::Parse(*supported_features);
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, request.container, /*as_owner=*/true));
    options.partition_key_paths = container->partition_key.paths;
    if (container->properties.contains("vectorEmbeddingPolicy")) {
      options.vector_embedding_policy = container->properties["vectorEmbeddingPolicy"];
    }
  }
  COSMOS_ASSIGN_OR_RETURN(auto plan, query::BuildQueryPlan(prepared->root(), body.parameters, options));
  return plan.dump();
}

Result<QueryResponse> Account::QueryItems(const QueryRequest& request) {
  auto started = std::chrono::steady_clock::now();
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text));

  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, request.container, /*as_owner=*/true));
  std::optional<std::string> partition_key;
  if (request.partition_key_header && !request.partition_key_header->empty()) {
    COSMOS_ASSIGN_OR_RETURN(auto value, PartitionKeyValue::FromHeader(container->partition_key,
                                                                      *request.partition_key_header));
    partition_key = value.StorageKey();
  }
  // Every container has one physical partition for now, so no query needs to fan out and
  // x-ms-documentdb-query-enablecrosspartition is never required yet.
  if (request.partition_key_range_id && *request.partition_key_range_id != "0" &&
      request.partition_key_range_id->find(",0") == std::string::npos) {
    return Status::NotFound("The partition key range '" + *request.partition_key_range_id + "' does not exist.");
  }

  query::OpenSource open_source = [&](const Json* start) -> Result<std::unique_ptr<query::DocumentSource>> {
    std::optional<storage::DocumentPosition> start_position;
    if (start != nullptr) {
      if (!start->is_array() || start->size() != 2 || !(*start)[0].is_string() || !(*start)[1].is_string()) {
        return Status::BadRequest("Invalid continuation token: the query cannot resume from it.");
      }
      start_position = storage::DocumentPosition{(*start)[0].get<std::string>(), (*start)[1].get<std::string>()};
    }
    return std::unique_ptr<query::DocumentSource>(
        new StoredDocumentSource(txn, container->container.seq, partition_key, std::move(start_position),
                                 prepared->document_properties()));
  };
  COSMOS_ASSIGN_OR_RETURN(auto page,
                          query::ExecutePage(*prepared, body.parameters, open_source, PageRequestOf(request)));
  QueryResponse response;
  response.body = FeedBody(container->container_rid, "Documents", page.rows);
  response.lsn = container->lsn;
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  FillQueryResponse(response, page, request, started);
  return response;
}

}  // namespace cosmos::engine
