// Effective partition keys against the 110 published vectors (shared/epk-vectors.json, described
// in shared/reference/sdk-wire.md §2), the order-preserving number encoding, and the boundary
// arithmetic: initial ranges and splits.
#include "engine/partitioning/effective_partition_key.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "common/json.h"
#include "tests/test_support.h"

using cosmos::Json;
using cosmos::engine::DecodeEpkNumber;
using cosmos::engine::EffectivePartitionKey;
using cosmos::engine::EncodeEpkNumber;
using cosmos::engine::InitialRangeBoundaries;
using cosmos::engine::PartitionKeyComponent;
using cosmos::engine::PartitionKeyDefinition;
using cosmos::engine::PartitionKeyKind;
using cosmos::engine::PartitionKeyValue;
using cosmos::engine::SplitPoint;
namespace detail = cosmos::engine::detail;

namespace {

constexpr size_t kPublishedVectorCount = 110;

std::filesystem::path VectorsPath() {
  return std::filesystem::path(__FILE__).parent_path() / "../../shared/epk-vectors.json";
}

// A definition with one path per component ("/a", "/b", ...), built directly: Parse refuses a
// Hash key with several paths, which the vectors still pin down.
PartitionKeyDefinition Definition(PartitionKeyKind kind, std::optional<int> version,
                                  size_t path_count) {
  PartitionKeyDefinition definition;
  definition.kind = kind;
  definition.version = version;
  for (size_t index = 0; index < path_count; ++index) {
    std::string name(1, static_cast<char>('a' + index));
    definition.paths.push_back("/" + name);
    definition.segments.push_back({name});
  }
  return definition;
}

PartitionKeyDefinition HashV1() { return Definition(PartitionKeyKind::kHash, std::nullopt, 1); }
PartitionKeyDefinition HashV2() { return Definition(PartitionKeyKind::kHash, 2, 1); }
PartitionKeyDefinition MultiHash() { return Definition(PartitionKeyKind::kMultiHash, 2, 3); }

// The vectors' convention: an empty object stands for the undefined component.
PartitionKeyValue ValueOf(const Json& components) {
  PartitionKeyValue value;
  for (const Json& component : components) {
    bool undefined = component.is_object() && component.empty();
    value.components.push_back(PartitionKeyComponent{undefined, undefined ? Json() : component});
  }
  return value;
}

PartitionKeyValue StringKey(const std::string& text) { return ValueOf(Json::array({text})); }

// Which of the ranges [boundaries[i], boundaries[i+1]) holds `epk`.
size_t RangeIndexOf(const std::vector<std::string>& boundaries, const std::string& epk) {
  auto above = std::upper_bound(boundaries.begin(), boundaries.end(), epk);
  return static_cast<size_t>(above - boundaries.begin()) - 1;
}

bool IsUppercaseHex(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); });
}

}  // namespace

TEST_CASE("effective partition keys match every published vector", "[epk]") {
  std::ifstream in(VectorsPath());
  if (!in.good()) {
    WARN("no EPK vectors at " << VectorsPath().string() << ": nothing checked");
    return;
  }
  Json vectors = Json::parse(in);
  REQUIRE(vectors.size() == kPublishedVectorCount);

  size_t passed = 0;
  for (const Json& vector : vectors) {
    const Json& components = vector["partitionKey"];
    auto kind = vector["kind"] == "MultiHash" ? PartitionKeyKind::kMultiHash
                                              : PartitionKeyKind::kHash;
    int version = vector["version"].get<int>();
    auto definition = Definition(kind, version, components.size());
    std::string expected = vector["epk"].get<std::string>();
    INFO("v" << version << " " << vector["kind"].get<std::string>() << " "
              << components.dump().substr(0, 120));
    std::string actual = EffectivePartitionKey(definition, ValueOf(components));
    CHECK(actual == expected);
    if (actual == expected) ++passed;
    // An absent version is version 1.
    if (version == 1) {
      CHECK(EffectivePartitionKey(Definition(kind, std::nullopt, components.size()),
                                  ValueOf(components)) == expected);
    }
  }
  CHECK(passed == kPublishedVectorCount);
}

TEST_CASE("a hierarchical prefix key has the prefix of its full keys' EPK", "[epk]") {
  auto definition = MultiHash();
  auto epk = [&](const char* components) {
    return EffectivePartitionKey(definition, ValueOf(Json::parse(components)));
  };
  auto full = epk(R"(["seattle","redmond",5.123124190509124])");
  auto two = epk(R"(["seattle","redmond"])");
  auto one = epk(R"(["seattle"])");
  CHECK(full.size() == 96);
  CHECK(full.substr(0, 64) == two);
  CHECK(full.substr(0, 32) == one);
  CHECK(one == "07E4D14180A45153F00B44907886F856");
  CHECK(EffectivePartitionKey(definition, PartitionKeyValue{}).empty());
  CHECK(EffectivePartitionKey(HashV1(), PartitionKeyValue{}).empty());
  CHECK(EffectivePartitionKey(HashV2(), PartitionKeyValue{}).empty());
}

TEST_CASE("numbers hash as doubles, whatever their JSON spelling", "[epk]") {
  for (const auto& definition : {HashV1(), HashV2(), MultiHash()}) {
    CHECK(EffectivePartitionKey(definition, ValueOf(Json::parse("[5]"))) ==
          EffectivePartitionKey(definition, ValueOf(Json::parse("[5.0]"))));
  }
}

TEST_CASE("V1 strings are cut to 100 UTF-16 code units", "[epk]") {
  auto definition = HashV1();
  // Characters beyond the BMP count two units: 50 of them fill the 100.
  std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600
  std::string fifty;
  for (int count = 0; count < 50; ++count) fifty += emoji;
  CHECK(EffectivePartitionKey(definition, StringKey(fifty + "tail")) ==
        EffectivePartitionKey(definition, StringKey(fifty)));
  // A cut between the two halves of a pair leaves a lone surrogate, which C# and JS write as
  // U+FFFD.
  std::string ninety_nine(99, 'x');
  CHECK(EffectivePartitionKey(definition, StringKey(ninety_nine + emoji)) ==
        EffectivePartitionKey(definition, StringKey(ninety_nine + "\xEF\xBF\xBD")));
  // V2 cuts nothing.
  CHECK(EffectivePartitionKey(HashV2(), StringKey(fifty + "tail")) !=
        EffectivePartitionKey(HashV2(), StringKey(fifty)));
}

TEST_CASE("MurmurHash3 matches the reference values", "[epk]") {
  // Appleby's SMHasher verification set for x86_32.
  CHECK(detail::MurmurHash3X86_32("", 0) == 0x00000000u);
  CHECK(detail::MurmurHash3X86_32("", 1) == 0x514E28B7u);
  CHECK(detail::MurmurHash3X86_32("", 0xFFFFFFFF) == 0x81F16F39u);
  CHECK(detail::MurmurHash3X86_32("Hello, world!", 1234) == 0xFAF6CDB3u);
  CHECK(detail::MurmurHash3X86_32("The quick brown fox jumps over the lazy dog") == 0x2E4FF723u);

  auto empty = detail::MurmurHash3X64_128("");
  CHECK(empty.h1 == 0);
  CHECK(empty.h2 == 0);
  auto fox = detail::MurmurHash3X64_128("The quick brown fox jumps over the lazy dog");
  CHECK(fox.h1 == 0xE34BBC7BBC071B6CULL);
  CHECK(fox.h2 == 0x7A433CA9C49A9347ULL);
}

TEST_CASE("numbers encode in order and decode back", "[epk]") {
  CHECK(EncodeEpkNumber(5.0) == "05C014");
  CHECK(EncodeEpkNumber(0.0) == "058000");
  CHECK(EncodeEpkNumber(-0.0) == "058000");
  CHECK(EncodeEpkNumber(std::ldexp(1.0, 30)) == "05C1D0");
  CHECK(EncodeEpkNumber(std::ldexp(1.0, 31)) == "05C1E0");
  CHECK(EncodeEpkNumber(3 * std::ldexp(1.0, 30)) == "05C1E8");

  constexpr double kMax = std::numeric_limits<double>::max();
  constexpr double kJavaMinValue = std::numeric_limits<double>::denorm_min();  // Double.MIN_VALUE
  std::vector<double> ascending = {-kMax, -1e300, -4294967296.0, -2.5, -1.0,
                                   -kJavaMinValue, 0.0, kJavaMinValue,
                                   std::numeric_limits<double>::min(), 0.5, 1.0, 5.0, 123.456,
                                   2147483647.0, std::ldexp(1.0, 31), 4294967295.0,
                                   std::ldexp(1.0, 32), 9007199254740993.0, 1e300, kMax};
  std::string previous;
  for (double number : ascending) {
    INFO(number);
    std::string encoded = EncodeEpkNumber(number);
    CHECK(encoded.substr(0, 2) == "05");
    CHECK(encoded > previous);
    previous = encoded;
    auto decoded = DecodeEpkNumber(encoded);
    REQUIRE(decoded.has_value());
    CHECK(*decoded == number);
    // Whatever follows the number is ignored.
    CHECK(DecodeEpkNumber(encoded + "0861626300") == number);
  }

  // A V1 EPK starts with its hash.
  std::string epk = EffectivePartitionKey(HashV1(), StringKey("partitionKey"));
  CHECK(DecodeEpkNumber(epk) == static_cast<double>(detail::MurmurHash3X86_32(
                                    std::string("\x08") + "partitionKey" + std::string(1, '\0'))));

  // Empty, cut short, another marker, not hex, a ninth group.
  for (const char* malformed :
       {"", "05", "05C0", "05C015", "08C014", "05ZZ14", "05C1D1FFFFFFFFFFFFFFFF00"}) {
    INFO(malformed);
    CHECK_FALSE(DecodeEpkNumber(malformed).has_value());
  }
}

TEST_CASE("initial ranges split the hash space evenly", "[epk]") {
  CHECK(InitialRangeBoundaries(HashV2(), 4) ==
        std::vector<std::string>{"", "10", "20", "30", "FF"});
  CHECK(InitialRangeBoundaries(MultiHash(), 2) == std::vector<std::string>{"", "20", "FF"});
  CHECK(InitialRangeBoundaries(HashV1(), 4) ==
        std::vector<std::string>{"", "05C1D0", "05C1E0", "05C1E8", "FF"});
  CHECK(InitialRangeBoundaries(HashV1(), 1) == std::vector<std::string>{"", "FF"});
  // Five V2 ranges: floor(k * 2^126 / 5), trailing zero bytes trimmed.
  CHECK(InitialRangeBoundaries(HashV2(), 5)[1] == "0CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC");
  CHECK(InitialRangeBoundaries(HashV1(), 5)[1] == EncodeEpkNumber(858993459.0));

  for (const auto& definition : {HashV1(), HashV2(), MultiHash()}) {
    for (int count : {1, 2, 4, 5, 7, 64}) {
      INFO("kind " << static_cast<int>(definition.kind) << " count " << count);
      auto boundaries = InitialRangeBoundaries(definition, count);
      REQUIRE(boundaries.size() == static_cast<size_t>(count) + 1);
      CHECK(boundaries.front().empty());
      CHECK(boundaries.back() == "FF");
      for (size_t index = 1; index < boundaries.size(); ++index) {
        CHECK(boundaries[index - 1] < boundaries[index]);
        CHECK(boundaries[index].size() % 2 == 0);
        CHECK(IsUppercaseHex(boundaries[index]));
      }
    }
  }
}

TEST_CASE("a range splits in the middle of its hash space", "[epk]") {
  CHECK(SplitPoint(HashV2(), "", "FF") == "20");
  CHECK(SplitPoint(HashV2(), "10", "20") == "18");
  CHECK(SplitPoint(MultiHash(), "30", "FF") == "38");
  CHECK(SplitPoint(HashV1(), "", "FF") == "05C1E0");
  CHECK(SplitPoint(HashV1(), "05C1E0", "FF") == "05C1E8");

  // Every range of every initial layout splits, and keeps splitting, strictly inside its bounds.
  for (const auto& definition : {HashV1(), HashV2(), MultiHash()}) {
    for (int count : {1, 2, 4, 5}) {
      auto boundaries = InitialRangeBoundaries(definition, count);
      for (size_t index = 0; index + 1 < boundaries.size(); ++index) {
        std::string low = boundaries[index];
        std::string high = boundaries[index + 1];
        for (int depth = 0; depth < 20; ++depth) {
          INFO("kind " << static_cast<int>(definition.kind) << " [" << low << ", " << high << ")");
          auto point = SplitPoint(definition, low, high);
          REQUIRE(point.has_value());
          CHECK(low < *point);
          CHECK(*point < high);
          // Alternate halves, so both ends get exercised.
          (depth % 2 == 0 ? high : low) = *point;
        }
      }
    }
  }

  // A MultiHash boundary inside one first-level value: only its first 32 digits count.
  std::string inside = "07E4D14180A45153F00B44907886F85622E342F38A486A088463DFF7838A5963";
  auto point = SplitPoint(MultiHash(), inside, "FF");
  REQUIRE(point.has_value());
  CHECK(inside < *point);
  CHECK(*point < "FF");

  // Too narrow: adjacent hash values, or the same first level.
  CHECK_FALSE(SplitPoint(HashV2(), "0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "10").has_value());
  CHECK_FALSE(SplitPoint(MultiHash(), inside, inside + "FF").has_value());
  CHECK_FALSE(SplitPoint(HashV1(), EncodeEpkNumber(5), EncodeEpkNumber(6)).has_value());
  CHECK_FALSE(SplitPoint(HashV2(), "20", "20").has_value());
  CHECK_FALSE(SplitPoint(HashV1(), "nonsense", "FF").has_value());
}

TEST_CASE("string keys spread evenly over four initial ranges", "[epk]") {
  constexpr int kKeyCount = 4000;
  for (const auto& definition : {HashV1(), HashV2(), MultiHash()}) {
    auto boundaries = InitialRangeBoundaries(definition, 4);
    std::vector<int> counts(4, 0);
    for (int key = 0; key < kKeyCount; ++key) {
      std::string epk = EffectivePartitionKey(definition, StringKey("key-" + std::to_string(key)));
      REQUIRE(epk >= boundaries.front());
      REQUIRE(epk < boundaries.back());
      ++counts[RangeIndexOf(boundaries, epk)];
    }
    for (int count : counts) {
      INFO("kind " << static_cast<int>(definition.kind) << " range holds " << count);
      CHECK(count >= kKeyCount * 15 / 100);
      CHECK(count <= kKeyCount * 35 / 100);
    }
  }
}
