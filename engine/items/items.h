// Items: the point operations on documents — create, upsert, replace, read, delete — and the
// read feed. A write checks the document (size, JSON, nesting, id), the partition key header
// against the document (400/1001), If-Match, unique keys (409) and the logical partition cap
// (403/1014); stamps the system properties; keeps the index entries, unique-key entries and
// the all-versions change log in step; and prices the operation (admission/request_charge.h).
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "engine/admission/admission.h"
#include "engine/api.h"
#include "engine/items/patch.h"
#include "engine/shared/account_context.h"
#include "query/query_cache.h"

namespace cosmos::engine {

struct BatchOperation;  // one parsed operation of a batch request (batch.cc)

class Items {
 public:
  Items(AccountContext& context, Admission& admission);

  // The checks of a document's text that come before any other of a write (see ParsedItem).
  // Thread-safe, and touches no store.
  static Result<ParsedItem> ParseItem(std::string_view body);
  // ParseItem, and when `container` is cached, the document's index entries too (ParsedItem::
  // index_entries), so that the write thread need not walk the document. Thread-safe.
  Result<ParsedItem> ParseItemFor(const ContainerAddress& container, std::string_view body) const;
  // The same checks of a document given as JSON (a batch operation's, a script's); `text`
  // receives its compact serialization, which the write stores (extended in place) rather than
  // serializing it again.
  static Result<ParsedItem> ParseDocument(Json body, std::string& text);

  // kOwnerResourceNotFound when the container is missing; kBadRequest for a malformed
  // document or id; kPartitionKeyMismatch when the header disagrees with the document;
  // kRequestEntityTooLarge over 2 MB; kConflict for a duplicate id or unique key;
  // kPreconditionFailed when If-Match is stale; kNotFound for a missing item.
  Result<ResourceResponse> Create(const ItemWrite& write);
  Result<ResourceResponse> Upsert(const ItemWrite& write);
  Result<ResourceResponse> Replace(const ItemWrite& write, const ResourceName& id);
  // Applies a partial document update (items/patch.h) to the document `key` names, as a replace
  // of the result: kBadRequest for a malformed patch, one that cannot apply, or one that would
  // change the id, the partition key or a system property; kPreconditionFailed when If-Match is
  // stale or the patch's condition does not hold; kNotFound for a missing item.
  Result<ResourceResponse> Patch(const ItemKey& key, std::string_view body, const Preconditions& preconditions);
  // The same with the patch parsed already (a bulk request's operation).
  Result<ResourceResponse> Patch(const ItemKey& key, const PatchRequest& patch, const Preconditions& preconditions);
  Result<ResourceResponse> Read(const ItemKey& key, const Preconditions& preconditions);
  Result<ResourceResponse> Delete(const ItemKey& key, const Preconditions& preconditions);
  // Deletes every document of one logical partition, or of every partition below a hierarchical
  // prefix, named by the partition key header (x-ms-documentdb-partitionkey): their index and
  // unique-key entries go too, and each delete is logged where the container keeps a change log.
  // kBadRequest without a partition key; kNotFound when the container is missing.
  Result<ResourceResponse> DeletePartition(const ContainerAddress& container,
                                           const std::optional<std::string>& partition_key_header);
  // A transactional batch (atomic: all operations in the header's logical partition, in one
  // transaction, applied together or not at all) or a bulk request (each operation on its own).
  // kBadRequest for a body that is not an array of valid operations, more than 100 operations or
  // a second logical partition in an atomic batch; kRequestEntityTooLarge past 2 MB. Otherwise
  // the result of every operation (the failure of one is not the failure of the request).
  Result<BatchResponse> Batch(const BatchRequest& request);
  // One page of the container's documents in (partition key, id) order, or of one partition's.
  Result<FeedResponse> ReadFeed(const ContainerAddress& container, const FeedOptions& options);

  // An item operation inside a transaction opened by someone else, who commits it: the point
  // operation's own, a transactional batch's or a stored procedure's. The *In steps check and
  // change but neither commit nor charge; `range_ids` receives the physical partitions the
  // operation reached. A batch or a procedure admits the whole request once, so its steps do not
  // (`admit` false). Every refusal of a step comes before its first change, but a unique key's
  // conflict: a caller that goes on after a failed step (a procedure that catches the error) needs
  // to undo it only on a container with unique keys.
  enum class WriteMode { kCreate, kUpsert, kReplace };
  struct Step {
    Step(storage::Transaction& txn, const ResolvedContainer& container, bool admit = true)
        : txn(txn), container(container), admit(admit) {}
    storage::Transaction& txn;
    const ResolvedContainer& container;
    bool admit;
    std::vector<int64_t> range_ids;
    // Set inside a transactional batch: every write of the batch takes this one LSN, as the
    // service gives a batch; unset, each write takes the container's next.
    std::optional<int64_t> lsn;
  };
  Result<ResourceResponse> WriteIn(Step& step, const ItemWrite& write, ParsedItem& parsed, WriteMode mode,
                                   const ResourceName* replace_id);
  Result<ResourceResponse> PatchIn(Step& step, const ItemKey& key, const PatchRequest& patch,
                                   const Preconditions& preconditions);
  Result<ResourceResponse> ReadIn(Step& step, const ItemKey& key, const Preconditions& preconditions,
                                  ConsistencyLevel consistency);
  Result<ResourceResponse> DeleteIn(Step& step, const ItemKey& key, const Preconditions& preconditions);

 private:
  Result<ResourceResponse> Write(const ItemWrite& write, WriteMode mode, const ResourceName* replace_id);

  Result<BatchResponse> RunAtomic(const BatchRequest& request, const std::vector<BatchOperation>& operations);
  Result<BatchResponse> RunBulk(const BatchRequest& request, const std::vector<BatchOperation>& operations);
  // One operation of a batch: inside `step` (an atomic batch), or alone when `step` is null (bulk).
  Result<ResourceResponse> RunOperation(Step* step, const ContainerAddress& address, const BatchOperation& operation,
                                        const std::optional<std::string>& partition_key);
  // Commits a point operation's step and charges it.
  // Commits a step's write and charges its partitions. A step that failed (409, 404, 412, a bad
  // body) charges FailedRequestCharge to the partition it named, as the service's throughput pays
  // for refusals too, and returns the failure.
  Result<ResourceResponse> Finish(Step& step, Result<ResourceResponse> result,
                                  const std::optional<std::string>& partition_key_header);
  Status ChargeFailure(const Step& step, const std::optional<std::string>& partition_key_header,
                       const Status& failure);

  // A write whose checks have passed: the document (`body` is its client text, usable as is when
  // `compact`), where it goes, and the version it replaces (none: a create).
  struct CheckedWrite {
    Json& document;
    std::string_view body;
    bool compact = false;
    std::string id;
    std::string partition_key;  // storage key
    std::optional<storage::DocumentRecord> existing;
    std::optional<int64_t> lsn;  // the batch's (Step::lsn)
    ParsedItem* parsed = nullptr;  // its index entries, if computed ahead (ParseItemFor)
  };
  // Stores a checked write inside `txn` with its index, unique-key and change-log entries, and
  // prices it.
  Result<ResourceResponse> Store(storage::Transaction& txn, const ResolvedContainer& container, CheckedWrite& write);

  AccountContext& context_;
  Admission& admission_;
  query::PreparedQueryCache conditions_{64};  // patch conditions, by text
};

}  // namespace cosmos::engine
