#include "query/computed_properties.h"

#include <functional>
#include <set>

#include "query/parser/parser.h"

namespace cosmos::query {
namespace {

constexpr size_t kMaxComputedProperties = 20;

Status Invalid(const std::string& name, const std::string& reason) {
  return Status::BadRequest("The computed property '" + name + "' is invalid: " + reason);
}

ExprPtr Clone(const Expr& expr) {
  auto copy = std::make_unique<Expr>();
  copy->kind = expr.kind;
  copy->span = expr.span;
  copy->literal = expr.literal;
  copy->literal_undefined = expr.literal_undefined;
  copy->name = expr.name;
  copy->unary_op = expr.unary_op;
  copy->binary_op = expr.binary_op;
  copy->negated = expr.negated;
  copy->udf = expr.udf;
  copy->subquery = expr.subquery;  // definitions have none (Parse refuses them)
  for (const ExprPtr& child : expr.children) copy->children.push_back(child ? Clone(*child) : nullptr);
  for (const auto& [field, value] : expr.fields) copy->fields.emplace_back(field, value ? Clone(*value) : nullptr);
  return copy;
}

// Calls `visit` on every expression slot of `query` and of the subqueries below it.
void ForEachExpr(SelectQuery& query, const std::function<void(ExprPtr&)>& visit) {
  std::function<void(ExprPtr&)> walk = [&](ExprPtr& expr) {
    if (!expr) return;
    visit(expr);
    for (ExprPtr& child : expr->children) walk(child);
    for (auto& field : expr->fields) walk(field.second);
    if (expr->subquery) ForEachExpr(*expr->subquery, visit);
  };
  walk(query.top);
  for (SelectItem& item : query.items) walk(item.expr);
  for (FromSource& source : query.from) walk(source.collection);
  walk(query.where);
  for (ExprPtr& key : query.group_by) walk(key);
  for (OrderByItem& item : query.order_by) walk(item.expr);
  walk(query.offset);
  walk(query.limit);
}

// The alias naming the root document: FROM c (or FROM root r), not FROM x IN c.array.
std::string RootAlias(const SelectQuery& query) {
  if (query.from.empty() || query.from[0].iterate || query.from[0].collection->kind != ExprKind::kIdentifier) return "";
  return query.from[0].alias;
}

bool IsRootProperty(const Expr& expr, const std::string& root_alias) {
  return expr.kind == ExprKind::kProperty && expr.children.size() == 1 && expr.children[0] &&
         expr.children[0]->kind == ExprKind::kIdentifier && expr.children[0]->name == root_alias;
}

Status CheckDefinition(const std::string& name, SelectQuery& query, const std::set<std::string>& names) {
  if (!query.select_value || query.items.size() != 1) return Invalid(name, "its query must be SELECT VALUE <expression>.");
  if (query.from.size() != 1 || RootAlias(query).empty()) {
    return Invalid(name, "its query must read one FROM alias (FROM c), without JOIN.");
  }
  if (query.where || !query.group_by.empty() || !query.order_by.empty() || query.top || query.distinct ||
      query.offset || query.limit) {
    return Invalid(name, "its query cannot have WHERE, GROUP BY, ORDER BY, TOP, DISTINCT or OFFSET LIMIT.");
  }
  std::string root_alias = RootAlias(query);
  Status status;
  ForEachExpr(query, [&](ExprPtr& expr) {
    if (!status.ok()) return;
    if (expr->subquery) status = Invalid(name, "its query cannot contain a subquery.");
    if (expr->kind == ExprKind::kFunctionCall && expr->udf) status = Invalid(name, "its query cannot call a UDF.");
    if (IsRootProperty(*expr, root_alias) && names.count(expr->name)) {
      status = Invalid(name, "its query cannot name another computed property ('" + expr->name + "').");
    }
  });
  return status;
}

}  // namespace

Result<std::shared_ptr<const ComputedProperties>> ComputedProperties::Parse(const Json& definitions) {
  auto computed = std::make_shared<ComputedProperties>();
  if (definitions.is_null()) return std::shared_ptr<const ComputedProperties>(computed);
  if (!definitions.is_array()) return Status::BadRequest("computedProperties must be an array.");
  if (definitions.size() > kMaxComputedProperties) {
    return Status::BadRequest("A container can have at most 20 computed properties.");
  }
  static const std::set<std::string> kSystemProperties = {"id", "_rid", "_ts", "_etag", "_self", "_attachments", "_lsn"};
  std::set<std::string> names;
  for (const Json& definition : definitions) {
    if (!definition.is_object() || !definition.value("name", Json()).is_string() ||
        !definition.value("query", Json()).is_string()) {
      return Status::BadRequest("Each computed property needs a string name and a string query.");
    }
    std::string name = definition["name"].get<std::string>();
    if (name.empty() || name.find('/') != std::string::npos || kSystemProperties.count(name)) {
      return Invalid(name, "the name must be non-empty, without '/', and not a system property.");
    }
    if (!names.insert(name).second) return Invalid(name, "the name is used twice.");
  }
  for (const Json& definition : definitions) {
    std::string name = definition["name"].get<std::string>();
    Result<std::shared_ptr<const SelectQuery>> parsed = ParseQuery(definition["query"].get<std::string>());
    if (!parsed.ok()) return Invalid(name, "its query does not parse: " + parsed.status().message());
    COSMOS_RETURN_IF_ERROR(CheckDefinition(name, const_cast<SelectQuery&>(**parsed), names));
    computed->properties_.push_back({name, std::move(*parsed)});
  }
  computed->signature_ = definitions.dump();
  return std::shared_ptr<const ComputedProperties>(computed);
}

void ComputedProperties::Expand(SelectQuery& query) const {
  std::string root_alias = RootAlias(query);
  if (properties_.empty() || root_alias.empty()) return;
  // A projected computed property keeps its name (SELECT c.cp_lower gives "cp_lower"), which the
  // expansion alone would lose.
  auto name_items = [&](SelectQuery& select) {
    for (SelectItem& item : select.items) {
      if (!item.alias.empty() || !item.expr || !IsRootProperty(*item.expr, root_alias)) continue;
      for (const Property& property : properties_) {
        if (property.name == item.expr->name) item.alias = property.name;
      }
    }
  };
  name_items(query);
  ForEachExpr(query, [&](ExprPtr& expr) {
    if (expr->subquery) name_items(*expr->subquery);
  });
  ForEachExpr(query, [&](ExprPtr& expr) {
    if (!IsRootProperty(*expr, root_alias)) return;
    for (const Property& property : properties_) {
      if (property.name != expr->name) continue;
      const std::string definition_alias = RootAlias(*property.definition);
      ExprPtr expansion = Clone(*property.definition->items[0].expr);
      std::function<void(Expr&)> rename = [&](Expr& node) {
        if (node.kind == ExprKind::kIdentifier && node.name == definition_alias) node.name = root_alias;
        for (ExprPtr& child : node.children) if (child) rename(*child);
        for (auto& field : node.fields) if (field.second) rename(*field.second);
      };
      rename(*expansion);
      expansion->span = expr->span;
      expansion->computed_property = root_alias + "." + property.name;
      expr = std::move(expansion);
      return;
    }
  });
}

}  // namespace cosmos::query
