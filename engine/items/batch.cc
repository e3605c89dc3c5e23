// Items (items.h): transactional batches and bulk requests.
#include "engine/items/items.h"

#include <algorithm>

#include "common/json_parse.h"
#include "engine/items/item_keys.h"
#include "engine/partitioning/partitioning.h"
#include "engine/shared/request_bodies.h"

namespace cosmos::engine {

enum class OperationType { kCreate, kUpsert, kRead, kReplace, kDelete, kPatch };

struct BatchOperation {
  OperationType type = OperationType::kCreate;
  std::string id;                                 // Read, Replace, Delete, Patch (Create/Upsert: the body's)
  std::optional<std::string> partition_key;       // as the x-ms-documentdb-partitionkey header would say it
  Json body;                                      // Create, Upsert, Replace: the document; Patch: its spec
  Preconditions preconditions;
};

namespace {

// The service's limits on one transactional batch.
constexpr size_t kMaxBatchOperations = 100;
constexpr size_t kMaxBatchBytes = 2 * 1024 * 1024;

std::optional<OperationType> OperationTypeOf(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  if (name == "create") return OperationType::kCreate;
  if (name == "upsert") return OperationType::kUpsert;
  if (name == "read") return OperationType::kRead;
  if (name == "replace") return OperationType::kReplace;
  if (name == "delete") return OperationType::kDelete;
  if (name == "patch") return OperationType::kPatch;
  return std::nullopt;
}

Status InvalidOperation(size_t index, const std::string& detail) {
  return Status::BadRequest("The batch operation at index " + std::to_string(index) + " is invalid: " + detail);
}

std::optional<std::string> OptionalString(const Json& object, const char* name) {
  auto found = object.find(name);
  if (found == object.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

Result<BatchOperation> ParseOperation(const Json& entry, size_t index) {
  if (!entry.is_object()) return InvalidOperation(index, "it is not a JSON object.");
  BatchOperation operation;
  std::optional<std::string> type_name = OptionalString(entry, "operationType");
  std::optional<OperationType> type = type_name ? OperationTypeOf(*type_name) : std::nullopt;
  if (!type) return InvalidOperation(index, "operationType must be Create, Upsert, Read, Replace, Delete or Patch.");
  operation.type = *type;
  // The SDKs send the partition key as JSON text ("[\"a\"]"); accept the array itself too.
  if (auto key = entry.find("partitionKey"); key != entry.end() && !key->is_null()) {
    operation.partition_key = key->is_string() ? key->get<std::string>() : key->dump();
  }
  operation.preconditions.if_match = OptionalString(entry, "ifMatch");
  operation.preconditions.if_none_match = OptionalString(entry, "ifNoneMatch");
  const bool has_document = *type == OperationType::kCreate || *type == OperationType::kUpsert ||
                            *type == OperationType::kReplace || *type == OperationType::kPatch;
  if (has_document) {
    auto body = entry.find("resourceBody");
    if (body == entry.end() || body->is_null()) return InvalidOperation(index, "it has no resourceBody.");
    operation.body = *body;
  }
  if (*type != OperationType::kCreate && *type != OperationType::kUpsert) {
    std::optional<std::string> id = OptionalString(entry, "id");
    if (!id || id->empty()) return InvalidOperation(index, "it has no id.");
    operation.id = std::move(*id);
  }
  return operation;
}

int SuccessStatus(OperationType type, const ResourceResponse& response) {
  switch (type) {
    case OperationType::kCreate: return 201;
    case OperationType::kUpsert: return response.created ? 201 : 200;
    case OperationType::kDelete: return 204;
    case OperationType::kRead: return response.not_modified ? 304 : 200;
    default: return 200;
  }
}

}  // namespace

Result<BatchResponse> Items::Batch(const BatchRequest& request) {
  if (request.atomic && request.body.size() > kMaxBatchBytes) {
    return Status::RequestEntityTooLarge("Request size is too large");
  }
  Json operations = ParseJson(request.body);
  if (operations.is_discarded() || !operations.is_array()) {
    return Status::BadRequest("The batch request body must be a JSON array of operations.");
  }
  if (operations.empty()) return Status::BadRequest("The batch request has no operations.");
  if (request.atomic && operations.size() > kMaxBatchOperations) {
    return Status::BadRequest("Batch request has more operations than what is supported.");
  }
  std::vector<BatchOperation> parsed;
  for (size_t index = 0; index < operations.size(); ++index) {
    COSMOS_ASSIGN_OR_RETURN(auto operation, ParseOperation(operations[index], index));
    parsed.push_back(std::move(operation));
  }
  return request.atomic ? RunAtomic(request, parsed) : RunBulk(request, parsed);
}

Result<ResourceResponse> Items::RunOperation(Step* step, const ContainerAddress& address,
                                             const BatchOperation& operation,
                                             const std::optional<std::string>& partition_key) {
  ItemKey key{address, partition_key, ResourceName{operation.id, false}};
  if (operation.type == OperationType::kRead) {
    if (step == nullptr) return Read(key, operation.preconditions);
    COSMOS_ASSIGN_OR_RETURN(auto consistency, ReadConsistency(context_.options().default_consistency, std::nullopt));
    return ReadIn(*step, key, operation.preconditions, consistency);
  }
  if (operation.type == OperationType::kDelete) {
    return step == nullptr ? Delete(key, operation.preconditions) : DeleteIn(*step, key, operation.preconditions);
  }
  if (operation.type == OperationType::kPatch) {
    COSMOS_ASSIGN_OR_RETURN(PatchRequest patch, ParsePatch(operation.body));
    return step != nullptr ? PatchIn(*step, key, patch, operation.preconditions)
                           : Patch(key, patch, operation.preconditions);
  }
  std::string text;
  COSMOS_ASSIGN_OR_RETURN(ParsedItem item, ParseDocument(operation.body, text));
  ItemWrite write{address, partition_key, text, operation.preconditions, &item};
  WriteMode mode = operation.type == OperationType::kCreate   ? WriteMode::kCreate
                   : operation.type == OperationType::kUpsert ? WriteMode::kUpsert
                                                              : WriteMode::kReplace;
  if (step != nullptr) return WriteIn(*step, write, item, mode, mode == WriteMode::kReplace ? &key.id : nullptr);
  return Write(write, mode, mode == WriteMode::kReplace ? &key.id : nullptr);
}

// All or nothing, in one isolated transaction: the first operation that fails stops the batch,
// its changes and every earlier operation's are rolled back, and the others answer 424.
Result<BatchResponse> Items::RunAtomic(const BatchRequest& request, const std::vector<BatchOperation>& operations) {
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite());
  COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto header_key, HeaderPartitionKey(*container, request.partition_key_header));
  const std::string storage_key = StoragePartitionKey(container->partition_key, header_key);
  for (size_t index = 0; index < operations.size(); ++index) {
    const std::optional<std::string>& own = operations[index].partition_key;
    if (!own) continue;
    COSMOS_ASSIGN_OR_RETURN(auto value, PartitionKeyValue::FromHeader(container->partition_key, *own));
    if (StoragePartitionKey(container->partition_key, value) != storage_key) {
      return InvalidOperation(index, "its partition key differs from the batch's; a transactional batch works "
                                     "in one logical partition.");
    }
  }
  std::vector<int64_t> range_ids = RangeOfKey(*container, storage_key);
  COSMOS_RETURN_IF_ERROR(admission_.Admit(*container, range_ids));

  BatchResponse response;
  response.results.resize(operations.size());
  std::optional<size_t> failed;
  // One LSN for every write of the batch (taken even if it only reads: LSNs need not be dense).
  COSMOS_ASSIGN_OR_RETURN(int64_t batch_lsn, txn.NextLsn(container->container.seq));
  for (size_t index = 0; index < operations.size() && !failed; ++index) {
    Step step(txn, *container, /*admit=*/false);
    step.lsn = batch_lsn;
    Result<ResourceResponse> done = RunOperation(&step, request.container, operations[index],
                                                 request.partition_key_header);
    BatchOperationResult& result = response.results[index];
    if (!done.ok()) {
      result.status = done.status();
      failed = index;
      break;
    }
    result.success_status = SuccessStatus(operations[index].type, *done);
    response.request_charge += done->request_charge;
    response.lsn = std::max(response.lsn, done->lsn);
    result.response = std::move(*done);
  }
  if (failed) {
    // Nothing is applied: `txn` rolls back as it goes. Every other operation depended on it.
    for (size_t index = 0; index < operations.size(); ++index) {
      if (index == *failed) continue;
      response.results[index] = BatchOperationResult();
      response.results[index].not_attempted = true;
    }
    response.request_charge = 0;
  } else {
    COSMOS_RETURN_IF_ERROR(txn.Commit());
    admission_.Charge(*container, range_ids, response.request_charge);
  }
  if (response.lsn == 0) {
    COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, *container));
  }
  if (range_ids.size() == 1) response.range_id = range_ids.front();
  response.owner_path = container->OwnerPath();
  response.owner_rid = container->container_rid;
  return response;
}

// Each operation on its own, as if sent alone (admitted, committed and charged by itself), so a
// throttled one answers 429 for the SDK to retry while the others apply. Without
// continue-on-error, the first failure stops the rest (424).
Result<BatchResponse> Items::RunBulk(const BatchRequest& request, const std::vector<BatchOperation>& operations) {
  if (request.partition_key_range_id) {
    COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
    COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, request.container, /*as_owner=*/true));
    Result<RequestScope> range = ResolveScope(container->partition_key, container->routing,
                                              {std::nullopt, request.partition_key_range_id, std::nullopt, std::nullopt});
    if (!range.ok()) return range.status();
  }
  BatchResponse response;
  response.results.resize(operations.size());
  bool stopped = false;
  bool one_range = true;
  for (size_t index = 0; index < operations.size(); ++index) {
    BatchOperationResult& result = response.results[index];
    if (stopped) {
      result.not_attempted = true;
      continue;
    }
    const BatchOperation& operation = operations[index];
    std::optional<std::string> partition_key = operation.partition_key;
    if (!partition_key) partition_key = request.partition_key_header;
    Result<ResourceResponse> done = RunOperation(nullptr, request.container, operation, partition_key);
    if (!done.ok()) {
      result.status = done.status();
      // A missing container fails the request, not one operation.
      if (result.status.code() == ErrorCode::kOwnerResourceNotFound) return result.status;
      stopped = !request.continue_on_error;
      continue;
    }
    result.success_status = SuccessStatus(operation.type, *done);
    response.request_charge += done->request_charge;
    response.lsn = std::max(response.lsn, done->lsn);
    response.owner_path = done->owner_path;
    response.owner_rid = done->owner_rid;
    if (!response.range_id) response.range_id = done->range_id;
    one_range &= response.range_id == done->range_id;
    result.response = std::move(*done);
  }
  if (!one_range) response.range_id.reset();
  return response;
}

}  // namespace cosmos::engine
