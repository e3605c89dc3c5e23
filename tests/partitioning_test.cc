#include "engine/partitioning/partitioning.h"

#include "common/json.h"
#include "engine/partitioning/effective_partition_key.h"
#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::Json;
using cosmos::engine::EffectivePartitionKey;
using cosmos::engine::InitialRangeCount;
using cosmos::engine::InitialRanges;
using cosmos::engine::PartitionKeyDefinition;
using cosmos::engine::PartitionKeyValue;
using cosmos::engine::ResolveScope;
using cosmos::engine::RoutingMap;
using cosmos::engine::ScopeRequest;
using cosmos::engine::SplitRange;
using cosmos::engine::StoragePartitionKey;

namespace {

PartitionKeyDefinition Definition(const char* json) {
  auto parsed = PartitionKeyDefinition::Parse(Json::parse(json));
  REQUIRE(parsed.ok());
  return std::move(parsed).value();
}

PartitionKeyValue Key(const PartitionKeyDefinition& definition, const std::string& header) {
  auto parsed = PartitionKeyValue::FromHeader(definition, header, /*allow_prefix=*/true);
  REQUIRE(parsed.ok());
  return std::move(parsed).value();
}

}  // namespace

TEST_CASE("a container gets one physical partition per 10,000 RU/s, at least the configured minimum", "[partitioning]") {
  CHECK(InitialRangeCount(0, 1) == 1);
  CHECK(InitialRangeCount(400, 1) == 1);
  CHECK(InitialRangeCount(10000, 1) == 1);
  CHECK(InitialRangeCount(10001, 1) == 2);
  CHECK(InitialRangeCount(50000, 1) == 5);
  CHECK(InitialRangeCount(400, 4) == 4);
  CHECK(InitialRangeCount(60000, 4) == 6);
}

TEST_CASE("initial ranges tile the key space and every document key lands in exactly one", "[partitioning]") {
  for (const char* json : {R"({"paths":["/pk"],"kind":"Hash","version":2})", R"({"paths":["/pk"],"kind":"Hash"})",
                           R"({"paths":["/a","/b"],"kind":"MultiHash","version":2})"}) {
    INFO(json);
    PartitionKeyDefinition definition = Definition(json);
    RoutingMap routing(InitialRanges(definition, 4));
    auto online = routing.online();
    REQUIRE(online.size() == 4);
    CHECK(online.front()->min_inclusive.empty());
    CHECK(online.back()->max_exclusive == "FF");
    for (size_t i = 1; i < online.size(); ++i) CHECK(online[i]->min_inclusive == online[i - 1]->max_exclusive);
    std::vector<int> counts(4);
    for (int i = 0; i < 400; ++i) {
      std::string header = definition.paths.size() == 2 ? "[\"t" + std::to_string(i) + "\",\"u\"]"
                                                        : "[\"key-" + std::to_string(i) + "\"]";
      PartitionKeyValue value = Key(definition, header);
      const RoutingMap::Range* range = routing.RangeOf(EffectivePartitionKey(definition, value));
      REQUIRE(range != nullptr);
      ++counts[static_cast<size_t>(range->id)];
      // The storage key sorts inside the same range as the effective key.
      std::string storage_key = StoragePartitionKey(definition, value);
      CHECK(storage_key >= range->min_inclusive);
      CHECK((range->max_exclusive == "FF" || storage_key < range->max_exclusive));
    }
    for (int count : counts) CHECK(count > 40);  // roughly even: about 100 each
  }
}

TEST_CASE("a request scope follows the partition key, the range id and the effective key bounds", "[partitioning]") {
  PartitionKeyDefinition definition = Definition(R"({"paths":["/pk"],"kind":"Hash","version":2})");
  RoutingMap routing(InitialRanges(definition, 4));

  auto all = ResolveScope(definition, routing, ScopeRequest{});
  REQUIRE(all.ok());
  CHECK(all->range_ids == std::vector<int64_t>{0, 1, 2, 3});
  CHECK_FALSE(all->by_partition_key);

  auto one = ResolveScope(definition, routing, ScopeRequest{"[\"a\"]", std::nullopt, std::nullopt, std::nullopt});
  REQUIRE(one.ok());
  CHECK(one->by_partition_key);
  REQUIRE(one->range_ids.size() == 1);
  CHECK(one->documents.partition_key == StoragePartitionKey(definition, Key(definition, "[\"a\"]")));

  auto range = ResolveScope(definition, routing, ScopeRequest{std::nullopt, "2", std::nullopt, std::nullopt});
  REQUIRE(range.ok());
  CHECK(range->by_range_id);
  CHECK(range->range_ids == std::vector<int64_t>{2});
  CHECK(range->documents.min_key == routing.FindById(2)->min_inclusive);
  CHECK(range->documents.max_key == routing.FindById(2)->max_exclusive);

  auto legacy = ResolveScope(definition, routing, ScopeRequest{std::nullopt, "abc==,1", std::nullopt, std::nullopt});
  REQUIRE(legacy.ok());
  CHECK(legacy->range_ids == std::vector<int64_t>{1});

  auto narrowed = ResolveScope(definition, routing, ScopeRequest{std::nullopt, "0", std::string("08"), std::string("0C")});
  REQUIRE(narrowed.ok());
  CHECK(narrowed->documents.min_key == "08");
  CHECK(narrowed->documents.max_key == "0C");

  CHECK(ResolveScope(definition, routing, ScopeRequest{std::nullopt, "9", std::nullopt, std::nullopt}).status().code() ==
        ErrorCode::kNotFound);
  CHECK(ResolveScope(definition, routing, ScopeRequest{std::nullopt, "x", std::nullopt, std::nullopt}).status().code() ==
        ErrorCode::kBadRequest);
}

TEST_CASE("a hierarchical prefix reaches every range overlapping its key interval", "[partitioning]") {
  PartitionKeyDefinition definition = Definition(R"({"paths":["/a","/b"],"kind":"MultiHash","version":2})");
  RoutingMap routing(InitialRanges(definition, 4));
  auto prefix = ResolveScope(definition, routing, ScopeRequest{"[\"tenant\"]", std::nullopt, std::nullopt, std::nullopt});
  REQUIRE(prefix.ok());
  CHECK(prefix->by_partition_key);
  std::string epk = EffectivePartitionKey(definition, Key(definition, "[\"tenant\"]"));
  CHECK(prefix->documents.min_key == epk);
  REQUIRE(prefix->documents.max_key);
  CHECK(*prefix->documents.max_key == epk + "FF");
  std::string full = StoragePartitionKey(definition, Key(definition, "[\"tenant\",\"user\"]"));
  CHECK(full >= prefix->documents.min_key);
  CHECK(full < *prefix->documents.max_key);
  CHECK(prefix->range_ids.size() == 1);
}

TEST_CASE("a split replaces a range by two children that list it as parent; the old id is gone", "[partitioning]") {
  PartitionKeyDefinition definition = Definition(R"({"paths":["/pk"],"kind":"Hash","version":2})");
  auto ranges = InitialRanges(definition, 2);
  RoutingMap before(ranges);
  auto children = SplitRange(definition, before, *before.FindById(0));
  REQUIRE(children.ok());
  REQUIRE(children->size() == 2);
  CHECK(children->at(0).id == 2);
  CHECK(children->at(1).id == 3);
  CHECK(children->at(0).min_inclusive == before.FindById(0)->min_inclusive);
  CHECK(children->at(0).max_exclusive == children->at(1).min_inclusive);
  CHECK(children->at(1).max_exclusive == before.FindById(0)->max_exclusive);
  CHECK(Json::parse(children->at(0).parents) == Json::array({"0"}));
  CHECK(children->at(0).version == before.version() + 1);

  ranges[0].gone = true;
  ranges.insert(ranges.end(), children->begin(), children->end());
  RoutingMap after(ranges);
  CHECK(after.online_count() == 3);
  CHECK(after.version() == 2);
  CHECK(after.next_id() == 4);
  auto gone = ResolveScope(definition, after, ScopeRequest{std::nullopt, "0", std::nullopt, std::nullopt});
  CHECK(gone.status().code() == ErrorCode::kPartitionKeyRangeGone);

  // A grandchild lists its parent, then its grandparent.
  auto grandchildren = SplitRange(definition, after, *after.FindById(3));
  REQUIRE(grandchildren.ok());
  CHECK(Json::parse(grandchildren->at(0).parents) == Json::array({"3", "0"}));
}
