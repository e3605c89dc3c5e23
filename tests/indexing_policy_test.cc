#include "engine/indexing/indexing_policy.h"

#include <algorithm>
#include <tuple>

#include "engine/planning/index_lookup.h"
#include "query/parser/parser.h"

#include "tests/test_support.h"

namespace cosmos::engine {
namespace {

Json Normalized(const char* policy_text) {
  Json policy = Json::parse(policy_text);
  auto normalized = NormalizeIndexingPolicy(&policy);
  REQUIRE(normalized.ok());
  return *normalized;
}

bool Rejected(const char* policy_text) {
  Json policy = Json::parse(policy_text);
  auto normalized = NormalizeIndexingPolicy(&policy);
  return !normalized.ok() && normalized.status().code() == ErrorCode::kBadRequest;
}

IndexingPolicy PolicyOf(const char* policy_text) { return IndexingPolicy::FromNormalized(Normalized(policy_text)); }

}  // namespace

TEST_CASE("indexing policy: defaults are the service's", "[indexing]") {
  auto absent = NormalizeIndexingPolicy(nullptr);
  REQUIRE(absent.ok());
  CHECK(*absent == Json::parse(R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],
      "excludedPaths":[{"path":"/\"_etag\"/?"}],"compositeIndexes":[],"spatialIndexes":[]})"));
  Json none = Normalized(R"({"indexingMode":"None"})");
  CHECK(none["indexingMode"] == "none");
  CHECK(none["automatic"] == false);
  CHECK(none["includedPaths"].empty());
  // An explicit root exclusion is kept, and /* is not added to the included paths.
  Json narrow = Normalized(R"({"includedPaths":[{"path":"/name/?"}],"excludedPaths":[{"path":"/*"}]})");
  CHECK(narrow["includedPaths"].size() == 1);
  CHECK(narrow["excludedPaths"].size() == 2);
}

TEST_CASE("indexing policy: invalid policies are 400", "[indexing]") {
  CHECK(Rejected(R"({"indexingMode":"sometimes"})"));
  CHECK(Rejected(R"({"indexingMode":"lazy"})"));  // not for containers created today
  CHECK(Rejected(R"({"automatic":"yes"})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"name/?"}]})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"/name"}]})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"/*"},{"path":"/*"}]})"));
  CHECK(Rejected(R"({"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/*"}]})"));
  // The root must be in one of the sets once paths are given.
  CHECK(Rejected(R"({"includedPaths":[{"path":"/name/?"}]})"));
  CHECK(Rejected(R"({"indexingMode":"none","includedPaths":[{"path":"/*"}]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"}]]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/b/?"}]]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/b","order":"up"}]]})"));
  CHECK(Rejected(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/a"}]]})"));
  CHECK_FALSE(Rejected(R"({"spatialIndexes":[{"path":"/loc/?","types":["Point"]}]})"));  // as the service
  CHECK(Rejected(R"({"spatialIndexes":[{"path":"loc/*","types":["Point"]}]})"));
  CHECK(Rejected(R"({"spatialIndexes":[{"path":"/loc/*","types":["Circle"]}]})"));
  CHECK_FALSE(Rejected(R"({"spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon"]}]})"));
}

TEST_CASE("indexing policy: the most specific path decides", "[indexing]") {
  IndexingPolicy policy = PolicyOf(R"({"includedPaths":[{"path":"/*"},{"path":"/food/ingredients/nutrition/?"}],
      "excludedPaths":[{"path":"/food/*"},{"path":"/tags/[]/?"}]})");
  CHECK(policy.IsIndexed({"name"}));
  CHECK(policy.IsIndexed({"address", "city"}));
  CHECK_FALSE(policy.IsIndexed({"food", "name"}));
  CHECK(policy.IsIndexed({"food", "ingredients", "nutrition"}));
  CHECK_FALSE(policy.IsIndexed({"food", "ingredients", "nutrition", "kcal"}));
  CHECK_FALSE(policy.IsIndexed({"tags", "[]"}));
  CHECK(policy.IsIndexed({"tags", "[]", "label"}));
  CHECK_FALSE(policy.IsIndexed({"_etag"}));

  IndexingPolicy narrow = PolicyOf(R"({"includedPaths":[{"path":"/name/?"}],"excludedPaths":[{"path":"/*"}]})");
  CHECK(narrow.IsIndexed({"name"}));
  CHECK_FALSE(narrow.IsIndexed({"city"}));
  CHECK(narrow.IsIndexed({"id"}));  // id and _ts are always indexed
  CHECK(narrow.IsIndexed({"_ts"}));
  CHECK_FALSE(PolicyOf(R"({"indexingMode":"none"})").IsIndexed({"id"}));
}

TEST_CASE("indexing policy: index terms follow the included paths", "[indexing]") {
  Json document = Json::parse(R"({"id":"1","pk":"a","name":"n","tags":["x","y","z"],
      "address":{"city":"c","zip":1},"_rid":"r","_ts":5,"_etag":"e","_self":"s","_attachments":"a"})");
  CHECK(PolicyOf("{}").CountIndexedTerms(document) == 8);  // id pk name 3 tags city zip
  CHECK(PolicyOf(R"({"includedPaths":[{"path":"/name/?"}],"excludedPaths":[{"path":"/*"}]})")
            .CountIndexedTerms(document) == 2);  // id, name
  CHECK(PolicyOf(R"({"excludedPaths":[{"path":"/tags/*"}]})").CountIndexedTerms(document) == 5);
  CHECK(PolicyOf(R"({"indexingMode":"none"})").CountIndexedTerms(document) == 0);
}

TEST_CASE("indexing policy: ORDER BY needs a range or composite index", "[indexing]") {
  IndexingPolicy policy = PolicyOf(R"({"excludedPaths":[{"path":"/secret/?"}],
      "compositeIndexes":[[{"path":"/cat","order":"ascending"},{"path":"/n","order":"descending"}]]})");
  CHECK(policy.CheckOrderBy({}).ok());
  CHECK(policy.CheckOrderBy({{{"n"}, true}}).ok());
  auto excluded = policy.CheckOrderBy({{{"secret"}, false}});
  CHECK(excluded.code() == ErrorCode::kBadRequest);
  CHECK(excluded.message().find("order-by item is excluded") != std::string::npos);
  CHECK(policy.CheckOrderBy({{{"cat"}, false}, {{"n"}, true}}).ok());
  CHECK(policy.CheckOrderBy({{{"cat"}, true}, {{"n"}, false}}).ok());  // all inverted
  auto mixed = policy.CheckOrderBy({{{"cat"}, false}, {{"n"}, false}});
  CHECK(mixed.code() == ErrorCode::kBadRequest);
  CHECK(mixed.message().find("composite index") != std::string::npos);
  CHECK(policy.CheckOrderBy({{{"n"}, true}, {{"cat"}, false}}).code() == ErrorCode::kBadRequest);
  CHECK(PolicyOf(R"({"indexingMode":"none"})").CheckOrderBy({{{"n"}, false}}).code() == ErrorCode::kBadRequest);
}

}  // namespace cosmos::engine

namespace cosmos::engine {

TEST_CASE("index values sort in the service's type order, numbers numerically", "[indexing]") {
  std::vector<Json> ordered = {nullptr, false, true, -1e300, -2.5, -1, 0, 0.5, 1, 2, 10, 1e300, "", "A", "a", "ab", "b"};
  for (size_t i = 1; i < ordered.size(); ++i) {
    INFO(ordered[i - 1].dump() << " < " << ordered[i].dump());
    CHECK(*EncodeIndexValue(ordered[i - 1]) < *EncodeIndexValue(ordered[i]));
  }
  CHECK(*EncodeIndexValue(Json(1)) == *EncodeIndexValue(Json(1.0)));
  CHECK(*EncodeIndexValue(Json(-0.0)) == *EncodeIndexValue(Json(0)));
  CHECK_FALSE(EncodeIndexValue(Json::array()));
  CHECK_FALSE(EncodeIndexValue(Json::object()));
}

TEST_CASE("index values decode to what they stand for, unless the string may be cut", "[indexing]") {
  for (const Json& value : std::vector<Json>{nullptr, false, true, -1e300, -2.5, -7, 0, 0.125, 12, 1e300, "", "ab"}) {
    INFO(value.dump());
    std::optional<Json> decoded = DecodeIndexValue(*EncodeIndexValue(value));
    REQUIRE(decoded);
    CHECK(*decoded == value);
  }
  CHECK(DecodeIndexValue(*EncodeIndexValue(Json(5.0)))->is_number_integer());  // read back as the parser reads "5"
  CHECK(DecodeIndexValue(*EncodeIndexValue(Json(-0.0))) == Json(0));
  CHECK_FALSE(DecodeIndexValue(*EncodeIndexValue(Json(std::string(kIndexedStringBytes, 'x')))));  // may be cut
  CHECK(DecodeIndexValue(*EncodeIndexValue(Json(std::string(kIndexedStringBytes - 1, 'x')))));
  CHECK_FALSE(DecodeIndexValue(""));
  CHECK_FALSE(DecodeIndexValue("3zz"));
  CHECK_FALSE(DecodeIndexValue("9"));
}

TEST_CASE("index entries: one per indexed scalar, with array elements under []", "[indexing]") {
  IndexingPolicy policy = PolicyOf(R"({"excludedPaths":[{"path":"/secret/?"}]})");
  auto entries = policy.IndexEntries(Json::parse(R"({"id":"x","tags":["a","b"],"secret":1,"o":{"n":2},"_ts":1})"));
  std::vector<std::string> paths;
  for (const auto& entry : entries) paths.push_back(entry.path);
  // _ts is always indexed (a system property the planner may look up), but not charged as a term.
  CHECK(paths == std::vector<std::string>{"/id", "/tags/[]", "/tags/[]", "/o/n", "/_ts"});
  CHECK(entries[1].value == "4a");
  CHECK(ChargedIndexTerms(entries) == 4);
  CHECK(policy.CountIndexedTerms(Json::parse(R"({"id":"x","_ts":1})")) == 1);
}

TEST_CASE("index entries computed before the write sets _ts are those of the stored document", "[indexing]") {
  auto sorted = [](std::vector<storage::IndexEntry> entries) {
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return std::tie(a.path, a.value) < std::tie(b.path, b.value); });
    return entries;
  };
  const int64_t stored_ts = 1733450000;
  for (const char* policy_text :
       {R"({})", R"({"excludedPaths":[{"path":"/*"}]})", R"({"indexingMode":"none","automatic":false})",
        R"({"compositeIndexes":[[{"path":"/cat"},{"path":"/o/n","order":"descending"}]]})"}) {
    IndexingPolicy policy = PolicyOf(policy_text);
    // Without a _ts, with a client's _ts (which the stored one replaces) and with an object there.
    for (const char* document_text : {R"({"id":"x","cat":"a","o":{"n":2},"tags":["t","t"]})",
                                      R"({"id":"x","_ts":5,"cat":"a","o":{"n":2}})",
                                      R"({"id":"x","_ts":{"a":1},"cat":"b"})"}) {
      INFO(policy_text << " " << document_text);
      Json document = Json::parse(document_text);
      auto ahead = policy.IndexEntriesBesideTimestamp(document);
      REQUIRE(ahead);
      if (auto timestamp = policy.TimestampIndexEntry(stored_ts)) ahead->push_back(*timestamp);
      document["_ts"] = stored_ts;
      CHECK(sorted(*ahead) == sorted(policy.IndexEntries(document)));
    }
  }
  // A composite index over _ts needs the stored value: no entries ahead of the write.
  IndexingPolicy by_time = PolicyOf(R"({"compositeIndexes":[[{"path":"/cat"},{"path":"/_ts"}]]})");
  CHECK_FALSE(by_time.IndexEntriesBesideTimestamp(Json::parse(R"({"id":"x","cat":"a"})")));
}

TEST_CASE("composite index values sort in the composite index's directions", "[indexing]") {
  // Components chosen to trip a naive concatenation: prefixes ("a" < "ab"), an embedded NUL,
  // and values of different types and lengths.
  std::vector<Json> firsts = {nullptr, true, -1, 2, "", "a", std::string("a\0b", 3), "ab", "b"};
  std::vector<Json> seconds = {false, 0, 10, "", "x", "xy"};
  for (bool first_descending : {false, true}) {
    for (bool second_descending : {false, true}) {
      std::vector<std::pair<std::string, std::pair<size_t, size_t>>> encoded;
      for (size_t i = 0; i < firsts.size(); ++i) {
        for (size_t j = 0; j < seconds.size(); ++j) {
          encoded.push_back({EncodeCompositeValue({{*EncodeIndexValue(firsts[i]), first_descending},
                                                   {*EncodeIndexValue(seconds[j]), second_descending}}),
                             {i, j}});
        }
      }
      std::sort(encoded.begin(), encoded.end());
      // The vectors above are in ascending order, so the index order is their positions'.
      for (size_t k = 1; k < encoded.size(); ++k) {
        auto [i0, j0] = encoded[k - 1].second;
        auto [i1, j1] = encoded[k].second;
        INFO(firsts[i0].dump() << "," << seconds[j0].dump() << " before " << firsts[i1].dump() << ","
                               << seconds[j1].dump() << " (desc " << first_descending << second_descending << ")");
        if (i0 != i1) {
          CHECK((first_descending ? i0 > i1 : i0 < i1));
        } else {
          CHECK((second_descending ? j0 > j1 : j0 < j1));
        }
      }
    }
  }
}

TEST_CASE("index entries: one per composite index whose paths all hold scalars", "[indexing]") {
  IndexingPolicy policy = PolicyOf(R"({"compositeIndexes":[
      [{"path":"/cat","order":"ascending"},{"path":"/o/n","order":"descending"}],
      [{"path":"/cat"},{"path":"/tags"}]]})");
  auto composite_entries = [&](const char* document) {
    std::vector<storage::IndexEntry> found;
    for (auto& entry : policy.IndexEntries(Json::parse(document))) {
      if (entry.path.rfind("composite:", 0) == 0) found.push_back(entry);
    }
    return found;
  };
  auto entries = composite_entries(R"({"id":"x","cat":"a","o":{"n":2},"tags":["t"]})");
  REQUIRE(entries.size() == 1);  // tags is an array: no entry for the second index
  CHECK(entries[0].path == "composite:/cat asc,/o/n desc");
  CHECK(entries[0].value == EncodeCompositeValue({{"4a", false}, {*EncodeIndexValue(Json(2)), true}}));
  CHECK(composite_entries(R"({"id":"x","cat":"a"})").empty());  // /o/n missing
  CHECK(composite_entries(R"({"id":"x","cat":"a","o":{"n":null},"tags":3})").size() == 2);
  auto order = policy.FindCompositeIndex({{{"cat"}, true}, {{"o", "n"}, false}});
  REQUIRE(order);
  CHECK(order->entry_path == "composite:/cat asc,/o/n desc");
  CHECK(order->backwards);
  CHECK_FALSE(policy.FindCompositeIndex({{{"cat"}, false}, {{"o", "n"}, false}}));
}

TEST_CASE("index lookups: the most selective predicate on an indexed path", "[indexing]") {
  IndexingPolicy policy = PolicyOf(R"({"excludedPaths":[{"path":"/secret/?"}]})");
  auto lookup_of = [&](const char* where) {
    auto parsed = query::ParseQuery(std::string("SELECT * FROM c WHERE ") + where);
    REQUIRE(parsed.ok());
    return ChooseIndexLookup(policy, query::FindIndexPredicates(**parsed, Json::array({{{"name", "@p"}, {"value", 5}}})));
  };
  auto equality = lookup_of("c.n > 1 AND c.name = 'x'");
  REQUIRE(equality);
  CHECK(equality->path == "/name");
  CHECK(equality->ranges.size() == 1);
  CHECK(equality->ranges[0].lower == "4x");
  auto in_list = lookup_of("c.k IN (1, 2, 3)");
  REQUIRE(in_list);
  CHECK(in_list->ranges.size() == 3);
  auto merged = lookup_of("c.n > 1 AND c.n <= @p");
  REQUIRE(merged);
  CHECK(merged->ranges.size() == 1);
  CHECK(merged->ranges[0].lower == *EncodeIndexValue(Json(1)));
  CHECK_FALSE(merged->ranges[0].lower_inclusive);
  CHECK(merged->ranges[0].upper == *EncodeIndexValue(Json(5)));
  CHECK(merged->ranges[0].upper_inclusive);
  auto open_range = lookup_of("5 < c.n");  // mirrored; numbers only, up to the string type
  REQUIRE(open_range);
  CHECK(open_range->ranges[0].upper == "4");
  auto prefix = lookup_of("STARTSWITH(c.name, 'ab')");
  REQUIRE(prefix);
  CHECK(prefix->ranges[0].lower == "4ab");
  CHECK_FALSE(lookup_of("c.secret = 1"));              // excluded: scan
  CHECK_FALSE(lookup_of("c.n = 1 OR c.m = 2"));        // OR: scan
  CHECK_FALSE(lookup_of("STARTSWITH(c.name, 'ab', true)"));  // case-insensitive: scan
  CHECK_FALSE(lookup_of("LOWER(c.name) = 'x'"));
  query::IndexPredicate equals_one;
  equals_one.path = {"n"};
  equals_one.values = {Json(1)};
  CHECK_FALSE(ChooseIndexLookup(PolicyOf(R"({"indexingMode":"none"})"), {equals_one}));
}

}  // namespace cosmos::engine

namespace cosmos::engine {

TEST_CASE("index values: long strings are cut, and lookups on them stay supersets", "[indexing]") {
  std::string long_a(300, 'a');
  std::string long_b = long_a + "b";
  CHECK(EncodeIndexValue(Json(long_a))->size() == 1 + kIndexedStringBytes);
  CHECK(*EncodeIndexValue(Json(long_a)) == *EncodeIndexValue(Json(long_b)));
  IndexingPolicy policy = IndexingPolicy::FromNormalized(NormalizeIndexingPolicy(nullptr).value());
  query::IndexPredicate greater;
  greater.kind = query::IndexPredicate::Kind::kRange;
  greater.path = {"s"};
  greater.lower = Json(long_a);
  greater.lower_inclusive = false;  // c.s > long_a must still find long_b, stored under the same cut key
  auto lookup = ChooseIndexLookup(policy, {greater});
  REQUIRE(lookup);
  CHECK(lookup->ranges[0].lower_inclusive);
}

}  // namespace cosmos::engine

TEST_CASE("a replaced document's index changes only where its entries differ", "[indexing]") {
  using cosmos::engine::DiffIndexEntries;
  using cosmos::storage::IndexEntry;
  std::vector<IndexEntry> before = {{"/id", "4a"}, {"/n", "3x1"}, {"/tags/[]", "4t"}, {"/tags/[]", "4t"}, {"/old", "0"}};
  std::vector<IndexEntry> after = {{"/n", "3x2"}, {"/id", "4a"}, {"/tags/[]", "4t"}, {"/new", "1"}, {"/new", "1"}};
  auto changes = DiffIndexEntries(before, after);
  auto text = [](const std::vector<IndexEntry>& entries) {
    std::string joined;
    for (const auto& entry : entries) joined += entry.path + "=" + entry.value + " ";
    return joined;
  };
  CHECK(text(changes.stale) == "/n=3x1 /old=0 ");
  CHECK(text(changes.added) == "/n=3x2 /new=1 ");
  // The same path may hold another value, and another path the same value.
  changes = DiffIndexEntries({{"/a", "1"}}, {{"/b", "1"}, {"/a", "2"}});
  CHECK(text(changes.stale) == "/a=1 ");
  CHECK(text(changes.added) == "/a=2 /b=1 ");
  changes = DiffIndexEntries({}, {{"/a", "1"}});
  CHECK(text(changes.added) == "/a=1 ");
  CHECK(DiffIndexEntries({{"/a", "1"}}, {{"/a", "1"}}).stale.empty());
}
