// Scripts (scripts.h): running them — a stored procedure as one transaction in one logical
// partition.
#include <algorithm>
#include <chrono>

#include "common/json_parse.h"
#include "engine/items/item_keys.h"
#include "engine/partitioning/partitioning.h"
#include "engine/scripts/partition_collection.h"
#include "engine/scripts/script_engine.h"
#include "engine/scripts/scripts.h"

namespace cosmos::engine {
namespace {

// The largest response body a script may set, as getMaxResponseBodySize() tells it.
constexpr size_t kMaxScriptResponseBytes = 2 * 1024 * 1024;

// What getContext() shows a script besides its collection (server_api.js, __cosmoliteSetup).
Json SetupOf(const char* kind, const PartitionCollection& collection) {
  return {{"kind", kind},
          {"selfLink", collection.SelfLink()},
          {"altLink", collection.AltLink()},
          {"maxResponseBodySize", kMaxScriptResponseBytes}};
}

// How long a script's collection calls are accepted: the time limit less what a well-written
// script needs to wrap up once they are not (a fifth of the limit, at least 50 ms, at most half).
std::chrono::milliseconds CallBudget(std::chrono::milliseconds time_limit) {
  using std::chrono::milliseconds;
  milliseconds wrap_up = std::min(std::max(time_limit / 5, milliseconds(50)), time_limit / 2);
  return time_limit - wrap_up;
}

}  // namespace

Result<ResourceResponse> Scripts::ExecuteProcedure(const ScriptAddress& procedure, std::string_view arguments,
                                                   const std::optional<std::string>& partition_key_header) {
  if (!partition_key_header) {
    return Status::BadRequest("PartitionKey value must be supplied for this operation.");
  }
  // Re-serialised, so that only JSON reaches the engine as the arguments' source text.
  Json parsed = arguments.empty() ? Json::array() : ParseJson(arguments);
  if (!parsed.is_array()) {
    return Status::BadRequest("The stored procedure's parameters must be a JSON array.");
  }
  const std::string argument_text = parsed.dump();
  // Isolated: whatever the procedure wrote rolls back together when it fails.
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite(/*isolated=*/true));
  COSMOS_ASSIGN_OR_RETURN(FoundScript found, Find(txn, procedure));
  const ResolvedContainer& container = *found.container;
  COSMOS_ASSIGN_OR_RETURN(auto key, HeaderPartitionKey(container, partition_key_header));
  std::vector<int64_t> range_ids = RangeOfKey(container, StoragePartitionKey(container.partition_key, key));
  COSMOS_RETURN_IF_ERROR(admission_.Admit(container, range_ids));
  Json definition = ParseJson(found.record.body);
  const std::string body = definition.value("body", std::string());

  const auto started = std::chrono::steady_clock::now();
  const std::chrono::milliseconds time_limit = context_.options().script_time_limit;
  PartitionCollection collection(items_, queries_, txn, container, procedure.container, *partition_key_header,
                                 started + CallBudget(time_limit));
  ScriptEngine::Host host = [&collection](std::string_view request) { return collection.Handle(request); };
  ScriptEngine::Run run;
  run.kind = ScriptEngine::Run::Kind::kProcedure;
  run.body = body;
  run.arguments = argument_text;
  run.setup = SetupOf("procedure", collection).dump();
  run.time_limit = time_limit;
  run.host = &host;
  COSMOS_ASSIGN_OR_RETURN(ScriptEngine::Outcome outcome, ScriptEngine::Execute(run));
  if (outcome.response_body.size() > kMaxScriptResponseBytes) {
    return Status::RequestEntityTooLarge("The stored procedure's response body is larger than " +
                                         std::to_string(kMaxScriptResponseBytes) + " bytes.");
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);

  ResourceResponse response;
  response.body = std::move(outcome.response_body);
  response.script_log = std::move(outcome.log);
  response.request_charge = ScriptCharge(elapsed) + collection.request_charge();
  admission_.Charge(container, range_ids, response.request_charge);
  response.owner_path = container.OwnerPath();
  response.owner_rid = container.container_rid;
  response.lsn = collection.last_lsn();
  if (response.lsn == 0) {
    COSMOS_ASSIGN_OR_RETURN(response.lsn, VisibleLsn(txn, container));
  }
  if (range_ids.size() == 1) response.range_id = range_ids.front();
  return response;
}

}  // namespace cosmos::engine
