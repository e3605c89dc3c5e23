#include "query/vector_search.h"

#include <functional>
#include <string>

#include "common/encoding.h"

namespace cosmos::query {
namespace {

// "/a/b" for alias.a.b (or alias["a"]["b"]); empty when `e` is not such a path.
std::string DocumentPath(const Expr& e, std::string_view root_alias) {
  std::string name;
  if (e.kind == ExprKind::kProperty) {
    name = e.name;
  } else if (e.kind == ExprKind::kIndex && e.children[1]->kind == ExprKind::kLiteral &&
             e.children[1]->literal.is_string()) {
    name = e.children[1]->literal.get<std::string>();
  } else {
    return "";
  }
  const Expr& parent = *e.children[0];
  std::string path;
  if (parent.kind == ExprKind::kIdentifier) {
    if (parent.name != root_alias) return "";
  } else {
    path = DocumentPath(parent, root_alias);
    if (path.empty()) return "";
  }
  path += '/';
  path += name;
  return path;
}

// The value of parameter `name` in the request's [{"name","value"}] array, or null.
const Json* ParameterValue(const Json& parameters, std::string_view name) {
  if (!parameters.is_array()) return nullptr;
  for (const Json& parameter : parameters) {
    if (parameter.is_object() && parameter.value("name", "") == name && parameter.contains("value")) {
      return &parameter["value"];
    }
  }
  return nullptr;
}

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
      if (const Json* value = ParameterValue(parameters, settings.name)) named = NamedMetric(*value);
    } else if (settings.kind == ExprKind::kLiteral) {
      named = NamedMetric(settings.literal);
    }
    if (named) return *named;
  }
  const Json& policy = vector_embedding_policy;
  if (policy.is_object() && policy.contains("vectorEmbeddings") && policy["vectorEmbeddings"].is_array()) {
    for (size_t i = 0; i < 2 && i < call.children.size(); ++i) {
      const std::string path = DocumentPath(*call.children[i], root_alias);
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

std::unordered_map<const Expr*, VectorMetric> ResolveVectorMetrics(const SelectQuery& query, const Json& parameters,
                                                                   const Json& vector_embedding_policy) {
  std::unordered_map<const Expr*, VectorMetric> metrics;
  std::function<void(const SelectQuery&)> visit_query;
  std::function<void(const Expr&, std::string_view)> visit = [&](const Expr& e, std::string_view root_alias) {
    if (IsSystemCall(e, "VectorDistance")) {
      metrics[&e] = ResolveVectorMetric(e, root_alias, parameters, vector_embedding_policy);
    }
    for (const auto& child : e.children) visit(*child, root_alias);
    for (const auto& field : e.fields) visit(*field.second, root_alias);
    if (e.subquery) visit_query(*e.subquery);
  };
  // Document paths are under the top query's FROM alias, in its subqueries too.
  const std::string root_alias = query.from.empty() ? "" : query.from[0].alias;
  visit_query = [&](const SelectQuery& q) {
    for (const auto& source : q.from) visit(*source.collection, root_alias);
    for (const auto& item : q.items) visit(*item.expr, root_alias);
    if (q.where) visit(*q.where, root_alias);
    for (const auto& g : q.group_by) visit(*g, root_alias);
    for (const auto& o : q.order_by) visit(*o.expr, root_alias);
  };
  visit_query(query);
  return metrics;
}

}  // namespace cosmos::query
