#include "server/routes.h"

#include "server/headers.h"
#include "server/route_handlers.h"

namespace cosmos::server {

// 405: no route of the resource takes the verb.
Status WrongMethod(const HttpRequest& request) {
  return Status::MethodNotAllowed("The verb " + request.method + " is not allowed on this resource.");
}

// An item write's document as PrepareWrite parsed it, or its parse failure, which the write
// reports first, as it would have on parsing the body itself; null when nothing was parsed.
Result<engine::ParsedItem*> PreparedItem(RequestContext& context) {
  if (!context.item) return static_cast<engine::ParsedItem*>(nullptr);
  if (!context.item->ok()) return context.item->status();
  return &context.item->value();
}

// The container of a request on its documents, with the _rid the SDK believes it has.
engine::ContainerAddress DocumentsOf(const RouteCall& call) {
  engine::ContainerAddress address = ContainerOf(call.path);
  address.intended_rid = call.request.headers.Get(headers::kIntendedCollectionRid).value_or("");
  return address;
}

namespace {

// --- The table ----------------------------------------------------------------------------
// A new operation is a handler (route_handlers.h) and a line here; kParsesItem marks the handlers
// that write one document, whose body PrepareWrite parses off the write thread.

using enum ResourceKind;
using enum Addressed;
using enum Verb;

constexpr bool kParsesItem = true;

constexpr Route kRoutes[] = {
    {kAccount, kSingle, kGet, ReadAccount},

    {kDatabase, kFeed, kGet, ListTopLevel<&engine::Account::ListDatabases>},
    {kDatabase, kFeed, kQuery, QueryTopLevel<&engine::Account::QueryDatabases>},
    {kDatabase, kFeed, kPost, CreateDatabase},
    {kDatabase, kSingle, kGet, ReadDatabase},
    {kDatabase, kSingle, kDelete, DeleteDatabase},

    {kContainer, kFeed, kGet, ListContainers},
    {kContainer, kFeed, kQuery, QueryContainers},
    {kContainer, kFeed, kPost, CreateContainer},
    {kContainer, kSingle, kGet, ReadContainer},
    {kContainer, kSingle, kPut, ReplaceContainer},
    {kContainer, kSingle, kDelete, DeleteContainer},

    {kPartitionKeyRange, kFeed, kGet, ReadPartitionKeyRanges},

    {kOffer, kFeed, kGet, ListTopLevel<&engine::Account::ListOffers>},
    {kOffer, kFeed, kQuery, QueryTopLevel<&engine::Account::QueryOffers>},
    {kOffer, kSingle, kGet, ReadOffer},
    {kOffer, kSingle, kPut, ReplaceOffer},

    {kDocument, kFeed, kGet, ReadItemFeed},  // and the change feed (A-IM)
    {kDocument, kFeed, kQuery, QueryItems},
    {kDocument, kFeed, kPost, CreateItem, kParsesItem},
    {kDocument, kFeed, kBatch, ExecuteBatch},
    {kDocument, kSingle, kGet, ReadItem},
    {kDocument, kSingle, kPut, ReplaceItem, kParsesItem},
    {kDocument, kSingle, kDelete, DeleteItem},
    {kDocument, kSingle, kPatch, PatchItem},

    {kContainerOperation, kSingle, kPost, DeleteAllItemsByPartitionKey},

    {kUser, kFeed, kGet, ListUsers},
    {kUser, kFeed, kQuery, QueryUsers},
    {kUser, kFeed, kPost, CreateUser},  // and upsert (x-ms-documentdb-is-upsert)
    {kUser, kSingle, kGet, ReadUser},
    {kUser, kSingle, kPut, ReplaceUser},
    {kUser, kSingle, kDelete, DeleteUser},

    {kPermission, kFeed, kGet, ListPermissions},
    {kPermission, kFeed, kQuery, QueryPermissions},
    {kPermission, kFeed, kPost, CreatePermission},  // and upsert
    {kPermission, kSingle, kGet, ReadPermission},
    {kPermission, kSingle, kPut, ReplacePermission},
    {kPermission, kSingle, kDelete, DeletePermission},

    {kStoredProcedure, kFeed, kGet, ListScripts},
    {kStoredProcedure, kFeed, kQuery, QueryScripts},
    {kStoredProcedure, kFeed, kPost, CreateScript},  // and upsert
    {kStoredProcedure, kSingle, kGet, ReadScript},
    {kStoredProcedure, kSingle, kPut, ReplaceScript},
    {kStoredProcedure, kSingle, kDelete, DeleteScript},
    {kStoredProcedure, kSingle, kPost, ExecuteStoredProcedure},
    {kTrigger, kFeed, kGet, ListScripts},
    {kTrigger, kFeed, kQuery, QueryScripts},
    {kTrigger, kFeed, kPost, CreateScript},
    {kTrigger, kSingle, kGet, ReadScript},
    {kTrigger, kSingle, kPut, ReplaceScript},
    {kTrigger, kSingle, kDelete, DeleteScript},
    {kUserDefinedFunction, kFeed, kGet, ListScripts},
    {kUserDefinedFunction, kFeed, kQuery, QueryScripts},
    {kUserDefinedFunction, kFeed, kPost, CreateScript},
    {kUserDefinedFunction, kSingle, kGet, ReadScript},
    {kUserDefinedFunction, kSingle, kPut, ReplaceScript},
    {kUserDefinedFunction, kSingle, kDelete, DeleteScript},

    {kConflict, kFeed, kGet, ListConflicts},
    {kConflict, kFeed, kQuery, QueryConflicts},
    {kConflict, kSingle, kGet, ReadConflict},
    {kConflict, kSingle, kDelete, ReadConflict},  // nothing to delete: 404 as the read
};

}  // namespace

Verb VerbOf(const HttpRequest& request) {
  const std::string& method = request.method;  // case-sensitive, as in HTTP: "get" is no GET
  if (method == "GET") return kGet;
  if (method == "HEAD") return kHead;
  if (method == "POST") {
    if (IsQuery(request)) return kQuery;
    return request.headers.IsTrue(headers::kIsBatchRequest) ? kBatch : kPost;
  }
  if (method == "PUT") return kPut;
  if (method == "DELETE") return kDelete;
  if (method == "PATCH") return kPatch;
  return kOther;
}

const Route* FindRoute(const ResourcePath& path, Verb verb) {
  Addressed addressed = path.is_feed ? kFeed : kSingle;
  for (const Route& route : kRoutes) {
    if (route.kind == path.kind && route.addressed == addressed && route.verb == verb) return &route;
  }
  return nullptr;
}

Result<HttpResponse> Dispatch(const RouteCall& call) {
  // Found already when the request was inspected (on an I/O thread, for a write).
  const Route* route = call.context.route != nullptr ? call.context.route : FindRoute(call.path, VerbOf(call.request));
  if (!route) return WrongMethod(call.request);
  return route->handler(call);
}

}  // namespace cosmos::server

