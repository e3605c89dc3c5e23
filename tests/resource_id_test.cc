#include "engine/shared/resource_id.h"

#include "common/encoding.h"
#include "tests/test_support.h"

using cosmos::engine::ResourceId;

TEST_CASE("resource ids have the structure SDKs parse", "[rid]") {
  std::string database = ResourceId::ForDatabase(1);
  std::string container = ResourceId::ForContainer(1, 1);
  std::string document = ResourceId::ForDocument(1, 1, 1);
  CHECK(database.size() == 8);    // 4 bytes
  CHECK(container.size() == 12);  // 8 bytes
  CHECK(document.size() == 24);   // 16 bytes
  CHECK(container.substr(0, 5) == database.substr(0, 5));  // 4 bytes fill 5 full characters
  CHECK(document.substr(0, 10) == container.substr(0, 10));

  auto bytes = cosmos::Base64Decode(container);
  REQUIRE(bytes);
  CHECK(((*bytes)[4] & 0x80) != 0);  // a collection, not a user
  auto doc_bytes = cosmos::Base64Decode(document);
  REQUIRE(doc_bytes);
  CHECK(((*doc_bytes)[15] >> 4) == 0);  // child type Document
}

TEST_CASE("resource ids round-trip and use '-' for '/'", "[rid]") {
  for (int64_t seq : {1LL, 2LL, 255LL, 256LL, 65537LL, 0x7FFFFFFFLL}) {
    auto parsed = ResourceId::Parse(ResourceId::ForDocument(seq, seq, seq * 1000));
    REQUIRE(parsed);
    CHECK(parsed->database == seq);
    CHECK(parsed->container == seq);
    CHECK(parsed->document == seq * 1000);
  }
  bool saw_dash = false;
  for (int64_t seq = 1; seq < 300; ++seq) {
    std::string rid = ResourceId::ForContainer(seq * 7919, seq);
    CHECK(rid.find('/') == std::string::npos);
    saw_dash |= rid.find('-') != std::string::npos;
    auto parsed = ResourceId::Parse(rid);
    REQUIRE(parsed);
    CHECK(parsed->database == seq * 7919);
  }
  CHECK(saw_dash);
}

TEST_CASE("names that are not rids do not parse as rids", "[rid]") {
  CHECK_FALSE(ResourceId::Parse("MyDatabase"));
  CHECK_FALSE(ResourceId::Parse("db1"));
  CHECK_FALSE(ResourceId::Parse("AAAAAA=="));      // database 0
  CHECK_FALSE(ResourceId::Parse("AQAAAAEAAAA="));  // a user (byte 4 without the high bit)
  auto database = ResourceId::Parse("XP0mAA==");   // the REST reference's example
  REQUIRE(database);
  CHECK(database->container == 0);
}
