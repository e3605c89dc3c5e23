// Routes (route_handlers.h): stored procedures, triggers and user-defined functions.
#include "server/route_handlers.h"

#include "common/encoding.h"
#include "server/headers.h"
#include "server/request_reading.h"
#include "server/response_building.h"

namespace cosmos::server {

// --- Stored procedures, triggers and user-defined functions ---------------------------------

static engine::ScriptKind ScriptKindOf(ResourceKind kind) {
  return kind == ResourceKind::kTrigger               ? engine::ScriptKind::kTrigger
         : kind == ResourceKind::kUserDefinedFunction ? engine::ScriptKind::kUserDefinedFunction
                                                      : engine::ScriptKind::kStoredProcedure;
}

static engine::ScriptAddress ScriptOf(const ResourcePath& path) {
  engine::ScriptAddress address{ContainerOf(path), ScriptKindOf(path.kind), {}};
  if (!path.is_feed) address.id = NameAt(path, 2);
  return address;
}

Result<HttpResponse> ListScripts(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListScripts(ScriptOf(call.path), options));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryScripts(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, ContainerOf(call.path)));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryScripts(ScriptOf(call.path), query));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> CreateScript(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto created, call.account.CreateScript(ScriptOf(call.path), call.request.body,
                                                                  call.request.headers.IsTrue(headers::kIsUpsert)));
  int status = created.created ? 201 : 200;
  return FromResource(std::move(created), status, false);
}

Result<HttpResponse> ReadScript(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto script, call.account.ReadScript(ScriptOf(call.path)));
  return FromResource(std::move(script), 200, false);
}

Result<HttpResponse> ReplaceScript(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplaceScript(ScriptOf(call.path), call.request.body,
                                                                    PreconditionsOf(call.request)));
  return FromResource(std::move(replaced), 200, false);
}

Result<HttpResponse> DeleteScript(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted,
                          call.account.DeleteScript(ScriptOf(call.path), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

// POST .../sprocs/{id}: runs the stored procedure with the arguments in the body (a JSON array)
// for the logical partition in the partition key header; with x-ms-documentdb-script-enable-logging,
// its console.log lines come back URL-encoded in x-ms-documentdb-script-log-results.
Result<HttpResponse> ExecuteStoredProcedure(const RouteCall& call) {
  const HttpRequest& request = call.request;
  if (request.headers.Get(headers::kPreTriggerInclude) || request.headers.Get(headers::kPostTriggerInclude)) {
    return Status::BadRequest("One of the specified inputs is invalid: a stored procedure's execution runs no triggers.");
  }
  COSMOS_ASSIGN_OR_RETURN(auto ran, call.account.ExecuteProcedure(ScriptOf(call.path), request.body,
                                                                   request.headers.Get(headers::kPartitionKey)));
  std::string log = std::move(ran.script_log);
  HttpResponse response = FromResource(std::move(ran), 200, false);
  if (request.headers.IsTrue(headers::kScriptEnableLogging)) {
    response.AddHeader(headers::kScriptLogResults, PercentEncode(log));
  }
  return response;
}

}  // namespace cosmos::server
