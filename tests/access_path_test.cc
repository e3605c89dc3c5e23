#include "engine/planning/access_path.h"

#include <map>
#include <memory>
#include <string>

#include "engine/indexing/indexing_policy.h"
#include "query/query_cache.h"

#include "tests/test_support.h"

namespace cosmos::engine {
namespace {

// Counts made up for each case, and a record of what the planner asked.
class FakeStatistics : public IndexStatistics {
 public:
  int64_t container_documents = 1000;
  std::map<std::string, int64_t> entries_at;        // path -> entries (absent: as many as documents)
  std::map<std::string, int64_t> partition_sizes;   // storage key -> documents
  int64_t entries_per_range = 0;                    // EntriesInRange answers min(this, limit)
  int questions = 0;

  Result<int64_t> ContainerDocuments() override {
    ++questions;
    return container_documents;
  }
  Result<int64_t> EntriesAt(const std::string& path) override {
    ++questions;
    auto found = entries_at.find(path);
    return found == entries_at.end() ? container_documents : found->second;
  }
  Result<int64_t> PartitionDocuments(const std::string& partition_key) override {
    ++questions;
    return partition_sizes.at(partition_key);
  }
  Result<int64_t> EntriesInRange(const std::string&, const IndexValueRange&, int64_t limit) override {
    ++questions;
    return std::min(entries_per_range, limit);
  }
};

IndexingPolicy PolicyOf(const char* policy_text) {
  Json policy = Json::parse(policy_text);
  auto normalized = NormalizeIndexingPolicy(&policy);
  REQUIRE(normalized.ok());
  return IndexingPolicy::FromNormalized(*normalized);
}

const std::vector<storage::DocumentScope> kWholeContainer = {storage::DocumentScope::All()};
const std::vector<storage::DocumentScope> kOnePartition = {storage::DocumentScope::Partition("pk-a")};

// Plans `text` (with @p = 5) over `scopes`.
AccessPath Plan(const IndexingPolicy& policy, const std::string& text, FakeStatistics& statistics,
                const std::vector<storage::DocumentScope>& scopes = kWholeContainer, bool index_ready = true) {
  static query::PreparedQueryCache cache;
  auto prepared = cache.Prepare(text);
  REQUIRE_OK(prepared);
  Json parameters = Json::array({{{"name", "@p"}, {"value", 5}}});
  auto access = ChooseAccessPath(policy, index_ready, **prepared, parameters, scopes, statistics);
  REQUIRE_OK(access);
  return *access;
}

}  // namespace

TEST_CASE("access path: an equality on an indexed path is an index lookup", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  AccessPath access = Plan(policy, "SELECT * FROM c WHERE c.n > 1 AND c.name = 'x'", statistics);
  REQUIRE(access.lookup);
  CHECK(access.lookup->path == "/name");
  CHECK(access.lookup->equality);
  CHECK_FALSE(access.ordered_scan);
  CHECK(statistics.questions == 0);  // no ORDER BY, no single partition: nothing to count
}

TEST_CASE("access path: no usable predicate, an excluded path, or an index being built scans", "[planning]") {
  IndexingPolicy policy = PolicyOf(R"({"excludedPaths":[{"path":"/secret/?"}]})");
  FakeStatistics statistics;
  CHECK_FALSE(Plan(policy, "SELECT * FROM c", statistics).lookup);
  CHECK_FALSE(Plan(policy, "SELECT * FROM c WHERE c.secret = 1", statistics).lookup);
  CHECK_FALSE(Plan(policy, "SELECT * FROM c WHERE c.n = 1 OR c.m = 2", statistics).lookup);
  AccessPath building = Plan(policy, "SELECT * FROM c WHERE c.n = 1 ORDER BY c.n", statistics, kWholeContainer,
                             /*index_ready=*/false);
  CHECK_FALSE(building.lookup);
  CHECK_FALSE(building.ordered_scan);
  CHECK(statistics.questions == 0);
}

TEST_CASE("access path: ORDER BY reads the range index in order when every document has the path",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  AccessPath ascending = Plan(policy, "SELECT TOP 10 * FROM c ORDER BY c.ts", statistics);
  REQUIRE(ascending.ordered_scan);
  CHECK(ascending.ordered_scan->path == "/ts");
  CHECK_FALSE(ascending.descending);
  CHECK_FALSE(ascending.lookup);
  AccessPath descending = Plan(policy, "SELECT * FROM c ORDER BY c.ts DESC", statistics);
  REQUIRE(descending.ordered_scan);
  CHECK(descending.descending);

  // Documents without a scalar at the path would be missed by the index order: sort instead.
  statistics.entries_at["/ts"] = 999;
  CHECK_FALSE(Plan(policy, "SELECT * FROM c ORDER BY c.ts", statistics).ordered_scan);
}

TEST_CASE("access path: a range on the ORDER BY path keeps the ordered scan within it", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.entries_at["/n"] = 0;  // had it been asked, the scan would be refused
  AccessPath access = Plan(policy, "SELECT * FROM c WHERE c.n >= @p ORDER BY c.n", statistics);
  REQUIRE(access.ordered_scan);
  CHECK(access.ordered_scan->path == "/n");
  REQUIRE(access.ordered_scan->ranges.size() == 1);
  CHECK(access.ordered_scan->ranges[0].lower == *EncodeIndexValue(Json(5)));
  REQUIRE(access.lookup);  // later pages resume from a position through the lookup
  CHECK(access.lookup->path == "/n");
  CHECK(statistics.questions == 0);
}

TEST_CASE("access path: a selective equality elsewhere beats walking the ORDER BY index", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  AccessPath access = Plan(policy, "SELECT * FROM c WHERE c.device = 'd1' ORDER BY c.ts", statistics);
  CHECK_FALSE(access.ordered_scan);
  REQUIRE(access.lookup);
  CHECK(access.lookup->path == "/device");
}

TEST_CASE("access path: an unindexed ORDER BY path, grouping or DISTINCT is not read in index order",
          "[planning]") {
  FakeStatistics statistics;
  IndexingPolicy excluded = PolicyOf(R"({"excludedPaths":[{"path":"/ts/?"}]})");
  CHECK_FALSE(Plan(excluded, "SELECT * FROM c ORDER BY c.ts", statistics).ordered_scan);
  IndexingPolicy policy = PolicyOf("{}");
  CHECK_FALSE(Plan(policy, "SELECT DISTINCT c.ts FROM c ORDER BY c.ts", statistics).ordered_scan);
  CHECK_FALSE(Plan(policy, "SELECT c.k FROM c JOIN t IN c.tags ORDER BY c.k", statistics).ordered_scan);
}

TEST_CASE("access path: several ORDER BY items read their composite index", "[planning]") {
  IndexingPolicy policy =
      PolicyOf(R"({"compositeIndexes":[[{"path":"/cat","order":"ascending"},{"path":"/ts","order":"descending"}]]})");
  FakeStatistics statistics;
  auto composite = policy.FindCompositeIndex({{{"cat"}, false}, {{"ts"}, true}});
  REQUIRE(composite);
  AccessPath forwards = Plan(policy, "SELECT * FROM c ORDER BY c.cat, c.ts DESC", statistics);
  REQUIRE(forwards.ordered_scan);
  CHECK(forwards.ordered_scan->path == composite->entry_path);
  CHECK_FALSE(forwards.descending);
  AccessPath backwards = Plan(policy, "SELECT * FROM c ORDER BY c.cat DESC, c.ts", statistics);
  REQUIRE(backwards.ordered_scan);
  CHECK(backwards.descending);
}

TEST_CASE("access path: within one logical partition a wide lookup gives way to the partition scan",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.partition_sizes["pk-a"] = 100;
  // The range names 40 of the partition's 100 documents: the lookup reads less.
  statistics.entries_per_range = 40;
  AccessPath narrow = Plan(policy, "SELECT * FROM c WHERE c.n >= @p", statistics, kOnePartition);
  REQUIRE(narrow.lookup);
  CHECK(narrow.lookup->path == "/n");
  // It names every document of the partition: scanning the partition in key order is cheaper.
  statistics.entries_per_range = 1000;
  AccessPath wide = Plan(policy, "SELECT * FROM c WHERE c.n >= @p", statistics, kOnePartition);
  CHECK_FALSE(wide.lookup);
  CHECK_FALSE(wide.ordered_scan);
}

}  // namespace cosmos::engine
