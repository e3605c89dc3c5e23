// Access rules: what a request authorised by something other than an account key may do. Two
// kinds of principal have rules here: a resource token (a permission's scope and mode) and an
// Entra ID (AAD) principal (its data-plane role). Both are pure functions of what the request
// addresses, as resolved by the caller; they never touch the store.
// Thread-safety: pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"

namespace cosmos::engine {

// What a request addresses, as the server parsed its path.
enum class AccessTarget {
  kAccount,             // GET /
  kDatabase,            // /dbs, /dbs/{db}
  kContainer,           // .../colls, .../colls/{c}
  kDocument,            // .../docs, .../docs/{id}
  kPartitionKeyRange,   // .../pkranges
  kConflict,            // .../conflicts
  kContainerOperation,  // .../operations/partitionkeydelete
  kOffer,               // /offers
  kUser,                // /dbs/{db}/users
  kPermission,          // .../users/{u}/permissions
  kStoredProcedure,     // .../colls/{c}/sprocs
  kTrigger,             // .../colls/{c}/triggers
  kUserDefinedFunction, // .../colls/{c}/udfs
};

struct AccessRequest {
  AccessTarget target = AccessTarget::kAccount;
  bool is_feed = false;
  bool write = false;                        // anything but a read or a query
  std::vector<std::string> ids;              // decoded path ids from the database down
  bool is_rid_based = false;
  std::optional<std::string> partition_key;  // x-ms-documentdb-partitionkey, as sent
  bool query_plan = false;                   // a query plan request: it reads no document
  std::string method;                        // for messages
  std::string path;
};

// The database and container a request addresses, resolved to sequence numbers (0: none or
// unknown; an unknown one matches no scope).
struct ResolvedTarget {
  int64_t database_seq = 0;
  int64_t container_seq = 0;
};

// What a permission grants: a database, a container (container_seq != 0), or one child of a
// container (child_type "docs", "sprocs", "triggers" or "udfs" with its id), optionally within one
// logical partition, read-only or not. Stored with the permission as JSON (ToJson/FromJson).
struct PermissionScope {
  int64_t database_seq = 0;
  int64_t container_seq = 0;
  std::string child_type;
  std::string child_id;
  std::optional<Json> partition_key;  // a JSON array, as resourcePartitionKey normalises it
  bool read_only = true;

  Json ToJson() const;
  static Result<PermissionScope> FromJson(const Json& json);
};

// The service's answer to a resource token used out of its scope (403).
Status InsufficientPermissions();

// A request under a resource token: allowed for the account read (GET /), for the scoped resource
// and its children (reads only under a Read permission, only the permission's logical partition
// when it names one), and for reading the metadata of the container a narrower scope lies in (its
// definition and partition key ranges, which the SDKs read before any item operation). Anything
// else — account feeds, other databases or containers, users and permissions, offers — is 403.
Status CheckResourceGrant(const PermissionScope& scope, const AccessRequest& request, const ResolvedTarget& target);

// Entra ID data-plane roles (Cosmos DB Built-in Data Reader / Data Contributor).
enum class DataPlaneRole { kReader, kContributor };

// A request under an Entra ID token: metadata and item reads for both roles; item writes for a
// contributor (a reader gets 403/5301 naming the action); management operations (creating,
// replacing or deleting databases, containers and offers; any request on users, permissions,
// triggers, UDFs and stored procedures but running one) for neither (403/5300), as the service
// refuses them in the data plane.
Status CheckDataPlaneRole(DataPlaneRole role, const std::string& principal_id, const AccessRequest& request);

}  // namespace cosmos::engine
