// Items: the point operations on documents — create, upsert, replace, read, delete — and the
// read feed. A write checks the document (size, JSON, nesting, id), the partition key header
// against the document (400/1001), If-Match, unique keys (409) and the logical partition cap
// (403/1014); stamps the system properties; keeps the index entries, unique-key entries and
// the all-versions change log in step; and prices the operation (admission/request_charge.h).
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <string_view>

#include "common/result.h"
#include "engine/admission/admission.h"
#include "engine/api.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

class Items {
 public:
  Items(AccountContext& context, Admission& admission);

  // The checks of a document's text that come before any other of a write (see ParsedItem).
  // Thread-safe, and touches no store.
  static Result<ParsedItem> ParseItem(std::string_view body);

  // kOwnerResourceNotFound when the container is missing; kBadRequest for a malformed
  // document or id; kPartitionKeyMismatch when the header disagrees with the document;
  // kRequestEntityTooLarge over 2 MB; kConflict for a duplicate id or unique key;
  // kPreconditionFailed when If-Match is stale; kNotFound for a missing item.
  Result<ResourceResponse> Create(const ItemWrite& write);
  Result<ResourceResponse> Upsert(const ItemWrite& write);
  Result<ResourceResponse> Replace(const ItemWrite& write, const ResourceName& id);
  Result<ResourceResponse> Read(const ItemKey& key, const Preconditions& preconditions);
  Result<ResourceResponse> Delete(const ItemKey& key, const Preconditions& preconditions);
  // One page of the container's documents in (partition key, id) order, or of one partition's.
  Result<FeedResponse> ReadFeed(const ContainerAddress& container, const FeedOptions& options);

 private:
  enum class WriteMode { kCreate, kUpsert, kReplace };
  Result<ResourceResponse> Write(const ItemWrite& write, WriteMode mode, const ResourceName* replace_id);

  AccountContext& context_;
  Admission& admission_;
};

}  // namespace cosmos::engine
