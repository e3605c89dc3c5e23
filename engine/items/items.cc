#include "engine/items/items.h"

#include <algorithm>
#include <cstdio>

#include "common/json_parse.h"
#include "engine/change_feed/change_log.h"
#include "engine/indexing/document_index.h"
#include "engine/items/document_text.h"
#include "engine/items/item_keys.h"
#include "engine/items/patch.h"
#include "engine/items/time_to_live.h"
#include "engine/partitioning/partitioning.h"
#include "engine/partitioning/read_order.h"
#include "engine/queries/document_condition.h"
#include "engine/shared/feeds.h"
#include "engine/shared/messages.h"
#include "engine/shared/preconditions.h"
#include "engine/shared/request_bodies.h"
#include "engine/shared/resource_id.h"

namespace cosmos::engine {
namespace {

using storage::DocumentRecord;
using storage::SeqKind;
using storage::Transaction;

constexpr char kPartitionKeyMismatchMessage[] =
    "PartitionKey extracted from document doesn't match the one specified in the header.";
constexpr char kPartitionKeyMissingMessage[] =
    "The partition key supplied in x-ms-partitionkey header has fewer components than defined in "
    "the the collection.";
constexpr char kUniqueKeyMessage[] = "Unique index constraint violation.";

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

// A patch may not touch the id, the partition key or the properties the service owns.
Status CheckPatchTargets(const ResolvedContainer& container, const std::vector<PatchOperation>& operations) {
  for (const PatchOperation& operation : operations) {
    std::vector<const std::vector<std::string>*> touched = {&operation.steps};
    if (!operation.from.empty()) touched.push_back(&operation.from);
    for (const std::vector<std::string>* steps : touched) {
      const std::string& top = steps->front();
      if (top == "id") return Status::BadRequest("Invalid patch request: Cannot patch the id of a document.");
      if (IsDocumentSystemProperty(top)) {
        return Status::BadRequest("Invalid patch request: Cannot patch system property " + top + ".");
      }
      // The key's path itself, or a property on the way to it.
      const PartitionKeyDefinition& key = container.partition_key;
      for (size_t index = 0; index < key.segments.size(); ++index) {
        const std::vector<std::string>& key_steps = key.segments[index];
        if (steps->size() <= key_steps.size() && std::equal(steps->begin(), steps->end(), key_steps.begin())) {
          return Status::BadRequest("Invalid patch request: Cannot patch the partition key path " +
                                    key.paths[index] + ".");
        }
      }
    }
  }
  return Status();
}


}  // namespace

Result<PartitionKeyValue> HeaderPartitionKey(const ResolvedContainer& container,
                                             const std::optional<std::string>& header) {
  if (!header || header->empty()) {
    // A legacy non-partitioned container's clients name no key: its one logical partition.
    if (container.partition_key.system_key) return PartitionKeyValue::FromHeader(container.partition_key, "[]");
    return Status::BadRequest(kPartitionKeyMissingMessage);
  }
  return PartitionKeyValue::FromHeader(container.partition_key, *header);
}

std::vector<int64_t> RangeOfKey(const ResolvedContainer& container, const std::string& storage_key) {
  const RoutingMap::Range* range = container.routing.RangeOf(std::string_view(storage_key).substr(0, storage_key.find(' ')));
  return range ? std::vector<int64_t>{range->id} : std::vector<int64_t>{};
}

Items::Items(AccountContext& context, Admission& admission) : context_(context), admission_(admission) {}

Result<ParsedItem> Items::ParseItem(std::string_view body) {
  if (body.size() > kMaxDocumentBytes) {
    return Status::RequestEntityTooLarge("Request size is too large");
  }
  ParsedItem parsed;
  COSMOS_ASSIGN_OR_RETURN(parsed.document, ParseObject(body, "document", &parsed.compact));
  COSMOS_RETURN_IF_ERROR(ValidateItemId(parsed.document));
  parsed.id = parsed.document["id"].get<std::string>();
  return parsed;
}

Result<ParsedItem> Items::ParseItemFor(const ContainerAddress& container, std::string_view body) const {
  COSMOS_ASSIGN_OR_RETURN(ParsedItem parsed, ParseItem(body));
  std::shared_ptr<const ResolvedContainer> cached = context_.CachedContainer(container);
  if (!cached) return parsed;
  std::optional<std::vector<storage::IndexEntry>> entries = cached->indexing.IndexEntriesBesideTimestamp(parsed.document);
  if (!entries) return parsed;
  parsed.index_entries = std::move(*entries);
  // Points at the policy, and keeps the container that holds it alive, so that the address cannot
  // be reused by another policy before the write compares it.
  parsed.indexed_with = std::shared_ptr<const void>(cached, &cached->indexing);
  return parsed;
}

Result<ParsedItem> Items::ParseDocument(Json body, std::string& text) {
  if (!body.is_object()) return Status::BadRequest("The document must be a JSON object.");
  text = body.dump();
  if (text.size() > kMaxDocumentBytes) return Status::RequestEntityTooLarge("Request size is too large");
  COSMOS_RETURN_IF_ERROR(CheckNesting(text, "document"));
  COSMOS_RETURN_IF_ERROR(ValidateItemId(body));
  ParsedItem parsed;
  parsed.compact = true;
  parsed.id = body["id"].get<std::string>();
  parsed.document = std::move(body);
  return parsed;
}

Result<ResourceResponse> Items::Create(const ItemWrite& write) {
  return Write(write, WriteMode::kCreate, nullptr);
}

Result<ResourceResponse> Items::Upsert(const ItemWrite& write) {
  return Write(write, WriteMode::kUpsert, nullptr);
}

Result<ResourceResponse> Items::Replace(const ItemWrite& write, const ResourceName& id) {
  return Write(write, WriteMode::kReplace, &id);
}

Result<ResourceResponse> Items::Patch(const ItemKey& key, std::string_view body, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(PatchRequest patch, ParsePatch(body));
  return Patch(key, patch, preconditions);
}

Result<ResourceResponse> Items::Patch(const ItemKey& key, const PatchRequest& patch, const Preconditions& preconditions) {
  // Not isolated, as Write: every refusal comes before the first change but a unique key's.
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite(/*isolated=*/false));
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, key.container, /*as_owner=*/true));
  if (!container->unique_keys.keys.empty()) COSMOS_RETURN_IF_ERROR(txn.Isolate());
  Step step{txn, *container};
  return Finish(step, PatchIn(step, key, patch, preconditions), key.partition_key_header);
}

Result<ResourceResponse> Items::PatchIn(Step& step, const ItemKey& key, const PatchRequest& patch,
                                        const Preconditions& preconditions) {
  const ResolvedContainer& container = step.container;
  COSMOS_RETURN_IF_ERROR(CheckPatchTargets(container, patch.operations));
  COSMOS_ASSIGN_OR_RETURN(auto found, FindItem(step.txn, container, key));
  if (!found) return Status::NotFound(kIdMissingMessage);
  step.range_ids = RangeOfKey(container, found->partition_key);
  if (step.admit) COSMOS_RETURN_IF_ERROR(admission_.Admit(container, step.range_ids));
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, found->etag));
  Json document = ParseJson(found->body);
  if (document.is_discarded()) return Status::Internal("stored document is not valid JSON: " + found->id);
  if (patch.condition) {
    COSMOS_ASSIGN_OR_RETURN(bool holds, DocumentMatches(conditions_, *patch.condition, document));
    if (!holds) return Status::PreconditionFailed(kPreconditionMessage);
  }
  COSMOS_RETURN_IF_ERROR(ApplyPatch(patch.operations, document));
  // The result is checked as a replace's document would be, and stored from this one text: without
  // system properties it is compact, so Store appends the new ones instead of serializing again.
  EraseSystemProperties(document);
  std::string text = document.dump();
  if (text.size() > kMaxDocumentBytes) return Status::RequestEntityTooLarge("Request size is too large");
  COSMOS_RETURN_IF_ERROR(CheckNesting(text, "patched document"));
  std::string id = found->id;
  std::string partition_key = found->partition_key;
  CheckedWrite checked{document, text, /*compact=*/true, std::move(id), std::move(partition_key), std::move(found),
                       step.lsn};
  return Store(step.txn, container, checked);
}

Result<ResourceResponse> Items::Finish(Step& step, Result<ResourceResponse> result,
                                       const std::optional<std::string>& partition_key_header) {
  if (!result.ok()) return ChargeFailure(step, partition_key_header, result.status());
  ResourceResponse response = std::move(result).value();
  COSMOS_RETURN_IF_ERROR(step.txn.Commit());
  admission_.Charge(step.container, step.range_ids, response.request_charge);
  if (step.range_ids.size() == 1) response.range_id = step.range_ids.front();
  return response;
}

Status Items::ChargeFailure(const Step& step, const std::optional<std::string>& partition_key_header,
                            const Status& failure) {
  if (!IsChargedFailure(failure.code())) return failure;
  std::vector<int64_t> range_ids = step.range_ids;
  if (range_ids.empty()) {
    // Refused before the item was found (404, a bad body): the partition its key names.
    Result<PartitionKeyValue> key = HeaderPartitionKey(step.container, partition_key_header);
    if (!key.ok()) return failure;
    range_ids = RangeOfKey(step.container, StoragePartitionKey(step.container.partition_key, key.value()));
  }
  admission_.Charge(step.container, range_ids, FailedRequestCharge());
  return failure;
}

Result<ResourceResponse> Items::Write(const ItemWrite& write, WriteMode mode, const ResourceName* replace_id) {
  ParsedItem parsed_here;
  ParsedItem* parsed = write.parsed;
  if (parsed == nullptr) {
    COSMOS_ASSIGN_OR_RETURN(parsed_here, ParseItem(write.body));
    parsed = &parsed_here;
  }
  // Not isolated (Store::BeginWrite): every check that can refuse the write comes before its
  // first change, except a unique key's, and a container with unique keys isolates the write.
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite(/*isolated=*/false));
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, write.container, /*as_owner=*/true));
  if (!container->unique_keys.keys.empty()) COSMOS_RETURN_IF_ERROR(txn.Isolate());
  Step step{txn, *container};
  return Finish(step, WriteIn(step, write, *parsed, mode, replace_id), write.partition_key_header);
}

Result<ResourceResponse> Items::WriteIn(Step& step, const ItemWrite& write, ParsedItem& parsed, WriteMode mode,
                                        const ResourceName* replace_id) {
  storage::Transaction& txn = step.txn;
  const ResolvedContainer* container = &step.container;
  Json& document = parsed.document;
  const bool compact = parsed.compact;
  const std::string& id = parsed.id;
  COSMOS_ASSIGN_OR_RETURN(auto header_key,
                          HeaderPartitionKey(*container, write.partition_key_header));
  PartitionKeyValue document_key = PartitionKeyValue::FromDocument(container->partition_key, document);
  if (!(header_key == document_key)) {
    return Status::PartitionKeyMismatch(kPartitionKeyMismatchMessage);
  }
  std::string partition_key = StoragePartitionKey(container->partition_key, document_key);
  step.range_ids = RangeOfKey(*container, partition_key);
  if (step.admit) COSMOS_RETURN_IF_ERROR(admission_.Admit(*container, step.range_ids));

  std::optional<DocumentRecord> existing;
  if (mode == WriteMode::kReplace) {
    ItemKey key{write.container, write.partition_key_header, *replace_id};
    COSMOS_ASSIGN_OR_RETURN(existing, FindItem(txn, *container, key));
    if (!existing) return Status::NotFound(kIdMissingMessage);
    // A body with another id renames the item, as the service allows: the _rid stays, and the new
    // id must be free in the logical partition (checked before the first change).
    if (existing->id != id) {
      COSMOS_ASSIGN_OR_RETURN(auto taken, txn.FindDocument(container->container.seq, partition_key, id));
      if (taken) return Status::Conflict(kIdExistsMessage);
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
  CheckedWrite checked{document, write.body, compact, id, std::move(partition_key), std::move(existing), step.lsn,
                       &parsed};
  return Store(txn, *container, checked);
}

Result<ResourceResponse> Items::Store(storage::Transaction& txn, const ResolvedContainer& container,
                                      CheckedWrite& write) {
  Json& document = write.document;
  const std::string& id = write.id;
  const std::string& partition_key = write.partition_key;
  const std::optional<DocumentRecord>& existing = write.existing;
  DocumentRecord record;
  if (existing) {
    record.seq = existing->seq;
  } else {
    COSMOS_ASSIGN_OR_RETURN(record.seq, txn.NextSeq(SeqKind::kDocument));
  }
  if (write.lsn) {
    record.lsn = *write.lsn;
  } else {
    COSMOS_ASSIGN_OR_RETURN(record.lsn, txn.NextLsn(container.container.seq));
  }
  container.lsn = std::max(container.lsn, record.lsn);
  record.partition_key = partition_key;
  record.id = id;
  record.etag = context_.NewEtag();
  // Unique-key values come from the client's properties alone.
  std::vector<std::string> unique_values = container.unique_keys.ValuesOf(document);
  SystemProperties system;
  system.rid = ResourceId::ForDocument(container.database.seq, container.container.seq, record.seq);
  system.self = ContainerSelf(container.database_rid, container.container_rid) + "docs/" + system.rid + "/";
  system.etag = record.etag;
  system.ts = NowSeconds();
  COSMOS_ASSIGN_OR_RETURN(record.expires_at, ExpiresAt(container.default_ttl, document, system.ts));
  record.body = DocumentText(write.body, write.compact, document, system);
  COSMOS_RETURN_IF_ERROR(CheckLogicalPartitionCap(txn, container, partition_key, record.body.size(),
                                                  existing ? existing->body.size() : 0,
                                                  context_.options().logical_partition_cap_bytes));

  // The index sees the document as stored: with the _ts given here (indexed, as on the service),
  // never one the client sent. Its other entries may have been computed off the write thread with
  // this very policy.
  std::vector<storage::IndexEntry> index_entries;
  if (write.parsed != nullptr && write.parsed->indexed_with && write.parsed->indexed_with.get() == &container.indexing) {
    index_entries = std::move(write.parsed->index_entries);
    if (auto timestamp = container.indexing.TimestampIndexEntry(system.ts)) index_entries.push_back(std::move(*timestamp));
  } else {
    document["_ts"] = system.ts;
    index_entries = container.indexing.IndexEntries(document);
  }
  std::vector<storage::IndexEntry> old_index_entries;
  // A replaced document keeps the entries it shares with its new version: only the difference
  // goes out of and into the index.
  std::vector<storage::IndexEntry> entries_to_insert;
  if (existing) {
    old_index_entries = IndexEntriesOf(container.indexing, existing->body);
    IndexEntryChanges changes = DiffIndexEntries(old_index_entries, index_entries);
    entries_to_insert = std::move(changes.added);
    COSMOS_RETURN_IF_ERROR(txn.DeleteIndexEntries(container.container.seq, existing->seq, existing->partition_key, changes.stale));
    COSMOS_RETURN_IF_ERROR(txn.UpdateDocument(container.container.seq, record));
    if (!unique_values.empty()) {
      COSMOS_RETURN_IF_ERROR(txn.DeleteUniqueKeyEntries(container.container.seq, record.seq));
    }
  } else {
    Status inserted = txn.InsertDocument(container.container.seq, record);
    if (inserted.code() == ErrorCode::kConflict) {
      // The id is taken, unless by an expired document the sweeper has not removed yet.
      COSMOS_ASSIGN_OR_RETURN(auto taken, txn.FindDocument(container.container.seq, partition_key, id));
      if (!taken || !IsExpired(*taken, system.ts)) return Status::Conflict(kIdExistsMessage);
      COSMOS_RETURN_IF_ERROR(DeleteIndexedDocument(txn, container.container.seq, container.indexing, *taken));
      inserted = txn.InsertDocument(container.container.seq, record);
    }
    COSMOS_RETURN_IF_ERROR(inserted);
  }
  COSMOS_RETURN_IF_ERROR(
      txn.InsertNewIndexEntries(container.container.seq, record.seq, record.partition_key,
                             existing ? entries_to_insert : index_entries));
  for (size_t index = 0; index < unique_values.size(); ++index) {
    Status inserted = txn.InsertUniqueKeyEntry(container.container.seq, partition_key,
                                               static_cast<int>(index), unique_values[index], record.seq);
    if (inserted.code() == ErrorCode::kConflict) return Status::Conflict(kUniqueKeyMessage);
    COSMOS_RETURN_IF_ERROR(inserted);
  }
  if (container.change_log_retention_s > 0) {
    ChangeLogEntry entry;
    entry.operation = existing ? "replace" : "create";
    entry.lsn = record.lsn;
    entry.crts = system.ts;
    entry.previous_lsn = existing ? existing->lsn : 0;
    entry.current = record.body;
    COSMOS_RETURN_IF_ERROR(txn.AppendChange(container.container.seq, record.lsn, partition_key, ChangeLogText(entry),
                                            system.ts + container.change_log_retention_s));
  }
  ResourceResponse response;
  int64_t index_terms = ChargedIndexTerms(index_entries);
  response.request_charge = existing ? ReplaceCharge(record.body.size(), index_terms,
                                                     ChargedIndexTerms(old_index_entries))
                                     : CreateCharge(record.body.size(), index_terms);
  response.body = std::move(record.body);
  response.etag = std::move(record.etag);
  response.created = !existing;
  response.lsn = record.lsn;
  response.owner_path = container.OwnerPath();
  response.owner_rid = container.container_rid;
  return response;
}

Result<ResourceResponse> Items::Read(const ItemKey& key, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto consistency, ReadConsistency(context_.options().default_consistency, key.consistency_level));
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, key.container, /*as_owner=*/true));
  Step step{txn, *container};
  Result<ResourceResponse> read = ReadIn(step, key, preconditions, consistency);
  if (!read.ok()) return ChargeFailure(step, key.partition_key_header, read.status());
  ResourceResponse response = std::move(read).value();
  admission_.Charge(*container, step.range_ids, response.request_charge);
  if (step.range_ids.size() == 1) response.range_id = step.range_ids.front();
  return response;
}

Result<ResourceResponse> Items::ReadIn(Step& step, const ItemKey& key, const Preconditions& preconditions,
                                       ConsistencyLevel consistency) {
  const ResolvedContainer& container = step.container;
  COSMOS_ASSIGN_OR_RETURN(auto found, FindItem(step.txn, container, key));
  if (!found) return Status::NotFound(kIdMissingMessage);
  step.range_ids = RangeOfKey(container, found->partition_key);
  if (step.admit) COSMOS_RETURN_IF_ERROR(admission_.Admit(container, step.range_ids));
  ResourceResponse response;
  response.request_charge = ReadCharge(found->body.size(), consistency);
  response.not_modified = preconditions.if_none_match && *preconditions.if_none_match == found->etag;
  if (!response.not_modified) response.body = std::move(found->body);
  response.etag = std::move(found->etag);
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(step.txn, container));
  response.owner_path = container.OwnerPath();
  response.owner_rid = container.container_rid;
  return response;
}

Result<ResourceResponse> Items::Delete(const ItemKey& key, const Preconditions& preconditions) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, key.container, /*as_owner=*/true));
  Step step{txn, *container};
  return Finish(step, DeleteIn(step, key, preconditions), key.partition_key_header);
}

Result<ResourceResponse> Items::DeleteIn(Step& step, const ItemKey& key, const Preconditions& preconditions) {
  storage::Transaction& txn = step.txn;
  const ResolvedContainer* container = &step.container;
  COSMOS_ASSIGN_OR_RETURN(auto found, FindItem(txn, *container, key));
  if (!found) return Status::NotFound(kIdMissingMessage);
  COSMOS_RETURN_IF_ERROR(CheckIfMatch(preconditions, found->etag));
  step.range_ids = RangeOfKey(*container, found->partition_key);
  if (step.admit) COSMOS_RETURN_IF_ERROR(admission_.Admit(*container, step.range_ids));
  int64_t lsn = 0;
  if (step.lsn) {
    lsn = *step.lsn;
  } else {
    COSMOS_ASSIGN_OR_RETURN(lsn, txn.NextLsn(container->container.seq));
  }
  container->lsn = std::max(container->lsn, lsn);
  std::vector<storage::IndexEntry> index_entries = IndexEntriesOf(container->indexing, found->body);
  COSMOS_RETURN_IF_ERROR(txn.DeleteIndexEntries(container->container.seq, found->seq, found->partition_key, index_entries));
  COSMOS_RETURN_IF_ERROR(txn.DeleteDocument(container->container.seq, *found));
  if (container->change_log_retention_s > 0) {
    COSMOS_ASSIGN_OR_RETURN(auto value, HeaderPartitionKey(*container, key.partition_key_header));
    ChangeLogEntry entry = DeletionEntry(lsn, NowSeconds(), found->lsn, found->id,
                                         PartitionKeyObject(container->partition_key, value));
    COSMOS_RETURN_IF_ERROR(txn.AppendChange(container->container.seq, lsn, found->partition_key, ChangeLogText(entry),
                                            entry.crts + container->change_log_retention_s));
  }
  ResourceResponse response;
  response.request_charge = DeleteCharge(found->body.size(), ChargedIndexTerms(index_entries));
  response.lsn = lsn;
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

Result<ResourceResponse> Items::DeletePartition(const ContainerAddress& address,
                                                const std::optional<std::string>& partition_key_header) {
  if (!partition_key_header || partition_key_header->empty()) {
    return Status::BadRequest(kPartitionKeyMissingMessage);
  }
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, address, /*as_owner=*/false));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                   {partition_key_header, std::nullopt, std::nullopt, std::nullopt}));
  COSMOS_RETURN_IF_ERROR(admission_.Admit(*container, scope.range_ids));
  const int64_t container_seq = container->container.seq;
  const int64_t now = NowSeconds();
  double charge = 0;
  int64_t lsn = 0;
  // Each pass lists the first documents left in the scope: the ones before are deleted already.
  constexpr int64_t kBatch = 256;
  for (;;) {
    COSMOS_ASSIGN_OR_RETURN(auto batch, txn.ListDocuments(container_seq, scope.documents, 0, kBatch));
    for (const DocumentRecord& record : batch) {
      COSMOS_ASSIGN_OR_RETURN(lsn, txn.NextLsn(container_seq));
      container->lsn = std::max(container->lsn, lsn);
      std::vector<storage::IndexEntry> index_entries = IndexEntriesOf(container->indexing, record.body);
      COSMOS_RETURN_IF_ERROR(txn.DeleteIndexEntries(container_seq, record.seq, record.partition_key, index_entries));
      COSMOS_RETURN_IF_ERROR(txn.DeleteDocument(container_seq, record));
      charge += DeleteCharge(record.body.size(), ChargedIndexTerms(index_entries));
      if (container->change_log_retention_s > 0) {
        const PartitionKeyDefinition& key = container->partition_key;
        ChangeLogEntry entry =
            DeletionEntry(lsn, now, record.lsn, record.id,
                          PartitionKeyObject(key, PartitionKeyValue::FromDocument(key, ParseJson(record.body))));
        COSMOS_RETURN_IF_ERROR(txn.AppendChange(container_seq, lsn, record.partition_key, ChangeLogText(entry),
                                                now + container->change_log_retention_s));
      }
    }
    if (static_cast<int64_t>(batch.size()) < kBatch) break;
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  ResourceResponse response;
  // What the deletes cost, as one delete each; at least what a metadata write costs.
  response.request_charge = std::max(charge, MetadataWriteCharge());
  admission_.Charge(*container, scope.range_ids, response.request_charge);
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *container));
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

Result<FeedResponse> Items::ReadFeed(const ContainerAddress& address, const FeedOptions& options) {
  std::optional<ReadPosition> resume;
  if (options.continuation && !options.continuation->empty()) {
    resume = ReadPosition::FromJson(ParseJson(*options.continuation));
    if (!resume) return Status::BadRequest("Invalid Continuation Token: '" + *options.continuation + "' is malformed.");
  }
  int64_t page_items = PageSize(options.max_item_count);
  COSMOS_ASSIGN_OR_RETURN(auto consistency, ReadConsistency(context_.options().default_consistency, options.consistency_level));

  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, address, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto scope, ResolveScope(container->partition_key, container->routing,
                                                   {options.partition_key_header, options.partition_key_range_id,
                                                    std::nullopt, std::nullopt}));
  COSMOS_RETURN_IF_ERROR(admission_.Admit(*container, scope.range_ids));
  // In read order (engine/partitioning/read_order.h); the page continues at the first document
  // that does not fit, when there is one.
  std::vector<std::string> bodies;
  size_t bytes = 0;
  std::optional<ReadPosition> next;
  int64_t now = NowSeconds();
  // A feed reads one key range, so each segment holds one scope, except the one a resumed read
  // puts together from a split partition's children: those are adjacent, so that one key range
  // reads them in the same seq order.
  for (const SegmentRead& read : SegmentsToRead(ReadSegments(container->routing, {scope.documents}), resume)) {
    const ReadSegment& segment = read.segment;
    storage::DocumentScope range = segment.scopes.front();
    if (!range.partition_key) range.max_key = segment.scopes.back().max_key;
    int64_t from_seq = read.from_seq;
    while (!next) {
      // One row more than the page holds tells whether another page follows.
      int64_t wanted = page_items - static_cast<int64_t>(bodies.size()) + 1;
      COSMOS_ASSIGN_OR_RETURN(auto rows, txn.ListDocuments(container->container.seq, range, from_seq, wanted));
      for (auto& row : rows) {
        if (static_cast<int64_t>(bodies.size()) == page_items ||
            (bytes > 0 && bytes + row.body.size() > kMaxPageBytes)) {
          next = ReadPosition{row.seq, segment.min_key, segment.max_key};
          break;
        }
        from_seq = row.seq + 1;
        if (IsExpired(row, now)) continue;
        bytes += row.body.size();
        bodies.push_back(std::move(row.body));
      }
      if (static_cast<int64_t>(rows.size()) < wanted) break;  // the segment is read
    }
    if (next) break;
  }
  FeedResponse response;
  if (next) response.continuation = next->ToJson().dump(-1, ' ', /*ensure_ascii=*/true);
  response.count = static_cast<int64_t>(bodies.size());
  response.body = FeedBody(container->container_rid, "Documents", bodies);
  response.request_charge = ReadCharge(bytes, consistency);
  admission_.Charge(*container, scope.range_ids, response.request_charge);
  COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *container));
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  response.range_ids = scope.range_ids;
  return response;
}

}  // namespace cosmos::engine
