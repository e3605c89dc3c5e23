#include "server/resource_path.h"

#include "common/encoding.h"
#include "engine/shared/resource_id.h"
#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::server::ResourceKind;
using cosmos::server::ResourcePath;

TEST_CASE("name-based paths give the resource and the signed link", "[path]") {
  struct Case {
    const char* path;
    ResourceKind kind;
    bool feed;
    const char* type;
    const char* link;
  };
  const Case cases[] = {
      {"/", ResourceKind::kAccount, false, "", ""},
      {"/dbs", ResourceKind::kDatabase, true, "dbs", ""},
      {"/dbs/MyDb", ResourceKind::kDatabase, false, "dbs", "dbs/MyDb"},
      {"/dbs/MyDb/colls", ResourceKind::kContainer, true, "colls", "dbs/MyDb"},
      {"/dbs/MyDb/colls/Items/", ResourceKind::kContainer, false, "colls", "dbs/MyDb/colls/Items"},
      {"/dbs/MyDb/colls/Items/docs", ResourceKind::kDocument, true, "docs", "dbs/MyDb/colls/Items"},
      {"/dbs/MyDb/colls/Items/docs/a%20b", ResourceKind::kDocument, false, "docs",
       "dbs/MyDb/colls/Items/docs/a b"},
      {"/dbs/MyDb/colls/Items/pkranges", ResourceKind::kPartitionKeyRange, true, "pkranges",
       "dbs/MyDb/colls/Items"},
      // An operation on the container is signed as the container.
      {"/dbs/MyDb/colls/Items/operations/partitionkeydelete", ResourceKind::kContainerOperation, false, "colls",
       "dbs/MyDb/colls/Items"},
  };
  for (const Case& c : cases) {
    INFO(c.path);
    auto parsed = ResourcePath::Parse(c.path);
    REQUIRE_OK(parsed);
    CHECK(parsed->kind == c.kind);
    CHECK(parsed->is_feed == c.feed);
    CHECK_FALSE(parsed->is_rid_based);
    CHECK(parsed->auth_resource_type == c.type);
    CHECK(parsed->auth_resource_link == c.link);
  }
  auto item = ResourcePath::Parse("/dbs/d/colls/c/docs/x");
  REQUIRE_OK(item);
  CHECK(item->ids == std::vector<std::string>{"d", "c", "x"});
}

TEST_CASE("rid-based paths sign the lowercased rid of one resource", "[path]") {
  std::string db = cosmos::engine::ResourceId::ForDatabase(5);
  std::string coll = cosmos::engine::ResourceId::ForContainer(5, 9);
  std::string doc = cosmos::engine::ResourceId::ForDocument(5, 9, 77);
  auto feed = ResourcePath::Parse("/dbs/" + db + "/colls/" + coll + "/docs");
  REQUIRE_OK(feed);
  CHECK(feed->is_rid_based);
  CHECK(feed->auth_resource_type == "docs");
  CHECK(feed->auth_resource_link == cosmos::ToLowerAscii(coll));
  auto item = ResourcePath::Parse("/dbs/" + db + "/colls/" + coll + "/docs/" + doc + "/");
  REQUIRE_OK(item);
  CHECK(item->auth_resource_link == cosmos::ToLowerAscii(doc));
  auto ranges = ResourcePath::Parse("/dbs/" + db + "/colls/" + coll + "/pkranges");
  REQUIRE_OK(ranges);
  CHECK(ranges->auth_resource_type == "pkranges");
  CHECK(ranges->auth_resource_link == cosmos::ToLowerAscii(coll));
}

TEST_CASE("paths that name nothing are rejected", "[path]") {
  for (const char* path : {"/foo", "/dbs/a/docs", "/dbs/a/colls/b/docs/c/extra", "/colls", "/dbs//colls",
                           "/dbs/a/colls/b/operations", "/dbs/a/colls/b/operations/other"}) {
    INFO(path);
    auto parsed = ResourcePath::Parse(path);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == ErrorCode::kNotFound);
  }
  auto bad_escape = ResourcePath::Parse("/dbs/a%zz");
  REQUIRE_FALSE(bad_escape.ok());
  CHECK(bad_escape.status().code() == ErrorCode::kBadRequest);
}
