// ResourcePath: what a request URL addresses — the account, a feed of databases, containers or
// documents, or one of them — with ids percent-decoded, and the resource type and link that the
// master-key signature covers. Name-based (/dbs/MyDb/...) and rid-based (/dbs/XP0mAA==/...)
// paths are both understood; a path is rid-based when its database segment parses as a
// database _rid, as the SDKs decide.
// Pure value type; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cosmos::server {

// kContainerOperation: /dbs/{db}/colls/{c}/operations/{name}, an operation on the container as a
// whole (partitionkeydelete), signed as the container.
enum class ResourceKind { kAccount, kDatabase, kContainer, kDocument, kPartitionKeyRange, kOffer, kContainerOperation,
                          kConflict, kUser, kPermission, kStoredProcedure, kTrigger, kUserDefinedFunction };

struct ResourcePath {
  ResourceKind kind = ResourceKind::kAccount;
  bool is_feed = false;        // the path ends in a type (/dbs, .../colls, .../docs)
  bool is_rid_based = false;
  std::vector<std::string> ids;  // decoded ids from the database down, e.g. {db, coll, doc}, {db, user, permission}
  std::string auth_resource_type;  // "", "dbs", "colls", "docs", "pkranges", "offers", "users", "permissions"
  std::string auth_resource_link;  // e.g. "dbs/db/colls/c", lowercased rid when rid-based

  // Parses the path part of a request target (no query string). Returns kNotFound for a path
  // that names no Cosmos resource and kBadRequest for a malformed percent-escape.
  static Result<ResourcePath> Parse(std::string_view path);
};

}  // namespace cosmos::server
