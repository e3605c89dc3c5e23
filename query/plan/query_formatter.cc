#include "query/plan/query_formatter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "query/plan/text_util.h"

namespace cosmos::query {
namespace {

using plan_internal::Cat;
using plan_internal::JoinFormatted;

constexpr std::string_view kIndent = "    ";

const char* BinaryOperatorText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return "OR";
    case BinaryOp::kAnd: return "AND";
    case BinaryOp::kEq: return "=";
    case BinaryOp::kNotEq: return "!=";
    case BinaryOp::kLt: return "<";
    case BinaryOp::kLtEq: return "<=";
    case BinaryOp::kGt: return ">";
    case BinaryOp::kGtEq: return ">=";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kMul: return "*";
    case BinaryOp::kDiv: return "/";
    case BinaryOp::kMod: return "%";
    case BinaryOp::kBitAnd: return "&";
    case BinaryOp::kBitOr: return "|";
    case BinaryOp::kBitXor: return "^";
    case BinaryOp::kShiftLeft: return "<<";
    case BinaryOp::kShiftRight: return ">>";
    case BinaryOp::kShiftRightZeroFill: return ">>>";
    case BinaryOp::kConcat: return "||";
  }
  return "?";
}

// Prefixes every line of `text` with one indentation level.
std::string Indent(const std::string& text) {
  std::string out(kIndent);
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += kIndent;
  }
  return out;
}

// A subquery as the service prints it: the opening bracket, the query one level deeper on its
// own lines, and the closing bracket back at the current level.
std::string FormatSubquery(std::string_view open, const SelectQuery& q) {
  return Cat({open, "\n", Indent(FormatQuery(q)), "\n)"});
}

// The alias FROM gives a source when none is written: the container name, or the last property.
std::string InferredAlias(const Expr& collection) {
  if (collection.kind == ExprKind::kIdentifier || collection.kind == ExprKind::kProperty) {
    return collection.name;
  }
  return "";
}

std::string FormatFromSource(const FromSource& source) {
  if (source.iterate) return Cat({source.alias, " IN ", FormatExpr(*source.collection)});
  std::string text = FormatExpr(*source.collection);
  if (!source.alias.empty() && source.alias != InferredAlias(*source.collection)) {
    text += Cat({" AS ", source.alias});
  }
  return text;
}

}  // namespace

std::string FormatNumber(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", d);
  if (std::strtod(buffer, nullptr) != d) std::snprintf(buffer, sizeof buffer, "%.17g", d);
  std::string text(buffer);
  for (char& ch : text) {
    if (ch == 'e') ch = 'E';  // .NET writes 1E+16, C writes 1e+16
  }
  return text;
}

std::string FormatString(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(ch));
          out += escaped;
        } else {
          out += ch;  // other characters, UTF-8 included, stay as they are
        }
    }
  }
  out += '"';
  return out;
}

std::string FormatJsonLiteral(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return FormatNumber(value.get<double>());
    case Json::value_t::string: return FormatString(value.get_ref<const std::string&>());
    case Json::value_t::array:
      return Cat({"[", JoinFormatted(value, [](const Json& item) { return FormatJsonLiteral(item); }), "]"});
    case Json::value_t::object: {
      std::string out;
      for (const auto& [key, item] : value.items()) {
        if (!out.empty()) out += ", ";
        out += Cat({FormatString(key), ": ", FormatJsonLiteral(item)});
      }
      return Cat({"{", out, "}"});
    }
    default: return "undefined";
  }
}

std::string FormatExpr(const Expr& e) {
  if (!e.computed_property.empty()) return e.computed_property;  // the container expands it again
  auto child = [&e](size_t i) { return FormatExpr(*e.children[i]); };
  std::string negated = e.negated ? " NOT" : "";
  switch (e.kind) {
    case ExprKind::kLiteral:
      return e.literal_undefined ? "undefined" : FormatJsonLiteral(e.literal);
    case ExprKind::kParameter:
    case ExprKind::kIdentifier:
      return e.name;
    case ExprKind::kProperty:
      return Cat({child(0), ".", e.name});
    case ExprKind::kIndex:
      return Cat({child(0), "[", child(1), "]"});
    case ExprKind::kUnary: {
      const Expr& operand = *e.children[0];
      // A negative number literal is one token for the service, not an operation.
      if (e.unary_op == UnaryOp::kNegate && operand.kind == ExprKind::kLiteral &&
          operand.literal.is_number()) {
        return FormatNumber(-operand.literal.get<double>());
      }
      switch (e.unary_op) {
        case UnaryOp::kNot: return Cat({"(NOT ", child(0), ")"});
        case UnaryOp::kNegate: return Cat({"(-", child(0), ")"});
        case UnaryOp::kPlus: return Cat({"(+", child(0), ")"});
        case UnaryOp::kBitNot: return Cat({"(~", child(0), ")"});
      }
      return "";
    }
    case ExprKind::kBinary:
      return Cat({"(", child(0), " ", BinaryOperatorText(e.binary_op), " ", child(1), ")"});
    case ExprKind::kBetween:
      return Cat({"(", child(0), negated, " BETWEEN ", child(1), " AND ", child(2), ")"});
    case ExprKind::kIn: {
      std::string list;
      for (size_t i = 1; i < e.children.size(); ++i) {
        if (i > 1) list += ", ";
        list += child(i);
      }
      return Cat({"(", child(0), negated, " IN (", list, "))"});
    }
    case ExprKind::kLike: {
      std::string text = Cat({"(", child(0), negated, " LIKE ", child(1)});
      if (e.children.size() > 2) text += Cat({" ESCAPE ", child(2)});
      return text + ")";
    }
    case ExprKind::kConditional:
      return Cat({"(", child(0), " ? ", child(1), " : ", child(2), ")"});
    case ExprKind::kCoalesce:
      return Cat({"(", child(0), " ?? ", child(1), ")"});
    case ExprKind::kFunctionCall:
      return Cat({e.udf ? "udf." : "", e.name, "(",
                  JoinFormatted(e.children, [](const ExprPtr& arg) { return FormatExpr(*arg); }), ")"});
    case ExprKind::kArrayLiteral:
      return Cat({"[", JoinFormatted(e.children, [](const ExprPtr& item) { return FormatExpr(*item); }), "]"});
    case ExprKind::kObjectLiteral:
      return Cat({"{", JoinFormatted(e.fields, [](const auto& field) {
                    return Cat({FormatString(field.first), ": ", FormatExpr(*field.second)});
                  }),
                  "}"});
    case ExprKind::kScalarSubquery:
      return FormatSubquery("(", *e.subquery);
    case ExprKind::kExists:
      return FormatSubquery("EXISTS(", *e.subquery);
    case ExprKind::kArraySubquery:
      return FormatSubquery("ARRAY(", *e.subquery);
  }
  return "";
}

std::string FormatSelectSpec(const SelectQuery& q) {
  if (q.select_star) return "*";
  if (q.select_value) return Cat({"VALUE ", FormatExpr(*q.items.at(0).expr)});
  return JoinFormatted(q.items, [](const SelectItem& item) {
    std::string text = FormatExpr(*item.expr);
    if (!item.alias.empty()) text += Cat({" AS ", item.alias});
    return text;
  });
}

std::string FormatOrderBy(const SelectQuery& q) {
  return JoinFormatted(q.order_by, [](const OrderByItem& item) {
    // ORDER BY RANK score: the parser's RANK(score) call, written back as a clause.
    const Expr& e = *item.expr;
    const bool rank = e.kind == ExprKind::kFunctionCall && !e.udf && e.children.size() == 1 &&
                      plan_internal::EqualsIgnoreCase(e.name, "RANK");
    std::string text = rank ? Cat({"RANK ", FormatExpr(*e.children[0])}) : FormatExpr(e);
    if (item.explicit_direction) text += item.descending ? " DESC" : " ASC";
    return text;
  });
}

std::string FormatGroupBy(const SelectQuery& q) {
  return JoinFormatted(q.group_by, [](const ExprPtr& e) { return FormatExpr(*e); });
}

QueryClauses FormatClauses(const SelectQuery& q) {
  QueryClauses clauses;
  if (q.distinct) clauses.select += "DISTINCT ";
  if (q.top) clauses.select += Cat({"TOP ", FormatExpr(*q.top), " "});
  clauses.select += FormatSelectSpec(q);
  for (size_t i = 0; i < q.from.size(); ++i) {
    std::string source = FormatFromSource(q.from[i]);
    if (i == 0) {
      clauses.from = std::move(source);
    } else {
      clauses.joins.push_back(std::move(source));
    }
  }
  if (q.where) clauses.where = FormatExpr(*q.where);
  clauses.group_by = FormatGroupBy(q);
  clauses.order_by = FormatOrderBy(q);
  if (q.offset && q.limit) {
    clauses.offset_limit = Cat({"OFFSET ", FormatExpr(*q.offset), " LIMIT ", FormatExpr(*q.limit)});
  }
  return clauses;
}

std::string AssembleQuery(const QueryClauses& clauses) {
  std::string text = Cat({"SELECT ", clauses.select});
  auto add_line = [&text](std::string_view keyword, const std::string& body) {
    if (body.empty()) return;
    text += '\n';
    text += keyword;
    text += body;
  };
  add_line("FROM ", clauses.from);
  for (const std::string& join : clauses.joins) add_line("JOIN ", join);
  add_line("WHERE ", clauses.where);
  add_line("GROUP BY ", clauses.group_by);
  add_line("ORDER BY ", clauses.order_by);
  add_line("", clauses.offset_limit);
  return text;
}

std::string FormatQuery(const SelectQuery& q) { return AssembleQuery(FormatClauses(q)); }

}  // namespace cosmos::query
