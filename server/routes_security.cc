// Routes (route_handlers.h): users and permissions.
#include "server/route_handlers.h"

#include <charconv>

#include "server/headers.h"
#include "server/request_reading.h"
#include "server/response_building.h"

namespace cosmos::server {

// --- Users and permissions -----------------------------------------------------------------

static engine::UserAddress UserOf(const ResourcePath& path) { return {NameAt(path, 0), NameAt(path, 1)}; }
static engine::PermissionAddress PermissionOf(const ResourcePath& path) { return {UserOf(path), NameAt(path, 2)}; }

// x-ms-documentdb-expiry-seconds: how long the resource tokens of a permission answer last.
static Result<std::optional<int64_t>> TokenSecondsOf(const HttpRequest& request) {
  std::optional<std::string> text = request.headers.Get(headers::kResourceTokenExpiry);
  if (!text) return std::optional<int64_t>();
  int64_t seconds = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), seconds);
  if (error != std::errc() || end != text->data() + text->size()) {
    return Status::BadRequest("The value of x-ms-documentdb-expiry-seconds must be a number of seconds.");
  }
  return std::optional<int64_t>(seconds);
}

Result<HttpResponse> ListUsers(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListUsers(NameAt(call.path, 0), options));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryUsers(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, {}));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryUsers(NameAt(call.path, 0), query));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> CreateUser(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto created, call.account.CreateUser(NameAt(call.path, 0), call.request.body,
                                                                call.request.headers.IsTrue(headers::kIsUpsert)));
  int status = created.created ? 201 : 200;
  return FromResource(std::move(created), status, false);
}

Result<HttpResponse> ReadUser(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto user, call.account.ReadUser(UserOf(call.path)));
  return FromResource(std::move(user), 200, false);
}

Result<HttpResponse> ReplaceUser(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplaceUser(UserOf(call.path), call.request.body,
                                                                  PreconditionsOf(call.request)));
  return FromResource(std::move(replaced), 200, false);
}

Result<HttpResponse> DeleteUser(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted, call.account.DeleteUser(UserOf(call.path), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

Result<HttpResponse> ListPermissions(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto options, FeedOptionsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto feed, call.account.ListPermissions(UserOf(call.path), options, seconds));
  return FromFeed(std::move(feed), false);
}

Result<HttpResponse> QueryPermissions(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto query, QueryRequestOf(call.request, {}));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto page, call.account.QueryPermissions(UserOf(call.path), query, seconds));
  return FromQuery(std::move(page), false);
}

Result<HttpResponse> CreatePermission(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto created,
                          call.account.CreatePermission(UserOf(call.path), call.request.body,
                                                        call.request.headers.IsTrue(headers::kIsUpsert), seconds));
  int status = created.created ? 201 : 200;
  return FromResource(std::move(created), status, false);
}

Result<HttpResponse> ReadPermission(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto permission, call.account.ReadPermission(PermissionOf(call.path), seconds));
  return FromResource(std::move(permission), 200, false);
}

Result<HttpResponse> ReplacePermission(const RouteCall& call) {
  COSMOS_RETURN_IF_ERROR(RequireJsonBody(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto seconds, TokenSecondsOf(call.request));
  COSMOS_ASSIGN_OR_RETURN(auto replaced, call.account.ReplacePermission(PermissionOf(call.path), call.request.body,
                                                                        PreconditionsOf(call.request), seconds));
  return FromResource(std::move(replaced), 200, false);
}

Result<HttpResponse> DeletePermission(const RouteCall& call) {
  COSMOS_ASSIGN_OR_RETURN(auto deleted,
                          call.account.DeletePermission(PermissionOf(call.path), PreconditionsOf(call.request)));
  return FromResource(std::move(deleted), 204, false);
}

}  // namespace cosmos::server
