// Resource ids (`_rid`): the structured base64 ids SDKs parse, derived from storage sequence
// numbers. Layout (bytes): database 0-3 (little-endian, non-zero); collection 4-7 with the
// high bit of byte 4 set; document 8-15 (little-endian, top nibble of byte 15 = 0 = Document,
// 5 = partition key range).
// Base64 with '/' written as '-'. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cosmos::engine {

struct ResourceId {
  int64_t database = 0;
  int64_t container = 0;  // 0 when the id names a database
  int64_t document = 0;   // 0 when the id names a database or container

  static std::string ForDatabase(int64_t database_seq);
  static std::string ForContainer(int64_t database_seq, int64_t container_seq);
  static std::string ForDocument(int64_t database_seq, int64_t container_seq, int64_t document_seq);
  // Type nibble 5 (partition key range): these rids end in "UA==" as the service's do.
  static std::string ForPartitionKeyRange(int64_t database_seq, int64_t container_seq, int64_t range_id);

  // Scripts of a container: type nibble 8 (stored procedure), 7 (trigger) or 6 (user-defined
  // function), as the service's. `kind` is "sprocs", "triggers" or "udfs".
  static std::string ForScript(int64_t database_seq, int64_t container_seq, std::string_view kind, int64_t script_seq);
  // The script seq of a script rid of that kind; nullopt for anything else.
  static std::optional<int64_t> ParseScript(std::string_view text, std::string_view kind);

  // Offers have their own 3-byte ids (4 characters), little-endian sequence numbers.
  static std::string ForOffer(int64_t offer_seq);
  static std::optional<int64_t> ParseOffer(std::string_view text);

  // Parses a database, container or document rid. Returns nullopt for anything else.
  static std::optional<ResourceId> Parse(std::string_view text);
};

// The rids of users (database 0-3, user 4-7 big-endian with the high bit of byte 4 clear, which
// tells a user from a collection) and of permissions (a user's rid and 8 little-endian bytes).
struct SecurityResourceId {
  int64_t database = 0;
  int64_t user = 0;
  int64_t permission = 0;  // 0 when the id names a user

  static std::string ForUser(int64_t database_seq, int64_t user_seq);
  static std::string ForPermission(int64_t database_seq, int64_t user_seq, int64_t permission_seq);
  // Parses a user or permission rid. Returns nullopt for anything else.
  static std::optional<SecurityResourceId> Parse(std::string_view text);
};

// The `_self` links of a database and a container, from their rids.
inline std::string DatabaseSelf(const std::string& database_rid) { return "dbs/" + database_rid + "/"; }
inline std::string ContainerSelf(const std::string& database_rid, const std::string& container_rid) {
  return "dbs/" + database_rid + "/colls/" + container_rid + "/";
}

}  // namespace cosmos::engine
