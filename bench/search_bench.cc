// bench_search: vector and full-text search in process (an engine::Account on an in-memory store,
// no HTTP), each figure beside its floor measured in the same run:
//   - vector search, for each of --sizes documents (10k, 100k) with --dimensions (256) float32
//     embeddings in one physical partition: `SELECT TOP 10 … ORDER BY VectorDistance(c.embedding,
//     @q)` served by the vector index, with and without a filter on a tenth of the documents
//     (`c.category = @c`), and the same query on the same documents without a vector index (every
//     document scored); the floor is the same scoring over the packed vectors in one array (the
//     kernel the index uses, query/functions/vector_kernel.h) with a top-10 heap: how close the
//     query gets to the compute and memory-bandwidth limit. Every answer is checked against the
//     floor's top 10;
//   - full-text search over --text-documents (100k) short documents: µs per create with and
//     without a full-text index (the insert cost), a COUNT of `FullTextContains` of a common word,
//     checked against a count made here, and `SELECT TOP 10 … ORDER BY RANK FullTextScore(…)` of
//     two rare words, as one query and as the SDKs run it (the hybrid plan's statistics query,
//     then its component query), each with and without the index.
// Prints one JSON object on stdout and a human line per figure on stderr; exits 1 when a step
// fails or an answer is wrong.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "common/json.h"
#include "engine/account.h"
#include "query/functions/vector_kernel.h"
#include "storage/store.h"

namespace {

using cosmos::Json;
using Clock = std::chrono::steady_clock;
namespace engine = cosmos::engine;

[[noreturn]] void Fail(const std::string& what, const std::string& why) {
  std::cerr << "bench_search: " << what << " failed: " << why << "\n";
  std::exit(1);
}

template <typename T>
T Must(cosmos::Result<T> result, const std::string& what) {
  if (!result.ok()) Fail(what, result.status().message());
  return std::move(*result);
}

// Median µs of `step` over about `seconds` (at least `runs` runs).
double MedianMicroseconds(double seconds, const std::function<void(int)>& step, size_t runs = 5) {
  std::vector<double> times;
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  for (int i = 0; times.size() < runs || Clock::now() < until; ++i) {
    auto started = Clock::now();
    step(i);
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - started).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string Body(const std::string& query, const Json& parameters) {
  return Json{{"query", query}, {"parameters", parameters}}.dump();
}

const engine::ResourceName kDatabase{"db", false};

engine::ContainerAddress Address(const std::string& container) {
  engine::ContainerAddress address;
  address.database = kDatabase;
  address.container = engine::ResourceName{container, false};
  return address;
}

std::unique_ptr<engine::Account> NewAccount() {
  auto store = Must(cosmos::storage::Store::Open({}), "opening an in-memory store");
  auto account = std::make_unique<engine::Account>(std::move(store));
  Must(account->CreateDatabase(R"({"id":"db"})"), "creating the database");
  return account;
}

// The rows of a query's pages, with the RU and the access path of the first.
struct QueryRun {
  std::vector<Json> rows;
  double charge = 0;
  std::string access_path;
};

QueryRun RunQuery(engine::Account& account, engine::QueryRequest request) {
  QueryRun run;
  for (;;) {
    auto page = Must(account.QueryItems(request), std::string(request.body));
    Json body = Json::parse(page.body);
    for (Json& row : body["Documents"]) run.rows.push_back(std::move(row));
    run.charge += page.request_charge;
    if (run.access_path.empty()) run.access_path = page.fan_out.access_path;
    if (!page.continuation) return run;
    request.continuation = page.continuation;
  }
}

// --- Vector search --------------------------------------------------------------------------------

constexpr int kCategories = 10;
bool g_skip_scan = false;  // --skip-scan: no figure without the vector index

// Deterministic embeddings of unit-ish length: document n's comes from its own generator.
std::vector<float> EmbeddingOf(int n, int dimensions) {
  std::mt19937 random(static_cast<unsigned>(n) * 2654435761u + 1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(dimensions));
  for (float& x : v) x = normal(random);
  return v;
}

// The ids of the 10 documents (of those `keep` passes) most similar by cosine to `query`, most
// similar first, scored with the index's kernel over one packed array: the floor.
std::vector<int> FloorTopTen(const std::vector<float>& packed, int documents, int dimensions,
                             const std::vector<float>& query, const std::function<bool(int)>& keep) {
  using Scored = std::pair<double, int>;  // score, document; the heap keeps the 10 best
  auto worse = [](const Scored& a, const Scored& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  std::priority_queue<Scored, std::vector<Scored>, decltype(worse)> best(worse);
  for (int n = 0; n < documents; ++n) {
    if (!keep(n)) continue;
    auto score = cosmos::query::PackedVectorScore(&packed[static_cast<size_t>(n) * static_cast<size_t>(dimensions)],
                                                  query.data(), static_cast<size_t>(dimensions),
                                                  cosmos::query::VectorMetric::kCosine);
    if (!score) continue;
    best.emplace(*score, n);
    if (best.size() > 10) best.pop();
  }
  std::vector<int> ids;
  for (; !best.empty(); best.pop()) ids.push_back(best.top().second);
  std::reverse(ids.begin(), ids.end());
  return ids;
}

Json VectorSearch(int documents, int dimensions, double seconds) {
  std::unique_ptr<engine::Account> owner = NewAccount();
  engine::Account& account = *owner;
  const Json embedding_policy = {{"vectorEmbeddings", {{{"path", "/embedding"}, {"dataType", "float32"},
                                                        {"dimensions", dimensions}, {"distanceFunction", "cosine"}}}}};
  for (bool indexed : {true, false}) {
    Json indexing = {{"excludedPaths", {{{"path", "/embedding/*"}}}}};
    if (indexed) indexing["vectorIndexes"] = {{{"path", "/embedding"}, {"type", "quantizedFlat"}}};
    Json definition = {{"id", indexed ? "indexed" : "scanned"},
                       {"partitionKey", {{"paths", {"/pk"}}, {"kind", "Hash"}, {"version", 2}}},
                       {"vectorEmbeddingPolicy", embedding_policy},
                       {"indexingPolicy", indexing}};
    Must(account.CreateContainer(kDatabase, definition.dump()), "creating a container");
  }
  std::vector<float> packed;
  packed.reserve(static_cast<size_t>(documents) * static_cast<size_t>(dimensions));
  auto seeding_started = Clock::now();
  for (int n = 0; n < documents; ++n) {
    std::vector<float> embedding = EmbeddingOf(n, dimensions);
    packed.insert(packed.end(), embedding.begin(), embedding.end());
    std::string pk = "p" + std::to_string(n % 100);
    Json document = {{"id", "v" + std::to_string(n)}, {"pk", pk}, {"category", "c" + std::to_string(n % kCategories)},
                     {"embedding", embedding}};
    const std::string text = document.dump();
    for (const char* container : {"indexed", "scanned"}) {
      Must(account.CreateItem(engine::ItemWrite{Address(container), Json::array({pk}).dump(), text, {}}),
           "seeding");
    }
  }
  const double seeding_s = std::chrono::duration<double>(Clock::now() - seeding_started).count();

  std::vector<std::vector<float>> queries;
  for (int i = 0; i < 16; ++i) queries.push_back(EmbeddingOf(1000000 + i, dimensions));
  Json figure = {{"documents", documents}, {"dimensions", dimensions}, {"seeding_s", seeding_s}};
  auto measure = [&](const std::string& name, const char* container, bool filtered, double time) {
    std::string text = "SELECT TOP 10 c.id FROM c" + std::string(filtered ? " WHERE c.category = @c" : "") +
                       " ORDER BY VectorDistance(c.embedding, @q)";
    // The request bodies, written before the clock: the query vector's 256 numbers as text.
    std::vector<std::string> bodies;
    for (size_t i = 0; i < queries.size(); ++i) {
      bodies.push_back(Body(text, Json::array({{{"name", "@q"}, {"value", queries[i]}},
                                               {{"name", "@c"}, {"value", "c" + std::to_string(i % kCategories)}}})));
    }
    auto ask = [&](int i) {
      engine::QueryRequest request;
      request.container = Address(container);
      request.body = bodies[static_cast<size_t>(i) % bodies.size()];
      request.enable_cross_partition = true;
      return RunQuery(account, request);
    };
    // Checked against the floor's answer first, then timed alone.
    for (int i = 0; i < 3; ++i) {
      QueryRun run = ask(i);
      std::vector<int> expected = FloorTopTen(packed, documents, dimensions, queries[static_cast<size_t>(i) % queries.size()],
                                              [&](int n) { return !filtered || n % kCategories == i % 16 % kCategories; });
      std::vector<int> got;
      for (const Json& row : run.rows) got.push_back(std::stoi(row["id"].get<std::string>().substr(1)));
      if (got != expected) Fail(name, "the top 10 differs from the floor's");
      figure[name + "_ru"] = run.charge;
      figure[name + "_access_path"] = run.access_path;
    }
    return MedianMicroseconds(time, [&](int i) { ask(i); }, /*runs=*/3);
  };
  // The floor: the kernel over the packed array and a heap, nothing else.
  const double floor_us = MedianMicroseconds(seconds, [&](int i) {
    FloorTopTen(packed, documents, dimensions, queries[static_cast<size_t>(i) % queries.size()], [](int) { return true; });
  });
  figure["floor_us"] = floor_us;
  const double indexed_us = measure("indexed", "indexed", false, seconds);
  const double filtered_us = measure("indexed_filtered", "indexed", true, seconds);
  const double scanned_us = g_skip_scan ? 0 : measure("scanned", "scanned", false, seconds / 4);
  figure["indexed_us"] = indexed_us;
  figure["indexed_filtered_us"] = filtered_us;
  figure["scanned_us"] = scanned_us;
  figure["indexed_to_floor"] = indexed_us / floor_us;
  figure["indexed_filtered_to_floor"] = filtered_us / floor_us;
  figure["queries_per_s"] = 1e6 / indexed_us;
  std::cerr << "vector search, " << documents << " x " << dimensions << ": index " << indexed_us << " us ("
            << indexed_us / floor_us << "x the floor's " << floor_us << " us, " << figure["indexed_ru"].get<double>()
            << " RU, " << figure["indexed_access_path"].get<std::string>() << "), filtered " << filtered_us
            << " us, no index " << scanned_us << " us (" << figure.value("scanned_ru", 0.0) << " RU)\n";
  return figure;
}

// --- Full-text search -----------------------------------------------------------------------------

constexpr const char* kWords[] = {"mountain", "bicycle", "river",  "forest", "city",   "train",  "coffee",
                                  "garden",   "storm",   "bridge", "market", "harbor", "valley", "lantern",
                                  "meadow",   "castle",  "desert", "island", "canyon", "glacier"};

// A short text of 8 to 15 words, some of them rare (a word's chance falls with its position).
std::string TextOf(int n) {
  std::mt19937 random(static_cast<unsigned>(n) * 40503u + 7);
  const int words = 8 + static_cast<int>(random() % 8);
  std::string text;
  for (int i = 0; i < words; ++i) {
    const size_t pick = std::min<size_t>(std::size(kWords) - 1, static_cast<size_t>(random() % 4 + random() % 4 * random() % 6));
    if (!text.empty()) text += i % 5 == 0 ? " and the " : " ";
    text += kWords[pick];
  }
  return text;
}

Json FullTextSearch(int documents, double seconds) {
  std::unique_ptr<engine::Account> owner = NewAccount();
  engine::Account& account = *owner;
  const Json full_text_policy = {{"defaultLanguage", "en-US"}, {"fullTextPaths", {{{"path", "/text"}, {"language", "en-US"}}}}};
  for (bool indexed : {true, false}) {
    Json indexing = Json::object();
    if (indexed) indexing["fullTextIndexes"] = {{{"path", "/text"}}};
    Json definition = {{"id", indexed ? "indexed" : "plain"},
                       {"partitionKey", {{"paths", {"/pk"}}, {"kind", "Hash"}, {"version", 2}}},
                       {"fullTextPolicy", full_text_policy},
                       {"indexingPolicy", indexing}};
    Must(account.CreateContainer(kDatabase, definition.dump()), "creating a container");
  }
  Json figure = {{"documents", documents}};
  int64_t holding_river = 0;
  for (const char* container : {"plain", "indexed"}) {
    auto started = Clock::now();
    for (int n = 0; n < documents; ++n) {
      std::string pk = "p" + std::to_string(n % 100);
      std::string text = TextOf(n);
      if (std::string(container) == "plain" && text.find("river") != std::string::npos) ++holding_river;
      Json document = {{"id", "t" + std::to_string(n)}, {"pk", pk}, {"text", text}};
      Must(account.CreateItem(engine::ItemWrite{Address(container), Json::array({pk}).dump(), document.dump(), {}}),
           "seeding");
    }
    figure[std::string(container) + "_create_us"] =
        std::chrono::duration<double, std::micro>(Clock::now() - started).count() / documents;
  }
  auto query = [&](const std::string& name, const char* container, const std::string& text) {
    QueryRun last;
    double us = MedianMicroseconds(seconds, [&](int) {
      engine::QueryRequest request;
      request.container = Address(container);
      const std::string body = Body(text, Json::array());  // the request holds a view of it
      request.body = body;
      request.enable_cross_partition = true;
      last = RunQuery(account, request);
    }, /*runs=*/3);
    figure[name + "_us"] = us;
    figure[name + "_ru"] = last.charge;
    figure[name + "_access_path"] = last.access_path;
    return last;
  };
  std::vector<Json> ranked;  // the index's answer, which the documents' must equal
  for (const char* container : {"indexed", "plain"}) {
    const std::string prefix = container;
    QueryRun count = query(prefix + "_count", container, R"(SELECT VALUE COUNT(1) FROM c WHERE FullTextContains(c.text, "river"))");
    if (count.rows.size() != 1 || count.rows[0] != holding_river) {
      Fail("FullTextContains COUNT", "expected " + std::to_string(holding_river) + ", got " + Json(count.rows).dump());
    }
    QueryRun top = query(prefix + "_rank", container,
                         R"(SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, "canyon", "glacier"))");
    if (top.rows.size() != 10) Fail("ORDER BY RANK", "expected 10 rows");
    if (prefix == "plain" && top.rows != ranked) Fail("ORDER BY RANK", "the index and the documents rank apart");
    ranked = top.rows;
    // The same ORDER BY RANK as the SDKs run it: the hybrid plan's statistics query, then its
    // component query with the statistics in its placeholders (one physical partition: one each).
    engine::QueryRequest plan_request;
    plan_request.container = Address(container);
    const std::string rank_body =
        Body(R"(SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, "canyon", "glacier"))", Json::array());
    plan_request.body = rank_body;
    const Json plan = Json::parse(Must(account.QueryPlan(plan_request, std::nullopt), "the plan").body);
    const Json& hybrid = plan["hybridSearchQueryInfo"];
    QueryRun statistics = query(prefix + "_rank_statistics", container, hybrid["globalStatisticsQuery"].get<std::string>());
    std::string component = hybrid["componentQueryInfos"][0]["rewrittenQuery"].get<std::string>();
    const Json& entry = statistics.rows.at(0)["fullTextStatistics"].at(0);
    std::string hits = entry["hitCounts"].dump();
    for (const auto& [placeholder, value] : std::vector<std::pair<std::string, std::string>>{
             {"{documentdb-formattableorderbyquery-filter}", "true"},
             {"{documentdb-formattablehybridsearchquery-totaldocumentcount}", statistics.rows[0]["documentCount"].dump()},
             {"{documentdb-formattablehybridsearchquery-totalwordcount-0}", entry["totalWordCount"].dump()},
             {"{documentdb-formattablehybridsearchquery-hitcountsarray-0}", hits}}) {
      for (size_t at = component.find(placeholder); at != std::string::npos; at = component.find(placeholder)) {
        component.replace(at, placeholder.size(), value);
      }
    }
    QueryRun components = query(prefix + "_rank_component", container, component);
    std::vector<Json> ids;
    for (const Json& row : components.rows) {
      ids.push_back(row["payload"]["payload"]["id"]);
      if (ids.size() == 10) break;
    }
    std::vector<Json> expected;
    for (const Json& row : ranked) expected.push_back(row["id"]);
    if (ids != expected) Fail("ORDER BY RANK as the SDKs run it", "another order than the query's own");
  }
  figure["index_insert_cost"] = figure["indexed_create_us"].get<double>() / figure["plain_create_us"].get<double>();
  std::cerr << "full-text search, " << documents << " documents: create " << figure["indexed_create_us"].get<double>()
            << " us with the index, " << figure["plain_create_us"].get<double>() << " us without; COUNT "
            << figure["indexed_count_us"].get<double>() << " us (" << figure["indexed_count_access_path"].get<std::string>()
            << "), without the index " << figure["plain_count_us"].get<double>() << " us; ORDER BY RANK "
            << figure["indexed_rank_us"].get<double>() << " us, without the index "
            << figure["plain_rank_us"].get<double>() << " us; as the SDKs run it "
            << figure["indexed_rank_statistics_us"].get<double>() + figure["indexed_rank_component_us"].get<double>()
            << " us, without the index "
            << figure["plain_rank_statistics_us"].get<double>() + figure["plain_rank_component_us"].get<double>()
            << " us\n";
  return figure;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_search: vector and full-text search in process, beside their floors"};
  std::string sizes = "10000,100000";
  int dimensions = 256;
  int text_documents = 100000;
  double seconds = 1.0;
  app.add_option("--sizes", sizes, "comma-separated document counts for vector search");
  app.add_option("--dimensions", dimensions, "embedding dimensions");
  app.add_option("--text-documents", text_documents, "documents for full-text search");
  app.add_option("--seconds", seconds, "time per figure");
  app.add_flag("--skip-scan", g_skip_scan, "leave out vector search without the index (slow at 100k)");
  CLI11_PARSE(app, argc, argv);

  Json result = {{"target", "search"}, {"workload", "search"}};
  Json vectors = Json::array();
  for (size_t start = 0; start < sizes.size();) {
    size_t comma = sizes.find(',', start);
    if (comma == std::string::npos) comma = sizes.size();
    vectors.push_back(VectorSearch(std::stoi(sizes.substr(start, comma - start)), dimensions, seconds));
    start = comma + 1;
  }
  if (vectors.size() >= 2) {
    result["scaling"] = vectors.back()["indexed_us"].get<double>() / vectors.front()["indexed_us"].get<double>();
  }
  result["vector"] = vectors;
  if (text_documents > 0) result["full_text"] = FullTextSearch(text_documents, seconds);
  std::cout << result.dump() << std::endl;
  return 0;
}
