// Scripts (scripts.h): running them — a stored procedure as one transaction in one logical
// partition, and triggers in the transaction of the write that names them.
#include <algorithm>
#include <chrono>

#include "common/encoding.h"
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

const char* OperationName(TriggeredWrite::Operation operation) {
  switch (operation) {
    case TriggeredWrite::Operation::kCreate: return "Create";
    case TriggeredWrite::Operation::kUpsert: return "Upsert";
    case TriggeredWrite::Operation::kReplace: return "Replace";
    case TriggeredWrite::Operation::kDelete: return "Delete";
  }
  return "Create";
}

// A trigger's body, after checking that it may run as `type` ("Pre", "Post") for `operation`.
Result<std::string> TriggerBody(const storage::ScriptRecord& record, const char* type,
                                TriggeredWrite::Operation operation) {
  Json definition = ParseJson(record.body);
  const std::string id = definition.value("id", std::string());
  if (definition.value("triggerType", std::string()) != type) {
    return Status::BadRequest("The trigger '" + id + "' is not a " + type + "-trigger; name it in x-ms-documentdb-" +
                              ToLowerAscii(definition.value("triggerType", std::string())) + "-trigger-include.");
  }
  const std::string defined_for = definition.value("triggerOperation", std::string());
  if (defined_for != "All" && defined_for != OperationName(operation)) {
    return Status::BadRequest("The trigger '" + id + "' runs on " + defined_for + " operations; this request is a " +
                              OperationName(operation) + ".");
  }
  return definition.value("body", std::string());
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

Result<ScriptEngine::Outcome> Scripts::RunTrigger(storage::Transaction& txn, const ResolvedContainer& container,
                                                  const TriggeredWrite& request, const std::string& body,
                                                  const char* kind, const Json& request_body,
                                                  const Json& response_body, double& charge) {
  const auto started = std::chrono::steady_clock::now();
  const std::chrono::milliseconds time_limit = context_.options().script_time_limit;
  const std::string partition_key = request.key.partition_key_header.value_or("");
  PartitionCollection collection(items_, queries_, txn, container, request.key.container, partition_key,
                                 started + CallBudget(time_limit));
  ScriptEngine::Host host = [&collection](std::string_view call) { return collection.Handle(call); };
  Json setup = SetupOf(kind, collection);
  setup["operation"] = OperationName(request.operation);
  setup["requestBody"] = request_body;
  setup["responseBody"] = response_body;
  ScriptEngine::Run run;
  run.kind = std::string_view(kind) == "pre" ? ScriptEngine::Run::Kind::kPreTrigger
                                             : ScriptEngine::Run::Kind::kPostTrigger;
  run.body = body;
  run.setup = setup.dump();
  run.time_limit = time_limit;
  run.host = &host;
  COSMOS_ASSIGN_OR_RETURN(ScriptEngine::Outcome outcome, ScriptEngine::Execute(run));
  auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  charge += ScriptCharge(elapsed) + collection.request_charge();
  return outcome;
}

Result<ResourceResponse> Scripts::WriteWithTriggers(const TriggeredWrite& request) {
  using Operation = TriggeredWrite::Operation;
  // Isolated: a trigger that fails after the write undoes it with everything the triggers did.
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginWrite(/*isolated=*/true));
  COSMOS_ASSIGN_OR_RETURN(auto found_container,
                          context_.FindContainer(txn, request.key.container, /*as_owner=*/true));
  const ResolvedContainer& container = *found_container;
  // The triggers, checked before anything runs.
  auto load = [&](const std::vector<std::string>& ids, const char* type) -> Result<std::vector<std::string>> {
    std::vector<std::string> bodies;
    for (const std::string& id : ids) {
      COSMOS_ASSIGN_OR_RETURN(auto record, txn.FindScript(container.container.seq, "triggers", id));
      if (!record) return Status::BadRequest("The trigger '" + id + "' does not exist in " + container.OwnerPath() + ".");
      COSMOS_ASSIGN_OR_RETURN(std::string body, TriggerBody(*record, type, request.operation));
      bodies.push_back(std::move(body));
    }
    return bodies;
  };
  COSMOS_ASSIGN_OR_RETURN(std::vector<std::string> pre_bodies, load(request.pre_triggers, "Pre"));
  COSMOS_ASSIGN_OR_RETURN(std::vector<std::string> post_bodies, load(request.post_triggers, "Post"));
  COSMOS_ASSIGN_OR_RETURN(auto key, HeaderPartitionKey(container, request.key.partition_key_header));
  std::vector<int64_t> range_ids = RangeOfKey(container, StoragePartitionKey(container.partition_key, key));
  COSMOS_RETURN_IF_ERROR(admission_.Admit(container, range_ids));
  double charge = 0;

  // What the triggers see as the request's body, which a pre-trigger may replace: the document
  // being written, or the one a delete removes (read only when a pre-trigger is to see it).
  Json document;
  if (request.operation != Operation::kDelete) {
    document = request.write.parsed != nullptr ? request.write.parsed->document : ParseJson(request.write.body);
  } else if (!pre_bodies.empty()) {
    Items::Step step(txn, container, /*admit=*/false);
    Result<ResourceResponse> stored = items_.ReadIn(step, request.key, {}, ConsistencyLevel::kSession);
    if (stored.ok()) document = ParseJson(stored->body);
  }
  bool document_replaced = false;
  for (const std::string& body : pre_bodies) {
    COSMOS_ASSIGN_OR_RETURN(auto outcome, RunTrigger(txn, container, request, body, "pre", document, Json(), charge));
    if (!outcome.request_body.empty() && request.operation != Operation::kDelete) {
      document = ParseJson(outcome.request_body);
      if (!document.is_object()) return Status::BadRequest("A pre-trigger set a request body that is not a document.");
      document_replaced = true;
    }
  }

  Items::Step step(txn, container, /*admit=*/false);
  ResourceResponse response;
  if (request.operation == Operation::kDelete) {
    COSMOS_ASSIGN_OR_RETURN(response, items_.DeleteIn(step, request.key, request.write.preconditions));
  } else {
    // The client's document as the server parsed it, unless a pre-trigger replaced it.
    ItemWrite write = request.write;
    std::string text;
    ParsedItem replaced;
    if (document_replaced || write.parsed == nullptr) {
      COSMOS_ASSIGN_OR_RETURN(replaced, Items::ParseDocument(document, text));
      write.body = text;
      write.parsed = &replaced;
    }
    Items::WriteMode mode = request.operation == Operation::kCreate   ? Items::WriteMode::kCreate
                            : request.operation == Operation::kUpsert ? Items::WriteMode::kUpsert
                                                                      : Items::WriteMode::kReplace;
    COSMOS_ASSIGN_OR_RETURN(response, items_.WriteIn(step, write, *write.parsed, mode,
                                                     mode == Items::WriteMode::kReplace ? &request.key.id : nullptr));
  }

  Json written = post_bodies.empty() || response.body.empty() ? Json() : ParseJson(response.body);
  for (const std::string& body : post_bodies) {
    COSMOS_ASSIGN_OR_RETURN(auto outcome, RunTrigger(txn, container, request, body, "post", document, written, charge));
    if (!outcome.response_body.empty()) {
      response.body = std::move(outcome.response_body);
      written = ParseJson(response.body);
    }
  }
  COSMOS_RETURN_IF_ERROR(txn.Commit());
  response.request_charge += charge;
  admission_.Charge(container, range_ids, response.request_charge);
  if (range_ids.size() == 1) response.range_id = range_ids.front();
  return response;
}

}  // namespace cosmos::engine
