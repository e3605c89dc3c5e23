// The request handler end to end, in process: signed requests in, Cosmos responses out.
#include "server/request_handler.h"

#include <atomic>
#include <set>
#include <thread>

#include "common/json.h"
#include "engine/shared/resource_id.h"
#include "tests/in_process_emulator.h"
#include "tests/test_support.h"

using cosmos::Json;
using cosmos::server::HttpRequest;
using cosmos::server::HttpResponse;
using cosmos::server::MasterKeyAuth;
using cosmos::server::PreparedWrite;
using cosmos::server::RequestHandler;
using cosmos::server::ResourcePath;
using cosmos::testing::Emulator;
using cosmos::testing::Header;


TEST_CASE("every response carries the common Cosmos headers", "[handler]") {
  Emulator emulator;
  for (const auto& response : {emulator.Call("GET", "/"), emulator.Call("GET", "/dbs/missing")}) {
    CHECK(response.FindHeader("x-ms-request-charge"));
    CHECK(response.FindHeader("x-ms-activity-id"));
    CHECK(response.FindHeader("Date"));
  }
  auto echoed = emulator.Call("GET", "/", "", {{"x-ms-activity-id", "11111111-2222-3333-4444-555555555555"}});
  CHECK(Header(echoed, "x-ms-activity-id") == "11111111-2222-3333-4444-555555555555");
}

TEST_CASE("the account document advertises 127.0.0.1 with the port the client used, as the official emulator",
          "[handler]") {
  Emulator emulator;
  auto response = emulator.Call("GET", "/", "", {{"host", "example.test:9999"}});
  REQUIRE(response.status == 200);
  Json account = Json::parse(response.body);
  CHECK(account["writableLocations"][0]["databaseAccountEndpoint"] == "http://127.0.0.1:9999/");
  CHECK(account["readableLocations"][0]["databaseAccountEndpoint"] == "http://127.0.0.1:9999/");
  auto without_port = emulator.Call("GET", "/", "", {{"host", "example.test"}});
  CHECK(Json::parse(without_port.body)["writableLocations"][0]["databaseAccountEndpoint"] == "http://127.0.0.1:8081/");
  CHECK(account["userConsistencyPolicy"]["defaultConsistencyLevel"] == "Session");
  CHECK(account["queryEngineConfiguration"].is_string());
  CHECK(Json::parse(account["queryEngineConfiguration"].get<std::string>()).contains("maxJoinsPerSqlQuery"));
}

TEST_CASE("without an advertised host, the account document advertises the host the client named",
          "[handler]") {
  Emulator emulator({}, [](cosmos::server::HandlerOptions& options) { options.advertised_host = ""; });
  auto endpoint_for = [&emulator](const std::string& host) {
    auto response = emulator.Call("GET", "/", "", {{"host", host}});
    return Json::parse(response.body)["writableLocations"][0]["databaseAccountEndpoint"].get<std::string>();
  };
  CHECK(endpoint_for("cosmolite:8081") == "http://cosmolite:8081/");      // a compose service name
  CHECK(endpoint_for("localhost:49153") == "http://localhost:49153/");    // a published port
  CHECK(endpoint_for("[::1]:8081") == "http://[::1]:8081/");
  CHECK(endpoint_for("10.88.0.7") == "http://10.88.0.7:8081/");
  CHECK(endpoint_for("") == "http://localhost:8081/");
}

TEST_CASE("the administration endpoints take the account key, in x-cosmolite-key or as an account signature",
          "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  // Signed() leaves /_cosmolite/ paths unsigned: they name no Cosmos resource.
  auto unsigned_read = emulator.Call("GET", "/_cosmolite/queries");
  CHECK(unsigned_read.status == 401);
  CHECK(Json::parse(unsigned_read.body)["message"].get<std::string>().find("x-cosmolite-key") != std::string::npos);
  CHECK(emulator.Call("GET", "/_cosmolite/queries", "", {{"x-cosmolite-key", cosmos::testing::kKey}}).status == 200);
  CHECK(emulator.Call("GET", "/_cosmolite/partitions", "", {{"x-cosmolite-key", cosmos::testing::kKey}}).status == 200);
  CHECK(emulator.Call("GET", "/_cosmolite/queries", "", {{"x-cosmolite-key", "bm90IHRoZSBrZXk="}}).status == 401);
  CHECK(emulator.Call("GET", "/_cosmolite/queries", "", {{"x-cosmolite-key", ""}}).status == 401);
  CHECK(emulator.Call("POST", "/_cosmolite/dbs/db/colls/c/pkranges/0/split").status == 401);
  // A master-key signature over an empty resource type and link, as for GET /.
  auto sign = [](const std::string& key, const std::string& verb) {
    std::string date = cosmos::server::FormatHttpDate(cosmos::testing::kNow);
    auto auth = MasterKeyAuth::Create(key);
    return std::vector<std::pair<std::string, std::string>>{
        {"x-ms-date", date},
        {"authorization", "type%3Dmaster%26ver%3D1.0%26sig%3D" + auth->Sign(MasterKeyAuth::StringToSign(verb, "", "", date, ""))}};
  };
  CHECK(emulator.Call("POST", "/_cosmolite/dbs/db/colls/c/pkranges/0/split", "", sign(cosmos::testing::kKey, "POST")).status == 200);
  CHECK(emulator.Call("GET", "/_cosmolite/queries", "", sign("bm90IHRoZSBrZXk=", "GET")).status == 401);
  // Unknown endpoints are 404 only for those who hold the key.
  CHECK(emulator.Call("GET", "/_cosmolite/nothing").status == 401);
  CHECK(emulator.Call("GET", "/_cosmolite/nothing", "", {{"x-cosmolite-key", cosmos::testing::kKey}}).status == 404);
}

TEST_CASE("a read-only key signs reads and queries, and a write signed with it gets the 401 of a wrong signature",
          "[handler]") {
  const std::string read_only = "cmVhZC1vbmx5LWtleS1mb3ItdGVzdHM=";
  const std::string secondary = "c2Vjb25kYXJ5LWtleS1mb3ItdGVzdHM=";
  Emulator emulator({}, [&](cosmos::server::HandlerOptions& options) {
    options.read_only_keys = {read_only};
    options.secondary_keys = {secondary};
  });
  emulator.CreateContainer();
  REQUIRE(emulator.CreateItem(R"({"id":"a","pk":"p"})", R"(["p"])").status == 201);
  // The request Emulator::Call would send, signed with `key` instead.
  auto call_with = [&emulator](const std::string& key, const std::string& method, const std::string& path,
                               const std::string& body = "",
                               std::vector<std::pair<std::string, std::string>> headers = {}) {
    auto parsed = cosmos::server::ResourcePath::Parse(path);
    REQUIRE(parsed.ok());
    std::string date = cosmos::server::FormatHttpDate(cosmos::testing::kNow);
    std::string sig = MasterKeyAuth::Create(key)->Sign(
        MasterKeyAuth::StringToSign(method, parsed->auth_resource_type, parsed->auth_resource_link, date, ""));
    headers.emplace_back("authorization", "type%3Dmaster%26ver%3D1.0%26sig%3D" + sig);
    return emulator.Call(method, path, body, headers);
  };
  std::vector<std::pair<std::string, std::string>> partition = {{"x-ms-documentdb-partitionkey", R"(["p"])"}};
  CHECK(call_with(read_only, "GET", "/dbs/db/colls/c/docs/a", "", partition).status == 200);
  CHECK(call_with(read_only, "GET", "/dbs/db/colls/c").status == 200);
  auto query = call_with(read_only, "POST", "/dbs/db/colls/c/docs", R"({"query":"SELECT * FROM c"})",
                         {{"x-ms-documentdb-isquery", "true"},
                          {"content-type", "application/query+json"},
                          {"x-ms-documentdb-query-enablecrosspartition", "true"}});
  CHECK(query.status == 200);
  auto create = call_with(read_only, "POST", "/dbs/db/colls/c/docs", R"({"id":"b","pk":"p"})", partition);
  CHECK(create.status == 401);
  CHECK(Json::parse(create.body)["message"].get<std::string>().find("can't serve the request") != std::string::npos);
  CHECK(call_with(read_only, "DELETE", "/dbs/db/colls/c/docs/a", "", partition).status == 401);
  CHECK(call_with(read_only, "POST", "/dbs", R"({"id":"db2"})").status == 401);
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/docs/a", "", partition).status == 200);  // nothing was deleted
  // The secondary key signs anything; a key the account does not have signs nothing.
  CHECK(call_with(secondary, "POST", "/dbs/db/colls/c/docs", R"({"id":"b","pk":"p"})", partition).status == 201);
  CHECK(call_with("bm90IHRoZSBrZXk=", "GET", "/dbs/db/colls/c/docs/a", "", partition).status == 401);
  // The administration endpoints: a read-only key reads them and may not act.
  CHECK(emulator.Call("GET", "/_cosmolite/queries", "", {{"x-cosmolite-key", read_only}}).status == 200);
  CHECK(emulator.Call("POST", "/_cosmolite/dbs/db/colls/c/pkranges/0/split", "", {{"x-cosmolite-key", read_only}}).status ==
        401);
  CHECK(emulator.Call("POST", "/_cosmolite/dbs/db/colls/c/pkranges/0/split", "", {{"x-cosmolite-key", secondary}}).status ==
        200);
}

TEST_CASE("databases: create, conflict, read, list, delete", "[handler]") {
  Emulator emulator;
  auto created = emulator.Call("POST", "/dbs", R"({"id":"db1"})");
  REQUIRE(created.status == 201);
  Json db = Json::parse(created.body);
  CHECK(db["_rid"].get<std::string>().size() == 8);
  CHECK(db["_self"] == "dbs/" + db["_rid"].get<std::string>() + "/");
  CHECK(Header(created, "etag") == db["_etag"]);
  CHECK(emulator.Call("POST", "/dbs", R"({"id":"db1"})").status == 409);
  CHECK(emulator.Call("GET", "/dbs/db1").status == 200);
  CHECK(emulator.Call("GET", "/dbs/" + db["_rid"].get<std::string>()).status == 200);  // rid-based
  auto list = emulator.Call("GET", "/dbs");
  CHECK(Json::parse(list.body)["_count"] == 1);
  CHECK(Header(list, "x-ms-item-count") == "1");
  CHECK(emulator.Call("DELETE", "/dbs/db1").status == 204);
  CHECK(emulator.Call("GET", "/dbs/db1").status == 404);
  CHECK(emulator.Call("POST", "/dbs", R"({"id":"bad/name"})").status == 400);
  CHECK(emulator.Call("POST", "/dbs", R"({"id":")" + std::string(256, 'x') + R"("})").status == 400);
}

TEST_CASE("containers: create, read, replace, delete", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer(R"(,"defaultTtl":60)");
  auto read = emulator.Call("GET", "/dbs/db/colls/c");
  REQUIRE(read.status == 200);
  Json container = Json::parse(read.body);
  CHECK(container["indexingPolicy"]["automatic"] == true);
  CHECK(container["defaultTtl"] == 60);
  CHECK(Header(read, "x-ms-alt-content-path") == "dbs/db");

  container["defaultTtl"] = 120;
  auto replaced = emulator.Call("PUT", "/dbs/db/colls/c", container.dump());
  REQUIRE(replaced.status == 200);
  CHECK(Json::parse(replaced.body)["defaultTtl"] == 120);
  CHECK(Json::parse(replaced.body)["_rid"] == container["_rid"]);
  container["partitionKey"]["paths"][0] = "/other";
  CHECK(emulator.Call("PUT", "/dbs/db/colls/c", container.dump()).status == 400);

  auto missing_db = emulator.Call("POST", "/dbs/nope/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})");
  CHECK(missing_db.status == 404);
  CHECK(Header(missing_db, "x-ms-substatus") == "1003");
  CHECK(emulator.Call("POST", "/dbs/db/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})").status == 409);
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/pkranges").status == 200);
  CHECK(emulator.Call("DELETE", "/dbs/db/colls/c").status == 204);
  CHECK(emulator.Call("GET", "/dbs/db/colls/c").status == 404);
}

TEST_CASE("items: create, read, replace, upsert, delete", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  auto created = emulator.CreateItem(R"({"id":"a","pk":"p","n":1})", R"(["p"])");
  REQUIRE(created.status == 201);
  Json item = Json::parse(created.body);
  CHECK(item["n"] == 1);
  for (const char* property : {"_rid", "_self", "_etag", "_attachments", "_ts"}) CHECK(item.contains(property));
  CHECK(Header(created, "x-ms-session-token").rfind("0:-1#", 0) == 0);
  CHECK(Header(created, "x-ms-alt-content-path") == "dbs/db/colls/c");

  auto read = emulator.Call("GET", "/dbs/db/colls/c/docs/a", "", {{"x-ms-documentdb-partitionkey", R"(["p"])"}});
  REQUIRE(read.status == 200);
  CHECK(Json::parse(read.body) == item);

  auto replaced = emulator.Call("PUT", "/dbs/db/colls/c/docs/a", R"({"id":"a","pk":"p","n":2})",
                                {{"x-ms-documentdb-partitionkey", R"(["p"])"}});
  REQUIRE(replaced.status == 200);
  CHECK(Json::parse(replaced.body)["_etag"] != item["_etag"]);
  CHECK(Json::parse(replaced.body)["_rid"] == item["_rid"]);

  auto upsert = [&](const std::string& body) {
    return emulator.Call("POST", "/dbs/db/colls/c/docs", body,
                         {{"x-ms-documentdb-partitionkey", R"(["p"])"}, {"x-ms-documentdb-is-upsert", "True"}});
  };
  CHECK(upsert(R"({"id":"a","pk":"p","n":3})").status == 200);
  CHECK(upsert(R"({"id":"b","pk":"p"})").status == 201);

  CHECK(emulator.Call("DELETE", "/dbs/db/colls/c/docs/a", "", {{"x-ms-documentdb-partitionkey", R"(["p"])"}}).status == 204);
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/docs/a", "", {{"x-ms-documentdb-partitionkey", R"(["p"])"}}).status == 404);
}

TEST_CASE("items: ids are unique per logical partition", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  CHECK(emulator.CreateItem(R"({"id":"a","pk":"p1"})", R"(["p1"])").status == 201);
  CHECK(emulator.CreateItem(R"({"id":"a","pk":"p2"})", R"(["p2"])").status == 201);
  CHECK(emulator.CreateItem(R"({"id":"a","pk":"p1"})", R"(["p1"])").status == 409);
  CHECK(emulator.CreateItem(R"({"id":"u"})", R"([{}])").status == 201);  // the undefined key
}

TEST_CASE("items: errors carry Cosmos statuses and substatuses", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  auto mismatch = emulator.CreateItem(R"({"id":"a","pk":"p1"})", R"(["p2"])");
  CHECK(mismatch.status == 400);
  CHECK(Header(mismatch, "x-ms-substatus") == "1001");
  CHECK(emulator.CreateItem(R"({"id":"a","pk":"p1"})", "").status == 400);  // header missing
  CHECK(emulator.CreateItem(R"({"pk":"p1"})", R"(["p1"])").status == 400);   // id missing
  CHECK(emulator.CreateItem(R"({"id":"a#b","pk":"p1"})", R"(["p1"])").status == 201);  // as the service
  CHECK(emulator.CreateItem(R"({"id":")" + std::string(1024, 'x') + R"(","pk":"p1"})", R"(["p1"])").status == 400);
  CHECK(emulator.CreateItem(R"({"id":")" + std::string(1023, 'x') + R"(","pk":"p1"})", R"(["p1"])").status == 201);
  CHECK(emulator.CreateItem(R"({"id":"a","pk":)", R"(["p1"])").status == 400);  // malformed JSON
  CHECK(emulator.CreateItem(R"([1,2])", R"(["p1"])").status == 400);
  auto too_large = emulator.CreateItem(R"({"id":"big","pk":"p1","s":")" + std::string(2 * 1024 * 1024, 'x') + "\"}",
                                       R"(["p1"])");
  CHECK(too_large.status == 413);
  auto missing_container = emulator.Call("POST", "/dbs/db/colls/nope/docs", R"({"id":"a","pk":"p"})",
                                         {{"x-ms-documentdb-partitionkey", R"(["p"])"}});
  CHECK(missing_container.status == 404);
  CHECK(Header(missing_container, "x-ms-substatus") == "1003");
  auto wrong_type = emulator.Call("POST", "/dbs/db/colls/c/docs", R"({"id":"t","pk":"p"})",
                                  {{"x-ms-documentdb-partitionkey", R"(["p"])"}, {"content-type", "text/plain"}});
  CHECK(wrong_type.status == 415);
  CHECK(emulator.Call("GET", "/nothing/here").status == 404);
  CHECK(emulator.Call("PUT", "/dbs").status == 405);
  Json body = Json::parse(mismatch.body);
  CHECK(body["code"] == "BadRequest");
  CHECK(body["message"].get<std::string>().find("ActivityId: ") != std::string::npos);
}

TEST_CASE("items: If-Match and If-None-Match", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  auto created = emulator.CreateItem(R"({"id":"a","pk":"p"})", R"(["p"])");
  std::string etag = Header(created, "etag");
  const std::pair<std::string, std::string> pk = {"x-ms-documentdb-partitionkey", R"(["p"])"};

  auto not_modified = emulator.Call("GET", "/dbs/db/colls/c/docs/a", "", {pk, {"If-None-Match", etag}});
  CHECK(not_modified.status == 304);
  CHECK(not_modified.body.empty());
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/docs/a", "", {pk, {"If-None-Match", "\"stale\""}}).status == 200);

  CHECK(emulator.Call("PUT", "/dbs/db/colls/c/docs/a", R"({"id":"a","pk":"p"})", {pk, {"If-Match", "\"stale\""}}).status == 412);
  auto replaced = emulator.Call("PUT", "/dbs/db/colls/c/docs/a", R"({"id":"a","pk":"p"})", {pk, {"If-Match", etag}});
  CHECK(replaced.status == 200);
  CHECK(emulator.Call("DELETE", "/dbs/db/colls/c/docs/a", "", {pk, {"If-Match", etag}}).status == 412);
  CHECK(emulator.Call("POST", "/dbs/db/colls/c/docs", R"({"id":"a","pk":"p"})",
                      {pk, {"x-ms-documentdb-is-upsert", "True"}, {"If-Match", etag}}).status == 412);
  CHECK(emulator.Call("DELETE", "/dbs/db/colls/c/docs/a", "", {pk, {"If-Match", Header(replaced, "etag")}}).status == 204);
}

TEST_CASE("items: unique key policy", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer(R"(,"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]})");
  CHECK(emulator.CreateItem(R"({"id":"1","pk":"p","email":"a@x"})", R"(["p"])").status == 201);
  CHECK(emulator.CreateItem(R"({"id":"2","pk":"p","email":"a@x"})", R"(["p"])").status == 409);
  CHECK(emulator.CreateItem(R"({"id":"2","pk":"q","email":"a@x"})", R"(["q"])").status == 201);  // other partition
  CHECK(emulator.CreateItem(R"({"id":"3","pk":"p"})", R"(["p"])").status == 201);                // null
  CHECK(emulator.CreateItem(R"({"id":"4","pk":"p"})", R"(["p"])").status == 409);                // second null
  // Changing the value frees the old one.
  CHECK(emulator.Call("PUT", "/dbs/db/colls/c/docs/1", R"({"id":"1","pk":"p","email":"b@x"})",
                      {{"x-ms-documentdb-partitionkey", R"(["p"])"}}).status == 200);
  CHECK(emulator.CreateItem(R"({"id":"5","pk":"p","email":"a@x"})", R"(["p"])").status == 201);
}

TEST_CASE("items: the read feed pages with continuations", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  for (int index = 0; index < 5; ++index) {
    std::string id = std::to_string(index);
    REQUIRE(emulator.CreateItem(R"({"id":")" + id + R"(","pk":"p)" + std::to_string(index % 2) + "\"}",
                                R"(["p)" + std::to_string(index % 2) + "\"]").status == 201);
  }
  std::set<std::string> seen;
  std::vector<std::pair<std::string, std::string>> headers = {{"x-ms-max-item-count", "2"}};
  std::vector<int> page_sizes;
  for (int page = 0; page < 10; ++page) {
    auto response = emulator.Call("GET", "/dbs/db/colls/c/docs", "", headers);
    REQUIRE(response.status == 200);
    Json body = Json::parse(response.body);
    page_sizes.push_back(body["_count"].get<int>());
    CHECK(Header(response, "x-ms-item-count") == std::to_string(body["_count"].get<int>()));
    for (const Json& document : body["Documents"]) CHECK(seen.insert(document["id"].get<std::string>()).second);
    auto continuation = response.FindHeader("x-ms-continuation");
    if (!continuation) break;
    headers = {{"x-ms-max-item-count", "2"}, {"x-ms-continuation", *continuation}};
  }
  CHECK(page_sizes == std::vector<int>{2, 2, 1});
  CHECK(seen.size() == 5);
  auto one_partition = emulator.Call("GET", "/dbs/db/colls/c/docs", "", {{"x-ms-documentdb-partitionkey", R"(["p0"])"}});
  CHECK(Json::parse(one_partition.body)["_count"] == 3);
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/docs", "", {{"x-ms-continuation", "garbage"}}).status == 400);
}

TEST_CASE("rid-based paths reach the same resources", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  auto created = emulator.CreateItem(R"({"id":"a","pk":"p"})", R"(["p"])");
  Json item = Json::parse(created.body);
  std::string self = item["_self"].get<std::string>();  // dbs/{rid}/colls/{rid}/docs/{rid}/
  auto read = emulator.Call("GET", "/" + self, "", {{"x-ms-documentdb-partitionkey", R"(["p"])"}});
  CHECK(read.status == 200);
  std::string container_self = self.substr(0, self.find("/docs/"));
  CHECK(emulator.Call("GET", "/" + container_self).status == 200);
  CHECK(emulator.Call("GET", "/" + container_self + "/pkranges").status == 200);
}

TEST_CASE("deleting a database deletes its containers and items", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  REQUIRE(emulator.CreateItem(R"({"id":"a","pk":"p"})", R"(["p"])").status == 201);
  REQUIRE(emulator.Call("DELETE", "/dbs/db").status == 204);
  emulator.CreateContainer();
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/docs/a", "", {{"x-ms-documentdb-partitionkey", R"(["p"])"}}).status == 404);
}

TEST_CASE("partition key ranges answer 304 to a current etag", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  auto ranges = emulator.Call("GET", "/dbs/db/colls/c/pkranges", "", {{"A-IM", "Incremental feed"}});
  REQUIRE(ranges.status == 200);
  Json body = Json::parse(ranges.body);
  CHECK(body["PartitionKeyRanges"][0]["minInclusive"] == "");
  CHECK(body["PartitionKeyRanges"][0]["maxExclusive"] == "FF");
  auto again = emulator.Call("GET", "/dbs/db/colls/c/pkranges", "",
                             {{"A-IM", "Incremental feed"}, {"If-None-Match", Header(ranges, "etag")}});
  CHECK(again.status == 304);
}

TEST_CASE("unsigned or wrongly signed requests are refused", "[handler]") {
  Emulator emulator;
  auto unsigned_request = emulator.Call("GET", "/dbs", "", {{"authorization", ""}});
  CHECK(unsigned_request.status == 401);
  CHECK(Header(unsigned_request, "x-ms-request-charge") == "0.00");
  auto wrong = emulator.Call("GET", "/dbs", "", {{"authorization", "type%3Dmaster%26ver%3D1.0%26sig%3DAAAA"}});
  CHECK(wrong.status == 401);
  CHECK(Json::parse(wrong.body)["message"].get<std::string>().find("get\\ndbs\\n\\n") != std::string::npos);
  CHECK(emulator.Call("GET", "/alive", "", {{"authorization", ""}}).status == 200);
}

TEST_CASE("documents nested deeper than 128 levels are refused, not crashed on", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  auto nested = [](int depth) {
    return R"({"id":"deep","pk":"p","v":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
  };
  CHECK(emulator.CreateItem(nested(100000), R"(["p"])").status == 400);
  CHECK(emulator.CreateItem(nested(127), R"(["p"])").status == 201);  // 127 arrays inside the document
  // Brackets inside strings do not count.
  CHECK(emulator.CreateItem(R"({"id":"s","pk":"p","t":")" + std::string(500, '[') + "\"}", R"(["p"])").status == 201);
}

TEST_CASE("stored documents are valid JSON with one set of system properties", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  for (const char* body : {R"({"id":"compact","pk":"p","n":[1,{"a":"}"}]})",
                           "{\n  \"id\": \"pretty\",\n  \"pk\": \"p\"\n}",
                           R"({"id":"own","pk":"p","_ts":5,"_rid":"bogus","_etag":"x"})"}) {
    INFO(body);
    auto created = emulator.CreateItem(body, R"(["p"])");
    REQUIRE(created.status == 201);
    Json stored = Json::parse(created.body);
    CHECK(stored["_ts"].is_number_integer());
    CHECK(stored["_ts"] != 5);
    CHECK(stored["_rid"] != "bogus");
    CHECK(stored["_etag"] == Header(created, "etag"));
    CHECK(stored["_attachments"] == "attachments/");
    size_t count = 0;
    for (auto it = stored.begin(); it != stored.end(); ++it) count += it.key() == "_ts";
    CHECK(count == 1);
  }
}

TEST_CASE("a batch of prepared writes answers each write as Handle would", "[handler]") {
  Emulator emulator;
  emulator.CreateContainer();
  const std::string docs = "/dbs/db/colls/c/docs";
  const std::pair<std::string, std::string> pk{"x-ms-documentdb-partitionkey", R"(["a"])"};
  std::vector<HttpRequest> requests = {
      emulator.Signed("POST", docs, R"({"id":"1","pk":"a"})", {pk}),         // created
      emulator.Signed("POST", docs, R"({"id":"1","pk":"a"})", {pk}),         // a conflict with the first
      emulator.Signed("POST", docs, R"({"id":"2","pk":"a",)", {pk}),         // not JSON
      emulator.Signed("POST", docs, R"({"pk":"a"})", {pk}),                  // no id
      emulator.Signed("POST", "/dbs/db/colls/missing/docs", R"({"id":"3","pk":"a"})", {pk}),
      emulator.Signed("PUT", docs + "/1", R"({"id":"1","pk":"a","v":2})", {pk}),  // replaced
  };
  for (HttpRequest& request : requests) request.headers.Set("x-ms-activity-id", "a0e7c9b6-5b1f-4e33-9d0e-2f6c1b7a8d41");
  HttpRequest unsigned_write = requests[0];
  unsigned_write.headers.Set("authorization", "type%3Dmaster%26ver%3D1.0%26sig%3Dbad");
  requests.push_back(unsigned_write);

  std::vector<PreparedWrite> prepared;
  for (const HttpRequest& request : requests) prepared.push_back(emulator.handler().PrepareWrite(request));
  std::vector<PreparedWrite*> batch;
  for (PreparedWrite& write : prepared) batch.push_back(&write);
  std::vector<HttpResponse> responses = emulator.handler().HandleWrites(batch);
  REQUIRE(responses.size() == requests.size());
  for (size_t index = 0; index < responses.size(); ++index) {
    emulator.handler().CompleteAnswer(responses[index], prepared[index].context);
  }
  const std::vector<int> statuses = {201, 409, 400, 400, 404, 200, 401};
  for (size_t index = 0; index < responses.size(); ++index) {
    INFO("request " << index);
    CHECK(responses[index].status == statuses[index]);
    CHECK(responses[index].FindHeader("x-ms-request-charge"));
    CHECK(responses[index].FindHeader("x-ms-activity-id"));
  }
  CHECK(Json::parse(responses[5].body)["v"] == 2);

  // Handle, which parses the document itself, gives the same answers to the same faults.
  Emulator direct;
  direct.CreateContainer();
  for (size_t index : {2, 3, 4}) {
    INFO("request " << index);
    HttpResponse answer = direct.handler().Handle(requests[index]);
    CHECK(answer.status == statuses[index]);
    CHECK(Json::parse(answer.body)["message"] == Json::parse(responses[index].body)["message"]);
  }
}

// A file store's reads run on snapshots beside the write thread's batches (storage/store.h). The
// two tests below drive reads on this thread while another thread commits batches, as the server
// does, and check what a snapshot must never do: hand out an LSN its snapshot does not include,
// or leave a container definition in the cache that a committed change outdated.

TEST_CASE("a change feed polled during write batches sees every document once", "[handler][snapshot]") {
  cosmos_test::ScratchDir dir("cosmolite-feed-race-test-");
  auto options = cosmos_test::FileStore(dir);
  Emulator emulator(options);
  emulator.CreateContainer();
  constexpr int kBatches = 60, kPerBatch = 10;
  std::atomic<bool> writing{true};
  std::atomic<int> failed_writes{0};
  std::thread writer([&] {  // no Catch assertions off the main thread
    for (int batch = 0; batch < kBatches; ++batch) {
      std::vector<PreparedWrite> prepared;
      for (int item = 0; item < kPerBatch; ++item) {
        std::string id = std::to_string(batch * kPerBatch + item);
        prepared.push_back(emulator.handler().PrepareWrite(emulator.Signed(
            "POST", "/dbs/db/colls/c/docs", R"({"id":")" + id + R"(","pk":"a"})",
            {{"x-ms-documentdb-partitionkey", R"(["a"])"}})));
      }
      std::vector<PreparedWrite*> writes;
      for (PreparedWrite& write : prepared) writes.push_back(&write);
      for (const HttpResponse& response : emulator.handler().HandleWrites(writes)) {
        if (response.status != 201) ++failed_writes;
      }
    }
    writing = false;
  });
  std::multiset<std::string> seen;
  std::string continuation;
  auto poll = [&] {
    std::vector<std::pair<std::string, std::string>> headers = {{"a-im", "Incremental feed"},
                                                                {"x-ms-documentdb-partitionkeyrangeid", "0"},
                                                                {"x-ms-max-item-count", "1000"}};
    if (!continuation.empty()) headers.emplace_back("if-none-match", continuation);
    HttpResponse page = emulator.Call("GET", "/dbs/db/colls/c/docs", "", headers);
    REQUIRE((page.status == 200 || page.status == 304));
    continuation = Header(page, "etag");
    if (page.status == 200) {
      Json body = Json::parse(page.body);
      for (const Json& document : body["Documents"]) seen.insert(document["id"].get<std::string>());
    }
  };
  while (writing.load()) poll();
  writer.join();
  poll();
  poll();
  CHECK(failed_writes.load() == 0);
  CHECK(seen.size() == static_cast<size_t>(kBatches * kPerBatch));
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == seen.size());
}

TEST_CASE("a container deleted while reads run is not served again from the cache", "[handler][snapshot]") {
  cosmos_test::ScratchDir dir("cosmolite-cache-race-test-");
  auto options = cosmos_test::FileStore(dir);
  Emulator emulator(options);
  emulator.CreateContainer();
  const std::pair<std::string, std::string> pk{"x-ms-documentdb-partitionkey", R"(["a"])"};
  REQUIRE(emulator.CreateItem(R"({"id":"x","pk":"a"})", R"(["a"])").status == 201);
  std::atomic<bool> done{false};
  std::thread reader([&] {  // reads that keep filling the cache from their snapshots
    while (!done.load()) (void)emulator.handler().Handle(emulator.Signed("GET", "/dbs/db/colls/c/docs/x", "", {pk}));
  });
  int stale_writes = 0;
  for (int round = 0; round < 150; ++round) {
    REQUIRE(emulator.Call("DELETE", "/dbs/db/colls/c").status == 204);
    // The container is gone: a write that found it would be writing into a deleted container.
    if (emulator.CreateItem(R"({"id":"y","pk":"a"})", R"(["a"])").status != 404) ++stale_writes;
    REQUIRE(emulator.Call("POST", "/dbs/db/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})").status == 201);
    REQUIRE(emulator.CreateItem(R"({"id":"x","pk":"a"})", R"(["a"])").status == 201);
  }
  done = true;
  reader.join();
  CHECK(stale_writes == 0);
}
