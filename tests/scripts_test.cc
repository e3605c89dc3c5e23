// Stored procedures, triggers and UDFs: the engine's compile check, the resources through the
// handler in process, runs and their sandbox, and the server-side API's bindings over a fake
// collection (what each call sends, when callbacks run, errors, the chain API, triggers' bodies).
#include "engine/scripts/script_engine.h"

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

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

namespace {

// A run with a collection that records what the script asked and answers from `answer`.
struct FakeCollection {
  std::vector<Json> requests;
  std::function<std::string(const Json&)> answer = [](const Json&) {
    return std::string(R"({"accepted":true,"resource":{"id":"made"},"options":{}})");
  };
  ScriptEngine::Host host = [this](std::string_view text) {
    requests.push_back(Json::parse(text));
    return answer(requests.back());
  };

  cosmos::Result<ScriptEngine::Outcome> Run(std::string_view body, std::string_view arguments = "[]",
                                            const char* kind = "procedure", Json extra = Json::object()) {
    ScriptEngine::Run run;
    run.kind = std::string_view(kind) == "pre"    ? ScriptEngine::Run::Kind::kPreTrigger
               : std::string_view(kind) == "post" ? ScriptEngine::Run::Kind::kPostTrigger
                                                  : ScriptEngine::Run::Kind::kProcedure;
    run.body = body;
    run.arguments = arguments;
    Json setup = {{"kind", kind}, {"selfLink", "dbs/AA==/colls/AAAAAA==/"}, {"altLink", "dbs/d/colls/c"},
                  {"maxResponseBodySize", 2097152}};
    setup.update(extra);
    run.setup = setup.dump();
    run.time_limit = std::chrono::seconds(2);
    run.host = &host;
    return ScriptEngine::Execute(run);
  }
};

}  // namespace

TEST_CASE("the collection API sends each call to the host and runs its callback after the function returns",
          "[scripts]") {
  FakeCollection collection;
  auto ran = collection.Run(
      "function f() { const order = []; const c = getContext().getCollection();"
      "  const accepted = c.createDocument(c.getSelfLink(), {pk: 'p'}, (err, doc) => { order.push('callback ' + doc.id); "
      "    getContext().getResponse().setBody(order); });"
      "  order.push('returned ' + accepted); }");
  REQUIRE_OK(ran);
  CHECK(Json::parse(ran->response_body) == Json{"returned true", "callback made"});
  REQUIRE(collection.requests.size() == 1);
  const Json& create = collection.requests[0];
  CHECK(create["op"] == "create");
  CHECK(create["link"] == "dbs/AA==/colls/AAAAAA==/");
  CHECK(create["body"]["pk"] == "p");
  CHECK(create["body"]["id"].get<std::string>().size() == 36);  // generated: 8-4-4-4-12
}

TEST_CASE("a call past the budget is not accepted and its callback never runs", "[scripts]") {
  FakeCollection collection;
  collection.answer = [](const Json&) { return std::string(R"({"accepted":false})"); };
  auto ran = collection.Run(
      "function f() { const c = __; let called = false;"
      "  const accepted = c.deleteDocument(c.getAltLink() + '/docs/x', () => { called = true; });"
      "  getContext().getResponse().setBody({accepted, called}); }");
  REQUIRE_OK(ran);
  CHECK(Json::parse(ran->response_body) == Json{{"accepted", false}, {"called", false}});
}

TEST_CASE("a failed call reaches its callback as an Error with the status as number, or throws without one",
          "[scripts]") {
  FakeCollection collection;
  collection.answer = [](const Json&) {
    return std::string(R"({"accepted":true,"error":{"number":409,"code":"Conflict","message":"taken"}})");
  };
  auto caught = collection.Run(
      "function f() { __.createDocument(__.getSelfLink(), {id: 'a'}, (err) => {"
      "  getContext().getResponse().setBody([err instanceof Error, err.number, JSON.parse(err.body).Errors[0]]); }); }");
  REQUIRE_OK(caught);
  CHECK(Json::parse(caught->response_body) == Json{true, 409, "taken"});
  auto thrown = collection.Run("function f() { __.createDocument(__.getSelfLink(), {id: 'a'}); }");
  REQUIRE(thrown.status().code() == ErrorCode::kBadRequest);
  CHECK(thrown.status().substatus() == 409);
  CHECK(thrown.status().message().find("taken") != std::string::npos);
}

TEST_CASE("new Error(number, message), ErrorCodes and console.log with %s", "[scripts]") {
  FakeCollection collection;
  auto ran = collection.Run(
      "function f() { console.log('%s items in %s', 3, 'p', 'extra'); const e = new Error(404, 'gone');"
      "  class Mine extends Error {}; const m = new Mine('x');"
      "  getContext().getResponse().setBody([e.number, e.message, ErrorCodes.PreconditionFailed, m instanceof Mine]); }");
  REQUIRE_OK(ran);
  CHECK(Json::parse(ran->response_body) == Json{404, "gone", 412, true});
  CHECK(ran->log == "3 items in p extra");
  auto thrown = collection.Run("function f() { throw new Error(403, 'locked'); }");
  CHECK(thrown.status().substatus() == 403);
  CHECK(thrown.status().message().find("Error: locked (line 1)") != std::string::npos);
}

TEST_CASE("the chain API reads the partition through the host and runs its steps in JavaScript", "[scripts]") {
  FakeCollection collection;
  collection.answer = [](const Json& request) {
    CHECK(request["op"] == "query");
    return std::string(R"({"accepted":true,"resources":[{"id":"a","n":3},{"id":"b","n":1},{"id":"c","n":2}],)"
                       R"("options":{"continuation":null}})");
  };
  auto ran = collection.Run(
      "function f() { __.chain().filter((d) => d.n > 1).sortBy((d) => d.n).pluck('id').value((err, ids) => {"
      "  getContext().getResponse().setBody(ids); }); }");
  REQUIRE_OK(ran);
  CHECK(Json::parse(ran->response_body) == Json{"c", "a"});
}

TEST_CASE("a pre-trigger sees and replaces the request body; a post-trigger sees the response body", "[scripts]") {
  FakeCollection collection;
  auto pre = collection.Run(
      "function t() { const r = getContext().getRequest(); const d = r.getBody(); d.stamped = r.getOperationType();"
      "  r.setBody(d); }",
      "[]", "pre", {{"requestBody", {{"id", "x"}}}, {"operation", "Create"}});
  REQUIRE_OK(pre);
  CHECK(Json::parse(pre->request_body) == Json{{"id", "x"}, {"stamped", "Create"}});
  CHECK(pre->response_body.empty());
  // A pre-trigger has no response; a post-trigger may not set the request.
  CHECK_FALSE(collection.Run("function t() { getContext().getResponse(); }", "[]", "pre").ok());
  auto post = collection.Run("function t() { const b = getContext().getResponse().getBody(); b.seen = true;"
                             "  getContext().getResponse().setBody(b); }",
                             "[]", "post", {{"responseBody", {{"id", "x"}, {"_etag", "e"}}}});
  REQUIRE_OK(post);
  CHECK(Json::parse(post->response_body)["seen"] == true);
  CHECK_FALSE(collection.Run("function t() { getContext().getRequest().setBody({}); }", "[]", "post").ok());
}

TEST_CASE("user-defined functions are compiled once and called with the service's values", "[scripts]") {
  using namespace std::chrono_literals;
  auto functions = ScriptEngine::Functions::Compile(
      {{"kind", "function (v) { return v === undefined ? 'undefined' : v === null ? 'null' : typeof v; }"},
       {"half", "function half(n) { return n / 2; }"},
       {"none", "function () {}"},
       {"boom", "function () { throw new Error('no input'); }"},
       {"spin", "function () { for (;;) {} }"}},
      500ms);
  REQUIRE_OK(functions);
  auto& f = **functions;
  CHECK(*f.Call("kind", "[null]", {0}).value() == "\"undefined\"");
  CHECK(*f.Call("kind", "[null]", {}).value() == "\"null\"");
  CHECK(*f.Call("half", "[7]", {}).value() == "3.5");
  CHECK_FALSE(f.Call("none", "[]", {}).value().has_value());
  auto thrown = f.Call("boom", "[]", {});
  CHECK(thrown.status().code() == ErrorCode::kBadRequest);
  CHECK(thrown.status().message().find("Error: no input") != std::string::npos);
  CHECK(f.Call("spin", "[]", {}).status().code() == ErrorCode::kRequestTimeout);
  CHECK(f.Call("half", "[1]", {}).status().code() == ErrorCode::kRequestTimeout);  // past the limit: every call
  CHECK(ScriptEngine::Functions::Compile({{"bad", "function ( {"}}, 1s).status().code() == ErrorCode::kBadRequest);
}
