// Scripts: a container's stored procedures, triggers and user-defined functions as resources —
// create, upsert, read, list, replace, delete, with the service's validation (a body that does not
// compile is 400 with the engine's message and line; a trigger names its type and operation),
// system properties and If-Match; and running a stored procedure (without document access yet).
// Thread-safety: safe to call from many threads; each call is one store transaction.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "engine/api.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

// Which kind of script, as the path names it.
enum class ScriptKind { kStoredProcedure, kTrigger, kUserDefinedFunction };

// "sprocs", "triggers", "udfs".
const char* ScriptKindPath(ScriptKind kind);
// The key of a feed's array: "StoredProcedures", "Triggers", "UserDefinedFunctions".
const char* ScriptFeedKey(ScriptKind kind);

struct ScriptAddress {
  ContainerAddress container;
  ScriptKind kind = ScriptKind::kStoredProcedure;
  ResourceName id;  // empty for the feed
};

class Scripts {
 public:
  explicit Scripts(AccountContext& context);

  // kOwnerResourceNotFound when the container is missing, kNotFound when the script is,
  // kConflict for an id in use, kBadRequest for an invalid definition, kPreconditionFailed for a
  // stale If-Match. `upsert`: replace the script of that id if there is one.
  Result<ResourceResponse> Create(const ScriptAddress& feed, const std::string& body, bool upsert);
  Result<ResourceResponse> Read(const ScriptAddress& script);
  Result<FeedResponse> List(const ScriptAddress& feed, const FeedOptions& options);
  Result<ResourceResponse> Replace(const ScriptAddress& script, const std::string& body,
                                   const Preconditions& preconditions);
  Result<ResourceResponse> Delete(const ScriptAddress& script, const Preconditions& preconditions);
  // Runs a stored procedure with `arguments` (a JSON array's text; empty: none) for the logical
  // partition `partition_key_header` names (required, as the service's). The answer's body is what
  // the procedure set (JSON text), its script_log what it logged. Documents are not reachable
  // from it yet (getCollection() throws); ScriptEngine::RunProcedure says what else fails how.
  Result<ResourceResponse> ExecuteProcedure(const ScriptAddress& procedure, std::string_view arguments,
                                            const std::optional<std::string>& partition_key_header);
  // The scripts' bodies (seq, JSON) of a kind for a query, and the container's rid.
  Result<std::pair<std::vector<std::pair<int64_t, std::string>>, std::string>> Bodies(const ScriptAddress& feed);

 private:
  AccountContext& context_;
};

}  // namespace cosmos::engine
