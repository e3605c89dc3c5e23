// Stored procedures, triggers and UDFs as resources: the engine's compile check, and the resources
// through the handler in process.
#include "engine/scripts/script_engine.h"

#include <chrono>
#include <thread>

#include "common/json.h"
#include "tests/in_process_emulator.h"
#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::Json;
using cosmos::engine::ScriptEngine;
using cosmos::testing::Emulator;

TEST_CASE("a script body compiles as one function expression, in modern syntax", "[scripts]") {
  REQUIRE_OK(ScriptEngine::CheckFunction("function f(a) { return a + 1; }"));
  REQUIRE_OK(ScriptEngine::CheckFunction("function () { getContext().getResponse().setBody('x'); }"));
  REQUIRE_OK(ScriptEngine::CheckFunction(
      "function bulk(items) {\n  const done = items.map((i) => `${i.id}`);\n  let n = 0;\n  for (const d of done) n++;\n"
      "  class Counter { constructor() { this.n = 0; } }\n  return new Counter();\n}"));
  auto broken = ScriptEngine::CheckFunction("function f() {\n  let x = ;\n}");
  REQUIRE(broken.code() == ErrorCode::kBadRequest);
  CHECK(broken.message().find("SyntaxError") != std::string::npos);
  CHECK(broken.message().find("line 2") != std::string::npos);
  CHECK(ScriptEngine::CheckFunction("function a() {} function b() {}").code() == ErrorCode::kBadRequest);
  CHECK(ScriptEngine::CheckFunction("").code() == ErrorCode::kBadRequest);
  CHECK(ScriptEngine::CheckFunction("return 1;").code() == ErrorCode::kBadRequest);
}

TEST_CASE("checking a script runs none of it, even one built to loop forever", "[scripts]") {
  auto started = std::chrono::steady_clock::now();
  REQUIRE_OK(ScriptEngine::CheckFunction("function f() {}, (() => { for (;;) {} })()"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
}

TEST_CASE("the engine serves every thread with a context of its own", "[scripts]") {
  std::vector<std::thread> threads;
  std::atomic<int> compiled{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&compiled] {
      for (int i = 0; i < 20; ++i) {
        if (ScriptEngine::CheckFunction("function f(x) { return x * " + std::to_string(i) + "; }").ok()) ++compiled;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(compiled.load() == 80);
}

TEST_CASE("stored procedures, triggers and UDFs through the handler", "[scripts]") {
  Emulator emulator;
  emulator.CreateContainer();
  auto created = emulator.Call("POST", "/dbs/db/colls/c/sprocs", R"({"id":"p","body":"function p() {}"})");
  REQUIRE(created.status == 201);
  Json sproc = Json::parse(created.body);
  // Rid-based addressing finds it too.
  std::string self = sproc["_self"].get<std::string>();
  CHECK(emulator.Call("GET", "/" + self).status == 200);
  auto upserted = emulator.Call("POST", "/dbs/db/colls/c/sprocs", R"({"id":"p","body":"function p() { return 1; }"})",
                                {{"x-ms-documentdb-is-upsert", "true"}});
  CHECK(upserted.status == 200);
  CHECK(Json::parse(upserted.body)["_rid"] == sproc["_rid"]);
  CHECK(emulator.Call("POST", "/dbs/db/colls/c/triggers", R"({"id":"t","body":"function t() {}"})").status == 400);
  CHECK(emulator.Call("POST", "/dbs/db/colls/c/triggers",
                      R"({"id":"t","body":"function t() {}","triggerType":"Pre","triggerOperation":"Upsert"})")
            .status == 201);
  CHECK(emulator.Call("POST", "/dbs/db/colls/c/udfs", R"({"id":"u","body":"function u( {"})").status == 400);
  CHECK(emulator.Call("POST", "/dbs/db/colls/nothing/udfs", R"({"id":"u","body":"function u() {}"})").status == 404);
  auto listed = emulator.Call("GET", "/dbs/db/colls/c/triggers");
  REQUIRE(listed.status == 200);
  CHECK(Json::parse(listed.body)["Triggers"].size() == 1);
  CHECK(emulator.Call("DELETE", "/dbs/db/colls/c/sprocs/p").status == 204);
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/sprocs/p").status == 404);
}
