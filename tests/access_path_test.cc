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
  int64_t entries_per_range = 0;                    // EntriesInRange answers min(this, limit)...
  std::map<std::string, int64_t> entries_in_range_at;  // ... or min(this at its path, limit)
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
  Result<int64_t> DocumentsIn(const storage::DocumentScope&) override {
    ++questions;
    return container_documents;
  }
  Result<int64_t> EntriesInRange(const std::string& path, const IndexValueRange&, const std::optional<std::string>&,
                                 int64_t limit) override {
    ++questions;
    auto found = entries_in_range_at.find(path);
    return std::min(found == entries_in_range_at.end() ? entries_per_range : found->second, limit);
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
                const std::vector<storage::DocumentScope>& scopes = kWholeContainer, bool index_ready = true,
                bool documents_expire = false) {
  static query::PreparedQueryCache cache;
  auto prepared = cache.Prepare(text);
  REQUIRE_OK(prepared);
  Json parameters = Json::array({{{"name", "@p"}, {"value", 5}}});
  auto access = ChooseAccessPath(policy, index_ready, **prepared, parameters, scopes, {"/pk"}, documents_expire,
                                 statistics);
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
  CHECK_FALSE(access.scan_first);
  // How many entries each predicate names (two), then the chosen lookup, for whether to scan first
  // (one), each counting no further than it matters.
  CHECK(statistics.questions == 3);
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

TEST_CASE("access path: a composite index serves equalities on its leading paths and a range on the next", "[planning]") {
  IndexingPolicy policy = PolicyOf(
      R"({"compositeIndexes":[[{"path":"/tenant","order":"ascending"},{"path":"/ts","order":"descending"}],
                               [{"path":"/tenant","order":"ascending"},{"path":"/kind","order":"ascending"}]]})");
  const std::string tenant_ts = "composite:/tenant asc,/ts desc";
  FakeStatistics statistics;
  statistics.container_documents = 100000;
  statistics.entries_per_range = 5000;                 // a tenant's, a kind's, the range's
  statistics.entries_in_range_at[tenant_ts] = 40;      // both
  AccessPath access = Plan(policy, "SELECT * FROM c WHERE c.tenant = 't1' AND c.ts >= @p", statistics);
  REQUIRE(access.lookup);
  CHECK(access.lookup->path == tenant_ts);
  CHECK(access.lookup->complete);
  CHECK_FALSE(access.lookup->equality);
  // Neither path's own lookup is intersected with it: it holds both predicates already.
  CHECK(access.intersected.empty());
  CHECK_FALSE(access.scan_first);
  // The range of an inverted (descending) component runs from the tuple of its upper bound.
  REQUIRE(access.lookup->ranges.size() == 1);
  const IndexValueRange& range = access.lookup->ranges.front();
  CHECK(range.lower < range.upper);
  CHECK(range.upper == EncodeCompositeValue({{*EncodeIndexValue(Json("t1")), false}, {*EncodeIndexValue(Json(5)), true}}));
  CHECK(range.upper_inclusive);

  // IN on the leading path: a range per value; equalities on both paths: one tuple each.
  AccessPath in = Plan(policy, "SELECT * FROM c WHERE c.tenant IN ('t1', 't2') AND c.kind = 'x'", statistics);
  REQUIRE(in.lookup);
  CHECK(in.lookup->path == "composite:/tenant asc,/kind asc");
  CHECK(in.lookup->equality);
  CHECK(in.lookup->ranges.size() == 2);

  // A path without a predicate leaves the index to the paths' own lookups (a document without a
  // kind has no entry there, yet passes c.tenant = 't1').
  AccessPath leading_only = Plan(policy, "SELECT * FROM c WHERE c.tenant = 't1' AND c.n = 3", statistics);
  REQUIRE(leading_only.lookup);
  CHECK(leading_only.lookup->covers.empty());

  // Answered exactly: a count from the entries alone.
  statistics.entries_in_range_at["composite:/tenant asc,/kind asc"] = 40;
  CHECK(Plan(policy, "SELECT VALUE COUNT(1) FROM c WHERE c.tenant = 't1' AND c.kind = 'x'", statistics).index_only);
  CHECK_FALSE(Plan(policy, "SELECT VALUE COUNT(1) FROM c WHERE c.tenant = 't1' AND c.kind >= 'x'", statistics).index_only);
}

TEST_CASE("access path: an ORDER BY of a composite index keeps to the equality on its leading path", "[planning]") {
  IndexingPolicy policy = PolicyOf(
      R"({"compositeIndexes":[[{"path":"/tenant","order":"ascending"},{"path":"/ts","order":"ascending"}]]})");
  FakeStatistics statistics;
  AccessPath bounded = Plan(policy, "SELECT * FROM c WHERE c.tenant = 't1' ORDER BY c.tenant, c.ts", statistics);
  REQUIRE(bounded.ordered_scan);
  REQUIRE(bounded.ordered_scan->ranges.size() == 1);
  const std::string prefix = EncodeCompositeValue({{*EncodeIndexValue(Json("t1")), false}});
  CHECK(bounded.ordered_scan->ranges.front().lower == prefix);
  CHECK(bounded.ordered_scan->ranges.front().upper > prefix);
  // Some documents have no ts: the leading path's tuples would miss them, and the page sorts...
  statistics.entries_at["composite:/tenant asc,/ts asc"] = 999;
  CHECK_FALSE(Plan(policy, "SELECT * FROM c WHERE c.tenant = 't1' ORDER BY c.tenant, c.ts", statistics).ordered_scan);
  // ... unless a predicate on ts says every match has one.
  AccessPath complete =
      Plan(policy, "SELECT * FROM c WHERE c.tenant = 't1' AND c.ts > 10 ORDER BY c.tenant, c.ts", statistics);
  REQUIRE(complete.ordered_scan);
  CHECK(complete.ordered_scan->ranges.front().lower ==
        EncodeCompositeValue({{*EncodeIndexValue(Json("t1")), false}, {*EncodeIndexValue(Json(10)), false}}));
  CHECK_FALSE(complete.ordered_scan->ranges.front().lower_inclusive);
}

TEST_CASE("access path: a lookup that names many entries starts as a scan", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.container_documents = 200;  // in the one partition (DocumentsIn)
  // Inside a partition: the lookup serves while it reads less than 20 entries per document there.
  // (An equality: a range there may be walked instead, see below.)
  statistics.entries_per_range = kEntriesPerDocument * 200 - 1;
  AccessPath narrow = Plan(policy, "SELECT * FROM c WHERE c.n = @p", statistics, kOnePartition);
  REQUIRE(narrow.lookup);
  CHECK(narrow.lookup->path == "/n");
  CHECK_FALSE(narrow.scan_first);
  statistics.entries_per_range = kEntriesPerDocument * 200;
  AccessPath wide = Plan(policy, "SELECT * FROM c WHERE c.n = @p", statistics, kOnePartition);
  REQUIRE(wide.lookup);
  CHECK(wide.scan_first);
  CHECK_FALSE(wide.ordered_scan);
  // Across the container, a lookup is tried first while it is cheap.
  statistics.entries_per_range = kCheapLookupEntries - 1;
  CHECK_FALSE(Plan(policy, "SELECT * FROM c WHERE c.n >= @p", statistics).scan_first);
  statistics.entries_per_range = kCheapLookupEntries;
  CHECK(Plan(policy, "SELECT * FROM c WHERE c.n >= @p", statistics).scan_first);
}

TEST_CASE("access path: inside logical partitions the partition key never chooses the index", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  const char* text = "SELECT * FROM c WHERE c.pk = 'pk-a' AND c.ts >= @p";
  // Across the container the equality is the most selective predicate.
  AccessPath across = Plan(policy, text, statistics);
  REQUIRE(across.lookup);
  CHECK(across.lookup->path == "/pk");
  // Inside the partition it names every document read: the range serves instead.
  AccessPath inside = Plan(policy, text, statistics, kOnePartition);
  REQUIRE(inside.lookup);
  CHECK(inside.lookup->path == "/ts");
  const std::vector<storage::DocumentScope> two_partitions = {storage::DocumentScope::Partition("pk-a"),
                                                              storage::DocumentScope::Partition("pk-b")};
  AccessPath pinned = Plan(policy, "SELECT * FROM c WHERE c.pk IN ('pk-a', 'pk-b') AND c.ts >= @p", statistics,
                           two_partitions);
  REQUIRE(pinned.lookup);
  CHECK(pinned.lookup->path == "/ts");
  // With nothing else to serve, the partition is read in order.
  CHECK_FALSE(Plan(policy, "SELECT * FROM c WHERE c.pk = 'pk-a'", statistics, kOnePartition).lookup);
}

TEST_CASE("access path: inside a logical partition a range on the ORDER BY path is walked in index order",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  AccessPath access =
      Plan(policy, "SELECT TOP 10 * FROM c WHERE c.pk = 'pk-a' AND c.ts >= @p ORDER BY c.ts DESC", statistics,
           kOnePartition);
  REQUIRE(access.ordered_scan);
  CHECK(access.ordered_scan->path == "/ts");
  CHECK(access.descending);
}

TEST_CASE("access path: a count whose whole filter is exact lookups is answered from index entries",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.entries_per_range = 10;  // of 1,000 documents: every lookup is worth intersecting
  auto index_only = [&](const std::string& text, const std::vector<storage::DocumentScope>& scopes = kWholeContainer,
                        bool documents_expire = false) {
    return Plan(policy, text, statistics, scopes, true, documents_expire).index_only;
  };
  CHECK(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3'"));
  CHECK(index_only("SELECT COUNT(1) AS n FROM c WHERE c.tag IN ('a', 'b')"));
  CHECK(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.n >= @p AND c.n < 10"));
  CHECK(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.n = @p", kOnePartition));
  CHECK(index_only("SELECT VALUE 1 FROM c WHERE c.a.b = true"));
  // Several exact predicates: their entries are intersected...
  CHECK(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3' AND c.n > 1"));
  // ... while each costs less than loading the documents it rules out.
  statistics.entries_in_range_at = {{"/n", 900}};
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3' AND c.n > 1"));
  statistics.entries_in_range_at.clear();
  // The query reads the document beyond its filter (COUNT(c.tag) reads the values at /tag, which
  // its entries hold: see the next case).
  CHECK(index_only("SELECT VALUE COUNT(c.tag) FROM c WHERE c.tag = 't3'"));
  CHECK_FALSE(index_only("SELECT c.tag FROM c WHERE c.tag = 't3'"));
  // The filter is more than the lookups answer.
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3' AND STARTSWITH(c.name, 'a')"));
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3' AND IS_STRING(c.x)"));
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3' OR c.tag = 't4'"));
  // A partition key predicate is not checked against the partition read.
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'pk-a' AND c.n = @p", kOnePartition));
  // Entries that are not the whole value, or not in the query's order.
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.tag, 't')"));
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag >= 'a'"));
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = '" + std::string(200, 'x') + "'"));
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tags[0] = 'x'"));
  // Documents that may have expired must be looked at.
  CHECK_FALSE(index_only("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3'", kWholeContainer, /*documents_expire=*/true));
}

TEST_CASE("access path: a scan turns to the lookup only while the lookup reads less than the rest of the scan",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.container_documents = 200;  // DocumentsIn answers this for any scope
  query::PreparedQueryCache cache;
  auto prepared = cache.Prepare("SELECT * FROM c WHERE c.n > 1");
  REQUIRE_OK(prepared);
  auto lookup = ChooseIndexLookup(policy, query::FindIndexPredicates((*prepared)->root(), Json::array()));
  REQUIRE(lookup);
  // 136 documents left: the lookup pays below 20 entries each.
  statistics.entries_per_range = kEntriesPerDocument * 136 - 1;
  auto pays = [&](int64_t scanned) {
    auto answer = LookupPaysAfterScan({*lookup}, kOnePartition, scanned, statistics);
    REQUIRE_OK(answer);
    return answer.value();
  };
  CHECK(pays(kScanBudget));
  statistics.entries_per_range = kEntriesPerDocument * 136;
  CHECK_FALSE(pays(kScanBudget));
  // Nothing left to scan: nothing to turn to.
  CHECK_FALSE(pays(200));
  // However large the rest, a lookup past kPartitionLookupEntries entries does not pay.
  statistics.container_documents = 1000000;
  statistics.entries_per_range = kPartitionLookupEntries;
  CHECK_FALSE(pays(kScanBudget));
}

TEST_CASE("access path: a common equality gives way to walking a bounded ORDER BY path, a rare one does not",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  const char* text = "SELECT TOP 10 * FROM c WHERE c.tag = 't3' AND c.n >= @p ORDER BY c.n";
  statistics.entries_per_range = kCheapLookupEntries;  // the tag names many documents
  AccessPath common = Plan(policy, text, statistics);
  REQUIRE(common.ordered_scan);
  CHECK(common.ordered_scan->path == "/n");
  REQUIRE(common.ordered_scan->ranges.size() == 1);
  CHECK(common.ordered_scan->ranges[0].lower == *EncodeIndexValue(Json(5)));
  statistics.entries_per_range = 10;  // a few: sort them
  AccessPath rare = Plan(policy, text, statistics);
  CHECK_FALSE(rare.ordered_scan);
  REQUIRE(rare.lookup);
  CHECK(rare.lookup->path == "/tag");
  // A sorted page needs every match: it never starts as a scan.
  statistics.entries_per_range = 1000000;
  AccessPath sorted = Plan(policy, "SELECT * FROM c WHERE c.tag = 't3' ORDER BY c.other", statistics);
  CHECK_FALSE(sorted.scan_first);
  CHECK_FALSE(Plan(policy, "SELECT VALUE COUNT(1) FROM c WHERE c.tag = 't3' AND c.n > 1", statistics).scan_first);
}

TEST_CASE("access path: of several predicates the one with the fewest entries serves, whatever its kind",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.container_documents = 10000;
  const char* text = "SELECT * FROM c WHERE c.tag = 't3' AND c.n >= @p";
  statistics.entries_in_range_at = {{"/tag", 5000}, {"/n", 40}};
  AccessPath range = Plan(policy, text, statistics);
  REQUIRE(range.lookup);
  CHECK(range.lookup->path == "/n");
  CHECK(range.intersected.empty());  // 40 documents: reading 5,000 entries to rule out half costs more
  statistics.entries_in_range_at = {{"/tag", 3}, {"/n", 40}};
  AccessPath equality = Plan(policy, text, statistics);
  REQUIRE(equality.lookup);
  CHECK(equality.lookup->path == "/tag");
}

TEST_CASE("access path: an equality and a range are intersected when the entries cost less than the documents "
          "they rule out", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.container_documents = 10000;
  // The shape of the issue: a tag names 1,429 documents, a range 1,000, both 143.
  const char* text = "SELECT * FROM c WHERE c.tag = 't3' AND c.n >= @p AND c.n < 100 ORDER BY c.other";
  statistics.entries_in_range_at = {{"/tag", 1429}, {"/n", 1000}};
  AccessPath both = Plan(policy, text, statistics);
  REQUIRE(both.lookup);
  CHECK(both.lookup->path == "/n");
  REQUIRE(both.intersected.size() == 1);
  CHECK(both.intersected[0].path == "/tag");
  CHECK(both.intersected[0].equality);
  // A predicate that holds for nearly every document rules out too few to pay for its entries.
  statistics.entries_in_range_at = {{"/tag", 9990}, {"/n", 1000}};
  AccessPath one = Plan(policy, text, statistics);
  REQUIRE(one.lookup);
  CHECK(one.lookup->path == "/n");
  CHECK(one.intersected.empty());
  // A streaming page whose every lookup names many entries scans first, without counting further.
  statistics.entries_in_range_at = {{"/tag", 5000}, {"/n", 5000}};
  AccessPath streaming = Plan(policy, "SELECT * FROM c WHERE c.tag = 't3' AND c.n >= @p", statistics);
  CHECK(streaming.scan_first);
  CHECK(streaming.intersected.empty());
}

TEST_CASE("access path: an equality elsewhere gives way to the ORDER BY walk when the walk fills its page sooner "
          "than sorting the equality's documents", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.container_documents = 10000;
  auto walks = [&](const std::string& text, int64_t tag_entries, int64_t page_rows) {
    statistics.entries_in_range_at = {{"/tag", tag_entries}};
    static query::PreparedQueryCache cache;
    auto prepared = cache.Prepare(text);
    REQUIRE_OK(prepared);
    auto access = ChooseAccessPath(policy, true, **prepared, Json::array(), kWholeContainer, {"/pk"}, false,
                                   statistics, page_rows);
    REQUIRE_OK(access);
    return access->ordered_scan.has_value();
  };
  // TOP 10 of 10,000 documents: the walk loads about 10 × 10,000 / named; sorting loads named.
  const std::string top = "SELECT TOP 10 * FROM c WHERE c.tag = 't3' ORDER BY c.n";
  CHECK(walks(top, 1000, 100));
  CHECK(walks(top, 317, 100));
  CHECK_FALSE(walks(top, 316, 100));
  // Without TOP the page size decides: 100 rows.
  const std::string paged = "SELECT * FROM c WHERE c.tag = 't3' ORDER BY c.n";
  CHECK(walks(paged, 1000, 100));
  CHECK_FALSE(walks(paged, 999, 100));
  CHECK(walks(paged, 317, 10));
  // Predicates on two other paths: the intersected lookups find the rarer matches.
  CHECK_FALSE(walks("SELECT TOP 10 * FROM c WHERE c.tag = 't3' AND c.m > 1 ORDER BY c.n", 5000, 100));
}

TEST_CASE("access path: inside one logical partition a wide range is walked in index order when the walk fills "
          "the page for fewer entries", "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;
  statistics.container_documents = 100000;  // DocumentsIn answers the same for the partition...
  statistics.entries_in_range_at = {{"/n", 50000}};
  const char* text = "SELECT * FROM c WHERE c.pk = 'pk-a' AND c.n >= @p";
  AccessPath access = Plan(policy, text, statistics, kOnePartition);
  REQUIRE(access.partition_walk);
  CHECK(access.partition_walk->path == "/n");
  // ... so the partition is the whole container: the walk fills a page of 100 after 100 entries,
  // where the lookup would read 50,000 (or start as a scan).
  CHECK(access.walk);
  CHECK_FALSE(access.scan_first);
  // A partition with a small share of the documents: the walk steps over the others' entries.
  statistics.container_documents = 1000;
  statistics.entries_in_range_at = {{"/n", 1000}};
  // (DocumentsIn answers 1,000 too: the rows wanted, 2, over a share of 1 make 2 entries.)
  CHECK(Plan(policy, "SELECT TOP 2 * FROM c WHERE c.n >= @p", statistics, kOnePartition).walk);
  statistics.entries_in_range_at = {{"/n", 1}};
  CHECK_FALSE(Plan(policy, "SELECT TOP 2 * FROM c WHERE c.n >= @p", statistics, kOnePartition).walk);
  // Across the container, in several partitions, or with ORDER BY there is no walk.
  CHECK_FALSE(Plan(policy, text, statistics).partition_walk);
  CHECK_FALSE(Plan(policy, "SELECT * FROM c WHERE c.n >= @p ORDER BY c.id", statistics, kOnePartition).partition_walk);
  // An equality is a seek, never a walk.
  CHECK_FALSE(Plan(policy, "SELECT * FROM c WHERE c.tag = 'x'", statistics, kOnePartition).partition_walk);
}

TEST_CASE("access path: an aggregate, DISTINCT or GROUP BY of a few indexed paths reads their values from the entries",
          "[planning]") {
  IndexingPolicy policy = PolicyOf("{}");
  FakeStatistics statistics;  // 1,000 documents, each with an entry at every path
  statistics.entries_per_range = 500;
  auto values_of = [&](const std::string& text) -> std::string {
    AccessPath access = Plan(policy, text, statistics);
    if (access.values_of.empty()) return "";
    CHECK(access.index_only);
    std::string paths;
    for (const IndexLookup& value : access.values_of) paths += (paths.empty() ? "" : " ") + value.path;
    return paths;
  };
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c") == "/n");
  CHECK(values_of("SELECT VALUE SUM(c.a.b) FROM c WHERE c.a.b > 1") == "/a/b");
  CHECK(values_of("SELECT DISTINCT VALUE c.tag FROM c WHERE c.n > 1") == "/tag");
  CHECK(values_of("SELECT c.tag, COUNT(1) AS n FROM c GROUP BY c.tag") == "/tag");
  AccessPath filtered = Plan(policy, "SELECT VALUE AVG(c.n) FROM c WHERE c.tag = 't3' AND c.n > 1", statistics);
  REQUIRE(filtered.values_of.size() == 1);
  CHECK(filtered.values_of.front().ranges.front().lower == *EncodeIndexValue(Json(1)));  // the values keep to c.n > 1
  REQUIRE(filtered.lookup);
  CHECK(filtered.lookup->path == "/tag");  // and to the documents the tag names
  // A few paths, each read from its entries, joined by document.
  CHECK(values_of("SELECT VALUE MAX(c.n + c.m) FROM c") == "/n /m");
  CHECK(values_of("SELECT c.tag, MAX(c.n) FROM c GROUP BY c.tag") == "/tag /n");
  CHECK(values_of("SELECT c.a.b, AVG(c.a.c) FROM c GROUP BY c.a.b") == "/a/b /a/c");
  CHECK(values_of("SELECT c.a, MAX(c.a.b) FROM c GROUP BY c.a") == "");  // one inside the other
  CHECK(values_of("SELECT DISTINCT VALUE [c.a, c.b, c.c, c.d, c.e] FROM c") == "");  // more than kMostPathsRead
  // A path that is not property names, the whole document, a JOIN, ORDER BY.
  CHECK(values_of("SELECT VALUE MAX(c.tags[0]) FROM c") == "");
  CHECK(values_of("SELECT DISTINCT VALUE c FROM c") == "");
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c JOIN t IN c.tags") == "");
  CHECK(values_of("SELECT DISTINCT VALUE c.tag FROM c ORDER BY c.tag") == "");
  // A filter the entries do not answer exactly.
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c WHERE IS_NUMBER(c.m)") == "");
  // A document without a scalar at the path: it would aggregate differently, and has no entry.
  statistics.entries_at = {{"/n", 999}};
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c") == "");
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c WHERE c.n > 1") == "/n");  // the filter keeps to scalars
  CHECK(values_of("SELECT c.tag, MAX(c.n) FROM c GROUP BY c.tag") == "");
  CHECK(values_of("SELECT c.tag, MAX(c.n) FROM c WHERE c.n > 1 GROUP BY c.tag") == "/tag /n");
  statistics.entries_at.clear();
  // A filter that names few documents: loading them costs less than reading every value.
  statistics.entries_in_range_at = {{"/tag", 10}};
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c WHERE c.tag = 't3'") == "");
  statistics.entries_in_range_at = {{"/tag", 333}};  // 3 entries of /n for each of its documents
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c WHERE c.tag = 't3'") == "");
  statistics.entries_in_range_at = {{"/tag", 334}};
  CHECK(values_of("SELECT VALUE MAX(c.n) FROM c WHERE c.tag = 't3'") == "/n");
  // Documents that may have expired must be looked at.
  CHECK(Plan(policy, "SELECT VALUE MAX(c.n) FROM c", statistics, kWholeContainer, true, true).values_of.empty());
}

}  // namespace cosmos::engine
