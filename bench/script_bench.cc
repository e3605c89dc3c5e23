// bench_scripts: what server-side JavaScript costs, in process (an engine::Account on an in-memory
// store, no HTTP), each figure beside the same work done without a script in the same run:
//   - an empty stored procedure, end to end (its transaction, a fresh global, the server-side API
//     evaluated, the call), and the JavaScript part alone (ScriptEngine::Execute, no store);
//   - a bulk import of --documents documents in one procedure, per document, against as many
//     point creates (Account::CreateItem, one transaction each);
//   - the documented bulk delete of them, per document, against as many point deletes;
//   - a UDF called once per document in a query, against the same query computing natively.
// The bulk import runs --rounds times against the point creates, in alternating order, and
// reports medians: one pass of 1,000 writes varies by half from run to run on a shared machine.
// Prints one JSON object on stdout and a human line per figure on stderr; exits 1 when a step fails,
// so that the figures cannot silently stop measuring what they claim to.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "engine/account.h"
#include "engine/scripts/script_engine.h"
#include "storage/store.h"

namespace {

using cosmos::Json;
using Clock = std::chrono::steady_clock;
namespace engine = cosmos::engine;

[[noreturn]] void Fail(const std::string& what, const cosmos::Status& status) {
  std::cerr << "bench_scripts: " << what << " failed: " << status.message() << "\n";
  std::exit(1);
}

template <typename T>
T Must(cosmos::Result<T> result, const std::string& what) {
  if (!result.ok()) Fail(what, result.status());
  return std::move(*result);
}

// Microseconds per iteration of `step`, repeated for about `seconds` (at least 20 times).
double MicrosecondsPer(double seconds, const std::function<void()>& step) {
  int64_t iterations = 0;
  auto started = Clock::now();
  auto until = started + std::chrono::duration<double>(seconds);
  while (iterations < 20 || Clock::now() < until) {
    step();
    ++iterations;
  }
  return std::chrono::duration<double, std::micro>(Clock::now() - started).count() / static_cast<double>(iterations);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double MicrosecondsOf(const std::function<void()>& step) {
  auto started = Clock::now();
  step();
  return std::chrono::duration<double, std::micro>(Clock::now() - started).count();
}

// A document of about 300 bytes with 12 properties.
Json Document(int n, const std::string& pk) {
  Json document = {{"id", "d" + std::to_string(n)}, {"pk", pk}, {"n", n}, {"name", "name-" + std::to_string(n)}};
  for (int i = 0; i < 8; ++i) document["f" + std::to_string(i)] = "value-" + std::to_string(i) + "-" + std::to_string(n);
  return document;
}

constexpr char kBulkImport[] = R"(function bulkImport(docs) {
  const c = getContext().getCollection();
  let count = 0;
  const next = () => { if (count < docs.length && !c.createDocument(c.getSelfLink(), docs[count], done)) finish(); };
  const done = (err) => { if (err) throw err; if (++count === docs.length) finish(); else next(); };
  const finish = () => getContext().getResponse().setBody(count);
  next();
})";

constexpr char kBulkDelete[] = R"(function bulkDelete(query) {
  const c = getContext().getCollection();
  const result = { deleted: 0, continuation: true };
  const search = (token) => {
    if (!c.queryDocuments(c.getSelfLink(), query, { continuation: token }, (err, docs, options) => {
      if (err) throw err;
      if (docs.length > 0) remove(docs);
      else if (options.continuation) search(options.continuation);
      else { result.continuation = false; getContext().getResponse().setBody(result); }
    })) getContext().getResponse().setBody(result);
  };
  const remove = (docs) => {
    if (docs.length === 0) return search();
    if (!c.deleteDocument(docs[0]._self, {}, (err) => { if (err) throw err; result.deleted++; docs.shift(); remove(docs); }))
      getContext().getResponse().setBody(result);
  };
  search();
})";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_scripts: the cost of stored procedures and UDFs, in process"};
  double seconds = 2;
  int documents = 1000;
  int rounds = 5;
  app.add_option("--seconds", seconds, "length of each repeated measurement")->capture_default_str();
  app.add_option("--rounds", rounds, "rounds of the bulk import against point creates (medians reported)")
      ->capture_default_str()->check(CLI::Range(1, 100));
  app.add_option("--documents", documents, "documents of the bulk import, delete and UDF query")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto store = Must(cosmos::storage::Store::Open({}), "opening an in-memory store");
  engine::Account account(std::move(store));
  Must(account.CreateDatabase(R"({"id":"db"})"), "creating the database");
  Must(account.CreateContainer({"db", false}, R"({"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}})"),
       "creating the container");
  const engine::ContainerAddress container{{"db", false}, {"c", false}};
  auto procedure = [&](const std::string& id, const std::string& body) {
    Must(account.CreateScript({container, engine::ScriptKind::kStoredProcedure, {}},
                              Json{{"id", id}, {"body", body}}.dump()),
         "creating " + id);
    return engine::ScriptAddress{container, engine::ScriptKind::kStoredProcedure, {id, false}};
  };
  const auto empty = procedure("empty", "function empty() {}");
  const auto bulk_import = procedure("bulkImport", kBulkImport);
  const auto bulk_delete = procedure("bulkDelete", kBulkDelete);
  Must(account.CreateScript({container, engine::ScriptKind::kUserDefinedFunction, {}},
                            R"({"id":"twice","body":"function twice(n) { return n * 2; }"})"),
       "creating the UDF");
  const std::string empty_key = R"(["e"])";

  Json result = {{"target", "scripts"}, {"workload", "scripts"}, {"documents", documents}, {"rounds", rounds}};
  auto report = [&](const char* name, double value, const char* unit) {
    result[name] = value;
    std::fprintf(stderr, "%-34s %10.1f %s\n", name, value, unit);
  };

  // The JavaScript part alone, then the whole execution.
  engine::ScriptEngine::Run run;
  run.body = "function empty() {}";
  run.arguments = "[]";
  run.setup = R"({"kind":"procedure","selfLink":"dbs/AA==/colls/AAAAAA==/","altLink":"dbs/db/colls/c",)"
              R"("maxResponseBodySize":2097152})";
  report("empty_script_engine_us", MicrosecondsPer(seconds, [&] { Must(engine::ScriptEngine::Execute(run), "run"); }),
         "us per run of an empty procedure (JavaScript only)");
  report("empty_procedure_us", MicrosecondsPer(seconds, [&] {
           Must(account.ExecuteProcedure(empty, "[]", empty_key), "an empty procedure");
         }), "us per execution of an empty procedure (transaction included)");

  // Rounds of bulk import in one procedure vs point creates (documents of about 300 bytes), each in
  // a fresh logical partition, alternating which goes first; the medians are reported. The last
  // round's partitions stay for the UDF query and the deletes.
  std::vector<double> import_us, create_us;
  std::string procedure_key, point_key;
  for (int round = 0; round < rounds; ++round) {
    const std::string a_key = "a" + std::to_string(round), b_key = "b" + std::to_string(round);
    procedure_key = Json::array({a_key}).dump();
    point_key = Json::array({b_key}).dump();
    Json batch = Json::array();
    for (int n = 0; n < documents; ++n) batch.push_back(Document(n, a_key));
    const std::string arguments = Json::array({batch}).dump();
    std::vector<std::string> texts;
    for (int n = 0; n < documents; ++n) texts.push_back(Document(n, b_key).dump());
    auto by_procedure = [&] {
      import_us.push_back(MicrosecondsOf([&] {
        auto ran = Must(account.ExecuteProcedure(bulk_import, arguments, procedure_key), "the bulk import");
        if (ran.body != std::to_string(documents)) Fail("the bulk import", cosmos::Status::Internal("imported " + ran.body));
      }));
    };
    auto by_point = [&] {
      create_us.push_back(MicrosecondsOf([&] {
        for (const std::string& text : texts) {
          Must(account.CreateItem(engine::ItemWrite{container, point_key, text, {}, nullptr}), "a point create");
        }
      }));
    };
    if (round % 2 == 0) {
      by_procedure();
      by_point();
    } else {
      by_point();
      by_procedure();
    }
  }
  report("procedure_create_per_document_us", Median(import_us) / documents, "us per document created by a procedure");
  report("point_create_per_document_us", Median(create_us) / documents, "us per point create (baseline)");
  const std::string& key = procedure_key;

  // A UDF per document vs the same computation natively, over partition "a".
  auto query = [&](const std::string& text) {
    std::string body = Json{{"query", text}}.dump();
    engine::QueryRequest request;
    request.container = container;
    request.body = body;
    request.partition_key_header = key;
    request.max_item_count = -1;
    int64_t rows = 0;
    for (;;) {
      auto page = Must(account.QueryItems(request), text);
      rows += page.count;
      if (!page.continuation) break;
      request.continuation = page.continuation;
    }
    if (rows != documents) Fail(text, cosmos::Status::Internal("rows: " + std::to_string(rows)));
  };
  double udf_us = MicrosecondsPer(seconds, [&] { query("SELECT VALUE udf.twice(c.n) FROM c"); });
  double native_us = MicrosecondsPer(seconds, [&] { query("SELECT VALUE c.n * 2 FROM c"); });
  report("udf_query_per_document_us", udf_us / documents, "us per document of a query calling a UDF");
  report("native_query_per_document_us", native_us / documents, "us per document of the same query without (baseline)");

  // The documented bulk delete in procedure calls vs point deletes.
  int calls = 0;
  double delete_us = MicrosecondsOf([&] {
    for (bool more = true; more; ++calls) {
      auto ran = Must(account.ExecuteProcedure(bulk_delete, R"(["SELECT * FROM c"])", key), "the bulk delete");
      more = Json::parse(ran.body)["continuation"].get<bool>();
    }
  });
  double point_delete_us = MicrosecondsOf([&] {
    for (int n = 0; n < documents; ++n) {
      Must(account.DeleteItem({container, point_key, {"d" + std::to_string(n), false}}, {}), "a point delete");
    }
  });
  report("procedure_delete_per_document_us", delete_us / documents, "us per document deleted by the bulk delete");
  report("point_delete_per_document_us", point_delete_us / documents, "us per point delete (baseline)");
  result["bulk_delete_calls"] = calls;
  std::cout << result.dump() << "\n";
  return 0;
}
