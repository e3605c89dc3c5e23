#include "query/binder.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "query/functions/registry.h"
#include "query/query_error.h"
#include "query/vector_search.h"

namespace cosmos::query {
namespace {

constexpr double kMaxCount = 4294967295.0;  // TOP/OFFSET/LIMIT are unsigned 32-bit counts

bool SameExpr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.name != b.name || a.negated != b.negated || a.udf != b.udf) return false;
  if (a.kind == ExprKind::kLiteral && (a.literal_undefined != b.literal_undefined || a.literal != b.literal)) return false;
  if (a.kind == ExprKind::kUnary && a.unary_op != b.unary_op) return false;
  if (a.kind == ExprKind::kBinary && a.binary_op != b.binary_op) return false;
  if (a.children.size() != b.children.size() || a.fields.size() != b.fields.size()) return false;
  for (size_t i = 0; i < a.children.size(); ++i)
    if (!SameExpr(*a.children[i], *b.children[i])) return false;
  for (size_t i = 0; i < a.fields.size(); ++i)
    if (a.fields[i].first != b.fields[i].first || !SameExpr(*a.fields[i].second, *b.fields[i].second)) return false;
  if (a.subquery || b.subquery) return false;  // subqueries never count as the same grouped expression
  return true;
}

SourceSpan NameSpan(const Expr& call) {
  return {call.span.start, call.span.start + static_cast<int>(call.name.size()) + (call.udf ? 4 : 0)};
}

std::string ArityText(const FunctionDef& f) {
  if (f.max_args < 0) return std::to_string(f.min_args) + " or more";
  if (f.min_args == f.max_args) return std::to_string(f.min_args);
  if (f.max_args == f.min_args + 1) return std::to_string(f.min_args) + " or " + std::to_string(f.max_args);
  return std::to_string(f.min_args) + " to " + std::to_string(f.max_args);
}

// Where an expression sits decides whether aggregates may appear in it.
enum class Clause { kSelect, kOther };

class Binder {
 public:
  Binder(std::string_view text, std::unordered_map<const SelectQuery*, SelectInfo>& infos)
      : text_(text), infos_(infos) {}

  // `scope` holds the aliases of enclosing queries, by slot. `container_rooted`: the first FROM
  // source reads the container (the top-level query, and a subquery that is its first source).
  Status BindSelect(SelectQuery& q, std::vector<std::string>& scope, bool top_level, bool container_rooted) {
    SelectInfo info;
    size_t outer_size = scope.size();
    if (top_level) scope.push_back("");  // slot 0: the document itself, not nameable
    info.first_slot = static_cast<int>(scope.size());

    for (size_t i = 0; i < q.from.size(); ++i) {
      FromSource& source = q.from[i];
      Expr& collection = *source.collection;
      if (i == 0 && container_rooted && collection.kind == ExprKind::kScalarSubquery) {
        // FROM (SELECT ... FROM c) x: the subquery runs over the whole container.
        info.container_subquery = true;
        COSMOS_RETURN_IF_ERROR(
            BindSelect(const_cast<SelectQuery&>(*collection.subquery), scope, /*top_level=*/false, /*container_rooted=*/true));
      } else if (i == 0 && container_rooted) {
        // The first source is rooted at the container, whatever name the query gives it.
        Expr* root = &collection;
        while (root->kind == ExprKind::kProperty || root->kind == ExprKind::kIndex) {
          if (root->kind == ExprKind::kIndex) COSMOS_RETURN_IF_ERROR(BindExpr(*root->children[1], scope, Clause::kOther, nullptr));
          root = root->children[0].get();
        }
        if (root->kind != ExprKind::kIdentifier) {
          return QueryError("SC1001", "Syntax error, incorrect syntax near the FROM source.", source.span);
        }
        root->slot = 0;
      } else {
        COSMOS_RETURN_IF_ERROR(BindExpr(collection, scope, Clause::kOther, nullptr));
      }
      for (size_t j = 0; j < i; ++j) {
        if (!source.alias.empty() && q.from[j].alias == source.alias) {
          return QueryError("SC2002", "The input set name or alias '" + source.alias +
                                          "' is specified more than once in the FROM clause.", source.span);
        }
      }
      scope.push_back(source.alias);
    }
    info.slot_count = static_cast<int>(scope.size());

    if (q.where) COSMOS_RETURN_IF_ERROR(BindExpr(*q.where, scope, Clause::kOther, nullptr));
    for (auto& g : q.group_by) COSMOS_RETURN_IF_ERROR(BindExpr(*g, scope, Clause::kOther, nullptr));
    for (auto& item : q.items) COSMOS_RETURN_IF_ERROR(BindExpr(*item.expr, scope, Clause::kSelect, &info));
    for (auto& o : q.order_by) {
      if (IsSystemCall(*o.expr, "RANK")) {
        COSMOS_RETURN_IF_ERROR(BindRank(q, o, scope));
        continue;
      }
      COSMOS_RETURN_IF_ERROR(BindExpr(*o.expr, scope, Clause::kOther, nullptr));
      // ORDER BY VectorDistance(...) is vector search: most similar first (vector_search.h).
      // ORDER BY a score (VectorDistance, and the internal forms of a hybrid plan's components).
      if (!IsDocumentPath(*o.expr) && o.expr->computed_property.empty() && !IsSystemCall(*o.expr, "VectorDistance") &&
          !IsSystemCall(*o.expr, "_VectorScore") && !IsSystemCall(*o.expr, "_FullTextScore")) {
        return QueryErrorWithoutLocation(
            "2206", "Unsupported ORDER BY clause. ORDER BY item expression could not be mapped to a document path.");
      }
    }
    COSMOS_RETURN_IF_ERROR(CheckCount(q.top.get(), "SC2060", "The count value provided for a TOP clause must be an integer."));
    COSMOS_RETURN_IF_ERROR(CheckCount(q.offset.get(), "SC2062", "The OFFSET count value exceeds the maximum allowed value."));
    COSMOS_RETURN_IF_ERROR(CheckCount(q.limit.get(), "SC2061", "The LIMIT count value exceeds the maximum allowed value."));

    if (q.select_star && q.from.size() > 1) {
      return QueryError("SC2040", "'SELECT *' is only valid with a single input set.", StarSpan(q));
    }
    if (q.select_star && q.from.empty()) {
      return QueryError("SC2040", "'SELECT *' is not valid if FROM clause is omitted.", StarSpan(q));
    }
    if (!q.group_by.empty()) {
      info.is_grouped_query = true;
      if (q.select_star) return QueryError("SC2041", "'SELECT *' is not allowed with GROUP BY.", StarSpan(q));
      if (!q.order_by.empty()) {
        // Documented: "You can't use GROUP BY with an ORDER BY clause."
        return QueryError("SC2104", "'ORDER BY' is not supported in presence of GROUP BY.", q.order_by[0].expr->span);
      }
      for (auto& item : q.items) COSMOS_RETURN_IF_ERROR(CheckGrouped(*item.expr, q));
    }
    if (info.is_aggregate() && q.group_by.empty()) {
      // Without GROUP BY an aggregate makes one group of everything: plain properties have no value.
      for (auto& item : q.items) COSMOS_RETURN_IF_ERROR(CheckGrouped(*item.expr, q));
    }
    if (!q.select_value) info.output_names = OutputNames(q);
    infos_[&q] = std::move(info);
    scope.resize(outer_size);
    return Status();
  }

 private:
  // ORDER BY RANK score: score is FullTextScore(...), VectorDistance(...) or RRF(score, score, ...
  // [, weights]); it is the only ORDER BY item, without a direction. RANK and RRF are no functions
  // of their own: the select runner combines their scores (query/full_text_search.h). The
  // service's messages.
  Status BindRank(const SelectQuery& q, const OrderByItem& item, std::vector<std::string>& scope) {
    constexpr std::string_view kNotScoring =
        "The ORDER BY RANK clause must be followed by a VectorDistance and/or a FullTextScore function call.";
    Expr& rank = *item.expr;
    if (q.order_by.size() != 1 || rank.children.size() != 1) return QueryError("SC2221", kNotScoring, rank.span);
    if (item.explicit_direction) {
      // The message is the service's; its code is not documented, so none is given.
      return Status::BadRequest("Specifying a sort order (ASC or DESC) in the ORDER BY RANK clause is not allowed.");
    }
    if (q.distinct) {
      return Status::BadRequest("The DISTINCT keyword is not allowed with the ORDER BY RANK clause.");
    }
    Expr& score = *rank.children[0];
    auto bind_scoring_call = [&](Expr& call) -> Status {
      if (!IsSystemCall(call, "FullTextScore") && !IsSystemCall(call, "VectorDistance")) {
        return QueryError("SC2221", kNotScoring, call.span);
      }
      if (IsSystemCall(call, "FullTextScore")) {
        for (size_t i = 1; i < call.children.size(); ++i) {
          if (!IsSearchTerms(*call.children[i])) {
            return Status::BadRequest("The second through last arguments of the FullTextScore function must be string literals.");
          }
        }
      }
      ranking_ = true;
      Status bound = BindExpr(call, scope, Clause::kOther, nullptr);
      ranking_ = false;
      return bound;
    };
    if (!IsSystemCall(score, "RRF")) return bind_scoring_call(score);
    size_t scores = 0;
    for (size_t i = 0; i < score.children.size(); ++i) {
      Expr& argument = *score.children[i];
      if (i + 1 == score.children.size() && argument.kind == ExprKind::kArrayLiteral) {
        if (!IsNumberArray(argument) || argument.children.size() != scores) {
          return QueryError("SC2229",
                            "The last parameter of the RRF function is an optional array of weights. When present, it "
                            "must be a literal array of numbers, one for each of the component scores used for the "
                            "RRF function. The length of this array must be the same as the number of the component "
                            "scores.",
                            argument.span);
        }
        COSMOS_RETURN_IF_ERROR(BindExpr(argument, scope, Clause::kOther, nullptr));
        continue;
      }
      COSMOS_RETURN_IF_ERROR(bind_scoring_call(argument));
      ++scores;
    }
    if (scores < 2) return QueryError("SC2221", kNotScoring, score.span);
    return Status();
  }

  // What FullTextScore searches for: a string literal, a parameter, or (the older form) an array
  // literal of strings.
  static bool IsSearchTerms(const Expr& e) {
    if (e.kind == ExprKind::kParameter) return true;
    if (e.kind == ExprKind::kLiteral) return e.literal.is_string();
    return e.kind == ExprKind::kArrayLiteral && !e.children.empty() &&
           std::all_of(e.children.begin(), e.children.end(), [](const ExprPtr& element) {
             return element->kind == ExprKind::kLiteral && element->literal.is_string();
           });
  }

  // [1, -0.5, ...]: numbers written as literals (a minus sign included).
  static bool IsNumberArray(const Expr& array) {
    return std::all_of(array.children.begin(), array.children.end(), [](const ExprPtr& element) {
      const Expr* number = element.get();
      if (number->kind == ExprKind::kUnary && number->unary_op != UnaryOp::kNot && number->unary_op != UnaryOp::kBitNot) {
        number = number->children[0].get();
      }
      return number->kind == ExprKind::kLiteral && number->literal.is_number();
    });
  }

  Status BindExpr(Expr& e, std::vector<std::string>& scope, Clause clause, SelectInfo* select_info,
                  bool inside_aggregate = false) {
    switch (e.kind) {
      case ExprKind::kIdentifier: {
        for (int i = static_cast<int>(scope.size()) - 1; i >= 0; --i) {
          if (scope[i] == e.name) {
            e.slot = i;
            return Status();
          }
        }
        if (e.name == "NaN" || e.name == "Infinity") {
          // The documented ToString example uses NaN and Infinity as number literals.
          e.kind = ExprKind::kLiteral;
          e.literal = e.name == "NaN" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
          return Status();
        }
        return QueryError("SC2001", "Identifier '" + e.name + "' could not be resolved.", e.span);
      }
      case ExprKind::kFunctionCall: {
        if (e.udf) {  // the container's UDFs are known when the query runs (UserFunctions)
          if (std::find(user_functions_.begin(), user_functions_.end(), e.name) == user_functions_.end()) {
            user_functions_.push_back(e.name);
          }
          break;
        }
        if (IsSystemCall(e, "FullTextScore") && !ranking_) {
          return QueryError("SC2240", "The FullTextScore function is only allowed in the ORDER BY RANK clause.", e.span);
        }
        const FunctionDef* f = FunctionRegistry::Instance().Find(e.name);
        if (f == nullptr) {
          return QueryError("SC2005", "'" + e.name + "' is not a recognized built-in function name.", NameSpan(e));
        }
        int n = static_cast<int>(e.children.size());
        if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
          return QueryError("SC2050", "The " + e.name + " function requires " + ArityText(*f) + " argument(s).", e.span);
        }
        e.function = f;
        if (f->is_aggregate()) {
          if (inside_aggregate) {
            return QueryError("SC2101",
                              "Cannot perform an aggregate function on an expression containing an aggregate or a subquery.",
                              outer_aggregate_span_);
          }
          if (clause != Clause::kSelect || select_info == nullptr) {
            return QueryError("SC2102", "Aggregate functions are only allowed in the select list.", e.span);
          }
          e.slot = static_cast<int>(select_info->aggregates.size());
          select_info->aggregates.push_back(&e);
          outer_aggregate_span_ = e.span;
          for (auto& c : e.children) COSMOS_RETURN_IF_ERROR(BindExpr(*c, scope, clause, select_info, true));
          return Status();
        }
        break;
      }
      case ExprKind::kScalarSubquery:
      case ExprKind::kExists:
      case ExprKind::kArraySubquery: {
        if (inside_aggregate) {
          return QueryError("SC2101",
                            "Cannot perform an aggregate function on an expression containing an aggregate or a subquery.",
                            outer_aggregate_span_);
        }
        return BindSelect(const_cast<SelectQuery&>(*e.subquery), scope, /*top_level=*/false, /*container_rooted=*/false);
      }
      default: break;
    }
    for (auto& c : e.children) COSMOS_RETURN_IF_ERROR(BindExpr(*c, scope, clause, select_info, inside_aggregate));
    for (auto& f : e.fields) COSMOS_RETURN_IF_ERROR(BindExpr(*f.second, scope, clause, select_info, inside_aggregate));
    return Status();
  }

  Status CheckCount(const Expr* e, std::string_view code, std::string_view message) {
    if (e == nullptr || e->kind != ExprKind::kLiteral) return Status();  // parameters: checked when run
    if (!e->literal.is_number() || e->literal.get<double>() < 0 || e->literal.get<double>() > kMaxCount ||
        std::trunc(e->literal.get<double>()) != e->literal.get<double>()) {
      return QueryError(code, message, e->span);
    }
    return Status();
  }

  // With GROUP BY, a select item may use grouped expressions, aggregates and constants only.
  Status CheckGrouped(const Expr& e, const SelectQuery& q) {
    for (const auto& g : q.group_by)
      if (SameExpr(e, *g)) return Status();
    if (e.kind == ExprKind::kFunctionCall && e.function != nullptr && e.function->is_aggregate()) return Status();
    if (e.kind == ExprKind::kIdentifier || IsDocumentPath(e)) {
      // A property of a grouped expression is fine (c.team.name when grouping by c.team).
      for (const Expr* prefix = &e; prefix->kind == ExprKind::kProperty || prefix->kind == ExprKind::kIndex;) {
        prefix = prefix->children[0].get();
        for (const auto& g : q.group_by)
          if (SameExpr(*prefix, *g)) return Status();
      }
      return QueryError("SC2102",
                        "Property reference '" + PathText(e) +
                            "' is invalid in the select list because it is not contained in either an aggregate "
                            "function or the GROUP BY clause.",
                        e.span);
    }
    if (e.subquery) return Status();
    for (const auto& c : e.children) COSMOS_RETURN_IF_ERROR(CheckGrouped(*c, q));
    for (const auto& f : e.fields) COSMOS_RETURN_IF_ERROR(CheckGrouped(*f.second, q));
    return Status();
  }

  // The position of `*` in `SELECT [DISTINCT] [TOP n] *`, for error locations.
  SourceSpan StarSpan(const SelectQuery& q) const {
    size_t from = static_cast<size_t>(q.span.start);
    size_t star = text_.find('*', from);
    if (star == std::string_view::npos) return q.span;
    return {static_cast<int>(star), static_cast<int>(star) + 1};
  }

  std::string_view text_;
  std::unordered_map<const SelectQuery*, SelectInfo>& infos_;

 public:
  // The names of the udf.name(...) calls met, once each.
  std::vector<std::string> user_functions_;
  SourceSpan outer_aggregate_span_;
  bool ranking_ = false;  // binding a score of ORDER BY RANK
};

// Finds which top-level properties of the document a query reads. The document is slot 0, and
// also slot 1 when the first source is the container itself (FROM c).
class DocumentUseCollector {
 public:
  explicit DocumentUseCollector(const SelectQuery& root) {
    const FromSource* first = root.from.empty() ? nullptr : &root.from[0];
    alias_is_document_ = first != nullptr && !first->iterate && first->collection->kind == ExprKind::kIdentifier;
  }

  void Query(const SelectQuery& q, bool skip_where = false, bool skip_order_by = false) {
    for (const auto& source : q.from) {
      // `FROM c` names the container; it reads no property by itself.
      if (&source == &q.from[0] && alias_is_document_ && source.collection->slot == 0) continue;
      Visit(*source.collection, nullptr);
    }
    for (const auto& item : q.items) Visit(*item.expr, nullptr);
    if (q.select_star) whole_ = true;  // SELECT * returns the first source, often the document
    if (q.where && !skip_where) Visit(*q.where, nullptr);
    for (const auto& g : q.group_by) Visit(*g, nullptr);
    if (!skip_order_by) {
      for (const auto& o : q.order_by) Visit(*o.expr, nullptr);
    }
    for (const Expr* e : {q.top.get(), q.offset.get(), q.limit.get()})
      if (e) Visit(*e, nullptr);
  }

  std::optional<std::vector<std::string>> Result() const {
    if (whole_) return std::nullopt;
    return properties_;
  }

 private:
  void Visit(const Expr& e, const Expr* parent) {
    if (e.kind == ExprKind::kIdentifier && (e.slot == 0 || (e.slot == 1 && alias_is_document_))) {
      const std::string* name = nullptr;
      if (parent && parent->kind == ExprKind::kProperty) name = &parent->name;
      if (parent && parent->kind == ExprKind::kIndex && parent->children[0].get() == &e &&
          parent->children[1]->kind == ExprKind::kLiteral && parent->children[1]->literal.is_string()) {
        name = &parent->children[1]->literal.get_ref<const std::string&>();
      }
      if (name == nullptr) {
        whole_ = true;
      } else if (std::find(properties_.begin(), properties_.end(), *name) == properties_.end()) {
        properties_.push_back(*name);
      }
    }
    for (const auto& c : e.children) Visit(*c, &e);
    for (const auto& f : e.fields) Visit(*f.second, &e);
    if (e.subquery) Query(*e.subquery);
  }

  bool alias_is_document_ = false;
  bool whole_ = false;
  std::vector<std::string> properties_;
};

}  // namespace

bool IsDocumentPath(const Expr& e) {
  const Expr* node = &e;
  while (node->kind == ExprKind::kProperty || node->kind == ExprKind::kIndex) {
    if (node->kind == ExprKind::kIndex) {
      const Expr& index = *node->children[1];
      if (index.kind != ExprKind::kLiteral || !(index.literal.is_string() || index.literal.is_number())) return false;
    }
    node = node->children[0].get();
  }
  return node->kind == ExprKind::kIdentifier && node != &e;
}

std::optional<std::vector<std::string>> DocumentPathSteps(const Expr& e, std::string_view alias) {
  if (!IsDocumentPath(e)) return std::nullopt;
  std::vector<std::string> steps;
  const Expr* node = &e;
  for (; node->kind != ExprKind::kIdentifier; node = node->children[0].get()) {
    if (node->kind == ExprKind::kProperty) {
      steps.push_back(node->name);
    } else {
      const Json& index = node->children[1]->literal;
      steps.push_back(index.is_string() ? index.get<std::string>() : "[]");
    }
  }
  if (node->name != alias) return std::nullopt;
  return std::vector<std::string>(steps.rbegin(), steps.rend());
}

std::string DocumentPolicyPath(const Expr& e, std::string_view alias) {
  std::string path;
  if (auto steps = DocumentPathSteps(e, alias)) {
    for (const std::string& step : *steps) {
      path += '/';
      path += step;
    }
  }
  return path;
}

void ForEachExpression(const SelectQuery& query, const std::function<void(const Expr&, std::string_view)>& visit_expr) {
  const std::string root_alias = query.from.empty() ? "" : query.from[0].alias;
  std::function<void(const SelectQuery&)> visit_query;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    visit_expr(e, root_alias);
    for (const auto& child : e.children) visit(*child);
    for (const auto& field : e.fields) visit(*field.second);
    if (e.subquery) visit_query(*e.subquery);
  };
  visit_query = [&](const SelectQuery& q) {
    for (const auto& source : q.from) visit(*source.collection);
    for (const auto& item : q.items) visit(*item.expr);
    if (q.where) visit(*q.where);
    for (const auto& g : q.group_by) visit(*g);
    for (const auto& o : q.order_by) visit(*o.expr);
  };
  visit_query(query);
}

std::string PathText(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kIdentifier: return e.name;
    case ExprKind::kProperty: return PathText(*e.children[0]) + "." + e.name;
    case ExprKind::kIndex: {
      const Expr& index = *e.children[1];
      std::string inner = index.kind == ExprKind::kLiteral ? index.literal.dump() : "...";
      return PathText(*e.children[0]) + "[" + inner + "]";
    }
    default: return "...";
  }
}

std::vector<std::string> OutputNames(const SelectQuery& q) {
  std::vector<std::string> names;
  int unnamed = 0;
  for (const auto& item : q.items) {
    const Expr& e = *item.expr;
    if (!item.alias.empty()) {
      names.push_back(item.alias);
    } else if (e.kind == ExprKind::kProperty || e.kind == ExprKind::kIdentifier) {
      names.push_back(e.name);
    } else if (e.kind == ExprKind::kIndex && e.children[1]->kind == ExprKind::kLiteral &&
               e.children[1]->literal.is_string()) {
      names.push_back(e.children[1]->literal.get<std::string>());
    } else {
      std::string name(1, '$');  // built in two steps: g++ 12 misreports "$" + string (-Wrestrict)
      name += std::to_string(++unnamed);
      names.push_back(std::move(name));
    }
  }
  return names;
}

Result<BoundQuery> Bind(std::shared_ptr<const SelectQuery> parsed, std::string_view text) {
  BoundQuery bound;
  // Bind runs on a tree nobody else sees yet: the parser's fresh result.
  auto& query = const_cast<SelectQuery&>(*parsed);
  Binder binder(text, bound.infos_);
  std::vector<std::string> scope;
  COSMOS_RETURN_IF_ERROR(binder.BindSelect(query, scope, /*top_level=*/true, /*container_rooted=*/true));
  const SelectInfo& info = bound.infos_.at(&query);
  bound.streaming_ = query.order_by.empty() && !info.is_grouped() && !info.is_aggregate() && !query.distinct &&
                     !info.container_subquery;
  if (!info.container_subquery) {  // a container subquery reuses slot 1 for its own rows
    DocumentUseCollector collector(query);
    collector.Query(query);
    bound.document_properties_ = collector.Result();
    DocumentUseCollector outside_where(query);
    outside_where.Query(query, /*skip_where=*/true);
    bound.properties_outside_where_ = outside_where.Result();
    DocumentUseCollector outside_order_by(query);
    outside_order_by.Query(query, /*skip_where=*/false, /*skip_order_by=*/true);
    bound.properties_outside_order_by_ = outside_order_by.Result();
  }
  bound.user_functions_ = std::move(binder.user_functions_);
  bound.root_ = std::move(parsed);
  return bound;
}

}  // namespace cosmos::query
