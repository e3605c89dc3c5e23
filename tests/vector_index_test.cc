// The vector index's order (engine/queries/search_sources.h) against scoring every document: the
// same rows in the same order for each distance function, with near ties, exact ties, zero
// vectors, vectors of very different lengths and a dimension count that fills no lane evenly,
// with and without a filter, to the end of the container and under TOP. (Without the error bound
// on the codes' estimates, the crowds below come out in another order.)
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/json.h"
#include "engine/account.h"
#include "storage/store.h"
#include "tests/test_support.h"

using cosmos::Json;
using cosmos::engine::Account;
using cosmos::engine::ContainerAddress;
using cosmos::engine::ItemWrite;
using cosmos::engine::QueryRequest;
using cosmos::engine::ResourceName;

namespace {

constexpr int kDimensions = 37;

// prefix + n, built in two steps (g++ 12 misreports "literal" + std::string under -Wrestrict).
std::string Named(const char* prefix, int n) {
  std::string name(prefix);
  name += std::to_string(n);
  return name;
}

// The rows of every page, and how the first page read (x-cosmolite-access-path).
std::vector<Json> Rows(Account& account, const std::string& container, const std::string& query, const Json& vector,
                       std::string* access_path = nullptr) {
  QueryRequest request;
  request.container = ContainerAddress{ResourceName{"db"}, ResourceName{container}};
  Json body_json = Json::object();
  body_json["query"] = query;
  body_json["parameters"] = Json::array({Json{{"name", "@q"}, {"value", vector}}});
  const std::string body = body_json.dump();
  request.body = body;
  request.enable_cross_partition = true;
  std::vector<Json> rows;
  for (;;) {
    auto page = account.QueryItems(request);
    REQUIRE_OK(page);
    if (access_path != nullptr && access_path->empty()) *access_path = page->fan_out.access_path;
    Json parsed = Json::parse(page->body);
    for (Json& row : parsed["Documents"]) rows.push_back(std::move(row));
    if (!page->continuation) return rows;
    request.continuation = page->continuation;
  }
}

}  // namespace

TEST_CASE("the vector index orders as scoring every document does", "[vector_index]") {
  auto store = cosmos::storage::Store::Open({});
  REQUIRE_OK(store);
  Account account(std::move(store).value());
  REQUIRE_OK(account.CreateDatabase(R"({"id":"db"})"));
  const Json policy = {{"vectorEmbeddings", {{{"path", "/v"}, {"dataType", "float32"}, {"dimensions", kDimensions},
                                              {"distanceFunction", "cosine"}}}}};
  for (bool indexed : {true, false}) {
    Json indexing = {{"excludedPaths", {{{"path", "/v/*"}}}}};
    if (indexed) indexing["vectorIndexes"] = {{{"path", "/v"}, {"type", "diskANN"}}};
    Json definition = {{"id", indexed ? "indexed" : "scanned"}, {"partitionKey", {{"paths", {"/pk"}}}},
                       {"vectorEmbeddingPolicy", policy}, {"indexingPolicy", indexing}};
    REQUIRE_OK(account.CreateContainer(ResourceName{"db"}, definition.dump()));
  }
  std::mt19937 random(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<float>> vectors;
  for (int n = 0; n < 1500; ++n) {
    std::vector<float> v(kDimensions);
    for (float& x : v) x = normal(random);
    if (n % 50 == 7) v = vectors[static_cast<size_t>(n - 7)];                       // an exact tie
    if (n % 50 == 8) for (float& x : v) x = vectors[static_cast<size_t>(n - 8)][0] * 1e-3f + x * 1e-7f;  // tiny
    if (n % 50 == 9) v = vectors[static_cast<size_t>(n - 9)], v[3] += 1e-6f;       // a near tie
    if (n % 50 == 10) for (float& x : v) x *= 1000;                                // long
    if (n % 100 == 11) std::fill(v.begin(), v.end(), 0.0f);                        // no direction
    // Crowds at one angle around two probes, each in its own direction, their cosines closer to
    // each other than the index's codes can tell apart: their order comes from exact scores alone.
    if (n > 10 && n % 10 == 4) {
      const std::vector<float>& probe = vectors[static_cast<size_t>(n % 20 == 4 ? 3 : 7)];
      double probe_norm = 0, dot = 0, side_norm = 0;
      for (float x : probe) probe_norm += double(x) * x;
      for (size_t i = 0; i < v.size(); ++i) dot += double(v[i]) * probe[i];
      for (size_t i = 0; i < v.size(); ++i) v[i] -= static_cast<float>(dot / probe_norm * probe[i]);  // orthogonal
      for (float x : v) side_norm += double(x) * x;
      const double angle = 0.45 + 1e-5 * normal(random);
      for (size_t i = 0; i < v.size(); ++i) {
        v[i] = static_cast<float>(std::cos(angle) * probe[i] / std::sqrt(probe_norm) + std::sin(angle) * v[i] / std::sqrt(side_norm));
      }
    }
    vectors.push_back(v);
    Json document = {{"id", Named("d", n)}, {"pk", Named("p", n % 7)}, {"odd", n % 2 == 1},
                     {"v", v}};
    for (const char* container : {"indexed", "scanned"}) {
      REQUIRE_OK(account.CreateItem(ItemWrite{ContainerAddress{ResourceName{"db"}, ResourceName{container}},
                                              Json::array({document["pk"]}).dump(), document.dump(), {}}));
    }
  }
  for (const char* metric : {"cosine", "dotproduct", "euclidean"}) {
    for (const char* shape : {"SELECT c.id, VectorDistance(c.v, @q, false, {'distanceFunction': '%'}) AS s FROM c ORDER BY VectorDistance(c.v, @q, false, {'distanceFunction': '%'})",
                              "SELECT TOP 25 c.id FROM c WHERE c.odd ORDER BY VectorDistance(c.v, @q, false, {'distanceFunction': '%'})"}) {
      std::string query = shape;
      for (size_t at = query.find('%'); at != std::string::npos; at = query.find('%')) query.replace(at, 1, metric);
      for (int probe : {3, 7, 60}) {
        const Json vector = vectors[static_cast<size_t>(probe)];
        INFO(metric << ": " << query << " (probe " << probe << ")");
        std::string access_path;
        std::vector<Json> indexed = Rows(account, "indexed", query, vector, &access_path);
        CHECK(access_path == "vector index on /v");
        std::vector<Json> scanned = Rows(account, "scanned", query, vector);
        CHECK(!scanned.empty());
        CHECK(indexed == scanned);
      }
    }
  }
}
