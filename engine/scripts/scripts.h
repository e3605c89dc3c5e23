// Scripts: a container's stored procedures, triggers and user-defined functions as resources —
// create, upsert, read, list, replace, delete, with the service's validation (a body that does not
// compile is 400 with the engine's message and line; a trigger names its type and operation),
// system properties and If-Match; and running them (script_execution.cc): a stored procedure as
// one transaction in one logical partition, and triggers around a write.
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "engine/admission/admission.h"
#include "engine/api.h"
#include "engine/items/items.h"
#include "engine/queries/queries.h"
#include "engine/scripts/script_engine.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

// Which kind of script, as the path names it.
enum class ScriptKind { kStoredProcedure, kTrigger, kUserDefinedFunction };

// "sprocs", "triggers", "udfs".
const char* ScriptKindPath(ScriptKind kind);
// The key of a feed's array: "StoredProcedures", "Triggers", "UserDefinedFunctions".
const char* ScriptFeedKey(ScriptKind kind);

// A write that names triggers (x-ms-documentdb-pre-trigger-include / post-trigger-include).
struct TriggeredWrite {
  enum class Operation { kCreate, kUpsert, kReplace, kDelete };
  Operation operation = Operation::kCreate;
  // Create, upsert, replace: the document (its parsed form may be given); replace, delete: the
  // key of the document.
  ItemWrite write;
  ItemKey key;
  std::vector<std::string> pre_triggers;   // ids, run in order before the write
  std::vector<std::string> post_triggers;  // ids, run in order after it
};

struct ScriptAddress {
  ContainerAddress container;
  ScriptKind kind = ScriptKind::kStoredProcedure;
  ResourceName id;  // empty for the feed
};

class Scripts {
 public:
  Scripts(AccountContext& context, Admission& admission, Items& items, Queries& queries);

  // kOwnerResourceNotFound when the container is missing, kNotFound when the script is,
  // kConflict for an id in use, kBadRequest for an invalid definition, kPreconditionFailed for a
  // stale If-Match. `upsert`: replace the script of that id if there is one.
  Result<ResourceResponse> Create(const ScriptAddress& feed, const std::string& body, bool upsert);
  Result<ResourceResponse> Read(const ScriptAddress& script);
  Result<FeedResponse> List(const ScriptAddress& feed, const FeedOptions& options);
  Result<ResourceResponse> Replace(const ScriptAddress& script, const std::string& body,
                                   const Preconditions& preconditions);
  Result<ResourceResponse> Delete(const ScriptAddress& script, const Preconditions& preconditions);
  // Runs a stored procedure with `arguments` (a JSON array's text; empty: none) in the logical
  // partition `partition_key_header` names (required, as the service's), as one transaction:
  // what it wrote commits when it returns, and nothing does when it fails. Its collection is that
  // partition (partition_collection.h), whose calls stop being accepted once the budget — the time
  // limit less a fifth of it, at least 50 ms, for the script to wrap up — is spent. The answer's body is what the procedure set (JSON text),
  // its script_log what it logged; ScriptEngine::Execute says what fails how.
  Result<ResourceResponse> ExecuteProcedure(const ScriptAddress& procedure, std::string_view arguments,
                                            const std::optional<std::string>& partition_key_header);
  // A write with its triggers, all in one transaction in the document's logical partition. Each
  // trigger must exist (else kBadRequest), be of its header's type (Pre, Post) and be for this
  // operation or All (else kBadRequest). A pre-trigger sees the document being written (a
  // delete's: the stored one) as getRequest().getBody() and may replace it with setBody; a
  // post-trigger sees it as written in getResponse().getBody(), and what it sets there is the
  // answer's body. Either may use the collection (partition_collection.h); a throw in either
  // fails the write with the script's error, and nothing of it or of the triggers is kept.
  // Otherwise the write's own errors and answer, charged with the triggers' work.
  Result<ResourceResponse> WriteWithTriggers(const TriggeredWrite& request);

  // The scripts' bodies (seq, JSON) of a kind for a query, and the container's rid.
  Result<std::pair<std::vector<std::pair<int64_t, std::string>>, std::string>> Bodies(const ScriptAddress& feed);

 private:
  struct FoundScript {
    std::shared_ptr<const ResolvedContainer> container;
    storage::ScriptRecord record;
  };
  // kOwnerResourceNotFound without the container, kNotFound without the script.
  Result<FoundScript> Find(storage::Transaction& txn, const ScriptAddress& address);
  // Runs one trigger of a write (`kind`: "pre" or "post") with the collection of the write's
  // logical partition; adds what it cost to `charge`.
  Result<ScriptEngine::Outcome> RunTrigger(storage::Transaction& txn, const ResolvedContainer& container,
                                           const TriggeredWrite& request, const std::string& body, const char* kind,
                                           const Json& request_body, const Json& response_body, double& charge);

  AccountContext& context_;
  Admission& admission_;
  Items& items_;
  Queries& queries_;
};

}  // namespace cosmos::engine
