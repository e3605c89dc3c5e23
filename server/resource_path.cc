#include "server/resource_path.h"

#include <algorithm>

#include "common/encoding.h"
#include "engine/shared/resource_id.h"

namespace cosmos::server {
namespace {

// The resource type a segment names at each depth, below its parent's type:
// /dbs/{id}/colls/{id}/{docs|pkranges|conflicts|operations|sprocs|triggers|udfs}/{id}, /dbs/{id}/users/{id}/permissions/{id},
// and /offers/{id}.
bool TypeAllowedAt(size_t depth, std::string_view parent, std::string_view type, ResourceKind* kind) {
  struct Allowed {
    size_t depth;
    std::string_view parent;
    std::string_view type;
    ResourceKind kind;
  };
  static constexpr Allowed kAllowed[] = {
      {0, "", "offers", ResourceKind::kOffer},
      {0, "", "dbs", ResourceKind::kDatabase},
      {1, "dbs", "colls", ResourceKind::kContainer},
      {1, "dbs", "users", ResourceKind::kUser},
      {2, "colls", "docs", ResourceKind::kDocument},
      {2, "colls", "pkranges", ResourceKind::kPartitionKeyRange},
      {2, "colls", "conflicts", ResourceKind::kConflict},
      {2, "colls", "operations", ResourceKind::kContainerOperation},
      {2, "colls", "sprocs", ResourceKind::kStoredProcedure},
      {2, "colls", "triggers", ResourceKind::kTrigger},
      {2, "colls", "udfs", ResourceKind::kUserDefinedFunction},
      {2, "users", "permissions", ResourceKind::kPermission},
  };
  for (const Allowed& allowed : kAllowed) {
    if (allowed.depth == depth && allowed.parent == parent && allowed.type == type) {
      *kind = allowed.kind;
      return true;
    }
  }
  return false;
}

Status UnknownPath(std::string_view path) {
  return Status::NotFound("The path '" + std::string(path) + "' names no resource.");
}

}  // namespace

Result<ResourcePath> ResourcePath::Parse(std::string_view path) {
  // One leading and one trailing slash are optional; an empty segment anywhere else is an error.
  std::string_view trimmed = path;
  if (!trimmed.empty() && trimmed.front() == '/') trimmed.remove_prefix(1);
  if (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  std::vector<std::string> segments;
  size_t pos = 0;
  while (!trimmed.empty() && pos <= trimmed.size()) {
    size_t slash = std::min(trimmed.find('/', pos), trimmed.size());
    std::optional<std::string> decoded = PercentDecode(trimmed.substr(pos, slash - pos));
    if (!decoded) return Status::BadRequest("The path '" + std::string(path) + "' has a malformed escape.");
    if (decoded->empty()) return UnknownPath(path);
    segments.push_back(std::move(*decoded));
    pos = slash + 1;
  }

  ResourcePath result;
  for (size_t index = 0; index < segments.size(); index += 2) {
    std::string_view parent = index >= 2 ? std::string_view(segments[index - 2]) : std::string_view();
    if (!TypeAllowedAt(index / 2, parent, segments[index], &result.kind)) return UnknownPath(path);
    if (index + 1 < segments.size()) result.ids.push_back(segments[index + 1]);
  }
  result.is_feed = !segments.empty() && segments.size() % 2 == 1;
  if (result.kind == ResourceKind::kContainerOperation) {
    if (result.is_feed || result.ids[2] != "partitionkeydelete") return UnknownPath(path);
    segments.resize(4);  // signed as the container it operates on
    result.is_feed = false;
  }
  if (!segments.empty()) result.auth_resource_type = segments[segments.size() - (result.is_feed ? 1 : 2)];
  if (result.kind == ResourceKind::kOffer) {
    if (segments.size() > 2) return UnknownPath(path);
    // An offer is signed with its lowercased rid; the offers feed with an empty link.
    if (!result.is_feed) result.auth_resource_link = ToLowerAscii(result.ids[0]);
    return result;
  }

  if (!result.ids.empty()) {
    std::optional<engine::ResourceId> database_rid = engine::ResourceId::Parse(result.ids[0]);
    result.is_rid_based = database_rid && database_rid->container == 0;
  }
  // Signed link: a feed is signed with its parent, an item with itself. Name-based links are
  // the decoded path; rid-based links are the lowercased rid of that resource alone.
  size_t link_segments = result.is_feed ? segments.size() - 1 : segments.size();
  if (result.is_rid_based) {
    if (link_segments > 0) result.auth_resource_link = ToLowerAscii(segments[link_segments - 1]);
  } else {
    for (size_t index = 0; index < link_segments; ++index) {
      if (index > 0) result.auth_resource_link += '/';
      result.auth_resource_link += segments[index];
    }
  }
  return result;
}

}  // namespace cosmos::server
