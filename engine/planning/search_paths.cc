#include "engine/planning/search_paths.h"

#include "query/plan/query_plan.h"
#include "query/vector_search.h"

namespace cosmos::engine {

std::optional<VectorOrder> FindVectorOrder(const IndexingPolicy& policy, const query::BoundQuery& bound,
                                           const Json& parameters, const Json& vector_embedding_policy) {
  const query::SelectQuery& q = bound.root();
  const query::SelectInfo& info = bound.info(q);
  if (policy.indexing_disabled() || q.from.size() != 1 || q.order_by.size() != 1 || q.distinct ||
      info.is_grouped() || info.is_aggregate() || info.container_subquery) {
    return std::nullopt;
  }
  const query::OrderByItem& item = q.order_by[0];
  if (!query::IsSimilarityOrder(item)) return std::nullopt;
  const query::Expr& call = *item.expr;
  const std::string& alias = q.from[0].alias;
  // FROM c, not FROM c.sub: the paths are the document's.
  if (q.from[0].collection->kind != query::ExprKind::kIdentifier || call.children.size() < 2) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    const VectorIndexPath* index = policy.search().VectorIndexOn(query::DocumentPolicyPath(*call.children[side], alias));
    if (index == nullptr) continue;
    const query::Expr& other = *call.children[1 - side];
    Json vector;
    if (other.kind == query::ExprKind::kParameter) {
      if (const Json* value = query::FindParameter(parameters, other.name)) vector = *value;
    } else if (other.kind == query::ExprKind::kLiteral) {
      vector = other.literal;
    } else if (other.kind == query::ExprKind::kArrayLiteral) {
      vector = Json::array();
      for (const auto& element : other.children) {
        if (element->kind == query::ExprKind::kLiteral) {
          vector.push_back(element->literal);
        } else if (element->kind == query::ExprKind::kUnary && element->unary_op == query::UnaryOp::kNegate &&
                   element->children[0]->kind == query::ExprKind::kLiteral && element->children[0]->literal.is_number()) {
          vector.push_back(-element->children[0]->literal.get<double>());
        } else {
          return std::nullopt;
        }
      }
    }
    if (!vector.is_array() || vector.size() != index->dimensions) return std::nullopt;
    VectorOrder order{index, {}, query::ResolveVectorMetric(call, alias, parameters, vector_embedding_policy)};
    for (const Json& x : vector) {
      if (!x.is_number()) return std::nullopt;
      order.query.push_back(static_cast<float>(x.get<double>()));
    }
    return order;
  }
  return std::nullopt;
}

}  // namespace cosmos::engine
