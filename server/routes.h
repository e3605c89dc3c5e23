// Routes: the Cosmos REST surface as a table. One line a route, (resource kind, feed or single
// resource, verb) → handler, so a new operation or resource adds a line and a handler rather
// than a branch. A request whose path parsed but whose verb has no line on it is answered 405
// "The verb X is not allowed on this resource.".
// Thread-safety: the table never changes; handlers may run on many threads at once.
#pragma once

#include "common/result.h"
#include "engine/account.h"
#include "server/http_message.h"
#include "server/request_handler.h"
#include "server/resource_path.h"

namespace cosmos::server {

// The HTTP method, except that a POST carrying a query is kQuery: it reads where a POST
// creates (see MayWrite), so the two are routed apart. kOther: any method no route takes.
// A POST carrying a batch (x-ms-cosmos-is-batch-request) is kBatch.
enum class Verb { kGet, kHead, kPost, kQuery, kBatch, kPut, kDelete, kPatch, kOther };
Verb VerbOf(const HttpRequest& request);

// Whether a route addresses a feed (/dbs, .../docs) or one resource (/dbs/{db}).
enum class Addressed { kFeed, kSingle };

// What a handler gets: a request whose path parsed and whose signature holds.
struct RouteCall {
  engine::Account& account;
  const HandlerOptions& options;
  const HttpRequest& request;
  const ResourcePath& path;
  RequestContext& context;  // an item write consumes its parsed item
};

using RouteHandler = Result<HttpResponse> (*)(const RouteCall& call);

struct Route {
  ResourceKind kind;
  Addressed addressed;
  Verb verb;
  RouteHandler handler;
  // The handler writes one item: PrepareWrite parses and checks its body beforehand, off the
  // write thread (RequestContext::item).
  bool parses_item = false;
};

// The route for a path and verb, or null.
const Route* FindRoute(const ResourcePath& path, Verb verb);

// Runs the route for the call's path and verb, or answers 405 when there is none.
Result<HttpResponse> Dispatch(const RouteCall& call);

}  // namespace cosmos::server
