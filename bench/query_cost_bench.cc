// bench_query_cost: what queries cost as the index and the partition key decide it, in process
// (an engine::Account on an in-memory store, no HTTP), so that the figures are the engine's own:
//   - the IoT lesson: 20 tenants' readings (--readings) stored twice, keyed by device and keyed
//     by tenant and month, at 4 and 40 physical partitions; "one tenant's last day" (and the same
//     newest first) asked of both, the keyed one in its partition, the fanned-out one range by
//     range as the SDKs send it. RU summed over every page, and µs per question;
//   - for each of --sizes documents (10k, 100k, 1M) (~256 bytes, "n" = N in partition p{N mod 100}, "tag" =
//     t{N mod 10}): the first page of 10 of `c.pk = @pk AND c.n >= @lo` (with and without
//     ORDER BY c.n), `TOP 10 … c.tag = @t AND c.n >= @lo ORDER BY c.n` across the container, and
//     `COUNT(1) … c.tag = @t` from the index alone beside the same count loading its documents;
//     from these, µs per index entry read and per document loaded; `SUM(c.n)` over the container
//     from the entries beside the same sum loading its documents. Also `c.tag = @t AND c.n in
//     a tenth of the range` sorted by id (an index intersection), and the tenth page of an ORDER BY inside a
//     partition (the tenth at 10k documents and more) beside its first;
//   - µs per document loaded and filtered for --kilobyte-documents documents of 1 KB with 20
//     properties.
// Prints one JSON object on stdout and a human line per figure on stderr; exits 1 when a step
// fails or an answer is wrong.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/json.h"
#include "engine/account.h"
#include "storage/store.h"

namespace {

using cosmos::Json;
using Clock = std::chrono::steady_clock;
namespace engine = cosmos::engine;

[[noreturn]] void Fail(const std::string& what, const std::string& why) {
  std::cerr << "bench_query_cost: " << what << " failed: " << why << "\n";
  std::exit(1);
}

template <typename T>
T Must(cosmos::Result<T> result, const std::string& what) {
  if (!result.ok()) Fail(what, result.status().message());
  return std::move(*result);
}

// A query run to its end, page after page: its rows, RU and what it loaded.
struct QueryRun {
  int64_t rows = 0;
  double charge = 0;
  int64_t scanned = 0;
  std::string access_path;
  std::vector<Json> documents;
};

QueryRun RunQuery(engine::Account& account, engine::QueryRequest request, bool first_page_only = false) {
  QueryRun run;
  for (;;) {
    auto page = Must(account.QueryItems(request), std::string(request.body));
    Json body = Json::parse(page.body);
    for (Json& document : body["Documents"]) run.documents.push_back(std::move(document));
    run.rows += page.count;
    run.charge += page.request_charge;
    run.scanned += page.fan_out.documents_scanned;
    if (run.access_path.empty()) run.access_path = page.fan_out.access_path;
    if (first_page_only || !page.continuation) return run;
    request.continuation = page.continuation;
  }
}

// Median µs of `step` over about `seconds` (at least 5 runs).
double MedianMicroseconds(double seconds, const std::function<void(int)>& step) {
  std::vector<double> times;
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  for (int i = 0; times.size() < 5 || Clock::now() < until; ++i) {
    auto started = Clock::now();
    step(i);
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - started).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// --only: the figures to measure, by a part of their names (empty: every figure).
std::string g_only;

bool Wanted(const std::string& figure) { return g_only.empty() || figure.find(g_only) != std::string::npos; }

std::string Body(const std::string& query, const Json& parameters) {
  return Json{{"query", query}, {"parameters", parameters}}.dump();
}

// --- The IoT lesson ---------------------------------------------------------------------------

constexpr int kTenants = 20;
constexpr int kDevicesPerTenant = 10;
constexpr int64_t kDayMs = 24 * 3600 * 1000;
constexpr int64_t kStart = 1793491200000;  // 2026-11-01

Json Reading(int tenant, int device, int day, int slot, int per_day) {
  char tenant_id[8];
  std::snprintf(tenant_id, sizeof(tenant_id), "t%02d", tenant);
  std::string id = std::string(tenant_id) + "-d" + std::to_string(device) + "-" + std::to_string(day) + "-" +
                   std::to_string(slot);
  return {{"id", id},
          {"tenantId", tenant_id},
          {"deviceId", std::string(tenant_id) + "-d" + std::to_string(device)},
          {"tenantMonth", std::string(tenant_id) + "-2026-11"},
          {"ts", kStart + day * kDayMs + slot * (kDayMs / per_day) + device * 10 + tenant},
          {"temperature", 15 + (tenant * 7 + device * 3 + day + slot) % 20},
          {"firmware", "fw-" + std::to_string(device % 3)}};
}

Json IotLesson(int readings, double seconds) {
  const int per_day = 2;
  const int days = std::max(1, readings / (kTenants * kDevicesPerTenant * per_day));
  const std::string tenant = "t07";
  const int64_t since = kStart + (days - 1) * kDayMs;
  Json figures = Json::array();
  for (int64_t throughput : {40000, 400000}) {
    auto store = Must(cosmos::storage::Store::Open({}), "opening an in-memory store");
    engine::Account account(std::move(store));
    Must(account.CreateDatabase(R"({"id":"db"})"), "creating the database");
    engine::ContainerThroughput provisioned;
    provisioned.manual = throughput;
    for (const char* key : {"deviceId", "tenantMonth"}) {
      Json definition = {{"id", key}, {"partitionKey", {{"paths", {std::string("/") + key}}, {"kind", "Hash"}, {"version", 2}}}};
      Must(account.CreateContainer({"db", false}, definition.dump(), provisioned), "creating a container");
      engine::ContainerAddress address{{"db", false}, {key, false}};
      for (int day = 0; day < days; ++day) {
        for (int t = 0; t < kTenants; ++t) {
          for (int device = 0; device < kDevicesPerTenant; ++device) {
            for (int slot = 0; slot < per_day; ++slot) {
              Json reading = Reading(t, device, day, slot, per_day);
              std::string header = Json::array({reading[key]}).dump();
              Must(account.CreateItem(engine::ItemWrite{address, header, reading.dump(), {}}), "storing a reading");
            }
          }
        }
      }
    }
    engine::ContainerAddress by_device{{"db", false}, {"deviceId", false}};
    engine::ContainerAddress by_tenant_month{{"db", false}, {"tenantMonth", false}};
    Json ranges = Json::parse(Must(account.ReadPartitionKeyRanges(by_device, std::nullopt, false), "ranges").body);
    std::vector<std::string> range_ids;
    for (const Json& range : ranges["PartitionKeyRanges"]) range_ids.push_back(range["id"].get<std::string>());

    Json figure = {{"physical_partitions", range_ids.size()}, {"readings", days * kTenants * kDevicesPerTenant * per_day}};
    for (bool newest_first : {false, true}) {
      std::string order = newest_first ? " ORDER BY c.ts DESC" : "";
      std::string keyed_body = Body("SELECT * FROM c WHERE c.tenantMonth = @t AND c.ts >= @since" + order,
                                    Json::array({{{"name", "@t"}, {"value", tenant + "-2026-11"}},
                                                 {{"name", "@since"}, {"value", since}}}));
      std::string fanned_body = Body("SELECT * FROM c WHERE c.tenantId = @t AND c.ts >= @since" + order,
                                     Json::array({{{"name", "@t"}, {"value", tenant}}, {{"name", "@since"}, {"value", since}}}));
      auto keyed = [&] {
        engine::QueryRequest request;
        request.container = by_tenant_month;
        request.body = keyed_body;
        request.partition_key_header = Json::array({tenant + "-2026-11"}).dump();
        return RunQuery(account, request);
      };
      // As the SDKs run a cross-partition query: every range, page after page.
      auto fanned = [&] {
        QueryRun total;
        for (const std::string& range_id : range_ids) {
          engine::QueryRequest request;
          request.container = by_device;
          request.body = fanned_body;
          request.enable_cross_partition = true;
          request.partition_key_range_id = range_id;
          QueryRun run = RunQuery(account, request);
          total.rows += run.rows;
          total.charge += run.charge;
          total.scanned += run.scanned;
        }
        return total;
      };
      QueryRun keyed_run = keyed();
      QueryRun fanned_run = fanned();
      int expected = kDevicesPerTenant * per_day;
      if (keyed_run.rows != expected || fanned_run.rows != expected) {
        Fail("the IoT question", "expected " + std::to_string(expected) + " rows, got " +
                                     std::to_string(keyed_run.rows) + " and " + std::to_string(fanned_run.rows));
      }
      std::string prefix = newest_first ? "newest_first_" : "";
      figure[prefix + "keyed_ru"] = keyed_run.charge;
      figure[prefix + "fanned_out_ru"] = fanned_run.charge;
      figure[prefix + "keyed_us"] = MedianMicroseconds(seconds, [&](int) { keyed(); });
      figure[prefix + "fanned_out_us"] = MedianMicroseconds(seconds, [&](int) { fanned(); });
      figure[prefix + "keyed_access_path"] = keyed_run.access_path;
      std::cerr << "IoT lesson, " << range_ids.size() << " partitions" << (newest_first ? ", newest first" : "")
                << ": keyed " << keyed_run.charge << " RU (" << figure[prefix + "keyed_us"].get<double>()
                << " us, " << keyed_run.access_path << "), fanned out " << fanned_run.charge << " RU ("
                << figure[prefix + "fanned_out_us"].get<double>() << " us)\n";
    }
    figures.push_back(figure);
  }
  return figures;
}

// --- Indexed queries as the container grows ------------------------------------------------------

// An account on an in-memory store with database "db" and container "c", keyed by /pk.
std::unique_ptr<engine::Account> AccountWithContainer() {
  auto store = Must(cosmos::storage::Store::Open({}), "opening an in-memory store");
  auto account = std::make_unique<engine::Account>(std::move(store));
  Must(account->CreateDatabase(R"({"id":"db"})"), "creating the database");
  Must(account->CreateContainer({"db", false}, R"({"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}})"),
       "creating the container");
  return account;
}

Json Sized(int documents, double seconds) {
  std::unique_ptr<engine::Account> owner = AccountWithContainer();
  engine::Account& account = *owner;
  const engine::ContainerAddress address{{"db", false}, {"c", false}};
  const std::string padding(150, 'x');
  for (int n = 0; n < documents; ++n) {
    std::string pk = "p" + std::to_string(n % 100);
    Json document = {{"id", "seed-" + std::to_string(n)}, {"pk", pk}, {"n", n}, {"tag", "t" + std::to_string(n % 10)},
                     {"padding", padding}};
    Must(account.CreateItem(engine::ItemWrite{address, Json::array({pk}).dump(), document.dump(), {}}), "seeding");
  }
  std::mt19937 random(42);
  std::vector<int> picks(256);
  for (int& pick : picks) pick = static_cast<int>(random() % static_cast<unsigned>(documents));

  Json figure = {{"documents", documents}};
  auto first_page = [&](const std::string& name, const std::string& text, bool in_partition) {
    if (!Wanted(name)) return;
    double charge = 0;
    int64_t scanned = 0;
    int runs = 0;
    std::string access_path;
    double us = MedianMicroseconds(seconds, [&](int i) {
      int lo = picks[static_cast<size_t>(i) % picks.size()];
      std::string pk = "p" + std::to_string(lo % 100);
      std::string body = Body(text, Json::array({{{"name", "@pk"}, {"value", pk}}, {{"name", "@lo"}, {"value", lo}},
                                                 {{"name", "@hi"}, {"value", lo + documents / 10}},
                                                 {{"name", "@t"}, {"value", "t" + std::to_string(lo % 10)}}}));
      engine::QueryRequest request;
      request.container = address;
      request.body = body;
      request.max_item_count = 10;
      request.enable_cross_partition = true;
      if (in_partition) request.partition_key_header = Json::array({pk}).dump();
      QueryRun run = RunQuery(account, request, /*first_page_only=*/true);
      charge += run.charge;
      scanned += run.scanned;
      access_path = run.access_path;
      ++runs;
    });
    figure[name + "_us"] = us;
    figure[name + "_ru"] = charge / runs;
    figure[name + "_scanned"] = static_cast<double>(scanned) / runs;
    std::cerr << documents << " documents, " << name << ": " << us << " us, " << charge / runs << " RU, "
              << static_cast<double>(scanned) / runs << " documents loaded (" << access_path << ")\n";
  };
  first_page("partition_range_first_page", "SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo", true);
  first_page("partition_range_ordered_first_page", "SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo ORDER BY c.n", true);
  first_page("equality_range_ordered_top10", "SELECT TOP 10 * FROM c WHERE c.tag = @t AND c.n >= @lo ORDER BY c.n", false);
  // A tenth of the documents carry the tag and a tenth are in the range: the index intersects them.
  first_page("equality_range_sorted", "SELECT * FROM c WHERE c.tag = @t AND c.n >= @lo AND c.n < @hi ORDER BY c.id",
             false);

  // A later page of 10 (the tenth, or an earlier one when the partition holds fewer) of an ORDER BY
  // inside a partition, beside its first: a later page walks the index from where the one before
  // stopped.
  if (Wanted("ordered_later_page")) {
    const int later = std::clamp(documents / 1000, 2, 10);
    engine::QueryRequest request;
    request.container = address;
    const std::string body = Body("SELECT * FROM c WHERE c.pk = @pk ORDER BY c.n",
                                  Json::array({{{"name", "@pk"}, {"value", "p7"}}}));
    request.body = body;
    request.max_item_count = 10;
    request.partition_key_header = Json::array({"p7"}).dump();
    engine::QueryRequest later_request = request;
    for (int page = 1; page < later; ++page) {
      auto response = Must(account.QueryItems(later_request), "paging");
      if (!response.continuation) Fail("paging", "no continuation after page " + std::to_string(page));
      later_request.continuation = response.continuation;
    }
    QueryRun first_run = RunQuery(account, request, /*first_page_only=*/true);
    QueryRun later_run = RunQuery(account, later_request, /*first_page_only=*/true);
    figure["ordered_later_page"] = later;
    figure["ordered_first_page_us"] = MedianMicroseconds(seconds, [&](int) { RunQuery(account, request, true); });
    figure["ordered_later_page_us"] = MedianMicroseconds(seconds, [&](int) { RunQuery(account, later_request, true); });
    figure["ordered_first_page_ru"] = first_run.charge;
    figure["ordered_later_page_ru"] = later_run.charge;
    figure["ordered_later_page_scanned"] = later_run.scanned;
    std::cerr << documents << " documents, ORDER BY inside a partition: page 1 "
              << figure["ordered_first_page_us"].get<double>() << " us, " << first_run.charge << " RU; page " << later
              << " " << figure["ordered_later_page_us"].get<double>() << " us, " << later_run.charge << " RU, "
              << later_run.scanned << " documents loaded (" << later_run.access_path << ")\n";
  }

  // A count from the index alone, and the same count loading its documents.
  auto count = [&](const std::string& text) {
    engine::QueryRequest request;
    request.container = address;
    std::string body = Body(text, Json::array({{{"name", "@t"}, {"value", "t3"}}}));
    request.body = body;
    request.enable_cross_partition = true;
    QueryRun run = RunQuery(account, request);
    if (run.documents.size() != 1 || run.documents[0] != Json((documents + 6) / 10)) {
      Fail(text, "wrong count " + (run.documents.empty() ? std::string("none") : run.documents[0].dump()));
    }
    double us = MedianMicroseconds(seconds, [&](int) { RunQuery(account, request); });
    return std::make_pair(run, us);
  };
  if (!Wanted("count") && !Wanted("sum")) return figure;
  auto [index_only, index_only_us] = count("SELECT VALUE COUNT(1) FROM c WHERE c.tag = @t");
  auto [loading, loading_us] = count("SELECT VALUE COUNT(1) FROM c WHERE c.tag = @t AND IS_NUMBER(c.n)");
  int64_t matches = (documents + 6) / 10;
  figure["count_index_only_us"] = index_only_us;
  figure["count_index_only_ru"] = index_only.charge;
  figure["count_loading_us"] = loading_us;
  figure["count_loading_ru"] = loading.charge;
  figure["us_per_index_entry"] = index_only_us / static_cast<double>(matches);
  figure["us_per_document_loaded"] = (loading_us - index_only_us) / static_cast<double>(matches);
  std::cerr << documents << " documents, COUNT of " << matches << ": index only " << index_only_us << " us, "
            << index_only.charge << " RU (" << index_only.access_path << "); loading " << loading_us << " us, "
            << loading.charge << " RU; " << figure["us_per_index_entry"].get<double>() << " us per entry, "
            << figure["us_per_document_loaded"].get<double>() << " us per document loaded\n";

  // A sum of one path over the container: from its entries, and loading the documents.
  auto sum = [&](const std::string& text) {
    engine::QueryRequest request;
    request.container = address;
    std::string body = Body(text, Json::array());
    request.body = body;
    request.enable_cross_partition = true;
    QueryRun run = RunQuery(account, request);
    const int64_t expected = int64_t{documents} * (documents - 1) / 2;
    if (run.documents.size() != 1 || run.documents[0] != Json(expected)) Fail(text, "wrong sum");
    double us = MedianMicroseconds(seconds, [&](int) { RunQuery(account, request); });
    return std::make_pair(run, us);
  };
  auto [sum_index_only, sum_index_only_us] = sum("SELECT VALUE SUM(c.n) FROM c");
  auto [sum_loading, sum_loading_us] = sum("SELECT VALUE SUM(c.n) FROM c WHERE IS_NUMBER(c.n)");
  figure["sum_index_only_us"] = sum_index_only_us;
  figure["sum_index_only_ru"] = sum_index_only.charge;
  figure["sum_loading_us"] = sum_loading_us;
  figure["sum_loading_ru"] = sum_loading.charge;
  std::cerr << documents << " documents, SUM of every value: " << sum_index_only_us << " us, "
            << sum_index_only.charge << " RU (" << sum_index_only.access_path << "); loading " << sum_loading_us
            << " us, " << sum_loading.charge << " RU\n";
  return figure;
}

// --- Loading and evaluating 1 KB documents ------------------------------------------------------

// µs per document of a scan that loads and filters every one of `documents` 1 KB documents of 20
// properties (`SELECT VALUE COUNT(1) … WHERE` two of them), and of one that reads none of them.
Json OneKilobyte(int documents, double seconds) {
  std::unique_ptr<engine::Account> owner = AccountWithContainer();
  engine::Account& account = *owner;
  const engine::ContainerAddress address{{"db", false}, {"c", false}};
  for (int n = 0; n < documents; ++n) {
    std::string pk = "p" + std::to_string(n % 100);
    Json document = {{"id", "doc-" + std::to_string(n)}, {"pk", pk}};
    for (int property = 0; property < 9; ++property) {
      const char digit = static_cast<char>('0' + property);
      document[std::string{'n', digit}] = n * 10 + property;
      document[std::string{'s', digit}] = std::string("value-") + std::string(70, static_cast<char>('a' + property));
    }
    // ,"padding":"" adds 13 bytes around the padding itself.
    size_t bytes = document.dump().size() + 13;
    document["padding"] = std::string(bytes < 1024 ? 1024 - bytes : 0, 'x');
    Must(account.CreateItem(engine::ItemWrite{address, Json::array({pk}).dump(), document.dump(), {}}), "seeding");
  }
  auto timed = [&](const std::string& text, int64_t expected) {
    engine::QueryRequest request;
    request.container = address;
    std::string body = Body(text, Json::array());
    request.body = body;
    request.enable_cross_partition = true;
    request.max_item_count = -1;
    QueryRun run = RunQuery(account, request);
    if (run.documents.size() != 1 || run.documents[0] != Json(expected)) Fail(text, "wrong count");
    return std::make_pair(run, MedianMicroseconds(seconds, [&](int) { RunQuery(account, request); }));
  };
  auto [loaded, loaded_us] = timed("SELECT VALUE COUNT(1) FROM c WHERE IS_NUMBER(c.n3) AND STARTSWITH(c.s5, 'value')",
                                   documents);
  auto [counted, counted_us] = timed("SELECT VALUE COUNT(1) FROM c", documents);
  Json figure = {{"documents", documents}, {"document_bytes", 1024}};
  figure["us_per_document_loaded"] = loaded_us / documents;
  figure["us_per_document_counted"] = counted_us / documents;
  figure["scanned"] = loaded.scanned;
  std::cerr << documents << " documents of 1 KB: " << loaded_us / documents << " us per document loaded and filtered ("
            << loaded.scanned << " loaded); " << counted_us / documents << " us per document counted unloaded ("
            << counted.access_path << ")\n";
  return figure;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_query_cost: query cost as the index and the partition key decide it, in process"};
  int readings = 20000;
  std::string sizes = "10000,100000,1000000";
  int kilobyte_documents = 10000;
  double seconds = 1.0;
  app.add_option("--readings", readings, "IoT readings stored in each design");
  app.add_option("--sizes", sizes, "comma-separated document counts for the sized queries");
  app.add_option("--seconds", seconds, "time per figure");
  app.add_option("--only", g_only, "measure only the figures whose names contain this (iot, one_kilobyte, count, ...)");
  app.add_option("--kilobyte-documents", kilobyte_documents, "1 KB documents loaded for the per-document figure");
  CLI11_PARSE(app, argc, argv);

  Json result = {{"target", "query-cost"}, {"workload", "query-cost"}};
  if (Wanted("iot")) result["iot"] = IotLesson(readings, seconds);
  Json sized = Json::array();
  for (size_t start = 0; start < sizes.size();) {
    size_t comma = sizes.find(',', start);
    if (comma == std::string::npos) comma = sizes.size();
    sized.push_back(Sized(std::stoi(sizes.substr(start, comma - start)), seconds));
    start = comma + 1;
  }
  result["sized"] = sized;
  if (Wanted("one_kilobyte")) result["one_kilobyte"] = OneKilobyte(kilobyte_documents, seconds);
  std::cout << result.dump() << std::endl;
  return 0;
}
