// Requests an attacker (or a broken client) might send: each must get a 4xx with a Cosmos-shaped
// body, never crash or stall the server. The inputs are the ones the hardening survey found.
#include <string>

#include "common/json.h"
#include "tests/in_process_emulator.h"
#include "tests/test_support.h"

using cosmos::Json;
using cosmos::server::HttpResponse;
using cosmos::testing::Emulator;

namespace {

std::string Repeat(const std::string& piece, size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (size_t i = 0; i < times; ++i) out += piece;
  return out;
}

// A single-partition query in partition "p".
HttpResponse Query(Emulator& emulator, const std::string& body, const std::string& continuation = "") {
  std::vector<std::pair<std::string, std::string>> headers = {{"x-ms-documentdb-isquery", "true"},
                                                               {"content-type", "application/query+json"},
                                                               {"x-ms-documentdb-partitionkey", R"(["p"])"}};
  if (!continuation.empty()) headers.emplace_back("x-ms-continuation", continuation);
  return emulator.Call("POST", "/dbs/db/colls/c/docs", body, headers);
}

HttpResponse QueryText(Emulator& emulator, const std::string& text) {
  return Query(emulator, Json{{"query", text}}.dump());
}

// A 4xx whose body is the service's {"code", "message"}.
void CheckRefused(const HttpResponse& response, int status = 400) {
  CHECK(response.status == status);
  Json body = Json::parse(response.body, nullptr, false);
  CHECK(body.is_object());
  CHECK(body.contains("code"));
  CHECK(body.contains("message"));
}

Emulator& Seeded() {
  static Emulator* emulator = [] {
    auto* created = new Emulator();
    created->CreateContainer();
    for (int i = 0; i < 5; ++i) {
      REQUIRE(created->CreateItem(R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","n":)" + std::to_string(i) + "}",
                                  R"(["p"])").status == 201);
    }
    return created;
  }();
  return *emulator;
}

}  // namespace

TEST_CASE("hostile: query texts nested 100,000 deep by accessors are refused", "[hostile]") {
  Emulator& emulator = Seeded();
  CheckRefused(QueryText(emulator, "SELECT VALUE c" + Repeat("['a']", 100000) + " FROM c"));
  CheckRefused(QueryText(emulator, "SELECT VALUE c.x" + Repeat("[1]", 100000) + " FROM c"));
  CheckRefused(QueryText(emulator, "SELECT VALUE " + Repeat("(", 100000) + "1" + Repeat(")", 100000)));
  CHECK(QueryText(emulator, "SELECT VALUE COUNT(1) FROM c").status == 200);
}

TEST_CASE("hostile: JSON nested deep, as text a query parses, as a parameter or as a body", "[hostile]") {
  Emulator& emulator = Seeded();
  std::string deep = Repeat("[", 1000000) + Repeat("]", 1000000);
  // StringToArray of text deeper than a document may be is undefined, like any text it cannot use.
  // (100,000 levels: the query text may hold at most 262,144 characters.)
  std::string deep_text = Repeat("[", 100000) + Repeat("]", 100000);
  HttpResponse parsed = QueryText(emulator, "SELECT VALUE StringToArray('" + deep_text + "') FROM c");
  REQUIRE(parsed.status == 200);
  CHECK(Json::parse(parsed.body)["Documents"] == Json::array());
  std::string shallow = Repeat("[", 100) + Repeat("]", 100);
  parsed = QueryText(emulator, "SELECT VALUE StringToArray('" + shallow + "') FROM c WHERE c.id = 'd0'");
  REQUIRE(parsed.status == 200);
  CHECK(Json::parse(parsed.body)["Documents"].size() == 1);

  // A parameter nested 500,000 deep, even one the query never uses.
  std::string body = R"({"query":"SELECT * FROM c","parameters":[{"name":"@x","value":)" + Repeat("[", 500000) +
                     Repeat("]", 500000) + "}]}";
  CheckRefused(Query(emulator, body));
  // A document or a patch value nested as deep.
  CheckRefused(emulator.CreateItem(R"({"id":"deep","pk":"p","v":)" + deep + "}", R"(["p"])"));
  CheckRefused(emulator.Call("PATCH", "/dbs/db/colls/c/docs/d0",
                             R"({"operations":[{"op":"set","path":"/v","value":)" + deep + "}]}",
                             {{"x-ms-documentdb-partitionkey", R"(["p"])"}}));
  CHECK(QueryText(emulator, "SELECT VALUE COUNT(1) FROM c").status == 200);
}

TEST_CASE("hostile: a partition key value over 2,048 bytes is refused", "[hostile]") {
  Emulator& emulator = Seeded();
  std::string key = std::string(60 * 1024, 'k');
  CheckRefused(emulator.Call("GET", "/dbs/db/colls/c/docs/d0", "", {{"x-ms-documentdb-partitionkey", "[\"" + key + "\"]"}}));
  CheckRefused(emulator.CreateItem(R"({"id":"big","pk":")" + key + "\"}", "[\"" + key + "\"]"));
  std::string at_limit = std::string(2048, 'k');
  CHECK(emulator.CreateItem(R"({"id":"edge","pk":")" + at_limit + "\"}", "[\"" + at_limit + "\"]").status == 201);
}

TEST_CASE("hostile: continuation tokens this server did not issue for the query are refused", "[hostile]") {
  Emulator& emulator = Seeded();
  std::string order_by = Json{{"query", "SELECT c.id FROM c ORDER BY c.n"}}.dump();
  std::string streaming = Json{{"query", "SELECT c.id FROM c"}}.dump();
  for (const char* token : {
           R"({"v":1,"k":"m","s":18446744073709551615})",                             // a huge skip
           R"({"v":1,"k":"m","s":1,"key":[{"v":1},{"v":2}],"p":[1,"","FF"],"r":0})",  // two keys, one ORDER BY item
           R"({"v":1,"k":"m","s":1,"key":[{"x":1}],"p":[1,"","FF"],"r":0})",          // a key without a value
           R"({"v":2,"k":"m","s":1})",                                                // another version
           R"({"v":1,"k":2})",                                                        // a kind that is no string
           R"({"v":"1","k":"m","s":1})",                                              // a version that is no number
           R"({"v":1,"k":"s","p":[1,"","FF"],"r":0,"n":0})",                          // a streaming token
           R"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])",
       }) {
    INFO(token);
    CheckRefused(Query(emulator, order_by, token));
  }
  CheckRefused(Query(emulator, streaming, R"({"v":1,"k":"s","p":["pk","id"],"r":0,"n":0})"));
  CheckRefused(Query(emulator, streaming, R"({"v":1,"k":"s","p":[1,"","FF"],"r":0,"n":1099511627776})"));
  // The tokens it issues still work.
  HttpResponse first = Query(emulator, order_by);
  REQUIRE(first.status == 200);
}

TEST_CASE("a full disk refuses writes with 507, keeps reads, and takes writes again once space frees", "[hostile]") {
  cosmos_test::ScratchDir dir("cosmolite-disk-full");
  cosmos::storage::StoreOptions options = cosmos_test::FileStore(dir);
  options.max_pages = 400;  // 1.6 MB of 4 KB pages
  Emulator emulator(options);
  emulator.CreateContainer();
  const std::string filler(50 * 1024, 'x');
  int created = 0;
  HttpResponse refused;
  for (; created < 200; ++created) {
    refused = emulator.CreateItem(R"({"id":"d)" + std::to_string(created) + R"(","pk":"p","s":")" + filler + "\"}",
                                  R"(["p"])");
    if (refused.status != 201) break;
  }
  REQUIRE(created > 0);
  REQUIRE(created < 200);
  CHECK(refused.status == 507);
  CHECK(Json::parse(refused.body)["code"] == "InsufficientStorage");
  CHECK(Json::parse(refused.body)["message"].get<std::string>().find("disk is full") != std::string::npos);

  // Everything acknowledged is there, and reads go on.
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/docs/d0", "", {{"x-ms-documentdb-partitionkey", R"(["p"])"}}).status == 200);
  HttpResponse count = emulator.Call("POST", "/dbs/db/colls/c/docs", R"({"query":"SELECT VALUE COUNT(1) FROM c"})",
                                     {{"x-ms-documentdb-isquery", "true"},
                                      {"content-type", "application/query+json"},
                                      {"x-ms-documentdb-partitionkey", R"(["p"])"}});
  REQUIRE(count.status == 200);
  CHECK(Json::parse(count.body)["Documents"][0] == created);

  // Deletes free pages in the file; creates then succeed again.
  for (int i = 0; i < 5; ++i) {
    CHECK(emulator.Call("DELETE", "/dbs/db/colls/c/docs/d" + std::to_string(i), "",
                        {{"x-ms-documentdb-partitionkey", R"(["p"])"}}).status == 204);
  }
  CHECK(emulator.CreateItem(R"({"id":"again","pk":"p","s":")" + filler + "\"}", R"(["p"])").status == 201);
}
