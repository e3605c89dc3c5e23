#include "engine/indexing/indexing_policy.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <iterator>
#include <set>
#include <tuple>

namespace cosmos::engine {
namespace {

constexpr char kEtagExcludedPath[] = "/\"_etag\"/?";
constexpr char kRootPath[] = "/*";
constexpr size_t kMaxCompositePaths = 8;
constexpr size_t kMinCompositePaths = 2;

std::string Lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

Status Invalid(const std::string& message) { return Status::BadRequest("indexingPolicy: " + message); }

// An included or excluded path: "/" + segments + "/?" or "/*".
Status ValidatePathEntry(const Json& entry, const char* set) {
  auto path = entry.is_object() ? entry.find("path") : entry.end();
  if (!entry.is_object() || path == entry.end() || !path->is_string()) {
    return Invalid(std::string(set) + " entries must be objects with a string path");
  }
  const std::string& text = path->get_ref<const std::string&>();
  if (text.empty() || text[0] != '/') return Invalid("the path '" + text + "' must start with '/'");
  std::vector<std::string> segments = SplitIndexPath(text);
  if (segments.empty() || (segments.back() != "?" && segments.back() != "*")) {
    return Invalid("the path '" + text + "' must end with '/?' or '/*'");
  }
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    if (segments[i].empty() || segments[i] == "?" || segments[i] == "*") {
      return Invalid("the path '" + text + "' has an empty or wildcard segment before its end");
    }
  }
  return Status();
}

Status ValidateCompositeIndexes(const Json& composites) {
  if (!composites.is_array()) return Invalid("compositeIndexes must be an array of arrays");
  for (const Json& composite : composites) {
    if (!composite.is_array() || composite.size() < kMinCompositePaths || composite.size() > kMaxCompositePaths) {
      return Invalid("each composite index needs 2 to 8 paths");
    }
    std::set<std::string> seen;
    for (const Json& entry : composite) {
      auto path = entry.is_object() ? entry.find("path") : entry.end();
      if (!entry.is_object() || path == entry.end() || !path->is_string()) {
        return Invalid("composite index entries must be objects with a string path");
      }
      const std::string& text = path->get_ref<const std::string&>();
      std::vector<std::string> segments = SplitIndexPath(text);
      if (text.size() < 2 || text[0] != '/' || segments.empty() || segments.back() == "?" || segments.back() == "*" ||
          std::find(segments.begin(), segments.end(), "[]") != segments.end()) {
        return Invalid("the composite index path '" + text + "' must be a property path such as /name, without /? or /*");
      }
      if (!seen.insert(text).second) return Invalid("the composite index path '" + text + "' appears twice");
      if (auto order = entry.find("order"); order != entry.end()) {
        std::string value = order->is_string() ? Lowercase(order->get<std::string>()) : "";
        if (value != "ascending" && value != "descending") {
          return Invalid("composite index order must be 'ascending' or 'descending'");
        }
      }
    }
  }
  return Status();
}

Status ValidateSpatialIndexes(const Json& spatial) {
  static const std::set<std::string> kTypes = {"Point", "Polygon", "MultiPolygon", "LineString"};
  if (!spatial.is_array()) return Invalid("spatialIndexes must be an array");
  for (const Json& entry : spatial) {
    auto path = entry.is_object() ? entry.find("path") : entry.end();
    auto types = entry.is_object() ? entry.find("types") : entry.end();
    if (!entry.is_object() || path == entry.end() || !path->is_string() ||
        path->get_ref<const std::string&>().size() < 3 || path->get_ref<const std::string&>()[0] != '/' ||
        (SplitIndexPath(path->get<std::string>()).back() != "*" &&
         SplitIndexPath(path->get<std::string>()).back() != "?")) {
      return Invalid("spatial index paths must start with '/' and end with '/*' or '/?'");
    }
    if (types == entry.end() || !types->is_array() || types->empty()) {
      return Invalid("spatial indexes need a non-empty types array");
    }
    for (const Json& type : *types) {
      if (!type.is_string() || !kTypes.count(type.get<std::string>())) {
        return Invalid("spatial index types are Point, Polygon, MultiPolygon and LineString");
      }
    }
  }
  return Status();
}

// True when `path` (property names) lies at or below `prefix`, "[]" matching any array element.
bool HasPrefix(const DocumentPath& path, const DocumentPath& prefix) {
  if (prefix.size() > path.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), path.begin());
}

}  // namespace

std::vector<std::string> SplitIndexPath(const std::string& path) {
  std::vector<std::string> segments;
  size_t pos = 1;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    std::string segment = path.substr(pos, slash - pos);
    if (segment.size() >= 2 && segment.front() == '"' && segment.back() == '"') {
      segment = segment.substr(1, segment.size() - 2);
    }
    segments.push_back(segment);
    pos = slash + 1;
  }
  return segments;
}

Result<Json> NormalizeIndexingPolicy(const Json* given) {
  Json policy = given ? *given : Json::object();
  if (!policy.is_object()) return Status::BadRequest("indexingPolicy must be an object");

  std::string mode = "consistent";
  if (auto it = policy.find("indexingMode"); it != policy.end()) {
    if (!it->is_string()) return Invalid("indexingMode must be a string");
    mode = Lowercase(it->get<std::string>());
    if (mode == "lazy") {
      return Invalid("lazy indexing is no longer available for containers; use consistent or none");
    }
    if (mode != "consistent" && mode != "none") {
      return Invalid("indexingMode '" + it->get<std::string>() + "' is invalid; use consistent or none");
    }
  }
  policy["indexingMode"] = mode;
  if (auto it = policy.find("automatic"); it == policy.end()) {
    policy["automatic"] = mode != "none";
  } else if (!it->is_boolean()) {
    return Invalid("automatic must be a boolean");
  }

  std::set<std::string> paths_seen;
  for (const char* set : {"includedPaths", "excludedPaths"}) {
    auto it = policy.find(set);
    if (it == policy.end()) {
      policy[set] = Json::array();
      continue;
    }
    if (!it->is_array()) return Invalid(std::string(set) + " must be an array");
    for (Json& entry : *it) {
      // "/" is the root path of the first indexing-policy version, which old applications still
      // send (with their "indexes" list); the service reads it as "/*".
      if (entry.is_object() && entry.value("path", Json()) == "/") entry["path"] = kRootPath;
      COSMOS_RETURN_IF_ERROR(ValidatePathEntry(entry, set));
      if (!paths_seen.insert(entry["path"].get<std::string>()).second) {
        return Invalid("the path '" + entry["path"].get<std::string>() + "' appears more than once");
      }
    }
  }
  for (const char* set : {"compositeIndexes", "spatialIndexes"}) {
    auto it = policy.find(set);
    if (it == policy.end()) {
      policy[set] = Json::array();
    } else {
      COSMOS_RETURN_IF_ERROR(std::string(set) == "compositeIndexes" ? ValidateCompositeIndexes(*it)
                                                                     : ValidateSpatialIndexes(*it));
    }
  }

  if (mode == "none") {
    if (!policy["includedPaths"].empty() || !policy["excludedPaths"].empty() || !policy["compositeIndexes"].empty() ||
        !policy["spatialIndexes"].empty()) {
      return Invalid("indexing mode none takes no included, excluded, composite or spatial paths");
    }
    return policy;
  }
  if (!paths_seen.count(kRootPath)) {
    if (!policy["includedPaths"].empty()) {
      return Invalid("the root path /* must be in includedPaths or excludedPaths");
    }
    policy["includedPaths"].push_back({{"path", kRootPath}});
  }
  if (!paths_seen.count(kEtagExcludedPath)) policy["excludedPaths"].push_back({{"path", kEtagExcludedPath}});
  return policy;
}

IndexingPolicy IndexingPolicy::FromNormalized(const Json& normalized) {
  IndexingPolicy policy;
  policy.disabled_ = normalized.value("indexingMode", "consistent") == "none";
  for (const char* set : {"includedPaths", "excludedPaths"}) {
    for (const Json& entry : normalized.value(set, Json::array())) {
      std::vector<std::string> segments = SplitIndexPath(entry.value("path", "/*"));
      Rule rule;
      rule.wildcard = segments.back() == "*";
      segments.pop_back();
      rule.prefix = std::move(segments);
      rule.included = std::string(set) == "includedPaths";
      policy.rules_.push_back(std::move(rule));
    }
  }
  // Most specific first: deeper paths, then "?" before "*" at the same depth.
  std::stable_sort(policy.rules_.begin(), policy.rules_.end(), [](const Rule& a, const Rule& b) {
    if (a.prefix.size() != b.prefix.size()) return a.prefix.size() > b.prefix.size();
    return !a.wildcard && b.wildcard;
  });
  for (const Json& composite : normalized.value("compositeIndexes", Json::array())) {
    CompositeIndex index;
    for (const Json& entry : composite) {
      std::vector<std::string> segments = SplitIndexPath(entry.value("path", "/"));
      index.paths.push_back({segments, Lowercase(entry.value("order", "ascending")) == "descending"});
    }
    policy.composites_.push_back(std::move(index));
  }
  return policy;
}

IndexingPolicy IndexingPolicy::ForContainer(const Json& properties) {
  IndexingPolicy policy = FromNormalized(properties.is_object() && properties.contains("indexingPolicy")
                                             ? properties["indexingPolicy"]
                                             : Json::object());
  policy.search_ = SearchIndexes::FromContainer(properties);
  return policy;
}

namespace {

bool IsTimestampPath(const DocumentPath& path) { return path.size() == 1 && path[0] == "_ts"; }

}  // namespace

bool IndexingPolicy::IsIndexed(const DocumentPath& path) const {
  if (disabled_) return false;
  if (path.size() == 1 && (path[0] == "id" || path[0] == "_ts")) return true;
  for (const Rule& rule : rules_) {
    bool matches = rule.wildcard ? HasPrefix(path, rule.prefix) : path == rule.prefix;
    if (matches) return rule.included;
  }
  return false;
}

template <typename Visit>
void IndexingPolicy::Walk(const Json& node, DocumentPath& path, Visit& visit) const {
  if (node.is_object()) {
    for (const auto& [name, child] : node.items()) {
      path.push_back(name);
      Walk(child, path, visit);
      path.pop_back();
    }
  } else if (node.is_array()) {
    path.emplace_back("[]");
    for (const Json& child : node) Walk(child, path, visit);
    path.pop_back();
  } else if (IsIndexed(path)) {
    visit(path, node);
  }
}

template <typename Visit>
void IndexingPolicy::ForEachIndexed(const Json& document, Visit&& visit, bool skip_timestamp) const {
  if (disabled_ || !document.is_object()) return;
  DocumentPath path;
  for (const auto& [name, child] : document.items()) {
    // _ts is indexed (IsIndexed) like a property of the client's; the other system properties are not.
    if (name == "_rid" || name == "_self" || name == "_etag" || name == "_attachments") continue;
    if (skip_timestamp && name == "_ts") continue;
    path.assign(1, name);
    Walk(child, path, visit);
  }
}

int64_t IndexingPolicy::CountIndexedTerms(const Json& document) const {
  int64_t count = 0;
  ForEachIndexed(document, [&count](const DocumentPath& path, const Json&) {
    if (!IsTimestampPath(path)) ++count;
  });
  return count;
}

int64_t ChargedIndexTerms(const std::vector<storage::IndexEntry>& entries) {
  int64_t count = 0;
  for (const storage::IndexEntry& entry : entries) count += entry.path != kTimestampIndexPath;
  return count;
}

std::vector<storage::IndexEntry> IndexingPolicy::IndexEntries(const Json& document) const {
  return EntriesOf(document, /*skip_timestamp=*/false);
}

std::optional<std::vector<storage::IndexEntry>> IndexingPolicy::IndexEntriesBesideTimestamp(const Json& document) const {
  for (const CompositeIndex& index : composites_) {
    for (const OrderByPath& item : index.paths) {
      if (!item.path.empty() && item.path.front() == "_ts") return std::nullopt;
    }
  }
  return EntriesOf(document, /*skip_timestamp=*/true);
}

std::optional<storage::IndexEntry> IndexingPolicy::TimestampIndexEntry(int64_t ts) const {
  if (disabled_) return std::nullopt;
  return storage::IndexEntry{kTimestampIndexPath, *EncodeIndexValue(Json(ts))};
}

std::vector<storage::IndexEntry> IndexingPolicy::EntriesOf(const Json& document, bool skip_timestamp) const {
  std::vector<storage::IndexEntry> entries;
  ForEachIndexed(
      document,
      [&entries](const DocumentPath& path, const Json& value) {
        if (std::optional<std::string> encoded = EncodeIndexValue(value)) entries.push_back({IndexPathText(path), *encoded});
      },
      skip_timestamp);
  if (disabled_ || !document.is_object()) return entries;
  for (const CompositeIndex& index : composites_) {
    std::vector<std::pair<std::string, bool>> components;
    for (const OrderByPath& item : index.paths) {
      const Json* node = &document;
      for (const std::string& step : item.path) {
        auto member = node->is_object() ? node->find(step) : node->end();
        if (!node->is_object() || member == node->end()) {
          node = nullptr;
          break;
        }
        node = &*member;
      }
      std::optional<std::string> encoded = node ? EncodeIndexValue(*node) : std::nullopt;
      if (!encoded) break;  // a missing or non-scalar value: the document has no entry here
      components.emplace_back(std::move(*encoded), item.descending);
    }
    if (components.size() == index.paths.size()) {
      entries.push_back({CompositeEntryPath(index.paths), EncodeCompositeValue(components)});
    }
  }
  search_.AddEntries(document, entries);
  return entries;
}

std::string CompositeEntryPath(const std::vector<OrderByPath>& paths) {
  std::string text = "composite:";
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) text += ',';
    text += IndexPathText(paths[i].path);
    text += paths[i].descending ? " desc" : " asc";
  }
  return text;
}

std::string IndexName(const std::string& entry_path) {
  constexpr std::string_view kComposite = "composite:";
  if (entry_path.rfind(kComposite, 0) != 0) return entry_path;
  std::string name = "composite (";
  for (char c : entry_path.substr(kComposite.size())) {
    name += c;
    if (c == ',') name += ' ';
  }
  return name + ")";
}

std::string EncodeCompositeValue(const std::vector<std::pair<std::string, bool>>& components) {
  std::string value;
  for (const auto& [encoded, descending] : components) {
    size_t start = value.size();
    for (char byte : encoded) {
      value += byte;
      if (byte == '\0') value += '\xff';
    }
    value += '\0';
    value += '\x01';
    if (descending) {
      for (size_t i = start; i < value.size(); ++i) value[i] = static_cast<char>(~value[i]);
    }
  }
  return value;
}

std::optional<std::string> EncodeIndexValue(const Json& value) {
  if (value.is_null()) return std::string(1, kIndexTypeNull);
  if (value.is_boolean()) return std::string(1, value.get<bool>() ? kIndexTypeTrue : kIndexTypeFalse);
  if (value.is_number()) {
    double number = value.get<double>();
    if (number == 0) number = 0;  // -0 and 0 are one value
    uint64_t bits;
    std::memcpy(&bits, &number, sizeof bits);
    // Negative numbers: flip every bit; positive: flip the sign bit. Then byte order is numeric order.
    bits = (bits & (uint64_t{1} << 63)) ? ~bits : bits | (uint64_t{1} << 63);
    std::string encoded(9, kIndexTypeNumber);
    for (int i = 0; i < 8; ++i) encoded[1 + i] = static_cast<char>(bits >> (56 - 8 * i));
    return encoded;
  }
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    return kIndexTypeString + text.substr(0, kIndexedStringBytes);
  }
  return std::nullopt;
}

bool IndexValueCut(const Json& value) {
  return value.is_string() && value.get_ref<const std::string&>().size() > kIndexedStringBytes;
}

std::optional<Json> DecodeIndexValue(std::string_view encoded) {
  if (encoded.empty()) return std::nullopt;
  std::string_view rest = encoded.substr(1);
  switch (encoded.front()) {
    case kIndexTypeNull: return rest.empty() ? std::optional<Json>(Json(nullptr)) : std::nullopt;
    case kIndexTypeFalse: return rest.empty() ? std::optional<Json>(Json(false)) : std::nullopt;
    case kIndexTypeTrue: return rest.empty() ? std::optional<Json>(Json(true)) : std::nullopt;
    case kIndexTypeNumber: {
      if (rest.size() != 8) return std::nullopt;
      uint64_t bits = 0;
      for (char c : rest) bits = bits << 8 | static_cast<unsigned char>(c);
      // EncodeIndexValue flipped the sign bit of a positive number and every bit of a negative one.
      bits = (bits & (uint64_t{1} << 63)) ? bits & ~(uint64_t{1} << 63) : ~bits;
      double number;
      std::memcpy(&number, &bits, sizeof number);
      constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
      if (std::trunc(number) == number && std::fabs(number) <= kExactIntegers) {
        return Json(static_cast<int64_t>(number));
      }
      return Json(number);
    }
    case kIndexTypeString:
      if (rest.size() >= kIndexedStringBytes) return std::nullopt;
      return Json(std::string(rest));
    default: return std::nullopt;
  }
}

std::string IndexPathText(const DocumentPath& path) {
  std::string text;
  for (const std::string& step : path) {
    text += '/';
    text += step;
  }
  return text;
}

Status IndexingPolicy::CheckOrderBy(const std::vector<OrderByPath>& items) const {
  if (items.empty()) return Status();
  if (disabled_) {
    return Status::BadRequest(
        "The order by query cannot be served: the container's indexing mode is none, so there is no index to sort by.");
  }
  if (items.size() == 1) {
    if (IsIndexed(items[0].path)) return Status();
    return Status::BadRequest("The index path corresponding to the specified order-by item is excluded.");
  }
  if (FindCompositeIndex(items)) return Status();
  return Status::BadRequest(
      "The order by query does not have a corresponding composite index that it can be served from.");
}

std::optional<IndexingPolicy::CompositeOrder> IndexingPolicy::FindCompositeIndex(
    const std::vector<OrderByPath>& items) const {
  if (disabled_) return std::nullopt;
  for (const CompositeIndex& index : composites_) {
    if (index.paths.size() != items.size()) continue;
    bool same = true, inverted = true;
    for (size_t i = 0; i < items.size(); ++i) {
      if (index.paths[i].path != items[i].path) {
        same = inverted = false;
        break;
      }
      same &= index.paths[i].descending == items[i].descending;
      inverted &= index.paths[i].descending != items[i].descending;
    }
    if (same || inverted) return CompositeOrder{CompositeEntryPath(index.paths), !same};
  }
  return std::nullopt;
}

std::vector<std::vector<OrderByPath>> IndexingPolicy::CompositeIndexPaths() const {
  std::vector<std::vector<OrderByPath>> paths;
  if (disabled_) return paths;
  for (const CompositeIndex& index : composites_) paths.push_back(index.paths);
  return paths;
}

IndexEntryChanges DiffIndexEntries(std::vector<storage::IndexEntry> before, std::vector<storage::IndexEntry> after) {
  auto less = [](const storage::IndexEntry& a, const storage::IndexEntry& b) {
    return std::tie(a.path, a.value) < std::tie(b.path, b.value);
  };
  auto same = [](const storage::IndexEntry& a, const storage::IndexEntry& b) {
    return a.path == b.path && a.value == b.value;
  };
  for (auto* entries : {&before, &after}) {
    std::sort(entries->begin(), entries->end(), less);
    entries->erase(std::unique(entries->begin(), entries->end(), same), entries->end());
  }
  IndexEntryChanges changes;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(changes.stale), less);
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(changes.added), less);
  return changes;
}

}  // namespace cosmos::engine
