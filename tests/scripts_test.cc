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

namespace {

// A stored procedure run alone, without a collection (its calls fail).
cosmos::Result<ScriptEngine::Outcome> RunProcedure(std::string_view body, std::string_view arguments,
                                                   std::chrono::milliseconds time_limit) {
  ScriptEngine::Run run;
  run.body = body;
  run.arguments = arguments;
  run.setup = R"({"kind":"procedure","selfLink":"dbs/AA==/colls/AAAAAA==/","altLink":"dbs/d/colls/c",)"
              R"("maxResponseBodySize":2097152})";
  run.time_limit = time_limit;
  return ScriptEngine::Execute(run);
}

}  // namespace

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
  auto ran = emulator.Call("POST", "/dbs/db/colls/c/sprocs/p", "[]", {{"x-ms-documentdb-partitionkey", R"(["x"])"}});
  CHECK(ran.status == 200);
  CHECK(emulator.Call("POST", "/dbs/db/colls/c/sprocs/p", "[]").status == 400);  // no partition key
  CHECK(emulator.Call("POST", "/dbs/db/colls/c/sprocs/p", R"({"not":"an array"})",
                      {{"x-ms-documentdb-partitionkey", R"(["x"])"}})
            .status == 400);
  CHECK(emulator.Call("DELETE", "/dbs/db/colls/c/sprocs/p").status == 204);
  CHECK(emulator.Call("GET", "/dbs/db/colls/c/sprocs/p").status == 404);
}

TEST_CASE("a stored procedure runs with its arguments and sets the response body", "[scripts]") {
  using namespace std::chrono_literals;
  auto ran = RunProcedure(
      "function f(a, b) { console.log('sum', a + b); getContext().getResponse().setBody({sum: a + b}); }", "[2, 3]", 1s);
  REQUIRE_OK(ran);
  CHECK(Json::parse(ran->response_body) == Json{{"sum", 5}});
  CHECK(ran->log == "sum 5");
  auto silent = RunProcedure("function f() {}", "[]", 1s);
  REQUIRE_OK(silent);
  CHECK(silent->response_body.empty());
  auto appended = RunProcedure(
      "function f() { const r = getContext().getResponse(); r.appendBody('a'); r.appendBody(1); }", "[]", 1s);
  CHECK(Json::parse(appended->response_body) == "a1");
}

TEST_CASE("a stored procedure that throws, recurses without end or loops is stopped with its error", "[scripts]") {
  using namespace std::chrono_literals;
  auto thrown = RunProcedure("function f() { throw new Error('no way'); }", "[]", 1s);
  CHECK(thrown.status().code() == ErrorCode::kBadRequest);
  CHECK(thrown.status().message().find("Error: no way") != std::string::npos);
  auto deep = RunProcedure("function f() { const g = (n) => g(n + 1); g(0); }", "[]", 1s);
  CHECK(deep.status().message().find("too much recursion") != std::string::npos);
  auto started = std::chrono::steady_clock::now();
  auto looped = RunProcedure("function f() { for (;;) {} }", "[]", 200ms);
  CHECK(looped.status().code() == ErrorCode::kRequestTimeout);
  CHECK(std::chrono::steady_clock::now() - started < 2s);
  // The thread's engine is whole again afterwards.
  auto after = RunProcedure("function f() { getContext().getResponse().setBody('ok'); }", "[]", 1s);
  REQUIRE_OK(after);
  CHECK(after->response_body == "\"ok\"");
}

TEST_CASE("a stored procedure that exhausts the heap fails, and the next one runs", "[scripts]") {
  using namespace std::chrono_literals;
  auto hungry = RunProcedure(
      "function f() { const a = []; for (;;) a.push('y'.repeat(1 << 20) + a.length); }", "[]", 10s);
  CHECK_FALSE(hungry.ok());
  REQUIRE_OK(RunProcedure("function f() { return [1, 2, 3].map((x) => x * 2); }", "[]", 1s));
  REQUIRE_OK(ScriptEngine::CheckFunction("function f() {}"));
}
