#include "query/plan/index_filter.h"

#include <algorithm>
#include <cctype>

#include "query/binder.h"

namespace cosmos::query {
namespace {

// A literal or a parameter with a scalar value (what an index holds); nullopt otherwise.
std::optional<Json> ConstantOf(const Expr& e, const Json& parameters) {
  const Json* value = nullptr;
  if (e.kind == ExprKind::kLiteral && !e.literal_undefined) {
    value = &e.literal;
  } else if (e.kind == ExprKind::kParameter && parameters.is_array()) {
    for (const Json& parameter : parameters) {
      if (parameter.is_object() && parameter.value("name", "") == e.name && parameter.contains("value")) {
        value = &parameter["value"];
      }
    }
  }
  if (value == nullptr || value->is_array() || value->is_object()) return std::nullopt;
  return *value;
}

std::string UpperName(const std::string& name) {
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

class PredicateFinder {
 public:
  PredicateFinder(std::string alias, const Json& parameters) : alias_(std::move(alias)), parameters_(parameters) {}

  // Adds the predicates of the conjuncts of `e` to `out`; false when a conjunct is none.
  bool Collect(const Expr& e, std::vector<IndexPredicate>& out) const {
    if (e.kind == ExprKind::kBinary && e.binary_op == BinaryOp::kAnd) {
      bool left = Collect(*e.children[0], out);
      bool right = Collect(*e.children[1], out);
      return left && right;
    }
    std::optional<IndexPredicate> predicate = Find(e);
    if (!predicate) return false;
    out.push_back(std::move(*predicate));
    return true;
  }

 private:
  std::optional<std::vector<std::string>> PathOf(const Expr& e) const { return DocumentPathSteps(e, alias_); }

  std::optional<IndexPredicate> Find(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::kBinary: return FindComparison(e);
      case ExprKind::kIn: return FindIn(e);
      case ExprKind::kBetween: return FindBetween(e);
      case ExprKind::kFunctionCall: return UpperName(e.name) == "STARTSWITH" ? FindStartsWith(e) : FindFullText(e);
      default: return std::nullopt;
    }
  }

  std::optional<IndexPredicate> FindComparison(const Expr& e) const {
    BinaryOp op = e.binary_op;
    if (op != BinaryOp::kEq && op != BinaryOp::kLt && op != BinaryOp::kLtEq && op != BinaryOp::kGt &&
        op != BinaryOp::kGtEq) {
      return std::nullopt;
    }
    std::optional<std::vector<std::string>> path = PathOf(*e.children[0]);
    std::optional<Json> constant = ConstantOf(*e.children[1], parameters_);
    if (!path || !constant) {
      // constant op path: mirror the comparison.
      path = PathOf(*e.children[1]);
      constant = ConstantOf(*e.children[0], parameters_);
      if (!path || !constant) return std::nullopt;
      if (op == BinaryOp::kLt) op = BinaryOp::kGt;
      else if (op == BinaryOp::kLtEq) op = BinaryOp::kGtEq;
      else if (op == BinaryOp::kGt) op = BinaryOp::kLt;
      else if (op == BinaryOp::kGtEq) op = BinaryOp::kLtEq;
    }
    IndexPredicate predicate;
    predicate.path = std::move(*path);
    if (op == BinaryOp::kEq) {
      predicate.values.push_back(std::move(*constant));
      return predicate;
    }
    // Only numbers and strings order; other types compare to undefined with < and >.
    if (!constant->is_number() && !constant->is_string()) return std::nullopt;
    predicate.kind = IndexPredicate::Kind::kRange;
    if (op == BinaryOp::kGt || op == BinaryOp::kGtEq) {
      predicate.lower = std::move(*constant);
      predicate.lower_inclusive = op == BinaryOp::kGtEq;
    } else {
      predicate.upper = std::move(*constant);
      predicate.upper_inclusive = op == BinaryOp::kLtEq;
    }
    return predicate;
  }

  std::optional<IndexPredicate> FindIn(const Expr& e) const {
    if (e.negated) return std::nullopt;
    std::optional<std::vector<std::string>> path = PathOf(*e.children[0]);
    if (!path) return std::nullopt;
    IndexPredicate predicate;
    predicate.path = std::move(*path);
    for (size_t i = 1; i < e.children.size(); ++i) {
      std::optional<Json> constant = ConstantOf(*e.children[i], parameters_);
      if (!constant) return std::nullopt;
      predicate.values.push_back(std::move(*constant));
    }
    return predicate;
  }

  std::optional<IndexPredicate> FindBetween(const Expr& e) const {
    if (e.negated) return std::nullopt;
    std::optional<std::vector<std::string>> path = PathOf(*e.children[0]);
    std::optional<Json> low = ConstantOf(*e.children[1], parameters_);
    std::optional<Json> high = ConstantOf(*e.children[2], parameters_);
    if (!path || !low || !high) return std::nullopt;
    bool both_numbers = low->is_number() && high->is_number();
    bool both_strings = low->is_string() && high->is_string();
    if (!both_numbers && !both_strings) return std::nullopt;
    IndexPredicate predicate;
    predicate.kind = IndexPredicate::Kind::kRange;
    predicate.path = std::move(*path);
    predicate.lower = std::move(*low);
    predicate.lower_inclusive = true;
    predicate.upper = std::move(*high);
    predicate.upper_inclusive = true;
    return predicate;
  }

  // STARTSWITH(path, "prefix") or STARTSWITH(path, "prefix", false): case-sensitive only.
  std::optional<IndexPredicate> FindStartsWith(const Expr& e) const {
    if (e.udf || UpperName(e.name) != "STARTSWITH" || e.children.size() < 2 || e.children.size() > 3) {
      return std::nullopt;
    }
    if (e.children.size() == 3) {
      std::optional<Json> ignore_case = ConstantOf(*e.children[2], parameters_);
      if (!ignore_case || *ignore_case != Json(false)) return std::nullopt;
    }
    std::optional<std::vector<std::string>> path = PathOf(*e.children[0]);
    std::optional<Json> prefix = ConstantOf(*e.children[1], parameters_);
    if (!path || !prefix || !prefix->is_string()) return std::nullopt;
    IndexPredicate predicate;
    predicate.kind = IndexPredicate::Kind::kPrefix;
    predicate.path = std::move(*path);
    predicate.prefix = prefix->get<std::string>();
    return predicate;
  }

  // FullTextContains(path, "phrase") or FullTextContainsAll(path, "phrase", ...): string phrases
  // (a fuzzy search, an object, names no term the index can look up).
  std::optional<IndexPredicate> FindFullText(const Expr& e) const {
    const std::string name = UpperName(e.name);
    if (e.udf || (name != "FULLTEXTCONTAINS" && name != "FULLTEXTCONTAINSALL") || e.children.size() < 2) {
      return std::nullopt;
    }
    std::optional<std::vector<std::string>> path = PathOf(*e.children[0]);
    if (!path) return std::nullopt;
    IndexPredicate predicate;
    predicate.kind = IndexPredicate::Kind::kFullText;
    predicate.path = std::move(*path);
    for (size_t i = 1; i < e.children.size(); ++i) {
      std::optional<Json> phrase = ConstantOf(*e.children[i], parameters_);
      if (!phrase || !phrase->is_string()) return std::nullopt;
      predicate.values.push_back(std::move(*phrase));
    }
    return predicate;
  }

  std::string alias_;
  const Json& parameters_;
};

}  // namespace

namespace {

bool FiltersTheContainer(const SelectQuery& query) {
  return query.where && !query.from.empty() && !query.from.front().iterate &&
         query.from.front().collection->kind == ExprKind::kIdentifier;
}

}  // namespace

std::vector<IndexPredicate> FindIndexPredicates(const SelectQuery& query, const Json& parameters) {
  std::vector<IndexPredicate> predicates;
  if (!FiltersTheContainer(query)) return predicates;
  PredicateFinder(query.from.front().alias, parameters).Collect(*query.where, predicates);
  return predicates;
}

namespace {

// Collects the document paths an expression reads (PathsRead); false when it reads anything
// else of the document, or holds a subquery.
class PathReads {
 public:
  explicit PathReads(const std::string& alias) : alias_(alias) {}

  bool Visit(const Expr& e) {
    if (e.subquery) return false;
    if (std::optional<std::vector<std::string>> path = DocumentPathSteps(e, alias_)) {
      if (!PropertyNames(*path)) return false;
      for (const std::vector<std::string>& seen : paths_) {
        if (seen == *path) return true;
        // One inside the other: the outer value is an object, which has no entry.
        const size_t common = std::min(seen.size(), path->size());
        if (std::equal(seen.begin(), seen.begin() + static_cast<std::ptrdiff_t>(common), path->begin())) return false;
      }
      paths_.push_back(*path);
      return paths_.size() <= kMostPathsRead;
    }
    if (e.kind == ExprKind::kIdentifier && e.name == alias_) return false;  // the whole document
    for (const ExprPtr& child : e.children) {
      if (child && !Visit(*child)) return false;
    }
    for (const auto& [name, field] : e.fields) {
      if (field && !Visit(*field)) return false;
    }
    return true;
  }
  const std::vector<std::vector<std::string>>& paths() const { return paths_; }

 private:
  // Steps an index entry's path spells the same way: no array element, nothing that reads as a
  // position.
  static bool PropertyNames(const std::vector<std::string>& path) {
    return std::none_of(path.begin(), path.end(), [](const std::string& step) {
      return step.empty() || step == "[]" || step.find('/') != std::string::npos ||
             std::all_of(step.begin(), step.end(), [](char c) { return c >= '0' && c <= '9'; });
    });
  }

  const std::string& alias_;
  std::vector<std::vector<std::string>> paths_;
};

}  // namespace

std::optional<std::vector<std::vector<std::string>>> PathsRead(const SelectQuery& query) {
  if (query.from.size() != 1 || query.from.front().iterate || query.from.front().collection->kind != ExprKind::kIdentifier ||
      !query.order_by.empty() || query.select_star) {
    return std::nullopt;
  }
  PathReads reads(query.from.front().alias);
  for (const SelectItem& item : query.items) {
    if (!reads.Visit(*item.expr)) return std::nullopt;
  }
  for (const ExprPtr& key : query.group_by) {
    if (!reads.Visit(*key)) return std::nullopt;
  }
  if (reads.paths().empty()) return std::nullopt;
  return reads.paths();
}

bool WhereIsIndexPredicates(const SelectQuery& query, const Json& parameters) {
  std::vector<IndexPredicate> predicates;
  return FiltersTheContainer(query) && query.from.size() == 1 &&
         PredicateFinder(query.from.front().alias, parameters).Collect(*query.where, predicates);
}

}  // namespace cosmos::query
