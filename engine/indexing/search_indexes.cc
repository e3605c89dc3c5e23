#include "engine/indexing/search_indexes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "engine/indexing/indexing_policy.h"
#include "query/functions/vector_kernel.h"

namespace cosmos::engine {
namespace {

void AppendCount(std::string& out, uint32_t count) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((count >> shift) & 0xFF));
}

// The layout ViewPackedVector reads: scale and squared norm (float32 each), the codes, padding
// to four bytes, the floats.
size_t CodesEnd(size_t dimensions) { return (2 * sizeof(float) + dimensions + 3) / 4 * 4; }

std::string PackVector(const std::vector<float>& values) {
  const size_t dimensions = values.size();
  float largest = 0;
  for (float x : values) largest = std::max(largest, std::fabs(x));
  const float scale = largest / 127.0f;
  const float norm_sq = query::PackedDot(values.data(), values.data(), dimensions);
  std::string packed(CodesEnd(dimensions) + dimensions * sizeof(float), '\0');
  std::memcpy(packed.data(), &scale, sizeof(float));
  std::memcpy(packed.data() + sizeof(float), &norm_sq, sizeof(float));
  for (size_t i = 0; i < dimensions; ++i) {
    const float code = scale > 0 ? std::nearbyint(values[i] / scale) : 0.0f;
    packed[2 * sizeof(float) + i] = static_cast<char>(static_cast<int8_t>(std::clamp(code, -127.0f, 127.0f)));
  }
  std::memcpy(packed.data() + CodesEnd(dimensions), values.data(), dimensions * sizeof(float));
  return packed;
}

const Json& Member(const Json& object, const char* name) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto found = object.find(name);
  return found == object.end() ? kNull : *found;
}

}  // namespace

SearchIndexes SearchIndexes::FromContainer(const Json& properties) {
  SearchIndexes indexes;
  const Json& indexing = Member(properties, "indexingPolicy");
  const Json& embeddings = Member(Member(properties, "vectorEmbeddingPolicy"), "vectorEmbeddings");
  const Json& vector_indexes = Member(indexing, "vectorIndexes");
  if (vector_indexes.is_array() && embeddings.is_array()) {
    for (const Json& index : vector_indexes) {
      const Json& path = Member(index, "path");
      if (!path.is_string()) continue;
      for (const Json& embedding : embeddings) {
        const Json& dimensions = Member(embedding, "dimensions");
        if (Member(embedding, "path") != path || !dimensions.is_number_integer() || dimensions.get<int64_t>() <= 0) continue;
        indexes.vectors_.push_back(
            {path.get<std::string>(), SplitIndexPath(path.get_ref<const std::string&>()), dimensions.get<size_t>()});
      }
    }
  }
  const Json& full_text_policy = Member(properties, "fullTextPolicy");
  const Json& full_text_indexes = Member(indexing, "fullTextIndexes");
  if (full_text_indexes.is_array()) {
    for (const Json& index : full_text_indexes) {
      const Json& path = Member(index, "path");
      if (!path.is_string()) continue;
      std::optional<query::TextLanguage> language;
      for (const Json& entry : Member(full_text_policy, "fullTextPaths").is_array() ? Member(full_text_policy, "fullTextPaths")
                                                                                     : Json::array()) {
        if (Member(entry, "path") == path && Member(entry, "language").is_string()) {
          language = query::ParseTextLanguage(Member(entry, "language").get_ref<const std::string&>());
        }
      }
      if (!language && Member(full_text_policy, "defaultLanguage").is_string()) {
        language = query::ParseTextLanguage(Member(full_text_policy, "defaultLanguage").get_ref<const std::string&>());
      }
      indexes.full_text_.push_back({path.get<std::string>(), SplitIndexPath(path.get_ref<const std::string&>()),
                                    language.value_or(query::TextLanguage::kEnglish)});
    }
  }
  return indexes;
}

const VectorIndexPath* SearchIndexes::VectorIndexOn(std::string_view path) const {
  for (const VectorIndexPath& index : vectors_) {
    if (index.path == path) return &index;
  }
  return nullptr;
}

const FullTextIndexPath* SearchIndexes::FullTextIndexOn(std::string_view path) const {
  for (const FullTextIndexPath& index : full_text_) {
    if (index.path == path) return &index;
  }
  return nullptr;
}

void SearchIndexes::AddEntries(const Json& document, std::vector<storage::IndexEntry>& entries) const {
  for (const VectorIndexPath& index : vectors_) {
    const Json* vector = ValueAtSteps(document, index.steps);
    if (vector == nullptr || !vector->is_array() || vector->size() != index.dimensions) continue;
    std::vector<float> values(index.dimensions);
    bool numbers = true;
    for (size_t i = 0; i < index.dimensions && numbers; ++i) {
      const Json& x = (*vector)[i];
      numbers = x.is_number();
      values[i] = numbers ? static_cast<float>(x.get<double>()) : 0.0f;
      numbers = numbers && std::isfinite(values[i]);  // beyond float32's range: no embedding to index
    }
    if (numbers) entries.push_back({VectorEntryPath(index.path), PackVector(values)});
  }
  for (const FullTextIndexPath& index : full_text_) {
    const Json* text = ValueAtSteps(document, index.steps);
    if (text == nullptr || !text->is_string()) continue;
    const std::vector<std::string> terms = query::AnalyzeText(text->get_ref<const std::string&>(), index.language);
    const std::string entry_path = FullTextEntryPath(index.path);
    std::string length(kFullTextLengthLower);
    AppendCount(length, static_cast<uint32_t>(terms.size()));
    entries.push_back({entry_path, std::move(length)});
    std::map<std::string_view, uint32_t> counts;
    for (const std::string& term : terms) ++counts[term];
    for (const auto& [term, count] : counts) {
      std::string value(term);
      value.push_back('\0');
      AppendCount(value, count);
      entries.push_back({entry_path, std::move(value)});
    }
  }
}

std::optional<PackedVectorView> ViewPackedVector(std::string_view value, size_t dimensions) {
  if (value.size() != CodesEnd(dimensions) + dimensions * sizeof(float)) return std::nullopt;
  PackedVectorView view;
  std::memcpy(&view.scale, value.data(), sizeof(float));
  std::memcpy(&view.norm_sq, value.data() + sizeof(float), sizeof(float));
  view.codes = reinterpret_cast<const int8_t*>(value.data() + 2 * sizeof(float));
  // Four-byte aligned: the allocator aligns the value, CodesEnd pads.
  view.values = reinterpret_cast<const float*>(value.data() + CodesEnd(dimensions));
  return view;
}

std::string VectorEntryPath(std::string_view path) {
  std::string entry_path = "vector:";
  return entry_path.append(path);
}

std::string FullTextEntryPath(std::string_view path) {
  std::string entry_path = "fulltext:";
  return entry_path.append(path);
}

FullTextTermRange FullTextTermBounds(std::string_view term) {
  FullTextTermRange range{std::string(term), std::string(term)};
  range.lower.push_back('\0');
  range.upper.push_back('\x01');
  return range;
}

std::optional<uint32_t> FullTextEntryCount(std::string_view value) {
  if (value.size() < 5) return std::nullopt;
  uint32_t count = 0;
  for (size_t i = value.size() - 4; i < value.size(); ++i) count = (count << 8) | static_cast<unsigned char>(value[i]);
  return count;
}

}  // namespace cosmos::engine
