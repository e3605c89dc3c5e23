#include "engine/catalog/search_policies.h"

#include <set>
#include <string>

#include "common/encoding.h"

namespace cosmos::engine {
namespace {

constexpr int64_t kMaxVectorDimensions = 4096;   // quantizedFlat and diskANN
constexpr int64_t kMaxFlatIndexDimensions = 505;  // flat keeps whole vectors in the index
constexpr int64_t kMaxQuantizationBytes = 512;
constexpr int64_t kMinSearchListSize = 25;
constexpr int64_t kMaxSearchListSize = 500;
constexpr size_t kMaxShardPaths = 1;
constexpr const char* kLanguages[] = {"en-US", "de-DE", "es-ES", "fr-FR", "it-IT", "pt-PT", "pt-BR"};

Status PolicyError(const std::string& message) { return Status::BadRequest(message); }

std::string Text(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// A path of one property per segment, as search policies take them: "/a" or "/a/b", no wildcard.
bool IsPlainPath(const Json& path) {
  if (!path.is_string()) return false;
  const std::string& text = path.get_ref<const std::string&>();
  return text.size() >= 2 && text[0] == '/' && text.find('*') == std::string::npos &&
         text.find("[]") == std::string::npos && text.back() != '/';
}

const Json& Member(const Json& object, const char* name) {
  static const Json kNone;
  if (!object.is_object()) return kNone;
  auto found = object.find(name);
  return found == object.end() ? kNone : *found;
}

bool OneOf(const Json& value, std::initializer_list<const char*> names) {
  if (!value.is_string()) return false;
  for (const char* name : names) {
    if (EqualsIgnoreCaseAscii(value.get_ref<const std::string&>(), name)) return true;
  }
  return false;
}

Status CheckOptionalIntegerRange(const Json& index, const char* key, const char* name, int64_t low, int64_t high) {
  const Json& value = Member(index, key);
  if (value.is_null()) return Status();
  if (!value.is_number_integer() || value.get<int64_t>() < low || value.get<int64_t>() > high) {
    return PolicyError(std::string("The Vector Indexing Policy parameter ") + name + " value :: " + Text(value) +
                   " is out of range. The allowed range is between " + std::to_string(low) + " and " +
                   std::to_string(high) + ".");
  }
  return Status();
}

}  // namespace

Status CheckVectorPolicies(const Json& definition) {
  const Json& policy = Member(definition, "vectorEmbeddingPolicy");
  const Json& embeddings = Member(policy, "vectorEmbeddings");
  if (!policy.is_null() && (!policy.is_object() || !(embeddings.is_null() || embeddings.is_array()))) {
    return PolicyError("The Vector Embedding Policy is invalid: vectorEmbeddings must be an array.");
  }
  std::set<std::string> paths;
  if (embeddings.is_array()) {
    for (const Json& embedding : embeddings) {
      const Json& path = Member(embedding, "path");
      if (!IsPlainPath(path)) {
        return PolicyError("The Vector Embedding Policy has an invalid Path:" + Text(path) + ".");
      }
      if (!paths.insert(path.get<std::string>()).second) {
        return PolicyError("The Vector Embedding Policy has the Path:" + Text(path) + " more than once.");
      }
      const Json& type = Member(embedding, "dataType");
      if (!type.is_null() && !OneOf(type, {"float32", "float16", "int8", "uint8"})) {
        return PolicyError("The Vector Embedding Policy has an invalid DataType:" + Text(type) + ".");
      }
      const Json& dimensions = Member(embedding, "dimensions");
      if (!dimensions.is_null()) {
        if (!dimensions.is_number_integer() || dimensions.get<int64_t>() < 1) {
          return PolicyError("The Vector Embedding Policy has Dimensions:" + Text(dimensions) +
                         " which is less than the minimum supported value:1.");
        }
        if (dimensions.get<int64_t>() > kMaxVectorDimensions) {
          return PolicyError("The Vector Embedding Policy has Dimensions:" + Text(dimensions) +
                         " which is more than the maximum supported value:" + std::to_string(kMaxVectorDimensions) + ".");
        }
      }
      const Json& distance = Member(embedding, "distanceFunction");
      if (!distance.is_null() && !OneOf(distance, {"cosine", "dotproduct", "euclidean"})) {
        return PolicyError("The Vector Embedding Policy has an invalid DistanceFunction:" + Text(distance) + ".");
      }
    }
  }

  const Json& indexes = Member(Member(definition, "indexingPolicy"), "vectorIndexes");
  if (indexes.is_null()) return Status();
  if (!indexes.is_array()) return PolicyError("One of the specified inputs is invalid: vectorIndexes must be an array.");
  for (const Json& index : indexes) {
    const Json& path = Member(index, "path");
    const Json* embedding = nullptr;
    if (embeddings.is_array()) {
      for (const Json& candidate : embeddings) {
        if (Member(candidate, "path") == path) embedding = &candidate;
      }
    }
    if (embedding == nullptr) {
      return PolicyError("The Vector Indexing Policy's path::" + Text(path) + " not matching in Embedding's path.");
    }
    const Json& type = Member(index, "type");
    if (!OneOf(type, {"flat", "quantizedFlat", "diskANN"})) {
      return PolicyError("The Vector Indexing Policy's Index Type::" + Text(type) + " is invalid for Path::" + Text(path) +
                     ".");
    }
    const Json& dimensions_value = Member(*embedding, "dimensions");
    const int64_t dimensions = dimensions_value.is_number_integer() ? dimensions_value.get<int64_t>() : 1536;
    if (OneOf(type, {"flat"}) && dimensions > kMaxFlatIndexDimensions) {
      return PolicyError("The Vector Indexing Policy's Index Type::flat supports at most " +
                     std::to_string(kMaxFlatIndexDimensions) + " dimensions, but the embedding at Path::" + Text(path) +
                     " has Dimensions:" + std::to_string(dimensions) + ".");
    }
    COSMOS_RETURN_IF_ERROR(CheckOptionalIntegerRange(index, "quantizationByteSize", "QuantizationByteSize", 1,
                                                     std::min(dimensions, kMaxQuantizationBytes)));
    COSMOS_RETURN_IF_ERROR(CheckOptionalIntegerRange(index, "indexingSearchListSize", "IndexingSearchListSize",
                                                     kMinSearchListSize, kMaxSearchListSize));
    const Json& shards = Member(index, "vectorIndexShardKey");
    if (shards.is_null()) continue;
    if (!shards.is_array()) return PolicyError("One of the specified inputs is invalid: vectorIndexShardKey must be an array.");
    if (shards.size() > kMaxShardPaths) {
      return PolicyError("The number of shard paths defined in the Vector Indexing Policy: " + std::to_string(shards.size()) +
                     " exceeds the maximum: " + std::to_string(kMaxShardPaths) + ".");
    }
    for (const Json& shard : shards) {
      if (!IsPlainPath(shard)) return PolicyError("The Vector Indexing Policy has an invalid Shard Path: " + Text(shard) + ".");
    }
  }
  return Status();
}

Status CheckFullTextPolicies(const Json& definition) {
  const Json& policy = Member(definition, "fullTextPolicy");
  auto check_language = [](const Json& language) {
    for (const char* known : kLanguages) {
      if (language.is_string() && EqualsIgnoreCaseAscii(language.get_ref<const std::string&>(), known)) return Status();
    }
    std::string supported;
    for (const char* known : kLanguages) {
      if (!supported.empty()) supported += ", ";
      supported += known;
    }
    return PolicyError("The Full Text Policy contains an unsupported language " + Text(language) +
                   ". Supported languages are: " + supported + ".");
  };
  std::set<std::string> paths;
  if (!policy.is_null()) {
    if (!policy.is_object()) return PolicyError("One of the specified inputs is invalid: fullTextPolicy must be an object.");
    if (const Json& language = Member(policy, "defaultLanguage"); !language.is_null()) {
      COSMOS_RETURN_IF_ERROR(check_language(language));
    }
    const Json& full_text_paths = Member(policy, "fullTextPaths");
    if (!full_text_paths.is_null() && !full_text_paths.is_array()) {
      return PolicyError("One of the specified inputs is invalid: fullTextPaths must be an array.");
    }
    for (const Json& entry : full_text_paths.is_array() ? full_text_paths : Json::array()) {
      const Json& path = Member(entry, "path");
      if (!IsPlainPath(path)) return PolicyError("The Full Text Policy contains an invalid Path: " + Text(path) + ".");
      if (const Json& language = Member(entry, "language"); !language.is_null()) {
        COSMOS_RETURN_IF_ERROR(check_language(language));
      }
      paths.insert(path.get<std::string>());
    }
  }
  const Json& indexes = Member(Member(definition, "indexingPolicy"), "fullTextIndexes");
  if (indexes.is_null()) return Status();
  if (!indexes.is_array()) return PolicyError("One of the specified inputs is invalid: fullTextIndexes must be an array.");
  for (size_t i = 0; i < indexes.size(); ++i) {
    const Json& path = Member(indexes[i], "path");
    const std::string position = "(" + std::to_string(i) + ")";
    if (path.is_null()) return PolicyError("Missing path in full-text index specification at index " + position + ".");
    if (!IsPlainPath(path)) {
      return PolicyError("Full-text index specification at index " + position + " contains invalid path.");
    }
    if (!paths.count(path.get<std::string>())) {
      return PolicyError("The path of the Full Text Index " + Text(path) +
                     " does not match the path specified in the Full Text Policy.");
    }
  }
  return Status();
}

Status CheckSearchPolicyReplace(const Json& current, const Json& replacement) {
  if (Member(current, "vectorEmbeddingPolicy") != Member(replacement, "vectorEmbeddingPolicy")) {
    return PolicyError("The Vector Embedding Policy of a container cannot be changed; create a new container.");
  }
  if (Member(Member(current, "indexingPolicy"), "vectorIndexes") !=
      Member(Member(replacement, "indexingPolicy"), "vectorIndexes")) {
    return PolicyError("The Vector Indexing Policy of a container cannot be changed; create a new container.");
  }
  return Status();
}

}  // namespace cosmos::engine
