#include "query/plan/partition_key_filter.h"

#include <cmath>
#include <optional>
#include <unordered_set>
#include <utility>

#include "query/functions/registry.h"
#include "query/plan/text_util.h"
#include "query/value.h"

namespace cosmos::query {
namespace {

using plan_internal::EqualsIgnoreCase;

// ---- Constant folding -------------------------------------------------------------------------
// Enough of the language to decide predicates without a document: literals, parameters,
// operators and deterministic system functions over them. std::nullopt = not a constant.

class ConstantFolder {
 public:
  explicit ConstantFolder(const Json& parameters) : parameters_(parameters) {}

  std::optional<Value> Fold(const Expr& e) const;

 private:
  std::optional<Value> FoldUnary(const Expr& e) const;
  std::optional<Value> FoldBinary(const Expr& e) const;
  std::optional<Value> FoldCall(const Expr& e) const;

  const Json& parameters_;
};

Value FromBool(std::optional<bool> b) { return b ? Value::Boolean(*b) : Value(); }

std::optional<Value> ConstantFolder::Fold(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::kLiteral:
      return e.literal_undefined ? Value() : Value::FromJson(e.literal);
    case ExprKind::kParameter:
      if (parameters_.is_array()) {
        for (const Json& parameter : parameters_) {
          if (parameter.is_object() && parameter.value("name", "") == e.name) {
            return parameter.contains("value") ? Value::FromJson(parameter["value"]) : Value();
          }
        }
      }
      return std::nullopt;
    case ExprKind::kArrayLiteral: {
      Json array = Json::array();
      for (const ExprPtr& item : e.children) {
        std::optional<Value> v = Fold(*item);
        if (!v) return std::nullopt;
        if (!v->is_undefined()) array.push_back(v->ToJson());
      }
      return Value::FromJson(std::move(array));
    }
    case ExprKind::kObjectLiteral: {
      Json object = Json::object();
      for (const auto& [name, item] : e.fields) {
        std::optional<Value> v = Fold(*item);
        if (!v) return std::nullopt;
        if (!v->is_undefined()) object[name] = v->ToJson();
      }
      return Value::FromJson(std::move(object));
    }
    case ExprKind::kProperty: {
      std::optional<Value> object = Fold(*e.children[0]);
      if (!object) return std::nullopt;
      return object->Property(e.name);
    }
    case ExprKind::kIndex: {
      std::optional<Value> base = Fold(*e.children[0]);
      std::optional<Value> index = Fold(*e.children[1]);
      if (!base || !index) return std::nullopt;
      if (index->is_string()) return base->Property(index->string());
      if (index->is_number()) return base->Element(index->number());
      return Value();
    }
    case ExprKind::kUnary:
      return FoldUnary(e);
    case ExprKind::kBinary:
      return FoldBinary(e);
    case ExprKind::kBetween: {
      std::optional<Value> x = Fold(*e.children[0]);
      std::optional<Value> low = Fold(*e.children[1]);
      std::optional<Value> high = Fold(*e.children[2]);
      if (!x || !low || !high) return std::nullopt;
      std::optional<int> above_low = CompareSameKind(*x, *low);
      std::optional<int> below_high = CompareSameKind(*x, *high);
      if (!above_low || !below_high) return Value();
      bool inside = *above_low >= 0 && *below_high <= 0;
      return Value::Boolean(inside != e.negated);
    }
    case ExprKind::kIn: {
      std::optional<Value> needle = Fold(*e.children[0]);
      if (!needle) return std::nullopt;
      bool found = false;
      for (size_t i = 1; i < e.children.size(); ++i) {
        std::optional<Value> item = Fold(*e.children[i]);
        if (!item) return std::nullopt;
        if (Equals(*needle, *item) == true) found = true;
      }
      if (needle->is_undefined()) return Value();
      return Value::Boolean(found != e.negated);
    }
    case ExprKind::kConditional: {
      std::optional<Value> condition = Fold(*e.children[0]);
      if (!condition) return std::nullopt;
      return Fold(*e.children[IsTrue(*condition) ? 1 : 2]);
    }
    case ExprKind::kCoalesce: {
      std::optional<Value> first = Fold(*e.children[0]);
      if (!first) return std::nullopt;
      return first->is_undefined() ? Fold(*e.children[1]) : first;
    }
    case ExprKind::kFunctionCall:
      return FoldCall(e);
    default:
      return std::nullopt;  // identifiers, LIKE, subqueries
  }
}

std::optional<Value> ConstantFolder::FoldUnary(const Expr& e) const {
  std::optional<Value> operand = Fold(*e.children[0]);
  if (!operand) return std::nullopt;
  switch (e.unary_op) {
    case UnaryOp::kNot:
      return operand->is_boolean() ? Value::Boolean(!operand->boolean()) : Value();
    case UnaryOp::kNegate:
      return operand->is_number() ? Value::Number(-operand->number()) : Value();
    case UnaryOp::kPlus:
      return operand->is_number() ? *operand : Value();
    case UnaryOp::kBitNot:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Value> ConstantFolder::FoldBinary(const Expr& e) const {
  std::optional<Value> left = Fold(*e.children[0]);
  std::optional<Value> right = Fold(*e.children[1]);
  // AND/OR decide on one side alone when it is false/true, whatever the other side is.
  auto is_bool = [](const std::optional<Value>& v, bool b) { return v && v->is_boolean() && v->boolean() == b; };
  if (e.binary_op == BinaryOp::kAnd && (is_bool(left, false) || is_bool(right, false))) {
    return Value::Boolean(false);
  }
  if (e.binary_op == BinaryOp::kOr && (is_bool(left, true) || is_bool(right, true))) {
    return Value::Boolean(true);
  }
  if (!left || !right) return std::nullopt;
  const Value& a = *left;
  const Value& b = *right;
  std::optional<int> order = CompareSameKind(a, b);
  bool numbers = a.is_number() && b.is_number();
  switch (e.binary_op) {
    case BinaryOp::kAnd:
      return (a.is_boolean() && b.is_boolean()) ? Value::Boolean(true) : Value();
    case BinaryOp::kOr:
      return (a.is_boolean() && b.is_boolean()) ? Value::Boolean(false) : Value();
    case BinaryOp::kEq: return FromBool(Equals(a, b));
    case BinaryOp::kNotEq: {
      std::optional<bool> equal = Equals(a, b);
      return equal ? Value::Boolean(!*equal) : Value();
    }
    case BinaryOp::kLt: return order ? Value::Boolean(*order < 0) : Value();
    case BinaryOp::kLtEq: return order ? Value::Boolean(*order <= 0) : Value();
    case BinaryOp::kGt: return order ? Value::Boolean(*order > 0) : Value();
    case BinaryOp::kGtEq: return order ? Value::Boolean(*order >= 0) : Value();
    case BinaryOp::kAdd: return numbers ? Value::Number(a.number() + b.number()) : Value();
    case BinaryOp::kSub: return numbers ? Value::Number(a.number() - b.number()) : Value();
    case BinaryOp::kMul: return numbers ? Value::Number(a.number() * b.number()) : Value();
    case BinaryOp::kDiv: return numbers ? Value::Number(a.number() / b.number()) : Value();
    case BinaryOp::kMod: return numbers ? Value::Number(std::fmod(a.number(), b.number())) : Value();
    case BinaryOp::kConcat:
      return (a.is_string() && b.is_string()) ? Value::String(a.string() + b.string()) : Value();
    default:
      return std::nullopt;  // bitwise operators: never needed to decide a partition key
  }
}

std::optional<Value> ConstantFolder::FoldCall(const Expr& e) const {
  if (e.udf) return std::nullopt;
  // Functions whose result changes from call to call are not constants.
  for (std::string_view volatile_name : {"RAND", "GetCurrentDateTime", "GetCurrentTimestamp", "GetCurrentTicks"}) {
    if (EqualsIgnoreCase(e.name, volatile_name)) return std::nullopt;
  }
  const FunctionDef* function = FunctionRegistry::Instance().Find(e.name);
  if (function == nullptr || function->scalar == nullptr) return std::nullopt;
  int arity = static_cast<int>(e.children.size());
  if (arity < function->min_args || (function->max_args >= 0 && arity > function->max_args)) {
    return std::nullopt;
  }
  std::vector<Value> args;
  for (const ExprPtr& arg : e.children) {
    std::optional<Value> v = Fold(*arg);
    if (!v) return std::nullopt;
    args.push_back(std::move(*v));
  }
  FunctionContext context;
  Value result = function->scalar(args, context);
  if (!context.error.ok()) return std::nullopt;
  return result;
}

// ---- Constraints on the partition key ----------------------------------------------------------

// Values pinned by one alternative of a predicate: one slot per partition-key path, empty when
// that path is not pinned.
using Assignment = std::vector<std::optional<PartitionKeyComponent>>;

// What a predicate says about the partition key of the documents it keeps.
struct Constraint {
  bool unconstrained = true;
  std::vector<Assignment> alternatives;  // when constrained: one must hold; none = contradiction

  static Constraint Any() { return {}; }
  static Constraint Nothing() { return {false, {}}; }
};

// More alternatives than this (an IN list holds at most 16000 items) are not worth tracking:
// the predicate then counts as unconstrained, which is always safe.
constexpr size_t kMaxAlternatives = 20000;

// Collects alternatives in the order they are found, without duplicates.
class AlternativeSet {
 public:
  void Add(Assignment a) {
    std::string key;
    for (const auto& slot : a) {
      key += !slot ? "-" : slot->undefined ? "u" : slot->value.dump();
      key += '\x1f';
    }
    if (seen_.insert(std::move(key)).second) constraint_.alternatives.push_back(std::move(a));
  }
  Constraint Finish() && {
    return constraint_.alternatives.size() > kMaxAlternatives ? Constraint::Any() : std::move(constraint_);
  }

 private:
  Constraint constraint_ = Constraint::Nothing();
  std::unordered_set<std::string> seen_;
};

Constraint Intersect(const Constraint& a, const Constraint& b) {
  if (a.unconstrained) return b;
  if (b.unconstrained) return a;
  if (a.alternatives.size() * b.alternatives.size() > kMaxAlternatives) return Constraint::Any();
  AlternativeSet result;
  for (const Assignment& left : a.alternatives) {
    for (const Assignment& right : b.alternatives) {
      Assignment merged = left;
      bool conflict = false;
      for (size_t i = 0; i < merged.size() && !conflict; ++i) {
        if (!right[i]) continue;
        if (merged[i] && !(*merged[i] == *right[i])) conflict = true;
        merged[i] = right[i];
      }
      if (!conflict) result.Add(std::move(merged));
    }
  }
  return std::move(result).Finish();
}

Constraint Unite(const Constraint& a, const Constraint& b) {
  if (a.unconstrained || b.unconstrained) return Constraint::Any();
  AlternativeSet result;
  for (const Assignment& alternative : a.alternatives) result.Add(alternative);
  for (const Assignment& alternative : b.alternatives) result.Add(alternative);
  return std::move(result).Finish();
}

// The partition-key component a constant compares as.
PartitionKeyComponent ComponentOf(const Value& v) {
  if (v.is_number()) return {Json(v.number() + 0.0), false};  // + 0.0: -0 is the same key as 0
  if (v.is_string() || v.is_boolean() || v.is_null()) return {v.ToJson(), false};
  return {Json(), true};  // arrays, objects (and undefined)
}

class ConstraintFinder {
 public:
  ConstraintFinder(std::string root_alias, const std::vector<std::vector<std::string>>& key_paths,
                   const Json& parameters)
      : root_alias_(std::move(root_alias)), key_paths_(key_paths), folder_(parameters) {}

  Constraint Find(const Expr& predicate) const;

 private:
  // The index of the partition-key path `e` reads (c.a.b, c["a"]), or -1.
  int KeyIndexOf(const Expr& e) const;
  // Documents whose key path `key` equals one of `values`.
  Constraint Points(int key, const std::vector<Value>& values) const;
  Constraint FindEquality(const Expr& left, const Expr& right) const;
  Constraint FindCall(const Expr& call) const;
  Constraint FindLike(const Expr& like) const;

  std::string root_alias_;
  const std::vector<std::vector<std::string>>& key_paths_;
  ConstantFolder folder_;
};

int ConstraintFinder::KeyIndexOf(const Expr& e) const {
  std::vector<std::string> reversed;
  const Expr* node = &e;
  while (true) {
    if (node->kind == ExprKind::kProperty) {
      reversed.push_back(node->name);
    } else if (node->kind == ExprKind::kIndex && node->children[1]->kind == ExprKind::kLiteral &&
               node->children[1]->literal.is_string()) {
      reversed.push_back(node->children[1]->literal.get<std::string>());
    } else {
      break;
    }
    node = node->children[0].get();
  }
  if (node->kind != ExprKind::kIdentifier || node->name != root_alias_ || reversed.empty()) return -1;
  std::vector<std::string> path(reversed.rbegin(), reversed.rend());
  for (size_t i = 0; i < key_paths_.size(); ++i) {
    if (key_paths_[i] == path) return static_cast<int>(i);
  }
  return -1;
}

Constraint ConstraintFinder::Points(int key, const std::vector<Value>& values) const {
  AlternativeSet result;
  for (const Value& v : values) {
    Assignment a(key_paths_.size());
    a[key] = ComponentOf(v);
    result.Add(std::move(a));
  }
  return std::move(result).Finish();
}

Constraint ConstraintFinder::Find(const Expr& predicate) const {
  // WHERE keeps a document only when the predicate is exactly true.
  if (std::optional<Value> constant = folder_.Fold(predicate)) {
    return IsTrue(*constant) ? Constraint::Any() : Constraint::Nothing();
  }
  if (int key = KeyIndexOf(predicate); key >= 0) return Points(key, {Value::Boolean(true)});
  switch (predicate.kind) {
    case ExprKind::kBinary:
      switch (predicate.binary_op) {
        case BinaryOp::kAnd:
          return Intersect(Find(*predicate.children[0]), Find(*predicate.children[1]));
        case BinaryOp::kOr:
          return Unite(Find(*predicate.children[0]), Find(*predicate.children[1]));
        case BinaryOp::kEq:
          return FindEquality(*predicate.children[0], *predicate.children[1]);
        default:
          return Constraint::Any();
      }
    case ExprKind::kUnary:
      if (predicate.unary_op == UnaryOp::kNot) {
        if (int key = KeyIndexOf(*predicate.children[0]); key >= 0) return Points(key, {Value::Boolean(false)});
      }
      return Constraint::Any();
    case ExprKind::kIn: {
      int key = KeyIndexOf(*predicate.children[0]);
      if (key < 0 || predicate.negated) return Constraint::Any();
      std::vector<Value> values;
      for (size_t i = 1; i < predicate.children.size(); ++i) {
        std::optional<Value> v = folder_.Fold(*predicate.children[i]);
        if (!v) return Constraint::Any();
        values.push_back(std::move(*v));
      }
      return Points(key, values);
    }
    case ExprKind::kFunctionCall:
      return FindCall(predicate);
    case ExprKind::kLike:
      return FindLike(predicate);
    default:
      return Constraint::Any();
  }
}

Constraint ConstraintFinder::FindEquality(const Expr& left, const Expr& right) const {
  for (const auto& [path_side, value_side] : {std::pair{&left, &right}, std::pair{&right, &left}}) {
    std::optional<Value> value = folder_.Fold(*value_side);
    if (!value) continue;
    if (value->is_undefined()) return Constraint::Nothing();  // `= undefined` is never true
    if (int key = KeyIndexOf(*path_side); key >= 0) return Points(key, {*value});
    // ABS(k) = n: k is n or -n.
    if (path_side->kind == ExprKind::kFunctionCall && !path_side->udf && EqualsIgnoreCase(path_side->name, "ABS") &&
        path_side->children.size() == 1 && value->is_number() && value->number() >= 0) {
      if (int key = KeyIndexOf(*path_side->children[0]); key >= 0) {
        return Points(key, {Value::Number(-value->number()), *value});
      }
    }
  }
  return Constraint::Any();
}

Constraint ConstraintFinder::FindCall(const Expr& call) const {
  if (call.udf) return Constraint::Any();
  const auto& args = call.children;
  if (args.size() == 1) {
    int key = KeyIndexOf(*args[0]);
    if (key < 0) return Constraint::Any();
    if (EqualsIgnoreCase(call.name, "IS_BOOL")) return Points(key, {Value::Boolean(false), Value::Boolean(true)});
    if (EqualsIgnoreCase(call.name, "IS_NULL")) return Points(key, {Value::Null()});
    return Constraint::Any();
  }
  // ARRAY_CONTAINS(<constant array>, k [, false]): k is one of the elements.
  if ((EqualsIgnoreCase(call.name, "ARRAY_CONTAINS") || EqualsIgnoreCase(call.name, "_TRY_ARRAY_CONTAINS")) &&
      (args.size() == 2 || args.size() == 3)) {
    int key = KeyIndexOf(*args[1]);
    std::optional<Value> array = folder_.Fold(*args[0]);
    if (key < 0 || !array || !array->is_array()) return Constraint::Any();
    if (args.size() == 3) {
      std::optional<Value> partial = folder_.Fold(*args[2]);
      if (!partial || !partial->is_boolean() || partial->boolean()) return Constraint::Any();
    }
    std::vector<Value> values;
    for (size_t i = 0; i < array->size(); ++i) values.push_back(array->At(i));
    return Points(key, values);
  }
  return Constraint::Any();
}

// k LIKE 'text' with no wildcard is k = 'text' (after removing the escape characters).
Constraint ConstraintFinder::FindLike(const Expr& like) const {
  int key = KeyIndexOf(*like.children[0]);
  std::optional<Value> pattern = folder_.Fold(*like.children[1]);
  if (key < 0 || like.negated || !pattern || !pattern->is_string()) return Constraint::Any();
  std::optional<char> escape;
  if (like.children.size() > 2) {
    std::optional<Value> escape_value = folder_.Fold(*like.children[2]);
    if (!escape_value || !escape_value->is_string() || escape_value->string().size() != 1) return Constraint::Any();
    escape = escape_value->string()[0];
  }
  std::string text;
  const std::string& p = pattern->string();
  for (size_t i = 0; i < p.size(); ++i) {
    if (escape && p[i] == *escape && i + 1 < p.size()) {
      text += p[++i];
    } else if (p[i] == '%' || p[i] == '_' || p[i] == '[') {
      return Constraint::Any();
    } else {
      text += p[i];
    }
  }
  return Points(key, {Value::String(text)});
}

Json ComponentJson(const PartitionKeyComponent& component) {
  return component.undefined ? Json::object() : component.value;
}

Json RangeJson(Json min, Json max, bool min_inclusive, bool max_inclusive) {
  return Json{{"min", std::move(min)},
              {"max", std::move(max)},
              {"isMinInclusive", min_inclusive},
              {"isMaxInclusive", max_inclusive}};
}

}  // namespace

std::vector<std::string> SplitPartitionKeyPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    std::string part;
    if (path[i] == '"') {  // "/\"a/b\"": a quoted name may hold any character
      for (++i; i < path.size() && path[i] != '"'; ++i) {
        if (path[i] == '\\' && i + 1 < path.size()) ++i;
        part += path[i];
      }
      ++i;
    } else {
      for (; i < path.size() && path[i] != '/'; ++i) part += path[i];
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

PartitionKeyTargets FindPartitionKeyTargets(const SelectQuery& query, const Json& parameters,
                                            const std::vector<std::string>& partition_key_paths,
                                            bool allow_prefixes) {
  PartitionKeyTargets targets;
  if (query.from.empty()) {
    targets.kind = PartitionKeyTargets::Kind::kNone;
    return targets;
  }
  if (!query.where) return targets;

  // Only a FROM over the container itself lets `alias.path` name the document's partition key.
  const FromSource& root = query.from[0];
  std::string root_alias;
  if (!root.iterate && root.collection && root.collection->kind == ExprKind::kIdentifier) root_alias = root.alias;

  std::vector<std::vector<std::string>> key_paths;
  for (const std::string& path : partition_key_paths) key_paths.push_back(SplitPartitionKeyPath(path));

  Constraint constraint = ConstraintFinder(root_alias, key_paths, parameters).Find(*query.where);
  if (constraint.unconstrained) return targets;
  if (constraint.alternatives.empty()) {
    targets.kind = PartitionKeyTargets::Kind::kNone;
    return targets;
  }
  // A hashed key needs every component: one alternative that leaves a path open reaches everything.
  // A hierarchical key is hashed level by level, so its pinned first levels still narrow it.
  for (const Assignment& alternative : constraint.alternatives) {
    PartitionKeyValue point;
    for (const auto& component : alternative) {
      if (!component) break;
      point.push_back(*component);
    }
    bool complete = point.size() == alternative.size();
    if (!complete && (!allow_prefixes || point.empty())) return PartitionKeyTargets{};
    targets.points.push_back(std::move(point));
  }
  targets.kind = PartitionKeyTargets::Kind::kPoints;
  return targets;
}

Json InternalQueryRanges(const PartitionKeyTargets& targets) {
  Json ranges = Json::array();
  switch (targets.kind) {
    case PartitionKeyTargets::Kind::kAll:
      ranges.push_back(RangeJson(Json::array(), "Infinity", true, false));
      break;
    case PartitionKeyTargets::Kind::kNone:
      ranges.push_back(RangeJson(Json::array(), Json::array(), true, true));
      break;
    case PartitionKeyTargets::Kind::kPoints:
      for (const PartitionKeyValue& point : targets.points) {
        Json value = Json::array();
        for (const PartitionKeyComponent& component : point) value.push_back(ComponentJson(component));
        ranges.push_back(RangeJson(value, value, true, true));
      }
      break;
  }
  return ranges;
}

}  // namespace cosmos::query
