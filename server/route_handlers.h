// The handlers of the routes table (routes.h), one file per group of resources, and what they
// share. Internal to server/.
#pragma once

#include "common/result.h"
#include "engine/account.h"
#include "server/http_message.h"
#include "server/request_reading.h"
#include "server/response_building.h"
#include "server/routes.h"

namespace cosmos::server {

// 405 for a verb no route of the resource takes.
Status WrongMethod(const HttpRequest& request);

// An item write's document as PrepareWrite parsed it, or its parse failure, which the write
// reports first, as it would have on parsing the body itself; null when nothing was parsed.
Result<engine::ParsedItem*> PreparedItem(RequestContext& context);

// The container of a request on its documents, with the _rid the SDK believes it has.
engine::ContainerAddress DocumentsOf(const RouteCall& call);

// --- The feeds at the top of the account: databases and offers ------------------------------

template <Result<engine::FeedResponse> (engine::Account::*kList)(const engine::FeedOptions&)>
Result<HttpResponse> ListTopLevel(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, (call.account.*kList)(options));
  return FromFeed(std::move(feed), false);
}

template <Result<engine::QueryResponse> (engine::Account::*kQuery)(const engine::QueryRequest&)>
Result<HttpResponse> QueryTopLevel(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, {}));
  COSMOS_ASSIGN_OR_RETURN(auto page, (call.account.*kQuery)(query));
  return FromQuery(std::move(page), false);
}

// routes_account.cc
Result<HttpResponse> ReadAccount(const RouteCall& call);
Result<HttpResponse> CreateDatabase(const RouteCall& call);
Result<HttpResponse> ReadDatabase(const RouteCall& call);
Result<HttpResponse> DeleteDatabase(const RouteCall& call);
Result<HttpResponse> ListContainers(const RouteCall& call);
Result<HttpResponse> QueryContainers(const RouteCall& call);
Result<HttpResponse> CreateContainer(const RouteCall& call);
Result<HttpResponse> ReadContainer(const RouteCall& call);
Result<HttpResponse> ReplaceContainer(const RouteCall& call);
Result<HttpResponse> DeleteContainer(const RouteCall& call);
Result<HttpResponse> ReadPartitionKeyRanges(const RouteCall& call);
Result<HttpResponse> ReadOffer(const RouteCall& call);
Result<HttpResponse> ReplaceOffer(const RouteCall& call);
Result<HttpResponse> ListConflicts(const RouteCall& call);
Result<HttpResponse> QueryConflicts(const RouteCall& call);
Result<HttpResponse> ReadConflict(const RouteCall& call);

// routes_items.cc
Result<HttpResponse> ReadChangeFeed(const RouteCall& call);
Result<HttpResponse> ReadItemFeed(const RouteCall& call);
Result<HttpResponse> QueryItems(const RouteCall& call);
Result<HttpResponse> CreateItem(const RouteCall& call);
Result<HttpResponse> ReadItem(const RouteCall& call);
Result<HttpResponse> ReplaceItem(const RouteCall& call);
Result<HttpResponse> DeleteItem(const RouteCall& call);
Result<HttpResponse> PatchItem(const RouteCall& call);
Result<HttpResponse> DeleteAllItemsByPartitionKey(const RouteCall& call);
Result<HttpResponse> ExecuteBatch(const RouteCall& call);

// routes_security.cc
Result<HttpResponse> ListUsers(const RouteCall& call);
Result<HttpResponse> QueryUsers(const RouteCall& call);
Result<HttpResponse> CreateUser(const RouteCall& call);
Result<HttpResponse> ReadUser(const RouteCall& call);
Result<HttpResponse> ReplaceUser(const RouteCall& call);
Result<HttpResponse> DeleteUser(const RouteCall& call);
Result<HttpResponse> ListPermissions(const RouteCall& call);
Result<HttpResponse> QueryPermissions(const RouteCall& call);
Result<HttpResponse> CreatePermission(const RouteCall& call);
Result<HttpResponse> ReadPermission(const RouteCall& call);
Result<HttpResponse> ReplacePermission(const RouteCall& call);
Result<HttpResponse> DeletePermission(const RouteCall& call);

// routes_scripts.cc
Result<HttpResponse> ListScripts(const RouteCall& call);
Result<HttpResponse> QueryScripts(const RouteCall& call);
Result<HttpResponse> CreateScript(const RouteCall& call);
Result<HttpResponse> ReadScript(const RouteCall& call);
Result<HttpResponse> ReplaceScript(const RouteCall& call);
Result<HttpResponse> DeleteScript(const RouteCall& call);
Result<HttpResponse> ExecuteStoredProcedure(const RouteCall& call);

}  // namespace cosmos::server
