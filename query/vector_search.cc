#include "query/vector_search.h"

#include <algorithm>
#include <functional>
#include <string>

#include "common/encoding.h"
#include "query/binder.h"
#include "query/plan/query_plan.h"

namespace cosmos::query {
namespace {

std::optional<VectorMetric> NamedMetric(const Json& options) {
  if (!options.is_object()) return std::nullopt;
  for (const auto& [name, value] : options.items()) {
    if (EqualsIgnoreCaseAscii(name, "distanceFunction") && value.is_string()) {
      return ParseVectorMetric(value.get_ref<const std::string&>());
    }
  }
  return std::nullopt;
}

}  // namespace

bool IsSystemCall(const Expr& e, std::string_view name) {
  return e.kind == ExprKind::kFunctionCall && !e.udf && EqualsIgnoreCaseAscii(e.name, name);
}

bool IsSimilarityOrder(const OrderByItem& item) {
  return IsSystemCall(*item.expr, "VectorDistance") ||
         (IsSystemCall(*item.expr, "_VectorScore") && !item.explicit_direction);
}

bool DropsUnscoredRows(const OrderByItem& item) {
  if (IsSystemCall(*item.expr, "VectorDistance") || IsSystemCall(*item.expr, "_VectorScore")) return true;
  return IsSystemCall(*item.expr, "_FullTextScore") && item.explicit_direction && !item.descending;
}

bool IsScoreCall(const Expr& e) {
  for (std::string_view name : {"VectorDistance", "_VectorScore", "FullTextScore", "_FullTextScore"}) {
    if (IsSystemCall(e, name)) return true;
  }
  return false;
}

VectorMetric ResolveVectorMetric(const Expr& call, std::string_view root_alias, const Json& parameters,
                                 const Json& vector_embedding_policy) {
  if (call.children.size() >= 4) {
    const Expr& settings = *call.children[3];
    std::optional<VectorMetric> named;
    if (settings.kind == ExprKind::kObjectLiteral) {
      for (const auto& [name, value] : settings.fields) {
        if (EqualsIgnoreCaseAscii(name, "distanceFunction") && value->kind == ExprKind::kLiteral &&
            value->literal.is_string()) {
          named = ParseVectorMetric(value->literal.get_ref<const std::string&>());
        }
      }
    } else if (settings.kind == ExprKind::kParameter) {
      if (const Json* value = FindParameter(parameters, settings.name)) named = NamedMetric(*value);
    } else if (settings.kind == ExprKind::kLiteral) {
      named = NamedMetric(settings.literal);
    }
    if (named) return *named;
  }
  const Json& policy = vector_embedding_policy;
  if (policy.is_object() && policy.contains("vectorEmbeddings") && policy["vectorEmbeddings"].is_array()) {
    for (size_t i = 0; i < 2 && i < call.children.size(); ++i) {
      const std::string path = DocumentPolicyPath(*call.children[i], root_alias);
      if (path.empty()) continue;
      for (const Json& embedding : policy["vectorEmbeddings"]) {
        if (!embedding.is_object() || embedding.value("path", "") != path) continue;
        const Json& metric = embedding.contains("distanceFunction") ? embedding["distanceFunction"] : Json();
        if (metric.is_string()) return ParseVectorMetric(metric.get_ref<const std::string&>()).value_or(VectorMetric::kCosine);
      }
    }
  }
  return VectorMetric::kCosine;
}

namespace {

// Calls visit(call, root_alias) for every VectorDistance (and _VectorScore) call of `query`,
// subqueries included.
void ForEachVectorDistance(const SelectQuery& query,
                           const std::function<void(const Expr&, std::string_view)>& visit_call) {
  ForEachExpression(query, [&](const Expr& e, std::string_view root_alias) {
    if (IsSystemCall(e, "VectorDistance") || IsSystemCall(e, "_VectorScore")) visit_call(e, root_alias);
  });
}

// The policy's embedding for `path`, or null.
const Json* EmbeddingOf(const Json& policy, const std::string& path) {
  if (path.empty() || !policy.is_object() || !policy.contains("vectorEmbeddings") || !policy["vectorEmbeddings"].is_array()) {
    return nullptr;
  }
  for (const Json& embedding : policy["vectorEmbeddings"]) {
    if (embedding.is_object() && embedding.value("path", "") == path) return &embedding;
  }
  return nullptr;
}

}  // namespace

std::unordered_map<const Expr*, VectorMetric> ResolveVectorMetrics(const SelectQuery& query, const Json& parameters,
                                                                   const Json& vector_embedding_policy) {
  std::unordered_map<const Expr*, VectorMetric> metrics;
  ForEachVectorDistance(query, [&](const Expr& call, std::string_view root_alias) {
    metrics[&call] = ResolveVectorMetric(call, root_alias, parameters, vector_embedding_policy);
  });
  return metrics;
}

std::unordered_set<const Expr*> PackedVectorCalls(const SelectQuery& query, const Json& vector_embedding_policy) {
  std::unordered_set<const Expr*> calls;
  ForEachVectorDistance(query, [&](const Expr& call, std::string_view root_alias) {
    for (size_t i = 0; i < 2 && i < call.children.size(); ++i) {
      if (EmbeddingOf(vector_embedding_policy, DocumentPolicyPath(*call.children[i], root_alias)) != nullptr) {
        calls.insert(&call);
      }
    }
  });
  return calls;
}

Status CheckQueryVectors(const SelectQuery& query, const Json& parameters, const Json& vector_embedding_policy) {
  Status status;
  ForEachVectorDistance(query, [&](const Expr& call, std::string_view root_alias) {
    if (!status.ok() || call.children.size() < 2) return;
    for (size_t i = 0; i < 2; ++i) {
      const std::string path = DocumentPolicyPath(*call.children[i], root_alias);
      const Json* embedding = EmbeddingOf(vector_embedding_policy, path);
      if (embedding == nullptr) continue;
      const Expr& other = *call.children[1 - i];
      // The vector as far as it is known before the rows: a literal or a parameter, or an array
      // literal (its length; elements written as literals must be numbers).
      Json written;
      const Json* vector = nullptr;
      if (other.kind == ExprKind::kLiteral) {
        vector = &other.literal;
      } else if (other.kind == ExprKind::kParameter) {
        vector = FindParameter(parameters, other.name);
      } else if (other.kind == ExprKind::kArrayLiteral) {
        written = Json::array();
        for (const auto& element : other.children) {
          written.push_back(element->kind == ExprKind::kLiteral ? element->literal : Json(0));
        }
        vector = &written;
      }
      if (vector == nullptr) continue;  // an expression of the row
      const bool numbers = vector->is_array() && std::all_of(vector->begin(), vector->end(),
                                                             [](const Json& x) { return x.is_number(); });
      if (!numbers) {
        status = Status::BadRequest("The vector VectorDistance compares with '" + path +
                                    "' must be an array of numbers.");
        return;
      }
      const Json& dimensions = embedding->contains("dimensions") ? (*embedding)["dimensions"] : Json();
      if (dimensions.is_number_integer() && static_cast<int64_t>(vector->size()) != dimensions.get<int64_t>()) {
        status = Status::BadRequest("The vector VectorDistance compares with '" + path + "' has " +
                                    std::to_string(vector->size()) + " dimensions, but the container's vector "
                                    "embedding policy gives that path " + std::to_string(dimensions.get<int64_t>()) + ".");
        return;
      }
    }
  });
  return status;
}

}  // namespace cosmos::query
