#include "engine/account.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/json.h"
#include "common/json_parse.h"
#include "common/json_scan.h"
#include "engine/container_cache.h"
#include "engine/container_definition.h"
#include "engine/effective_partition_key.h"
#include "engine/index_lookup.h"
#include "engine/partition_key.h"
#include "engine/partitioning.h"
#include "engine/request_charge.h"
#include "engine/resource_id.h"
#include "query/execution/executor.h"
#include "query/plan/index_filter.h"
#include "query/plan/query_plan.h"

namespace cosmos::engine {
namespace {

using storage::ContainerRecord;
using storage::DatabaseRecord;
using storage::DocumentRecord;
using storage::OfferRecord;
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
  Json parsed = ParseJson(body);
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

// ---- Time to live ----
// A container's defaultTtl: absent = off, -1 = on with no default, N = seconds. A document's `ttl`
// (-1 = never, N = seconds) counts only while the container has TTL on. A document expires at
// _ts + ttl: from then on it is invisible, and the sweeper deletes it.

std::optional<int64_t> DefaultTtlOf(const Json& properties) {
  auto ttl = properties.find("defaultTtl");
  if (ttl == properties.end() || !ttl->is_number_integer()) return std::nullopt;
  return ttl->get<int64_t>();
}

// When a document written at `ts` expires (seconds since the epoch), 0 for never. kBadRequest for
// a `ttl` that is not -1 or a positive integer on a container with TTL on.
Result<int64_t> ExpiresAt(const std::optional<int64_t>& default_ttl, const Json& document, int64_t ts) {
  if (!default_ttl) return int64_t{0};
  int64_t ttl = *default_ttl;
  if (auto own = document.find("ttl"); own != document.end() && !own->is_null()) {
    if (!own->is_number_integer() || (own->get<int64_t>() != -1 && own->get<int64_t>() <= 0)) {
      return Status::BadRequest("The value of the 'ttl' property must be -1 or a positive integer number of seconds.");
    }
    ttl = own->get<int64_t>();
  }
  return ttl > 0 ? ts + ttl : 0;
}

bool IsExpired(const DocumentRecord& record, int64_t now) { return record.expires_at > 0 && record.expires_at <= now; }

// Turning TTL on or off, or changing the default, applies to the documents already there. A `ttl`
// written while TTL was off and not valid now falls back to the default.
Status RecomputeExpiries(Transaction& txn, int64_t container_seq, const std::optional<int64_t>& default_ttl) {
  static const std::vector<std::string> kTimeProperties = {"ttl", "_ts"};
  int64_t after_seq = 0;
  for (;;) {
    COSMOS_ASSIGN_OR_RETURN(auto next, txn.FindNextDocumentBySeq(container_seq, after_seq));
    if (!next) return Status();
    after_seq = next->seq;
    Json times = ParseSelectedProperties(next->body, kTimeProperties);
    int64_t ts = times.contains("_ts") && times["_ts"].is_number_integer() ? times["_ts"].get<int64_t>() : 0;
    Result<int64_t> expires = ExpiresAt(default_ttl, times, ts);
    int64_t expires_at = expires.ok() ? *expires : (default_ttl && *default_ttl > 0 ? ts + *default_ttl : 0);
    if (expires_at != next->expires_at) {
      COSMOS_RETURN_IF_ERROR(txn.SetDocumentExpiry(container_seq, next->seq, expires_at));
    }
  }
}

// ---- All versions and deletes ----
// Containers whose changeFeedPolicy has a retentionDuration (minutes) keep a log of every write and
// delete, in the service's wire format 2021-09-15: {"current"?, "metadata": {...}}.

int64_t ChangeLogRetentionOf(const Json& properties) {
  auto policy = properties.find("changeFeedPolicy");
  if (policy == properties.end() || !policy->is_object()) return 0;
  auto minutes = policy->find("retentionDuration");
  if (minutes == policy->end() || !minutes->is_number_integer() || minutes->get<int64_t>() <= 0) return 0;
  return minutes->get<int64_t>() * 60;
}

// The partition key as the change log's metadata names it: {"pk": "a"} (path without its '/').
Json PartitionKeyObject(const PartitionKeyDefinition& definition, const PartitionKeyValue& value) {
  Json object = Json::object();
  for (size_t i = 0; i < definition.paths.size() && i < value.components.size(); ++i) {
    if (!value.components[i].undefined) object[definition.paths[i].substr(1)] = value.components[i].value;
  }
  return object;
}

struct ChangeLogEntry {
  const char* operation = "create";            // create | replace | delete
  int64_t lsn = 0;
  int64_t crts = 0;                            // seconds
  int64_t previous_lsn = 0;                    // replace and delete: the LSN of the version replaced
  std::optional<std::string_view> current;     // the document after the write (not for deletes)
  std::string id;                              // deletes: which document
  Json partition_key;
  bool ttl_expired = false;
};

std::string ChangeLogText(const ChangeLogEntry& entry) {
  Json metadata = {{"operationType", entry.operation}, {"lsn", entry.lsn}, {"crts", entry.crts}};
  if (entry.previous_lsn > 0) metadata["previousImageLSN"] = entry.previous_lsn;
  if (!entry.current) {
    metadata["id"] = entry.id;
    metadata["partitionKey"] = entry.partition_key;
  }
  if (entry.ttl_expired) metadata["timeToLiveExpired"] = true;
  std::string text = "{";
  if (entry.current) {
    text += "\"current\":";
    text += *entry.current;
    text += ',';
  }
  text += "\"metadata\":";
  text += metadata.dump();
  text += '}';
  return text;
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
    if (found && found->partition_key != StoragePartitionKey(container.partition_key, partition_key)) found.reset();
    if (found && IsExpired(*found, NowSeconds())) found.reset();
    return found;
  }
  COSMOS_ASSIGN_OR_RETURN(auto found, txn.FindDocument(container.container.seq,
                                                       StoragePartitionKey(container.partition_key, partition_key),
                                                       key.id.value));
  if (found && IsExpired(*found, NowSeconds())) found.reset();
  return found;
}

// The service caps what one logical partition may hold (20 GB); a write that would pass the cap
// fails and changes nothing, while reads and deletes keep working.
Status CheckLogicalPartitionCap(Transaction& txn, const ResolvedContainer& container,
                                const std::string& partition_key, size_t new_bytes, size_t old_bytes,
                                int64_t cap_bytes) {
  COSMOS_ASSIGN_OR_RETURN(auto size, txn.GetLogicalPartitionSize(container.container.seq, partition_key));
  int64_t after = size.total_bytes + static_cast<int64_t>(new_bytes) - static_cast<int64_t>(old_bytes);
  if (after <= cap_bytes || new_bytes <= old_bytes) return Status();
  constexpr double kBytesPerGb = 1024.0 * 1024.0 * 1024.0;
  char cap_text[32];
  std::snprintf(cap_text, sizeof cap_text, "%.6g", static_cast<double>(cap_bytes) / kBytesPerGb);
  return Status::LogicalPartitionFull(std::string("Partition key reached maximum size of ") + cap_text + " GB");
}

// An etag that is a number (a change-feed LSN, a range-set version), quoted as etags are.
// The physical partition holding a storage key ("<EPK> <partition key>"), as a list for Admit.
std::vector<int64_t> RangeOfKey(const ResolvedContainer& container, const std::string& storage_key) {
  const RoutingMap::Range* range = container.routing.RangeOf(std::string_view(storage_key).substr(0, storage_key.find(' ')));
  return range ? std::vector<int64_t>{range->id} : std::vector<int64_t>{};
}

// The index entries a stored document has under the container's policy.
std::vector<storage::IndexEntry> IndexEntriesOf(const IndexingPolicy& policy, const std::string& body) {
  if (policy.indexing_disabled()) return {};
  return policy.IndexEntries(ParseJson(body));
}

// Deletes a document together with its index entries.
Status DeleteIndexedDocument(Transaction& txn, int64_t container_seq, const IndexingPolicy& policy,
                             const DocumentRecord& record) {
  COSMOS_RETURN_IF_ERROR(
      txn.DeleteIndexEntries(container_seq, record.seq, IndexEntriesOf(policy, record.body)));
  return txn.DeleteDocument(container_seq, record);
}

std::string QuotedNumber(int64_t number) {
  std::string etag = "\"";  // built in steps: g++ 12 misreports "lit" + string under -Werror=restrict
  etag += std::to_string(number);
  etag += '"';
  return etag;
}

// Throughput on a create: not at all on a serverless account, and within the service's minimums.
Status CheckRequestedThroughput(const ContainerThroughput& throughput, bool serverless) {
  if (!throughput.given()) return Status();
  if (serverless) {
    return Status::BadRequest(
        "Setting offer throughput or autopilot on container is not supported for serverless accounts.");
  }
  return ValidateThroughput(throughput);
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

Account::Account(std::unique_ptr<storage::Store> store, AccountOptions options)
    : store_(std::move(store)),
      options_(options),
      throttle_(options.rate_limit),
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

namespace {

// The container's LSN as `txn` sees it: a read on a snapshot, the LSN committed with the
// snapshot; a transaction holding the store's lock, the count of the open group's writes too,
// which the cache keeps (and only such a transaction may read).
Result<int64_t> VisibleLsn(Transaction& txn, const ResolvedContainer& container) {
  if (txn.OnSnapshot()) return txn.CommittedContainerLsn(container.container.seq);
  return container.lsn;
}

}  // namespace

void Account::ChangeCatalog(Transaction& txn) {
  containers_.BeginChange();
  txn.AfterGroup([this] { containers_.EndChange(); });
}

Result<std::shared_ptr<const ResolvedContainer>> Account::FindContainer(Transaction& txn,
                                                                        const ContainerAddress& address,
                                                                        bool as_owner) {
  std::string key = CacheKey(address);
  if (auto cached = containers_.Find(key)) return cached;
  // A read on a snapshot fills the cache only if its snapshot starts after this point (no
  // statement yet): one taken earlier might predate a catalog change that ended since.
  std::optional<uint64_t> generation;
  if (txn.OnSnapshot() && !txn.SnapshotTaken()) generation = containers_.Generation();

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
  resolved->indexing = IndexingPolicy::FromNormalized(resolved->properties["indexingPolicy"]);
  COSMOS_ASSIGN_OR_RETURN(auto ranges, txn.ListPartitionKeyRanges(found->seq));
  resolved->routing = RoutingMap(std::move(ranges));
  COSMOS_ASSIGN_OR_RETURN(auto offer, txn.FindOfferFor(/*is_database=*/false, found->seq));
  if (!offer) {
    COSMOS_ASSIGN_OR_RETURN(offer, txn.FindOfferFor(/*is_database=*/true, database.seq));
    resolved->shared_throughput = offer.has_value();
  }
  if (offer) {
    COSMOS_ASSIGN_OR_RETURN(resolved->throughput, ThroughputOfOffer(Json::parse(offer->body)));
  } else if (options_.serverless) {
    resolved->throughput.manual = kServerlessContainerThroughput;
  }
  COSMOS_ASSIGN_OR_RETURN(auto builds, txn.ListIndexBuilds());
  for (const storage::IndexBuild& build : builds) {
    if (build.container_seq == found->seq) resolved->index_build = build;
  }
  resolved->default_ttl = DefaultTtlOf(resolved->properties);
  resolved->change_log_retention_s = ChangeLogRetentionOf(resolved->properties);
  resolved->database_rid = ResourceId::ForDatabase(database.seq);
  resolved->container_rid = ResourceId::ForContainer(database.seq, found->seq);
  resolved->lsn = found->lsn;
  resolved->database = std::move(database);
  resolved->container = std::move(*found);
  if (!txn.OnSnapshot()) {
    containers_.Insert(key, resolved);
  } else if (generation) {
    containers_.InsertIfCurrent(key, resolved, *generation);
  }
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

Result<ResourceResponse> Account::CreateDatabase(const std::string& body, const ContainerThroughput& throughput) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "database definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_RETURN_IF_ERROR(CheckRequestedThroughput(throughput, options_.serverless));
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
  ChangeCatalog(txn);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  return response;
}

// ---- Containers --------------------------------------------------------------------------

Result<ResourceResponse> Account::CreateContainer(const ResourceName& database, const std::string& body,
                                                  const ContainerThroughput& throughput) {
  COSMOS_ASSIGN_OR_RETURN(auto definition, ParseObject(body, "container definition"));
  COSMOS_RETURN_IF_ERROR(ValidateResourceId(definition));
  COSMOS_ASSIGN_OR_RETURN(auto normalized, NormalizeContainerDefinition(definition));
  COSMOS_ASSIGN_OR_RETURN(auto partition_key, PartitionKeyDefinition::Parse(normalized["partitionKey"]));
  COSMOS_RETURN_IF_ERROR(CheckRequestedThroughput(throughput, options_.serverless));
  int range_count = InitialRangeCount(throughput.ru_per_second(), options_.min_physical_partitions);
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto owner, FindDatabase(txn, database, /*as_owner=*/true));
  // Without throughput of its own, a container shares its database's, or gets the default.
  ContainerThroughput own_throughput = throughput;
  if (!throughput.given() && !options_.serverless) {
    COSMOS_ASSIGN_OR_RETURN(auto database_offer, txn.FindOfferFor(/*is_database=*/true, owner.seq));
    if (!database_offer) own_throughput.manual = kDefaultContainerThroughput;
  }
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
  for (const auto& range : InitialRanges(partition_key, range_count)) {
    COSMOS_RETURN_IF_ERROR(txn.InsertPartitionKeyRange(record.seq, range));
  }
  if (own_throughput.given()) {
    COSMOS_RETURN_IF_ERROR(InsertOffer(txn, /*is_database=*/false, record.seq, normalized["_self"].get<std::string>(),
                                       rid, own_throughput));
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.body = std::move(record.body);
  response.etag = etag;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + owner.id;
  response.owner_rid = database_rid;
  return response;
}

Result<ResourceResponse> Account::ReadContainer(const ContainerAddress& container, bool populate_quota_info) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto resolved, FindContainer(txn, container, /*as_owner=*/false));
  ResourceResponse response;
  response.index_transformation_progress = 100;
  if (resolved->index_build && resolved->index_build->total > 0) {
    response.index_transformation_progress =
        std::min<int64_t>(99, resolved->index_build->done * 100 / resolved->index_build->total);
  } else if (resolved->index_build) {
    response.index_transformation_progress = 0;
  }
  if (populate_quota_info) {
    COSMOS_ASSIGN_OR_RETURN(auto stored, txn.MeasureKeyRange(resolved->container.seq, "", kMaxEffectivePartitionKey));
    int64_t stored_kb = (stored.total_bytes + 1023) / 1024;
    int64_t partition_cap_kb = options_.logical_partition_cap_bytes / 1024;
    // Sizes in KB, as the service reports them; a container's own size is not capped (-1).
    response.resource_quota = "documentSize=" + std::to_string(kMaxDocumentBytes / 1024) +
                              ";documentsSize=" + std::to_string(partition_cap_kb) +
                              ";documentsCount=-1;collectionSize=-1;";
    response.resource_usage = "documentSize=" + std::to_string(stored_kb) + ";documentsSize=" +
                              std::to_string(stored_kb) + ";documentsCount=" + std::to_string(stored.document_count) +
                              ";collectionSize=" + std::to_string(stored_kb) + ";";
  }
  response.etag = resolved->properties["_etag"].get<std::string>();
  response.body = resolved->container.body;
  response.request_charge = MetadataReadCharge();
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *resolved));
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
  std::optional<int64_t> default_ttl = DefaultTtlOf(normalized);
  if (default_ttl != resolved->default_ttl) {
    COSMOS_RETURN_IF_ERROR(RecomputeExpiries(txn, resolved->container.seq, default_ttl));
  }
  // A new indexing policy: the index is rebuilt in the background; queries scan until it is done.
  if (normalized["indexingPolicy"] != resolved->properties["indexingPolicy"]) {
    COSMOS_RETURN_IF_ERROR(txn.StartIndexBuild(resolved->container.seq));
  }
  ChangeCatalog(txn);
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
  ChangeCatalog(txn);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = MetadataWriteCharge();
  response.owner_path = "dbs/" + resolved->database.id;
  response.owner_rid = resolved->database_rid;
  return response;
}

// ---- Items -------------------------------------------------------------------------------

Result<ParsedItem> Account::ParseItem(std::string_view body) {
  if (body.size() > kMaxDocumentBytes) {
    return Status::RequestEntityTooLarge("Request size is too large");
  }
  ParsedItem parsed;
  COSMOS_ASSIGN_OR_RETURN(parsed.document, ParseObject(body, "document", &parsed.compact));
  COSMOS_RETURN_IF_ERROR(ValidateItemId(parsed.document));
  parsed.id = parsed.document["id"].get<std::string>();
  return parsed;
}

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
  ParsedItem parsed_here;
  ParsedItem* parsed = write.parsed;
  if (parsed == nullptr) {
    COSMOS_ASSIGN_OR_RETURN(parsed_here, ParseItem(write.body));
    parsed = &parsed_here;
  }
  Json& document = parsed->document;
  const bool compact = parsed->compact;
  const std::string id = parsed->id;

  // Not isolated (Store::BeginWrite): every check that can refuse the write comes before its
  // first change, except a unique key's, and a container with unique keys isolates the write.
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite(/*isolated=*/false));
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, write.container, /*as_owner=*/true));
  if (!container->unique_keys.keys.empty()) COSMOS_RETURN_IF_ERROR(txn.Isolate());
  COSMOS_ASSIGN_OR_RETURN(auto header_key,
                          HeaderPartitionKey(*container, write.partition_key_header));
  PartitionKeyValue document_key = PartitionKeyValue::FromDocument(container->partition_key, document);
  if (!(header_key == document_key)) {
    return Status::PartitionKeyMismatch(kPartitionKeyMismatchMessage);
  }
  std::string partition_key = StoragePartitionKey(container->partition_key, document_key);
  std::vector<int64_t> range_ids = RangeOfKey(*container, partition_key);
  COSMOS_RETURN_IF_ERROR(Admit(*container, range_ids));

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
    // An expired document the sweeper has not removed yet is gone already: this upsert creates.
    if (existing && IsExpired(*existing, NowSeconds())) {
      COSMOS_RETURN_IF_ERROR(txn.Isolate());  // the checks below come after this change
      COSMOS_RETURN_IF_ERROR(DeleteIndexedDocument(txn, container->container.seq, container->indexing, *existing));
      existing.reset();
    }
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
  COSMOS_ASSIGN_OR_RETURN(record.expires_at, ExpiresAt(container->default_ttl, document, system.ts));
  record.body = DocumentText(write.body, compact, document, system);
  COSMOS_RETURN_IF_ERROR(CheckLogicalPartitionCap(txn, *container, partition_key, record.body.size(),
                                                  existing ? existing->body.size() : 0,
                                                  options_.logical_partition_cap_bytes));

  std::vector<storage::IndexEntry> index_entries = container->indexing.IndexEntries(document);
  std::vector<storage::IndexEntry> old_index_entries;
  // A replaced document keeps the entries it shares with its new version: only the difference
  // goes out of and into the index.
  std::vector<storage::IndexEntry> entries_to_insert;
  if (existing) {
    old_index_entries = IndexEntriesOf(container->indexing, existing->body);
    IndexEntryChanges changes = DiffIndexEntries(old_index_entries, index_entries);
    entries_to_insert = std::move(changes.added);
    COSMOS_RETURN_IF_ERROR(txn.DeleteIndexEntries(container->container.seq, existing->seq, changes.stale));
    COSMOS_RETURN_IF_ERROR(txn.UpdateDocument(container->container.seq, record));
    if (!unique_values.empty()) {
      COSMOS_RETURN_IF_ERROR(txn.DeleteUniqueKeyEntries(container->container.seq, record.seq));
    }
  } else {
    Status inserted = txn.InsertDocument(container->container.seq, record);
    if (inserted.code() == ErrorCode::kConflict) {
      // The id is taken, unless by an expired document the sweeper has not removed yet.
      COSMOS_ASSIGN_OR_RETURN(auto taken, txn.FindDocument(container->container.seq, partition_key, id));
      if (!taken || !IsExpired(*taken, system.ts)) return Status::Conflict(kIdExistsMessage);
      COSMOS_RETURN_IF_ERROR(DeleteIndexedDocument(txn, container->container.seq, container->indexing, *taken));
      inserted = txn.InsertDocument(container->container.seq, record);
    }
    COSMOS_RETURN_IF_ERROR(inserted);
  }
  COSMOS_RETURN_IF_ERROR(
      txn.InsertIndexEntries(container->container.seq, record.seq, existing ? entries_to_insert : index_entries));
  for (size_t index = 0; index < unique_values.size(); ++index) {
    Status inserted = txn.InsertUniqueKeyEntry(container->container.seq, partition_key,
                                               static_cast<int>(index), unique_values[index], record.seq);
    if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kUniqueKeyMessage);
    COSMOS_RETURN_IF_ERROR(inserted);
  }
  if (container->change_log_retention_s > 0) {
    ChangeLogEntry entry;
    entry.operation = existing ? "replace" : "create";
    entry.lsn = record.lsn;
    entry.crts = system.ts;
    entry.previous_lsn = existing ? existing->lsn : 0;
    entry.current = record.body;
    COSMOS_RETURN_IF_ERROR(txn.AppendChange(container->container.seq, record.lsn, partition_key, ChangeLogText(entry),
                                            system.ts + container->change_log_retention_s));
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());

  ResourceResponse response;
  int64_t index_terms = static_cast<int64_t>(index_entries.size());
  response.request_charge = existing ? ReplaceCharge(record.body.size(), index_terms,
                                                     static_cast<int64_t>(old_index_entries.size()))
                                     : CreateCharge(record.body.size(), index_terms);
  Charge(*container, range_ids, response.request_charge);
  response.body = std::move(record.body);
  response.etag = std::move(record.etag);
  response.created = !existing;
  response.lsn = record.lsn;
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

Result<ResourceResponse> Account::ReadItem(const ItemKey& key, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto consistency, ReadConsistency(options_.default_consistency, key.consistency_level));
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, key.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto found, FindItem(txn, *container, key));
  if (!found) return Status::NotFound(kIdMissingMessage);
  std::vector<int64_t> range_ids = RangeOfKey(*container, found->partition_key);
  COSMOS_RETURN_IF_ERROR(Admit(*container, range_ids));
  ResourceResponse response;
  response.request_charge = ReadCharge(found->body.size(), consistency);
  Charge(*container, range_ids, response.request_charge);
  response.not_modified = preconditions.if_none_match && *preconditions.if_none_match == found->etag;
  if (!response.not_modified) response.body = std::move(found->body);
  response.etag = std::move(found->etag);
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *container));
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
  std::vector<int64_t> range_ids = RangeOfKey(*container, found->partition_key);
  COSMOS_RETURN_IF_ERROR(Admit(*container, range_ids));
  COSMOS_ASSIGN_OR_RETURN(int64_t lsn, txn.NextLsn(container->container.seq));
  container->lsn = std::max(container->lsn, lsn);
  std::vector<storage::IndexEntry> index_entries = IndexEntriesOf(container->indexing, found->body);
  COSMOS_RETURN_IF_ERROR(txn.DeleteIndexEntries(container->container.seq, found->seq, index_entries));
  COSMOS_RETURN_IF_ERROR(txn.DeleteDocument(container->container.seq, *found));
  if (container->change_log_retention_s > 0) {
    COSMOS_ASSIGN_OR_RETURN(auto value, HeaderPartitionKey(*container, key.partition_key_header));
    ChangeLogEntry entry;
    entry.operation = "delete";
    entry.lsn = lsn;
    entry.crts = NowSeconds();
    entry.previous_lsn = found->lsn;
    entry.id = found->id;
    entry.partition_key = PartitionKeyObject(container->partition_key, value);
    COSMOS_RETURN_IF_ERROR(txn.AppendChange(container->container.seq, lsn, found->partition_key, ChangeLogText(entry),
                                            entry.crts + container->change_log_retention_s));
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.request_charge = DeleteCharge(found->body.size(), static_cast<int64_t>(index_entries.size()));
  Charge(*container, range_ids, response.request_charge);
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
  COSMOS_ASSIGN_OR_RETURN(auto consistency, ReadConsistency(options_.default_consistency, options.consistency_level));

  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, address, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                   {options.partition_key_header, options.partition_key_range_id,
                                                    std::nullopt, std::nullopt}));
  COSMOS_RETURN_IF_ERROR(Admit(*container, scope.range_ids));
  // One row more than the page tells whether another page follows.
  COSMOS_ASSIGN_OR_RETURN(auto rows, txn.ListDocuments(container->container.seq, scope.documents,
                                                       after, page_items + 1));
  std::vector<std::string> bodies;
  size_t bytes = 0;
  std::optional<storage::DocumentPosition> last;
  int64_t now = NowSeconds();
  for (auto& row : rows) {
    if (static_cast<int64_t>(bodies.size()) == page_items || (bytes > 0 && bytes + row.body.size() > kMaxPageBytes)) {
      break;
    }
    if (IsExpired(row, now)) continue;
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
  response.request_charge = ReadCharge(bytes, consistency);
  Charge(*container, scope.range_ids, response.request_charge);
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *container));
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

}  // namespace cosmos::engine

namespace cosmos::engine {
namespace {

// Streams the documents of scopes (a container, a physical partition, logical partitions; in key
// order, disjoint) in (partition key, id) order,
// reading a batch at a time inside the caller's read transaction.
class StoredDocumentSource : public query::DocumentSource {
 public:
  // `properties`: the only top-level properties the query reads, or nullopt for whole documents.
  StoredDocumentSource(storage::Transaction& txn, int64_t container_seq,
                       const std::vector<storage::DocumentScope>& scopes, std::optional<storage::DocumentPosition> start,
                       const std::optional<std::vector<std::string>>& properties)
      : txn_(txn), container_seq_(container_seq), scopes_(scopes), next_(std::move(start)),
        include_next_(next_.has_value()), properties_(properties) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    // Expired documents (time to live) are invisible until the sweeper removes them.
    while (index_ < batch_.size() && IsExpired(batch_[index_], now_)) ++index_;
    while (index_ == batch_.size()) {
      if (scope_index_ == scopes_.size()) return false;
      // The cursor carries over from scope to scope: keys only grow, so it filters nothing later.
      COSMOS_ASSIGN_OR_RETURN(batch_, txn_.ListDocuments(container_seq_, scopes_[scope_index_], next_, batch_size_,
                                                         include_next_));
      index_ = 0;
      if (batch_.size() < static_cast<size_t>(batch_size_)) ++scope_index_;
      batch_size_ = std::min(batch_size_ * 2, kMaxBatch);
      if (batch_.empty()) continue;
      include_next_ = false;
      next_ = storage::DocumentPosition{batch_.back().partition_key, batch_.back().id};
      while (index_ < batch_.size() && IsExpired(batch_[index_], now_)) ++index_;
    }
    storage::DocumentRecord& record = batch_[index_++];
    Json parsed = properties_ ? ParseSelectedProperties(record.body, *properties_)
                              : ParseJson(record.body);
    if (parsed.is_discarded()) return Status::Internal("stored document is not valid JSON: " + record.id);
    doc.json = std::make_shared<const Json>(std::move(parsed));
    doc.bytes = record.body.size();
    doc.position = Json::array({std::move(record.partition_key), std::move(record.id)});
    return true;
  }

 private:
  // Batches start small and double: a page that fills after a few documents reads little more
  // than those, while a long scan still reads many rows per statement.
  static constexpr int64_t kFirstBatch = 16;
  static constexpr int64_t kMaxBatch = 256;
  int64_t batch_size_ = kFirstBatch;
  const int64_t now_ = NowSeconds();
  storage::Transaction& txn_;
  int64_t container_seq_;
  const std::vector<storage::DocumentScope>& scopes_;
  size_t scope_index_ = 0;
  std::optional<storage::DocumentPosition> next_;
  bool include_next_;
  const std::optional<std::vector<std::string>>& properties_;
  std::vector<storage::DocumentRecord> batch_;
  size_t index_ = 0;
};

// The documents an index lookup names within the scopes, in storage order (the order continuation
// tokens assume), from `start` (inclusive). The WHERE clause still runs on each: the lookup may
// name more documents than match.
class IndexedDocumentSource : public query::DocumentSource {
 public:
  IndexedDocumentSource(storage::Transaction& txn, int64_t container_seq,
                        const std::vector<storage::DocumentScope>& scopes, const IndexLookup& lookup,
                        std::optional<storage::DocumentPosition> start,
                        const std::optional<std::vector<std::string>>& properties, uint64_t& entries_read)
      : txn_(txn), container_seq_(container_seq), scopes_(scopes), lookup_(lookup), start_(std::move(start)),
        properties_(properties), entries_read_(entries_read) {}

  Result<bool> Next(query::SourceDocument& doc) override {
    if (!looked_up_) COSMOS_RETURN_IF_ERROR(LookUp());
    while (next_ < positions_.size()) {
      const storage::DocumentPosition& position = positions_[next_++];
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocument(container_seq_, position.partition_key, position.id));
      if (!record || IsExpired(*record, now_)) continue;
      Json parsed = properties_ ? ParseSelectedProperties(record->body, *properties_)
                                : ParseJson(record->body);
      if (parsed.is_discarded()) return Status::Internal("stored document is not valid JSON: " + record->id);
      doc.json = std::make_shared<const Json>(std::move(parsed));
      doc.bytes = record->body.size();
      doc.position = Json::array({std::move(record->partition_key), std::move(record->id)});
      return true;
    }
    return false;
  }

 private:
  static bool Before(const storage::DocumentPosition& a, const storage::DocumentPosition& b) {
    return a.partition_key != b.partition_key ? a.partition_key < b.partition_key : a.id < b.id;
  }

  Status LookUp() {
    looked_up_ = true;
    for (const storage::DocumentScope& scope : scopes_) {
      for (const IndexValueRange& range : lookup_.ranges) {
        COSMOS_ASSIGN_OR_RETURN(auto found, txn_.LookupIndex(container_seq_, lookup_.path, range.lower,
                                                             range.lower_inclusive, range.upper,
                                                             range.upper_inclusive, scope));
        entries_read_ += found.size();
        for (auto& position : found) {
          if (!start_ || !Before(position, *start_)) positions_.push_back(std::move(position));
        }
      }
    }
    std::sort(positions_.begin(), positions_.end(), Before);
    positions_.erase(std::unique(positions_.begin(), positions_.end(),
                                 [](const auto& a, const auto& b) { return !Before(a, b) && !Before(b, a); }),
                     positions_.end());
    return Status();
  }

  const int64_t now_ = NowSeconds();
  storage::Transaction& txn_;
  int64_t container_seq_;
  const std::vector<storage::DocumentScope>& scopes_;
  const IndexLookup& lookup_;
  std::optional<storage::DocumentPosition> start_;
  const std::optional<std::vector<std::string>>& properties_;
  uint64_t& entries_read_;
  bool looked_up_ = false;
  std::vector<storage::DocumentPosition> positions_;
  size_t next_ = 0;
};

// The documents of the scopes in the order of a query's ORDER BY, read from the index at its
// path (one item) or from its composite index (several), backwards when `descending`, within
// the scan's ranges.
class IndexOrderedDocumentSource : public query::DocumentSource {
 public:
  IndexOrderedDocumentSource(storage::Transaction& txn, int64_t container_seq,
                             const std::vector<storage::DocumentScope>& scopes, const IndexLookup& scan,
                             bool descending, const std::optional<std::vector<std::string>>& properties,
                             uint64_t& entries_read)
      : txn_(txn), container_seq_(container_seq), scopes_(scopes), scan_(scan), descending_(descending),
        properties_(properties), entries_read_(entries_read), range_(descending ? scan.ranges.size() : 0) {}

  bool in_order_by_order() const override { return true; }

  Result<bool> Next(query::SourceDocument& doc) override {
    while (group_next_ == group_.size()) {
      if (exhausted_) return false;
      COSMOS_RETURN_IF_ERROR(LoadGroup());
    }
    doc = std::move(group_[group_next_++]);
    return true;
  }

 private:
  static constexpr int64_t kBatch = 64;

  bool InScopes(const std::string& key) const {
    for (const storage::DocumentScope& scope : scopes_) {
      if (scope.partition_key ? key == *scope.partition_key
                              : key >= scope.min_key && (!scope.max_key || key < *scope.max_key)) {
        return true;
      }
    }
    return false;
  }

  // The documents of the next run of equal values, in document position order: rows with equal
  // sort keys must come in the order continuation tokens compare them (keys, then position).
  Status LoadGroup() {
    group_.clear();
    group_next_ = 0;
    std::optional<std::string> value;
    for (;;) {
      if (next_ == batch_.size()) {
        COSMOS_ASSIGN_OR_RETURN(bool more, Fill());
        if (!more) {
          exhausted_ = true;
          break;
        }
      }
      if (value && batch_[next_].first != *value) break;  // the next run starts here
      value = batch_[next_].first;
      int64_t seq = batch_[next_++].second;
      COSMOS_ASSIGN_OR_RETURN(auto record, txn_.FindDocumentBySeq(container_seq_, seq));
      if (!record || IsExpired(*record, now_) || !InScopes(record->partition_key)) continue;
      Json parsed = properties_ ? ParseSelectedProperties(record->body, *properties_)
                                : ParseJson(record->body);
      if (parsed.is_discarded()) return Status::Internal("stored document is not valid JSON: " + record->id);
      query::SourceDocument& doc = group_.emplace_back();
      doc.json = std::make_shared<const Json>(std::move(parsed));
      doc.bytes = record->body.size();
      doc.position = Json::array({std::move(record->partition_key), std::move(record->id)});
      doc.sort_key = *value;
    }
    std::sort(group_.begin(), group_.end(), [](const query::SourceDocument& a, const query::SourceDocument& b) {
      return a.position < b.position;
    });
    return Status();
  }

  // The next batch of entries, moving to the next range when one is exhausted.
  Result<bool> Fill() {
    batch_.clear();
    next_ = 0;
    while (batch_.empty()) {
      if (descending_ ? range_ == 0 : range_ == scan_.ranges.size()) return false;
      const IndexValueRange& range = scan_.ranges[descending_ ? range_ - 1 : range_];
      COSMOS_ASSIGN_OR_RETURN(batch_, txn_.ScanIndex(container_seq_, scan_.path, range.lower, range.lower_inclusive,
                                                     range.upper, range.upper_inclusive, descending_, cursor_,
                                                     kBatch));
      entries_read_ += batch_.size();
      if (batch_.empty()) {
        cursor_.reset();
        descending_ ? --range_ : ++range_;
      } else {
        cursor_ = batch_.back();
      }
    }
    return true;
  }

  const int64_t now_ = NowSeconds();
  storage::Transaction& txn_;
  int64_t container_seq_;
  const std::vector<storage::DocumentScope>& scopes_;
  const IndexLookup& scan_;
  bool descending_;
  const std::optional<std::vector<std::string>>& properties_;
  uint64_t& entries_read_;
  size_t range_;
  std::optional<std::pair<std::string, int64_t>> cursor_;
  std::vector<std::pair<std::string, int64_t>> batch_;
  size_t next_ = 0;
  std::vector<query::SourceDocument> group_;  // the current run of equal values
  size_t group_next_ = 0;
  bool exhausted_ = false;
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
                       ConsistencyLevel consistency, std::chrono::steady_clock::time_point started,
                       uint64_t index_entries_read = 0) {
  response.count = static_cast<int64_t>(page.rows.size());
  response.continuation = page.continuation;
  QueryWork work;
  work.documents_loaded = page.stats.documents_loaded;
  work.document_bytes = page.stats.document_bytes;
  work.output_bytes = page.stats.output_bytes;
  work.expressions = page.stats.expressions;
  work.function_work = page.function_work;
  work.index_entries = index_entries_read;
  response.request_charge = QueryCharge(work, consistency);
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
  FillQueryResponse(response, page, request, ConsistencyLevel::kSession, started);
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

namespace {

constexpr char kCrossPartitionDisabledMessage[] =
    "Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to "
    "true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception.";
constexpr char kNeedsClientPlanMessage[] =
    "The provided cross partition query can not be directly served by the gateway. This is a first chance "
    "(internal) exception that all newer clients will know how to handle gracefully. This exception is traced, "
    "but unless you see it bubble up as an exception (which only happens on older SDK clients), then you can "
    "safely ignore this message.";

PartitionKeyValue FromQueryTarget(const query::PartitionKeyValue& target) {
  PartitionKeyValue value;
  for (const query::PartitionKeyComponent& component : target) {
    value.components.push_back(PartitionKeyComponent{component.undefined, component.value});
  }
  return value;
}

// The effective keys of a query's partition-key targets, in key order, each a point (a full key) or
// a prefix (every key below it); a target inside a prefix also listed is dropped, so that no two
// overlap.
struct TargetKey {
  std::string epk;
  bool prefix = false;
  PartitionKeyValue value;
};

std::vector<TargetKey> TargetKeys(const PartitionKeyDefinition& definition, const query::PartitionKeyTargets& targets) {
  std::map<std::string, TargetKey> by_epk;
  for (const query::PartitionKeyValue& target : targets.points) {
    TargetKey key;
    key.value = FromQueryTarget(target);
    key.epk = EffectivePartitionKey(definition, key.value);
    key.prefix = target.size() < definition.paths.size();
    auto [found, inserted] = by_epk.emplace(key.epk, key);
    if (!inserted && key.prefix) found->second = std::move(key);  // a prefix covers the point equal to it
  }
  std::vector<TargetKey> keys;
  for (auto& [epk, key] : by_epk) {
    bool covered = !keys.empty() && keys.back().prefix && epk.compare(0, keys.back().epk.size(), keys.back().epk) == 0;
    if (!covered) keys.push_back(std::move(key));
  }
  return keys;
}

// Narrows a scope to the logical partitions a query's filter pins the partition key to, as an
// index on the partition key would: returns them in key order (those inside the scope), or
// nullopt when the filter leaves every value possible.
std::optional<std::vector<storage::DocumentScope>> PinnedPartitions(const ResolvedContainer& container,
                                                                    const query::BoundQuery& prepared,
                                                                    const Json& parameters,
                                                                    const storage::DocumentScope& scope,
                                                                    std::vector<int64_t>& range_ids) {
  bool hierarchical = container.partition_key.kind == PartitionKeyKind::kMultiHash;
  query::PartitionKeyTargets targets =
      query::FindPartitionKeyTargets(prepared.root(), parameters, container.partition_key.paths, hierarchical);
  if (targets.kind != query::PartitionKeyTargets::Kind::kPoints) return std::nullopt;
  // In effective-key order, which is storage order, as the document source requires.
  std::vector<storage::DocumentScope> scopes;
  std::vector<int64_t> ranges;
  for (TargetKey& target : TargetKeys(container.partition_key, targets)) {
    if (target.prefix) {
      // Every full key below the prefix, within the request's scope.
      std::string min = std::max(target.epk, scope.min_key);
      std::string max = target.epk + kMaxEffectivePartitionKey;
      if (scope.max_key) max = std::min(max, *scope.max_key);
      if (min >= max) continue;
      for (const RoutingMap::Range* range : container.routing.Overlapping(min, max)) ranges.push_back(range->id);
      scopes.push_back(storage::DocumentScope::KeyRange(min, max));
      continue;
    }
    if (target.epk < scope.min_key || (scope.max_key && target.epk >= *scope.max_key)) continue;
    scopes.push_back(storage::DocumentScope::Partition(StoragePartitionKey(container.partition_key, target.value)));
    if (const RoutingMap::Range* range = container.routing.RangeOf(target.epk)) ranges.push_back(range->id);
  }
  std::sort(ranges.begin(), ranges.end());
  ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
  range_ids = std::move(ranges);
  return scopes;
}

// The effective-partition-key ranges of the partition-key values a query can reach: the whole
// space, nothing, or one point per value, in effective-key order.
Json EffectiveRangesOf(const PartitionKeyDefinition& definition, const query::PartitionKeyTargets& targets) {
  auto point = [](const std::string& epk) {
    return Json{{"min", epk}, {"max", epk}, {"isMinInclusive", true}, {"isMaxInclusive", true}};
  };
  auto below_prefix = [](const std::string& epk) {
    return Json{{"min", epk}, {"max", epk + kMaxEffectivePartitionKey}, {"isMinInclusive", true},
                {"isMaxInclusive", false}};
  };
  switch (targets.kind) {
    case query::PartitionKeyTargets::Kind::kAll: return query::EffectiveQueryRanges(targets);
    case query::PartitionKeyTargets::Kind::kNone: return Json::array({point("")});
    case query::PartitionKeyTargets::Kind::kPoints: break;
  }
  Json ranges = Json::array();  // the SDK wants them sorted and non-overlapping
  for (const TargetKey& target : TargetKeys(definition, targets)) {
    ranges.push_back(target.prefix ? below_prefix(target.epk) : point(target.epk));
  }
  return ranges;
}

// Physical partitions a plan's queryRanges reach.
std::vector<int64_t> RangesReached(const RoutingMap& routing, const Json& query_ranges) {
  std::vector<int64_t> ids;
  for (const Json& range : query_ranges) {
    std::string min = range["min"].get<std::string>();
    std::string max = range["max"].get<std::string>();
    // An inclusive end: the smallest string above `max` is max + '\0'.
    if (range["isMaxInclusive"].get<bool>()) max += '\0';
    for (const RoutingMap::Range* found : routing.Overlapping(min, max)) ids.push_back(found->id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Whether the SDK must run the query itself across partitions (merge-sort, aggregate, group,
// de-duplicate, skip/take), as opposed to concatenating what each partition returns.
// The document paths of a query's ORDER BY items, for the indexing policy's check. Items that
// sort by a JOIN alias's values are left to the scan (the policy's paths start at the root).
std::vector<OrderByPath> OrderByPaths(const query::SelectQuery& query) {
  std::vector<OrderByPath> paths;
  // Only a FROM over the container's documents themselves maps to the policy's paths.
  if (query.from.empty() || query.from.front().iterate ||
      query.from.front().collection->kind != query::ExprKind::kIdentifier) {
    return paths;
  }
  for (const query::OrderByItem& item : query.order_by) {
    std::optional<DocumentPath> path = query::DocumentPathSteps(*item.expr, query.from.front().alias);
    if (!path) return {};
    paths.push_back({std::move(*path), item.descending});
  }
  return paths;
}

// Within one logical partition, an index lookup collects every matching document before it can
// order them by key, while a scan of the partition reads in key order and stops when the page is
// full. The scan wins when the lookup's ranges hold at least as many entries as the partition
// holds documents (an equality on the partition key path, a wide range on a large container):
// counting up to that many entries tells, without loading any document.
Result<bool> PartitionScanIsCheaper(Transaction& txn, int64_t container_seq, const IndexLookup& lookup,
                                    const std::string& partition_key) {
  COSMOS_ASSIGN_OR_RETURN(auto partition, txn.GetLogicalPartitionSize(container_seq, partition_key));
  int64_t entries = 0;
  for (const IndexValueRange& range : lookup.ranges) {
    COSMOS_ASSIGN_OR_RETURN(int64_t counted,
                            txn.CountIndexRange(container_seq, lookup.path, range.lower, range.lower_inclusive,
                                                range.upper, range.upper_inclusive,
                                                partition.document_count - entries));
    entries += counted;
    if (entries >= partition.document_count) return true;
  }
  return false;
}

// The index scan that yields a query's documents in its ORDER BY order, when one can: a single
// ORDER BY item on an indexed path, one FROM source, no grouping, aggregate or DISTINCT. When the
// WHERE clause bounds the same path, the scan keeps to those bounds (documents outside fail the
// filter anyway); otherwise every document must have a scalar there, or the scan would miss the
// ones that sort as undefined, arrays or objects.
Result<std::optional<IndexLookup>> OrderedIndexScan(Transaction& txn, const ResolvedContainer& container,
                                                    const query::BoundQuery& prepared,
                                                    const std::optional<IndexLookup>& lookup, bool& descending) {
  const query::SelectQuery& q = prepared.root();
  const query::SelectInfo& info = prepared.info(q);
  if (q.order_by.empty() || q.from.size() != 1 || q.distinct || info.is_grouped() || info.is_aggregate() ||
      info.container_subquery) {
    return std::optional<IndexLookup>();
  }
  std::vector<OrderByPath> paths = OrderByPaths(q);
  if (paths.size() != q.order_by.size()) return std::optional<IndexLookup>();
  IndexLookup scan;
  IndexValueRange every_value;
  if (paths.size() == 1) {
    if (!container.indexing.IsIndexed(paths[0].path)) return std::optional<IndexLookup>();
    descending = paths[0].descending;
    scan.path = IndexPathText(paths[0].path);
    every_value = {std::string(1, kIndexTypeNull), true, std::string(1, kIndexTypeString + 1), false};
  } else {
    // Several items: the composite index that CheckOrderBy found, read backwards when the query
    // inverts its directions. Its values are component tuples (EncodeCompositeValue), whose
    // first byte is never 0xff.
    auto composite = container.indexing.FindCompositeIndex(paths);
    if (!composite) return std::optional<IndexLookup>();
    descending = composite->backwards;
    scan.path = composite->entry_path;
    every_value = {std::string(), true, std::string(1, '\xff'), false};
  }
  if (lookup && lookup->path == scan.path) {
    scan.ranges = lookup->ranges;
  } else {
    // A selective equality elsewhere names few documents: sorting them beats walking the order.
    if (lookup && lookup->equality) return std::optional<IndexLookup>();
    // The index order holds every document only when each has an entry on the path (a scalar
    // there, or at every path of the composite index); otherwise the query sorts what it reads.
    COSMOS_ASSIGN_OR_RETURN(auto stored, txn.MeasureKeyRange(container.container.seq, "", kMaxEffectivePartitionKey));
    COSMOS_ASSIGN_OR_RETURN(int64_t entries, txn.CountIndexEntries(container.container.seq, scan.path));
    if (entries != stored.document_count) return std::optional<IndexLookup>();
    scan.ranges.push_back(std::move(every_value));
  }
  std::sort(scan.ranges.begin(), scan.ranges.end(),
            [](const IndexValueRange& a, const IndexValueRange& b) { return a.lower < b.lower; });
  scan.ranges.erase(std::unique(scan.ranges.begin(), scan.ranges.end(),
                                [](const IndexValueRange& a, const IndexValueRange& b) {
                                  return a.lower == b.lower && a.upper == b.upper;
                                }),
                    scan.ranges.end());
  return std::optional<IndexLookup>(std::move(scan));
}

bool NeedsClientPipeline(const Json& query_info) {
  return query_info["distinctType"] != "None" || !query_info["top"].is_null() || !query_info["offset"].is_null() ||
         !query_info["limit"].is_null() || !query_info["orderBy"].empty() || !query_info["aggregates"].empty() ||
         !query_info["groupByExpressions"].empty() || !query_info["groupByAliasToAggregateType"].empty() ||
         !query_info["dCountInfo"].is_null() || query_info["hasNonStreamingOrderBy"] == true ||
         query_info["rewrittenQuery"] != "";
}

// A FROM subquery whose rows depend on every partition at once (TOP, OFFSET/LIMIT, ORDER BY,
// DISTINCT, aggregates) has no per-partition rewrite the SDK could merge: the gateway runs such a
// query itself, over every partition.
bool HasWholeContainerSubquery(const query::BoundQuery& query) {
  const query::SelectQuery* select = &query.root();
  while (query.info(*select).container_subquery) {
    const query::SelectQuery& inner = *select->from[0].collection->subquery;
    const query::SelectInfo& info = query.info(inner);
    if (inner.top || inner.offset || inner.limit || !inner.order_by.empty() || inner.distinct || info.is_grouped() ||
        info.is_aggregate()) {
      return true;
    }
    select = &inner;
  }
  return false;
}

}  // namespace

Result<Json> Account::PlanQuery(const ResolvedContainer& container, const query::BoundQuery& prepared,
                                const Json& parameters, const std::optional<std::string>& supported_features) {
  query::QueryPlanOptions options;
  if (supported_features) options.supported_features = query::QueryFeatureSet::Parse(*supported_features);
  options.partition_key_paths = container.partition_key.paths;
  options.hierarchical_partition_key = container.partition_key.kind == PartitionKeyKind::kMultiHash;
  if (container.properties.contains("vectorEmbeddingPolicy")) {
    options.vector_embedding_policy = container.properties["vectorEmbeddingPolicy"];
  }
  const PartitionKeyDefinition& definition = container.partition_key;
  options.query_ranges = [&definition](const query::PartitionKeyTargets& targets) {
    return EffectiveRangesOf(definition, targets);
  };
  return query::BuildQueryPlan(prepared.root(), parameters, options);
}

Result<QueryPlanResponse> Account::QueryPlan(const QueryRequest& request,
                                             const std::optional<std::string>& supported_features) {
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text));
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, request.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto plan, PlanQuery(*container, *prepared, body.parameters, supported_features));
  QueryPlanResponse response;
  response.range_ids = RangesReached(container->routing, plan["queryRanges"]);
  response.by_partition_key = plan["queryRanges"] != query::EffectiveQueryRanges({});
  response.body = plan.dump();
  QueryLogEntry entry;
  entry.correlation_id = request.correlation_id;
  entry.container = container->OwnerPath();
  entry.text = body.text;
  entry.range_ids = response.range_ids;
  entry.by_partition_key = response.by_partition_key;
  entry.plan_request = true;
  query_log_.Record(entry);
  return response;
}

Result<QueryResponse> Account::QueryItems(const QueryRequest& request) {
  auto started = std::chrono::steady_clock::now();
  COSMOS_ASSIGN_OR_RETURN(auto body, ParseQueryBody(request.body));
  COSMOS_ASSIGN_OR_RETURN(auto prepared, prepared_queries_.Prepare(body.text));
  COSMOS_ASSIGN_OR_RETURN(auto consistency, ReadConsistency(options_.default_consistency, request.consistency_level));

  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, request.container, /*as_owner=*/true));
  COSMOS_RETURN_IF_ERROR(container->indexing.CheckOrderBy(OrderByPaths(prepared->root())));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                   {request.partition_key_header, request.partition_key_range_id,
                                                    request.start_epk, request.end_epk}));
  // A query with neither a partition key nor a range on a container of several physical
  // partitions is cross-partition: the gateway serves it only when the pages of each partition
  // can simply follow one another; anything else goes back to the SDK with the query plan.
  if (!scope.by_partition_key && !scope.by_range_id && container->routing.online_count() > 1) {
    if (!request.enable_cross_partition) return Status::BadRequest(kCrossPartitionDisabledMessage);
    COSMOS_ASSIGN_OR_RETURN(auto plan, PlanQuery(*container, *prepared, body.parameters, std::nullopt));
    if (NeedsClientPipeline(plan["queryInfo"]) && !HasWholeContainerSubquery(*prepared)) {
      return Status::QueryNeedsClientPlan(kNeedsClientPlanMessage, plan.dump());
    }
  }

  std::vector<storage::DocumentScope> scopes = {scope.documents};
  if (!scope.by_partition_key) {
    std::vector<int64_t> pinned_ranges;
    if (auto pinned = PinnedPartitions(*container, *prepared, body.parameters, scope.documents, pinned_ranges)) {
      scopes = std::move(*pinned);
      scope.range_ids = std::move(pinned_ranges);
      scope.by_partition_key = true;
    }
  }
  COSMOS_RETURN_IF_ERROR(Admit(*container, scope.range_ids));
  // The index answers the most selective predicate it can, unless it is still being built.
  std::optional<IndexLookup> lookup;
  if (!container->index_build) {
    lookup = ChooseIndexLookup(container->indexing, query::FindIndexPredicates(prepared->root(), body.parameters));
  }
  // ORDER BY from the index: a page reads only as far as its rows reach.
  bool descending = false;
  std::optional<IndexLookup> ordered;
  if (!container->index_build) {
    COSMOS_ASSIGN_OR_RETURN(ordered, OrderedIndexScan(txn, *container, *prepared, lookup, descending));
  }
  if (!ordered && lookup && scopes.size() == 1 && scopes.front().partition_key) {
    COSMOS_ASSIGN_OR_RETURN(bool scan, PartitionScanIsCheaper(txn, container->container.seq, *lookup,
                                                              *scopes.front().partition_key));
    if (scan) lookup.reset();
  }
  uint64_t index_entries_read = 0;
  query::OpenSource open_source = [&](const Json* start) -> Result<std::unique_ptr<query::DocumentSource>> {
    std::optional<storage::DocumentPosition> start_position;
    if (start != nullptr) {
      if (!start->is_array() || start->size() != 2 || !(*start)[0].is_string() || !(*start)[1].is_string()) {
        return Status::BadRequest("Invalid continuation token: the query cannot resume from it.");
      }
      start_position = storage::DocumentPosition{(*start)[0].get<std::string>(), (*start)[1].get<std::string>()};
    }
    if (ordered && start == nullptr) {
      return std::unique_ptr<query::DocumentSource>(new IndexOrderedDocumentSource(
          txn, container->container.seq, scopes, *ordered, descending, prepared->document_properties(),
          index_entries_read));
    }
    if (lookup) {
      return std::unique_ptr<query::DocumentSource>(new IndexedDocumentSource(
          txn, container->container.seq, scopes, *lookup, std::move(start_position), prepared->document_properties(),
          index_entries_read));
    }
    return std::unique_ptr<query::DocumentSource>(new StoredDocumentSource(
        txn, container->container.seq, scopes, std::move(start_position), prepared->document_properties()));
  };
  COSMOS_ASSIGN_OR_RETURN(auto page,
                          query::ExecutePage(*prepared, body.parameters, open_source, PageRequestOf(request)));
  QueryResponse response;
  response.body = FeedBody(container->container_rid, "Documents", page.rows);
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *container));
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  response.fan_out.range_ids = scope.range_ids;
  response.fan_out.by_partition_key = scope.by_partition_key;
  response.fan_out.documents_scanned = static_cast<int64_t>(page.stats.documents_loaded);
  response.fan_out.documents_returned = static_cast<int64_t>(page.rows.size());
  if (scope.by_range_id && !scope.range_ids.empty()) response.served_range_id = scope.range_ids.front();
  FillQueryResponse(response, page, request, consistency, started, index_entries_read);
  Charge(*container, scope.range_ids, response.request_charge);
  QueryLogEntry entry;
  entry.correlation_id = request.correlation_id;
  entry.container = container->OwnerPath();
  entry.text = body.text;
  entry.request_charge = response.request_charge;
  entry.range_ids = scope.range_ids;
  entry.by_partition_key = scope.by_partition_key;
  entry.documents_scanned = response.fan_out.documents_scanned;
  entry.documents_returned = response.fan_out.documents_returned;
  query_log_.Record(entry);
  return response;
}

// ---- Change feed --------------------------------------------------------------------------

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
  if (scope.by_range_id && !scope.range_ids.empty()) response.served_range_id = scope.range_ids.front();
  return response;
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

Result<ChangeFeedResponse> Account::ReadChangeFeed(const ChangeFeedRequest& request) {
  int64_t page_items = PageSize(request.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, request.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                   {request.partition_key_header, request.partition_key_range_id,
                                                    request.start_epk, request.end_epk}));
  if (request.all_versions_and_deletes) return ReadChangeLog(txn, *container, scope, request);
  COSMOS_ASSIGN_OR_RETURN(int64_t container_lsn, VisibleLsn(txn, *container));
  int64_t after_lsn = 0;
  std::optional<int64_t> since;
  switch (request.start_from) {
    case ChangeFeedRequest::StartFrom::kBeginning: break;
    case ChangeFeedRequest::StartFrom::kNow: after_lsn = container_lsn; break;
    case ChangeFeedRequest::StartFrom::kTime: since = request.since_seconds; break;
    case ChangeFeedRequest::StartFrom::kContinuation: after_lsn = request.continuation_lsn; break;
  }
  std::vector<DocumentRecord> rows;
  if (request.start_from != ChangeFeedRequest::StartFrom::kNow) {
    COSMOS_ASSIGN_OR_RETURN(rows, txn.ListChanges(container->container.seq, scope.documents, after_lsn, page_items,
                                                  since));
  }
  std::vector<std::string> bodies;
  size_t bytes = 0;
  int64_t reached = after_lsn;
  int64_t now = NowSeconds();
  for (auto& row : rows) {
    if (bytes > 0 && bytes + row.body.size() > kMaxPageBytes) break;
    reached = row.lsn;
    if (IsExpired(row, now)) continue;  // time to live: invisible from its expiry
    bytes += row.body.size();
    bodies.push_back(WithLsn(std::move(row.body), row.lsn));
  }
  // A full page of expired documents is progress, not the end: it answers an empty page.
  bool more = static_cast<int64_t>(rows.size()) == page_items;
  return ChangeFeedPage(*container, container_lsn, scope, std::move(bodies), bytes, after_lsn, reached, !more);
}

Result<ChangeFeedResponse> Account::ReadChangeLog(Transaction& txn, const ResolvedContainer& container,
                                                  const RequestScope& scope, const ChangeFeedRequest& request) {
  if (container.change_log_retention_s == 0) {
    return Status::BadRequest("The all versions and deletes change feed needs a container whose changeFeedPolicy has a "
                              "retentionDuration.");
  }
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
    bodies.push_back(std::move(entry));
  }
  return ChangeFeedPage(container, container_lsn, scope, std::move(bodies), bytes, after_lsn, reached,
                        /*may_end=*/true);
}

// ---- Partition key ranges ----------------------------------------------------------------

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

Result<PartitionKeyRangesResponse> Account::ReadPartitionKeyRanges(const ContainerAddress& address,
                                                                   const std::optional<std::string>& if_none_match,
                                                                   bool incremental) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, address, /*as_owner=*/true));
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

Result<PartitionKeyRangesResponse> Account::SplitPartitionKeyRange(const ContainerAddress& address, int64_t range_id) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, address, /*as_owner=*/false));
  const RoutingMap::Range* range = container->routing.FindById(range_id);
  if (range == nullptr || range->gone) {
    return Status::NotFound("The partition key range " + std::to_string(range_id) + " is not an online range.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto children, SplitRange(container->partition_key, container->routing, *range));
  COSMOS_RETURN_IF_ERROR(txn.MarkPartitionKeyRangeGone(container->container.seq, range_id));
  for (const auto& child : children) {
    COSMOS_RETURN_IF_ERROR(txn.InsertPartitionKeyRange(container->container.seq, child));
  }
  ChangeCatalog(txn);
  COSMOS_ASSIGN_OR_RETURN(auto updated, FindContainer(txn, address, /*as_owner=*/false));
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return RangesFeed(*updated, updated->lsn, 0);
}

// ---- Time-to-live sweeping ------------------------------------------------------------------

Result<int64_t> Account::SweepExpiredDocuments(int64_t now, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto expired, txn.ListExpiredDocuments(now, limit));
  std::map<int64_t, std::optional<Json>> logging;  // container seq -> its definition, when it keeps a log
  std::map<int64_t, IndexingPolicy> policies;       // container seq -> its indexing policy
  for (const auto& [container_seq, record] : expired) {
    auto [known, inserted] = logging.try_emplace(container_seq);
    if (inserted) {
      COSMOS_ASSIGN_OR_RETURN(auto container, txn.FindContainerBySeq(container_seq));
      if (container) {
        Json properties = Json::parse(container->body);
        policies[container_seq] = IndexingPolicy::FromNormalized(properties["indexingPolicy"]);
        if (ChangeLogRetentionOf(properties) > 0) known->second = std::move(properties);
      }
    }
    COSMOS_RETURN_IF_ERROR(DeleteIndexedDocument(txn, container_seq, policies[container_seq], record));
    if (!known->second) continue;
    // An expiry is a delete in the all-versions-and-deletes feed, marked timeToLiveExpired.
    COSMOS_ASSIGN_OR_RETURN(auto definition, PartitionKeyDefinition::Parse((*known->second)["partitionKey"]));
    Json document = ParseJson(record.body);
    COSMOS_ASSIGN_OR_RETURN(int64_t lsn, txn.NextLsn(container_seq));
    ChangeLogEntry entry;
    entry.operation = "delete";
    entry.lsn = lsn;
    entry.crts = now;
    entry.previous_lsn = record.lsn;
    entry.id = record.id;
    entry.partition_key = PartitionKeyObject(definition, PartitionKeyValue::FromDocument(definition, document));
    entry.ttl_expired = true;
    COSMOS_RETURN_IF_ERROR(txn.AppendChange(container_seq, lsn, record.partition_key, ChangeLogText(entry),
                                            now + ChangeLogRetentionOf(*known->second)));
  }
  COSMOS_RETURN_IF_ERROR(txn.PruneChangeLog(now));
  if (!expired.empty()) ChangeCatalog(txn);  // their LSNs moved on
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return static_cast<int64_t>(expired.size());
}

// ---- Data file upgrade ---------------------------------------------------------------------

Status Account::RunWriteBatch(const std::function<void()>& writes) {
  store_->BeginBatch();
  writes();
  return store_->EndBatch();
}

Status Account::UpgradeDataFile() {
  int version = store_->opened_schema_version();
  if (version == 0 || version >= 5) return Status();
  if (version == 4) return RebuildCompositeIndexes();
  if (version == 1) COSMOS_RETURN_IF_ERROR(RekeyDocuments());
  // Before version 4 there were neither offers nor index entries: every container gets the
  // default offer (unless its database shares throughput) and an index build.
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const auto& database : databases) {
    COSMOS_ASSIGN_OR_RETURN(auto database_offer, txn.FindOfferFor(/*is_database=*/true, database.seq));
    COSMOS_ASSIGN_OR_RETURN(auto containers, txn.ListContainers(database.seq));
    for (const auto& container : containers) {
      COSMOS_RETURN_IF_ERROR(txn.StartIndexBuild(container.seq));
      COSMOS_ASSIGN_OR_RETURN(auto offer, txn.FindOfferFor(/*is_database=*/false, container.seq));
      if (offer || database_offer || options_.serverless) continue;
      ContainerThroughput throughput;
      throughput.manual = kDefaultContainerThroughput;
      std::string rid = ResourceId::ForContainer(database.seq, container.seq);
      COSMOS_RETURN_IF_ERROR(InsertOffer(txn, /*is_database=*/false, container.seq,
                                         ContainerSelf(ResourceId::ForDatabase(database.seq), rid), rid, throughput));
    }
  }
  ChangeCatalog(txn);
  return txn.Commit();
}

// Version 4 kept no composite index entries: containers with composite indexes rebuild theirs.
Status Account::RebuildCompositeIndexes() {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const auto& database : databases) {
    COSMOS_ASSIGN_OR_RETURN(auto containers, txn.ListContainers(database.seq));
    for (const auto& container : containers) {
      Json body = Json::parse(container.body, nullptr, /*allow_exceptions=*/false);
      Json policy = body.is_object() ? body.value("indexingPolicy", Json::object()) : Json::object();
      if (policy.is_object() && !policy.value("compositeIndexes", Json::array()).empty()) {
        COSMOS_RETURN_IF_ERROR(txn.StartIndexBuild(container.seq));
      }
    }
  }
  ChangeCatalog(txn);
  return txn.Commit();
}

Status Account::RekeyDocuments() {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const auto& database : databases) {
    COSMOS_ASSIGN_OR_RETURN(auto containers, txn.ListContainers(database.seq));
    for (const auto& container : containers) {
      Json properties = Json::parse(container.body);
      COSMOS_ASSIGN_OR_RETURN(auto definition, PartitionKeyDefinition::Parse(properties["partitionKey"]));
      for (const auto& range : InitialRanges(definition, InitialRangeCount(0, options_.min_physical_partitions))) {
        COSMOS_RETURN_IF_ERROR(txn.InsertPartitionKeyRange(container.seq, range));
      }
      // Rekey in sequence order: a rekeyed document moves within the key order being listed.
      int64_t after_seq = 0;
      for (;;) {
        COSMOS_ASSIGN_OR_RETURN(auto next, txn.FindNextDocumentBySeq(container.seq, after_seq));
        if (!next) break;
        after_seq = next->seq;
        Json document = Json::parse(next->body);
        std::string key = StoragePartitionKey(definition, PartitionKeyValue::FromDocument(definition, document));
        COSMOS_RETURN_IF_ERROR(txn.RekeyDocument(container.seq, next->seq, key));
      }
    }
  }
  COSMOS_RETURN_IF_ERROR(txn.FinishRekeying());
  ChangeCatalog(txn);
  return txn.Commit();
}

// ---- Index builds ----------------------------------------------------------------------------

Result<bool> Account::ContinueIndexBuilds(int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto builds, txn.ListIndexBuilds());
  if (builds.empty()) return false;
  storage::IndexBuild build = builds.front();
  COSMOS_ASSIGN_OR_RETURN(auto container, txn.FindContainerBySeq(build.container_seq));
  if (!container) {
    COSMOS_RETURN_IF_ERROR(txn.FinishIndexBuild(build.container_seq));
    COSMOS_RETURN_IF_ERROR(txn.Commit());
    return builds.size() > 1;
  }
  IndexingPolicy policy = IndexingPolicy::FromNormalized(Json::parse(container->body)["indexingPolicy"]);
  COSMOS_ASSIGN_OR_RETURN(auto documents, txn.ListDocumentsBySeq(build.container_seq, build.after_seq, limit));
  for (const DocumentRecord& document : documents) {
    COSMOS_RETURN_IF_ERROR(
        txn.InsertIndexEntries(build.container_seq, document.seq, IndexEntriesOf(policy, document.body)));
    build.after_seq = document.seq;
  }
  build.done += static_cast<int64_t>(documents.size());
  bool finished = static_cast<int64_t>(documents.size()) < limit;
  if (finished) {
    COSMOS_RETURN_IF_ERROR(txn.FinishIndexBuild(build.container_seq));
    ChangeCatalog(txn);  // queries may use the index from now on
  } else {
    COSMOS_RETURN_IF_ERROR(txn.UpdateIndexBuild(build));
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  return !finished || builds.size() > 1;
}

// ---- Offers and throughput ----------------------------------------------------------------

namespace {

constexpr char kOfferMissingMessage[] = "The offer with the specified id does not exist in the system.";
constexpr char kServerlessOffersMessage[] = "Reading or replacing offers is not supported for serverless accounts.";
constexpr char kRequestRateTooLargeMessage[] =
    "Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request "
    "later. Learn more: http://aka.ms/cosmosdb-error-429";
constexpr int64_t kThroughputPerPartition = 10000;  // RU/s one physical partition serves

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

// Ranges of a container online after splitting the widest ones until there are `wanted`.
Status SplitUntil(Transaction& txn, const PartitionKeyDefinition& definition, int64_t container_seq, size_t wanted) {
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

}  // namespace

Status Account::InsertOffer(Transaction& txn, bool is_database, int64_t resource_seq, const std::string& resource_self,
                            const std::string& resource_rid, const ContainerThroughput& throughput) {
  OfferRecord record;
  COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kOffer));
  record.resource_seq = resource_seq;
  record.is_database = is_database;
  OfferIdentity identity{ResourceId::ForOffer(record.seq), resource_self, resource_rid};
  record.body = OfferBody(identity, throughput, throughput.ru_per_second(), NewEtag(), NowSeconds()).dump();
  return txn.InsertOffer(record);
}

Result<ResourceResponse> Account::ReadOffer(const std::string& offer_rid) {
  if (options_.serverless) return Status::BadRequest(kServerlessOffersMessage);
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto offer, FindOfferByRid(txn, offer_rid));
  ResourceResponse response;
  response.offer_min_throughput = MinimumThroughputOf(Json::parse(offer.body));
  response.etag = EtagOf(offer.body);
  response.body = std::move(offer.body);
  response.request_charge = MetadataReadCharge();
  return response;
}

Result<FeedResponse> Account::ListOffers(const FeedOptions& options) {
  if (options_.serverless) return Status::BadRequest(kServerlessOffersMessage);
  COSMOS_ASSIGN_OR_RETURN(int64_t after, SeqContinuation(options.continuation));
  int64_t page_size = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListOffers(after, page_size + 1));
  FeedResponse response;
  if (static_cast<int64_t>(records.size()) > page_size) {
    records.resize(page_size);
    response.continuation = std::to_string(records.back().seq);
  }
  std::vector<std::string> bodies;
  for (auto& record : records) bodies.push_back(std::move(record.body));
  response.count = static_cast<int64_t>(bodies.size());
  response.body = FeedBody("", "Offers", bodies);
  response.request_charge = MetadataReadCharge();
  return response;
}

Result<QueryResponse> Account::QueryOffers(const QueryRequest& request) {
  if (options_.serverless) return Status::BadRequest(kServerlessOffersMessage);
  std::vector<std::pair<int64_t, std::string>> bodies;
  {
    COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListOffers());
    for (auto& record : records) bodies.emplace_back(record.seq, std::move(record.body));
  }
  return QueryResources(request, std::move(bodies), "Offers", "");
}

Result<ResourceResponse> Account::ReplaceOffer(const std::string& offer_rid, const std::string& body,
                                               const Preconditions& preconditions) {
  if (options_.serverless) return Status::BadRequest(kServerlessOffersMessage);
  COSMOS_ASSIGN_OR_RETURN(auto replacement, ParseObject(body, "offer"));
  COSMOS_ASSIGN_OR_RETURN(auto throughput, ThroughputOfOffer(replacement));
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginWrite());
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
  std::string etag = NewEtag();
  std::string updated = OfferBody(identity, throughput, max_ever, etag, NowSeconds()).dump();
  COSMOS_RETURN_IF_ERROR(txn.UpdateOfferBody(offer.seq, updated));
  if (!offer.is_database) {
    // More throughput than the ranges can serve: split, as the service does, to 10,000 RU/s each.
    COSMOS_ASSIGN_OR_RETURN(auto record, txn.FindContainerBySeq(offer.resource_seq));
    if (record) {
      COSMOS_ASSIGN_OR_RETURN(auto definition, PartitionKeyDefinition::Parse(Json::parse(record->body)["partitionKey"]));
      size_t wanted = static_cast<size_t>((throughput.ru_per_second() + kThroughputPerPartition - 1) /
                                          kThroughputPerPartition);
      COSMOS_RETURN_IF_ERROR(SplitUntil(txn, definition, record->seq, wanted));
    }
  }
  ChangeCatalog(txn);
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  response.offer_min_throughput = MinimumThroughput(max_ever);
  response.body = std::move(updated);
  response.etag = std::move(etag);
  response.request_charge = MetadataWriteCharge();
  return response;
}

Status Account::Admit(const ResolvedContainer& container, const std::vector<int64_t>& range_ids) {
  if (!throttle_.enforcing() || container.throughput.ru_per_second() <= 0) return Status();
  double share = static_cast<double>(container.throughput.ru_per_second());
  if (container.shared_throughput) {
    // Containers of a shared-throughput database draw from one budget: the database's.
    if (auto wait = throttle_.Admit({-container.database.seq, 0}, share)) {
      return Status::RequestRateTooLarge(kRequestRateTooLargeMessage, *wait);
    }
    return Status();
  }
  share /= static_cast<double>(std::max<size_t>(1, container.routing.online_count()));
  std::vector<int64_t> ids = range_ids;
  if (ids.empty()) {
    for (const RoutingMap::Range* range : container.routing.online()) ids.push_back(range->id);
  }
  for (int64_t id : ids) {
    if (auto wait = throttle_.Admit({container.container.seq, id}, share)) {
      return Status::RequestRateTooLarge(kRequestRateTooLargeMessage, *wait);
    }
  }
  return Status();
}

void Account::Charge(const ResolvedContainer& container, const std::vector<int64_t>& range_ids, double request_units) {
  if (container.shared_throughput) {
    throttle_.Charge({-container.database.seq, 0}, request_units);
    return;
  }
  std::vector<int64_t> ids = range_ids;
  if (ids.empty()) {
    for (const RoutingMap::Range* range : container.routing.online()) ids.push_back(range->id);
  }
  for (int64_t id : ids) {
    throttle_.Charge({container.container.seq, id}, request_units / static_cast<double>(ids.size()));
  }
}

Result<std::string> Account::PartitionReport(int64_t largest_logical_partitions) {
  std::map<Throttle::PartitionId, PartitionUsage> usage = throttle_.Usage();
  Json containers = Json::array();
  COSMOS_ASSIGN_OR_RETURN(auto txn, store_->BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const DatabaseRecord& database : databases) {
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListContainers(database.seq));
    for (const ContainerRecord& record : records) {
      ContainerAddress address{ResourceName{database.id, false}, ResourceName{record.id, false}};
      COSMOS_ASSIGN_OR_RETURN(auto container, FindContainer(txn, address, /*as_owner=*/false));
      size_t online = std::max<size_t>(1, container->routing.online_count());
      Json partitions = Json::array();
      for (const RoutingMap::Range* range : container->routing.online()) {
        COSMOS_ASSIGN_OR_RETURN(auto size, txn.MeasureKeyRange(record.seq, range->min_inclusive, range->max_exclusive));
        COSMOS_ASSIGN_OR_RETURN(auto largest, txn.LargestLogicalPartitions(record.seq, range->min_inclusive,
                                                                           range->max_exclusive,
                                                                           largest_logical_partitions));
        Json logical = Json::array();
        for (const auto& [key, logical_size] : largest) {
          // Storage keys are "<effective partition key> <partition key JSON>".
          std::string value = key.substr(std::min(key.size(), key.find(' ') + 1));
          logical.push_back({{"partitionKey", Json::parse(value, nullptr, false).is_discarded()
                                                  ? Json(value) : Json::parse(value)},
                             {"documents", logical_size.document_count},
                             {"bytes", logical_size.total_bytes}});
        }
        const PartitionUsage& used = usage[{record.seq, range->id}];
        partitions.push_back({{"id", std::to_string(range->id)},
                              {"minInclusive", range->min_inclusive},
                              {"maxExclusive", range->max_exclusive},
                              {"requestUnits", std::round(used.request_units * 100) / 100},
                              {"throttledRequests", used.throttled},
                              {"documents", size.document_count},
                              {"bytes", size.total_bytes},
                              {"largestLogicalPartitions", std::move(logical)}});
      }
      Json entry = {{"container", container->OwnerPath()},
                    {"throughput", container->throughput.ru_per_second()},
                    {"autoscale", container->throughput.autoscale_max > 0},
                    {"sharedThroughput", container->shared_throughput},
                    {"throughputPerPartition",
                     container->shared_throughput ? 0.0
                                                  : static_cast<double>(container->throughput.ru_per_second()) /
                                                        static_cast<double>(online)},
                    {"physicalPartitions", std::move(partitions)}};
      if (container->shared_throughput) {
        const PartitionUsage& shared = usage[{-database.seq, 0}];
        entry["databaseRequestUnits"] = std::round(shared.request_units * 100) / 100;
        entry["databaseThrottledRequests"] = shared.throttled;
      }
      containers.push_back(std::move(entry));
    }
  }
  Json report = {{"rateLimiting", throttle_.enforcing()}, {"containers", std::move(containers)}};
  return report.dump(2);
}

}  // namespace cosmos::engine
