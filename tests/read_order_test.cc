#include "engine/partitioning/read_order.h"

#include "tests/test_support.h"

using cosmos::Json;
using cosmos::engine::ReadPosition;
using cosmos::engine::ReadSegments;
using cosmos::engine::RoutingMap;
using cosmos::engine::SegmentsToRead;
using cosmos::storage::DocumentScope;
using cosmos::storage::PartitionKeyRangeRecord;

namespace {

PartitionKeyRangeRecord Range(int64_t id, const char* min, const char* max, bool gone = false) {
  PartitionKeyRangeRecord range;
  range.id = id;
  range.min_inclusive = min;
  range.max_exclusive = max;
  range.gone = gone;
  return range;
}

// Three physical partitions: ["", "40"), ["40", "80"), ["80", "FF").
RoutingMap ThreeRanges() { return RoutingMap({Range(0, "", "40"), Range(1, "40", "80"), Range(2, "80", "FF")}); }

}  // namespace

TEST_CASE("a read is cut at physical partition bounds, in effective-key order", "[read_order]") {
  auto segments = ReadSegments(ThreeRanges(), {DocumentScope::KeyRange("", std::nullopt)});
  REQUIRE(segments.size() == 3);
  CHECK(segments[0].min_key == "");
  CHECK(segments[0].max_key == "40");
  CHECK(segments[0].scopes.front().max_key == std::optional<std::string>("40"));
  CHECK(segments[2].min_key == "80");
  CHECK_FALSE(segments[2].scopes.front().max_key.has_value());  // "FF" stays open

  // Logical partitions (stored keys start with the effective key) join the segment holding them.
  segments = ReadSegments(ThreeRanges(), {DocumentScope::Partition("10 [\"a\"]"), DocumentScope::Partition("20 [\"b\"]"),
                                          DocumentScope::Partition("90 [\"c\"]")});
  REQUIRE(segments.size() == 2);
  CHECK(segments[0].scopes.size() == 2);
  CHECK(segments[0].Holds("20 [\"b\"]"));
  CHECK_FALSE(segments[0].Holds("30 [\"x\"]"));
  CHECK(segments[1].min_key == "80");

  // A scope narrower than a partition is clipped to itself; an empty one reaches nothing.
  segments = ReadSegments(ThreeRanges(), {DocumentScope::KeyRange("50", "60")});
  REQUIRE(segments.size() == 1);
  CHECK(segments[0].min_key == "40");
  CHECK(segments[0].scopes.front().min_key == "50");
  CHECK(ReadSegments(ThreeRanges(), {DocumentScope::KeyRange("0", "0")}).empty());
}

TEST_CASE("a read position is [seq, min, max] and orders by seq", "[read_order]") {
  ReadPosition position{42, "", "40"};
  CHECK(position.ToJson() == Json::parse(R"([42, "", "40"])"));
  auto parsed = ReadPosition::FromJson(position.ToJson());
  REQUIRE(parsed);
  CHECK(parsed->seq == 42);
  CHECK(parsed->max_key == "40");
  CHECK(ReadPosition{7, "80", "FF"}.ToJson() < ReadPosition{8, "", "40"}.ToJson());
  CHECK_FALSE(ReadPosition::FromJson(Json::parse(R"(["pk", "id"])")));
  CHECK_FALSE(ReadPosition::FromJson(Json::parse(R"([1, "", 3])")));
  CHECK_FALSE(ReadPosition::FromJson(Json::parse(R"([1, "FF", ""])")));  // bounds the wrong way round
}

TEST_CASE("a resumed read skips what it read and keeps a split partition's children together", "[read_order]") {
  auto segments = ReadSegments(ThreeRanges(), {DocumentScope::KeyRange("", std::nullopt)});
  auto reads = SegmentsToRead(segments, std::nullopt);
  REQUIRE(reads.size() == 3);
  CHECK(reads[0].from_seq == 0);

  reads = SegmentsToRead(segments, ReadPosition{17, "40", "80"});
  REQUIRE(reads.size() == 2);
  CHECK(reads[0].segment.min_key == "40");
  CHECK(reads[0].from_seq == 17);
  CHECK(reads[1].segment.min_key == "80");
  CHECK(reads[1].from_seq == 0);

  // ["", "40") split into ["", "20") and ["20", "40") after the position was issued: both
  // children resume together, as one segment with the parent's bounds, from its seq.
  RoutingMap split({Range(0, "", "40", /*gone=*/true), Range(1, "40", "80"), Range(2, "80", "FF"), Range(3, "", "20"),
                    Range(4, "20", "40")});
  reads = SegmentsToRead(ReadSegments(split, {DocumentScope::KeyRange("", std::nullopt)}), ReadPosition{9, "", "40"});
  REQUIRE(reads.size() == 3);
  CHECK(reads[0].segment.min_key == "");
  CHECK(reads[0].segment.max_key == "40");
  CHECK(reads[0].segment.scopes.size() == 2);
  CHECK(reads[0].from_seq == 9);
  CHECK(reads[1].from_seq == 0);

  // An SDK resuming the parent's token on one child (a request naming the child's range).
  reads = SegmentsToRead(ReadSegments(split, {DocumentScope::KeyRange("20", "40")}), ReadPosition{9, "", "40"});
  REQUIRE(reads.size() == 1);
  CHECK(reads[0].segment.max_key == "40");
  CHECK(reads[0].segment.min_key == "");
  CHECK(reads[0].from_seq == 9);
}
