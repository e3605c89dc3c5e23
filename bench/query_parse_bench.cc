// bench_query_parse: how fast cosmolite turns query text into something it can run, without
// HTTP or storage. Over a fixed set of representative queries (filters, JOIN, GROUP BY, ORDER BY,
// subqueries, system functions), for --seconds each:
//   - parse + bind, fresh every time (what a query costs the first time it is seen);
//   - PreparedQueryCache::Prepare on texts already cached (what the next page or a repeated
//     query costs);
//   - parse + bind + the SDK query plan (what a query-plan request costs the first time).
// Prints one JSON object on stdout and a human line on stderr; exits 1 if any query is rejected,
// so the set cannot silently stop measuring what it claims to.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "query/binder.h"
#include "query/parser/parser.h"
#include "query/query_cache.h"

#if __has_include("query/plan/query_plan.h")
#include "query/plan/query_plan.h"
#define COSMOLITE_BENCH_HAS_QUERY_PLAN 1
#endif

namespace {

using Clock = std::chrono::steady_clock;

// Shapes an application sends, from trivial to busy; a mix rather than a worst case.
const std::vector<std::string>& Queries() {
  static const auto* queries = new std::vector<std::string>{
      "SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo",
      "SELECT c.id, c.name FROM c WHERE c.age > 30 AND c.city = 'Seattle'",
      "SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n",
      "SELECT * FROM c WHERE c.category = @cat ORDER BY c.price DESC, c.id ASC",
      "SELECT VALUE COUNT(1) FROM c",
      "SELECT c.category, COUNT(1) AS items, AVG(c.price) AS avgPrice FROM c GROUP BY c.category",
      "SELECT c.category, MAX(c.price) AS highest, MIN(c.price) AS lowest, SUM(c.qty) AS qty FROM c "
      "WHERE c.price > 0 GROUP BY c.category",
      "SELECT c.id, t.name FROM c JOIN t IN c.tags WHERE t.name = 'blue'",
      "SELECT f.id, child.firstName, pet.givenName FROM Families f JOIN child IN f.children "
      "JOIN pet IN child.pets WHERE pet.age > 2",
      "SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t.score > 5)",
      "SELECT c.id, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS tagCount FROM c",
      "SELECT c.id, ARRAY(SELECT VALUE t.name FROM t IN c.tags WHERE t.active = true) AS activeTags FROM c",
      "SELECT * FROM (SELECT c.id, c.n FROM c WHERE c.n > 5) AS s WHERE s.n < 100",
      "SELECT * FROM c WHERE CONTAINS(LOWER(c.name), 'smith') AND STARTSWITH(c.city, 'Sea')",
      "SELECT c.id, UPPER(c.name) AS name, CONCAT(c.first, ' ', c.last) AS fullName, "
      "ROUND(c.price * 1.2) AS gross FROM c",
      "SELECT DISTINCT VALUE c.city FROM c WHERE IS_DEFINED(c.city)",
      "SELECT * FROM c WHERE c.n BETWEEN 10 AND 20 OR c.status IN ('open', 'pending')",
      "SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, 'blue') OFFSET 10 LIMIT 20",
      "SELECT c.id, c.address.city ?? 'unknown' AS city, (c.n > 10 ? 'big' : 'small') AS size FROM c",
      "SELECT {\"id\": c.id, \"total\": c.price * c.qty, \"pair\": [c.a, c.b]} AS summary FROM c "
      "WHERE NOT IS_NULL(c.price)",
      "SELECT * FROM c WHERE c.name LIKE 'Jo%' AND c[\"odd key\"] = 1 AND LENGTH(c.code) = 4",
      "SELECT VALUE SUBSTRING(c.created, 0, 10) FROM c WHERE c.created >= @since ORDER BY c.created DESC",
  };
  return *queries;
}

#ifdef COSMOLITE_BENCH_HAS_QUERY_PLAN
// The parameters the queries above use, for the query plan (TOP/OFFSET/LIMIT parameters are
// inlined there).
cosmos::Json Parameters() {
  return cosmos::Json::array({{{"name", "@pk"}, {"value", "p1"}},
                              {{"name", "@lo"}, {"value", 42}},
                              {{"name", "@cat"}, {"value", "books"}},
                              {{"name", "@since"}, {"value", "2024-01-01"}}});
}
#endif

struct Rate {
  double per_s = 0;
  uint64_t done = 0;
};

// Runs `one(text)` over the query set in a loop for `seconds`; returns queries per second.
// `one` returns an error message, empty on success.
Rate Measure(double seconds, const std::function<std::string(const std::string&)>& one, std::string* error) {
  Rate rate;
  auto started = Clock::now();
  auto deadline = started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (Clock::now() < deadline) {
    for (const std::string& text : Queries()) {
      std::string failure = one(text);
      if (!failure.empty()) {
        *error = failure + ": " + text;
        return rate;
      }
      ++rate.done;
    }
  }
  double took = std::chrono::duration<double>(Clock::now() - started).count();
  rate.per_s = static_cast<double>(rate.done) / took;
  return rate;
}

std::string ParseAndBind(const std::string& text) {
  auto parsed = cosmos::query::ParseQuery(text);
  if (!parsed.ok()) return "parse: " + parsed.status().message();
  auto bound = cosmos::query::Bind(*parsed, text);
  if (!bound.ok()) return "bind: " + bound.status().message();
  return "";
}

double Round(double value, double step) { return std::round(value / step) * step; }

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2;
  CLI::App app{"bench_query_parse: parse+bind and cached-prepare rates of cosmolite's query front end"};
  app.add_option("--seconds", seconds, "length of each measurement")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  nlohmann::json report = {{"target", "query-engine"}, {"workload", "parse"}, {"queries", Queries().size()}};
  std::string error;

  Rate fresh = Measure(seconds, ParseAndBind, &error);
  if (!error.empty()) {
    std::cerr << "bench_query_parse: " << error << "\n";
    return 1;
  }
  report["parse_bind_per_s"] = Round(fresh.per_s, 1);
  report["parse_bind_us"] = Round(1e6 / fresh.per_s, 0.01);

  // Every text is cached after the first round, so this measures the lookup.
  cosmos::query::PreparedQueryCache cache;
  Rate cached = Measure(
      seconds,
      [&cache](const std::string& text) -> std::string {
        auto prepared = cache.Prepare(text);
        return prepared.ok() ? "" : "prepare: " + prepared.status().message();
      },
      &error);
  if (!error.empty()) {
    std::cerr << "bench_query_parse: " << error << "\n";
    return 1;
  }
  report["cached_prepare_per_s"] = Round(cached.per_s, 1);
  report["cached_prepare_us"] = Round(1e6 / cached.per_s, 0.001);

#ifdef COSMOLITE_BENCH_HAS_QUERY_PLAN
  cosmos::Json parameters = Parameters();
  cosmos::query::QueryPlanOptions plan_options;
  plan_options.partition_key_paths = {"/pk"};
  Rate planned = Measure(
      seconds,
      [&](const std::string& text) -> std::string {
        auto parsed = cosmos::query::ParseQuery(text);
        if (!parsed.ok()) return "parse: " + parsed.status().message();
        auto bound = cosmos::query::Bind(*parsed, text);
        if (!bound.ok()) return "bind: " + bound.status().message();
        auto plan = cosmos::query::BuildQueryPlan(**parsed, parameters, plan_options);
        return plan.ok() ? "" : "plan: " + plan.status().message();
      },
      &error);
  if (!error.empty()) {
    std::cerr << "bench_query_parse: " << error << "\n";
    return 1;
  }
  report["parse_bind_plan_per_s"] = Round(planned.per_s, 1);
  report["parse_bind_plan_us"] = Round(1e6 / planned.per_s, 0.01);
#endif

  std::cout << report.dump() << std::endl;
  std::fprintf(stderr, "query engine: parse+bind %.0f queries/s (%.1f us each), cached prepare %.0f/s",
               fresh.per_s, 1e6 / fresh.per_s, cached.per_s);
  if (report.contains("parse_bind_plan_per_s")) {
    std::fprintf(stderr, ", parse+bind+plan %.0f/s", report["parse_bind_plan_per_s"].get<double>());
  }
  std::fprintf(stderr, " over %zu queries\n", Queries().size());
  return 0;
}
