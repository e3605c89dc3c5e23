// PartitionCollection: the documents of one logical partition as a running script sees them
// through getContext().getCollection() (server_api.js), inside the script's own transaction: the
// script reads its own writes, and everything it wrote commits or rolls back with it.
//
// Each operation arrives as JSON text and is answered as JSON text (Handle):
//   {"op": "create"|"upsert"|"replace"|"delete"|"read"|"query", "link": …, "body": …,
//    "query": "SELECT …" | {"query", "parameters"}, "options": {…}}
// → {"accepted": false}  the execution's budget is spent: nothing was done;
//   {"accepted": true, "error": {"number", "code", "message"}};
//   {"accepted": true, "resource": {…}, "options": {…}}   a point operation;
//   {"accepted": true, "resources": […], "options": {"continuation": …}}   a query page.
// Links name this collection by _self ("dbs/<rid>/colls/<rid>/…") or by ids ("dbs/db/colls/c/…"),
// with or without the slashes around; any other collection's is refused (400). A document of
// another logical partition is refused as a write with the wrong header is (400/1001), and one
// read or deleted there is not found (404): the script sees its own partition only.
// An operation that fails leaves no change behind (a write that may fail after changing something,
// one on a container with unique keys, runs in a Transaction::BeginPart of its own): the script
// may catch the error and go on.
// Thread-safety: belongs to one execution on one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/result.h"
#include "engine/items/items.h"
#include "engine/queries/queries.h"

namespace cosmos::engine {

class PartitionCollection {
 public:
  // `partition_key_header` names the logical partition as x-ms-documentdb-partitionkey does.
  // Operations are accepted until `budget_ends`.
  PartitionCollection(Items& items, Queries& queries, storage::Transaction& txn, const ResolvedContainer& container,
                      const ContainerAddress& address, std::string partition_key_header,
                      std::chrono::steady_clock::time_point budget_ends);

  // One operation (see the top of the file). Never fails itself: errors are in the answer.
  std::string Handle(std::string_view request_text);

  // What the operations cost so far, and how many documents they wrote or read.
  double request_charge() const { return request_charge_; }
  int64_t documents_touched() const { return documents_touched_; }
  // The LSN of the last write, 0 when none.
  int64_t last_lsn() const { return last_lsn_; }

  // "dbs/<rid>/colls/<rid>/" and "dbs/<db>/colls/<coll>", as getSelfLink()/getAltLink() answer.
  std::string SelfLink() const;
  std::string AltLink() const;

 private:
  // A document link's last segment, when the link names a document of this collection.
  Result<ResourceName> DocumentOf(const std::string& link) const;
  Status CheckCollectionLink(const std::string& link) const;

  Result<std::string> Write(const Json& request, Items::WriteMode mode);
  Result<std::string> Delete(const Json& request);
  Result<std::string> Read(const Json& request);
  Result<std::string> Query(const Json& request);

  Items& items_;
  Queries& queries_;
  storage::Transaction& txn_;
  const ResolvedContainer& container_;
  const ContainerAddress& address_;
  const std::string partition_key_header_;
  const std::chrono::steady_clock::time_point budget_ends_;
  double request_charge_ = 0;
  int64_t documents_touched_ = 0;
  int64_t last_lsn_ = 0;
};

}  // namespace cosmos::engine
