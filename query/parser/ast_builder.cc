#include "query/parser/ast_builder.h"

#include <algorithm>

#include <cassert>
#include <cstdint>
#include <limits>
#include <utility>

#include "query/parser/literals.h"

namespace cosmos::query::parser_internal {
namespace {

using P = cosmos_sql_grammar::CosmosSqlParser;

ExprPtr NewExpr(ExprKind kind, SourceSpan span) {
  auto expr = std::make_unique<Expr>();
  expr->kind = kind;
  expr->span = span;
  return expr;
}

BinaryOp BinaryOpOf(size_t token_type) {
  switch (token_type) {
    case P::STAR: return BinaryOp::kMul;
    case P::SLASH: return BinaryOp::kDiv;
    case P::PERCENT: return BinaryOp::kMod;
    case P::PLUS: return BinaryOp::kAdd;
    case P::MINUS: return BinaryOp::kSub;
    case P::SHIFT_LEFT: return BinaryOp::kShiftLeft;
    case P::SHIFT_RIGHT: return BinaryOp::kShiftRight;
    case P::SHIFT_RIGHT_ZERO_FILL: return BinaryOp::kShiftRightZeroFill;
    case P::LESS: return BinaryOp::kLt;
    case P::LESS_EQUAL: return BinaryOp::kLtEq;
    case P::GREATER: return BinaryOp::kGt;
    case P::GREATER_EQUAL: return BinaryOp::kGtEq;
    case P::EQUAL: return BinaryOp::kEq;
    case P::NOT_EQUAL:
    case P::LESS_GREATER: return BinaryOp::kNotEq;
    case P::AMPERSAND: return BinaryOp::kBitAnd;
    case P::CARET: return BinaryOp::kBitXor;
    case P::BAR: return BinaryOp::kBitOr;
    case P::DOUBLE_BAR: return BinaryOp::kConcat;
  }
  assert(false && "a BinaryOperator token the grammar does not produce");
  return BinaryOp::kEq;
}

ExprPtr Binary(BinaryOp op, SourceSpan span, ExprPtr left, ExprPtr right) {
  ExprPtr expr = NewExpr(ExprKind::kBinary, span);
  expr->binary_op = op;
  expr->children.push_back(std::move(left));
  expr->children.push_back(std::move(right));
  return expr;
}

// `-3` and `+3` become the number literals -3 and 3: the lexer has no signed numbers (so that
// `OFFSET -1` fails at the '-'), but everything downstream wants a negative constant to be one.
bool FoldSign(UnaryOp op, Expr* operand) {
  if (op != UnaryOp::kPlus && op != UnaryOp::kNegate) return false;  // NOT and ~ stay operators
  if (operand->kind != ExprKind::kLiteral || !operand->literal.is_number()) return false;
  if (op == UnaryOp::kPlus) return true;
  Json& value = operand->literal;
  if (value.is_number_integer() && value.get<int64_t>() != std::numeric_limits<int64_t>::min()) {
    value = -value.get<int64_t>();
  } else {
    value = -value.get<double>();
  }
  return true;
}

}  // namespace

std::shared_ptr<SelectQuery> AstBuilder::BuildQuery(P::SelectQueryContext* ctx) {
  auto query = std::make_shared<SelectQuery>();
  query->span = Span(ctx);

  P::SelectClauseContext* select = ctx->selectClause();
  query->distinct = select->K_DISTINCT() != nullptr;
  if (select->topClause() != nullptr) query->top = CountValue(select->topClause()->countValue());
  Selection(select->selection(), query.get());

  if (P::FromClauseContext* from = ctx->fromClause()) {
    for (P::FromSourceContext* source : from->sources) query->from.push_back(Source(source));
  }
  if (P::WhereClauseContext* where = ctx->whereClause()) query->where = Build(where->scalarExpression());
  if (P::GroupByClauseContext* group_by = ctx->groupByClause()) {
    for (P::ScalarExpressionContext* key : group_by->keys) query->group_by.push_back(Build(key));
  }
  if (P::OrderByClauseContext* order_by = ctx->orderByClause()) OrderBy(order_by, query.get());
  if (P::OffsetLimitClauseContext* offset_limit = ctx->offsetLimitClause()) {
    query->offset = CountValue(offset_limit->offset);
    query->limit = CountValue(offset_limit->limit);
  }
  return query;
}

void AstBuilder::Selection(P::SelectionContext* ctx, SelectQuery* query) {
  if (dynamic_cast<P::SelectStarContext*>(ctx) != nullptr) {
    query->select_star = true;
  } else if (auto* value = dynamic_cast<P::SelectValueContext*>(ctx)) {
    query->select_value = true;
    SelectItem item;
    item.expr = Build(value->value);
    item.span = Span(value->value->getStart(), value->getStop());
    if (value->alias != nullptr) item.alias = Name(value->alias);
    query->items.push_back(std::move(item));
  } else {
    for (P::SelectItemContext* written : static_cast<P::SelectListContext*>(ctx)->items) {
      SelectItem item;
      item.expr = Build(written->value);
      if (written->alias != nullptr) item.alias = Name(written->alias);
      item.span = Span(written);
      query->items.push_back(std::move(item));
    }
  }
}

FromSource AstBuilder::Source(P::FromSourceContext* ctx) {
  FromSource source;
  source.span = Span(ctx);
  if (auto* iterated = dynamic_cast<P::IteratedSourceContext*>(ctx)) {
    std::string unused;
    source.iterate = true;
    source.alias = Name(iterated->alias);
    source.collection = Collection(iterated->collection(), &unused);
  } else {
    auto* aliased = static_cast<P::AliasedSourceContext*>(ctx);
    std::string inferred;
    source.collection = Collection(aliased->collection(), &inferred);
    source.alias = aliased->alias != nullptr ? Name(aliased->alias) : std::move(inferred);
  }
  return source;
}

// The alias a source gets when none is written: the container/alias name for a bare name, the
// last property name for a path, none for a path ending in an array index, a function call or a
// subquery.
ExprPtr AstBuilder::Collection(P::CollectionContext* ctx, std::string* inferred_alias) {
  if (auto* subquery = dynamic_cast<P::SubqueryCollectionContext*>(ctx)) {
    inferred_alias->clear();
    return Subquery(ExprKind::kScalarSubquery, subquery->selectQuery(), Span(subquery));
  }
  if (auto* call = dynamic_cast<P::FunctionCollectionContext*>(ctx)) {
    inferred_alias->clear();
    return FunctionCall(call->functionCall());
  }
  auto* path = static_cast<P::PathCollectionContext*>(ctx);
  ExprPtr expr = NewExpr(ExprKind::kIdentifier, Span(path->root));
  expr->name = Name(path->root);
  *inferred_alias = expr->name;
  antlr4::Token* first = path->getStart();
  for (P::PathStepContext* step : path->steps) {
    SourceSpan span = Span(first, step->getStop());
    if (auto* property = dynamic_cast<P::PropertyStepContext*>(step)) {
      ExprPtr parent = std::move(expr);
      expr = NewExpr(ExprKind::kProperty, span);
      expr->name = Name(property->identifier());
      expr->children.push_back(std::move(parent));
      *inferred_alias = expr->name;
      continue;
    }
    auto* index = static_cast<P::IndexStepContext*>(step);
    ExprPtr key = index->key->getType() == P::STRING ? StringLiteralExpr(index->key)
                                                     : NumberLiteralExpr(index->key);
    if (key->literal.is_string()) {
      *inferred_alias = key->literal.get<std::string>();
    } else {
      inferred_alias->clear();
    }
    ExprPtr parent = std::move(expr);
    expr = NewExpr(ExprKind::kIndex, span);
    expr->children.push_back(std::move(parent));
    expr->children.push_back(std::move(key));
  }
  return expr;
}

// ORDER BY RANK has no place in the AST yet (see parser.h): each scoring function is wrapped in a
// call to RANK, so that later stages see it and can reject or implement it.
void AstBuilder::OrderBy(P::OrderByClauseContext* ctx, SelectQuery* query) {
  auto add = [&](ExprPtr expr, P::SortOrderContext* order) {
    OrderByItem item;
    item.expr = std::move(expr);
    item.explicit_direction = order != nullptr;
    item.descending = order != nullptr && order->K_DESC() != nullptr;
    query->order_by.push_back(std::move(item));
  };
  if (auto* rank = dynamic_cast<P::RankOrderByContext*>(ctx)) {
    for (P::ScoreItemContext* score : rank->scores) {
      ExprPtr call = NewExpr(ExprKind::kFunctionCall, Span(rank->rank, score->functionCall()->getStop()));
      call->name = Text(rank->rank);
      call->children.push_back(FunctionCall(score->functionCall()));
      add(std::move(call), score->sortOrder());
    }
    return;
  }
  for (P::OrderItemContext* item : static_cast<P::PlainOrderByContext*>(ctx)->items) {
    add(Build(item->scalarExpression()), item->sortOrder());
  }
}

ExprPtr AstBuilder::CountValue(P::CountValueContext* ctx) {
  if (ctx->NUMBER() != nullptr) return NumberLiteralExpr(ctx->NUMBER()->getSymbol());
  ExprPtr parameter = NewExpr(ExprKind::kParameter, Span(ctx));
  parameter->name = Text(ctx->PARAMETER()->getSymbol());
  return parameter;
}

ExprPtr AstBuilder::Subquery(ExprKind kind, P::SelectQueryContext* query, SourceSpan span) {
  ExprPtr expr = NewExpr(kind, span);
  expr->subquery = BuildQuery(query);
  return expr;
}

// --- Expressions -------------------------------------------------------------------------------

ExprPtr AstBuilder::Build(antlr4::tree::ParseTree* node) {
  node->accept(this);
  assert(built_ != nullptr && "every expression alternative has a visit method");
  return std::move(built_);
}

antlrcpp::Any AstBuilder::visitOperatorScalar(P::OperatorScalarContext* ctx) {
  ExprPtr operand = Build(ctx->operand);
  built_ = ctx->tail == nullptr ? std::move(operand) : Predicate(std::move(operand), ctx->tail, Span(ctx));
  return {};
}

ExprPtr AstBuilder::Predicate(ExprPtr operand, P::PredicateContext* ctx, SourceSpan span) {
  ExprPtr expr;
  if (auto* between = dynamic_cast<P::BetweenPredicateContext*>(ctx)) {
    expr = NewExpr(ExprKind::kBetween, span);
    expr->negated = between->negated != nullptr;
    expr->children.push_back(std::move(operand));
    expr->children.push_back(Build(between->low));
    expr->children.push_back(Build(between->high));
  } else if (auto* in = dynamic_cast<P::InPredicateContext*>(ctx)) {
    expr = NewExpr(ExprKind::kIn, span);
    expr->negated = in->negated != nullptr;
    expr->children.push_back(std::move(operand));
    largest_in_list_ = std::max(largest_in_list_, in->items.size());
    for (P::ScalarExpressionContext* candidate : in->items) expr->children.push_back(Build(candidate));
  } else {
    auto* like = static_cast<P::LikePredicateContext*>(ctx);
    expr = NewExpr(ExprKind::kLike, span);
    expr->negated = like->negated != nullptr;
    expr->children.push_back(std::move(operand));
    expr->children.push_back(Build(like->pattern));
    if (like->escape != nullptr) expr->children.push_back(StringLiteralExpr(like->escape));
  }
  return expr;
}

antlrcpp::Any AstBuilder::visitAndScalar(P::AndScalarContext* ctx) {
  built_ = Binary(BinaryOp::kAnd, Span(ctx), Build(ctx->left), Build(ctx->right));
  return {};
}

antlrcpp::Any AstBuilder::visitOrScalar(P::OrScalarContext* ctx) {
  built_ = Binary(BinaryOp::kOr, Span(ctx), Build(ctx->left), Build(ctx->right));
  return {};
}

antlrcpp::Any AstBuilder::visitCoalesceScalar(P::CoalesceScalarContext* ctx) {
  ExprPtr expr = NewExpr(ExprKind::kCoalesce, Span(ctx));
  expr->children.push_back(Build(ctx->left));
  expr->children.push_back(Build(ctx->right));
  built_ = std::move(expr);
  return {};
}

antlrcpp::Any AstBuilder::visitConditionalScalar(P::ConditionalScalarContext* ctx) {
  ExprPtr expr = NewExpr(ExprKind::kConditional, Span(ctx));
  expr->children.push_back(Build(ctx->condition));
  expr->children.push_back(Build(ctx->ifTrue));
  expr->children.push_back(Build(ctx->ifFalse));
  built_ = std::move(expr);
  return {};
}

antlrcpp::Any AstBuilder::visitPrimaryOperand(P::PrimaryOperandContext* ctx) {
  built_ = Build(ctx->primary);
  return {};
}

antlrcpp::Any AstBuilder::visitUnaryOperator(P::UnaryOperatorContext* ctx) {
  UnaryOp op = UnaryOp::kNot;
  switch (ctx->op->getType()) {
    case P::MINUS: op = UnaryOp::kNegate; break;
    case P::PLUS: op = UnaryOp::kPlus; break;
    case P::TILDE: op = UnaryOp::kBitNot; break;
    default: break;  // K_NOT
  }
  ExprPtr operand = Build(ctx->operand);
  if (FoldSign(op, operand.get())) {
    operand->span = Span(ctx);
    built_ = std::move(operand);
    return {};
  }
  ExprPtr expr = NewExpr(ExprKind::kUnary, Span(ctx));
  expr->unary_op = op;
  expr->children.push_back(std::move(operand));
  built_ = std::move(expr);
  return {};
}

antlrcpp::Any AstBuilder::visitBinaryOperator(P::BinaryOperatorContext* ctx) {
  built_ = Binary(BinaryOpOf(ctx->op->getType()), Span(ctx), Build(ctx->left), Build(ctx->right));
  return {};
}

antlrcpp::Any AstBuilder::visitIdentifierPrimary(P::IdentifierPrimaryContext* ctx) {
  built_ = NewExpr(ExprKind::kIdentifier, Span(ctx));
  built_->name = Name(ctx->name);
  return {};
}

antlrcpp::Any AstBuilder::visitParameterPrimary(P::ParameterPrimaryContext* ctx) {
  built_ = NewExpr(ExprKind::kParameter, Span(ctx));
  built_->name = Text(ctx->getStart());
  return {};
}

antlrcpp::Any AstBuilder::visitLiteralPrimary(P::LiteralPrimaryContext* ctx) {
  built_ = Literal(ctx->value);
  return {};
}

antlrcpp::Any AstBuilder::visitArrayPrimary(P::ArrayPrimaryContext* ctx) {
  ExprPtr expr = NewExpr(ExprKind::kArrayLiteral, Span(ctx));
  for (P::ScalarExpressionContext* element : ctx->items) expr->children.push_back(Build(element));
  built_ = std::move(expr);
  return {};
}

antlrcpp::Any AstBuilder::visitObjectPrimary(P::ObjectPrimaryContext* ctx) {
  ExprPtr expr = NewExpr(ExprKind::kObjectLiteral, Span(ctx));
  for (P::ObjectFieldContext* field : ctx->fields) {
    std::string key = field->quotedKey != nullptr ? StringLiteral(Text(field->quotedKey)) : Name(field->key);
    expr->fields.emplace_back(std::move(key), Build(field->value));
  }
  built_ = std::move(expr);
  return {};
}

// Parentheses only group: the inner expression keeps its own span.
antlrcpp::Any AstBuilder::visitParenthesizedPrimary(P::ParenthesizedPrimaryContext* ctx) {
  built_ = Build(ctx->inner);
  return {};
}

antlrcpp::Any AstBuilder::visitSubqueryPrimary(P::SubqueryPrimaryContext* ctx) {
  built_ = Subquery(ExprKind::kScalarSubquery, ctx->selectQuery(), Span(ctx));
  return {};
}

antlrcpp::Any AstBuilder::visitExistsPrimary(P::ExistsPrimaryContext* ctx) {
  built_ = Subquery(ExprKind::kExists, ctx->selectQuery(), Span(ctx));
  return {};
}

antlrcpp::Any AstBuilder::visitArraySubqueryPrimary(P::ArraySubqueryPrimaryContext* ctx) {
  built_ = Subquery(ExprKind::kArraySubquery, ctx->selectQuery(), Span(ctx));
  return {};
}

antlrcpp::Any AstBuilder::visitCallPrimary(P::CallPrimaryContext* ctx) {
  built_ = FunctionCall(ctx->functionCall());
  return {};
}

ExprPtr AstBuilder::FunctionCall(P::FunctionCallContext* ctx) {
  ExprPtr expr = NewExpr(ExprKind::kFunctionCall, Span(ctx));
  expr->name = Name(ctx->name);
  expr->udf = ctx->udf != nullptr;
  for (P::ScalarExpressionContext* argument : ctx->arguments) expr->children.push_back(Build(argument));
  return expr;
}

antlrcpp::Any AstBuilder::visitPropertyPrimary(P::PropertyPrimaryContext* ctx) {
  ExprPtr expr = NewExpr(ExprKind::kProperty, Span(ctx));
  expr->name = Name(ctx->name);
  expr->children.push_back(Build(ctx->object));
  built_ = std::move(expr);
  return {};
}

antlrcpp::Any AstBuilder::visitIndexPrimary(P::IndexPrimaryContext* ctx) {
  ExprPtr expr = NewExpr(ExprKind::kIndex, Span(ctx));
  expr->children.push_back(Build(ctx->object));
  expr->children.push_back(Build(ctx->index));
  built_ = std::move(expr);
  return {};
}

ExprPtr AstBuilder::Literal(P::LiteralContext* ctx) {
  antlr4::Token* token = ctx->getStart();
  switch (token->getType()) {
    case P::STRING: return StringLiteralExpr(token);
    case P::NUMBER: return NumberLiteralExpr(token);
    default: break;
  }
  ExprPtr expr = NewExpr(ExprKind::kLiteral, Span(token));
  switch (token->getType()) {
    case P::K_TRUE: expr->literal = true; break;
    case P::K_FALSE: expr->literal = false; break;
    case P::K_NULL: expr->literal = nullptr; break;
    default: expr->literal_undefined = true; break;  // K_UNDEFINED
  }
  return expr;
}

ExprPtr AstBuilder::StringLiteralExpr(antlr4::Token* token) {
  ExprPtr expr = NewExpr(ExprKind::kLiteral, Span(token));
  expr->literal = StringLiteral(source_.Slice(token->getStartIndex(), token->getStopIndex() + 1));
  return expr;
}

ExprPtr AstBuilder::NumberLiteralExpr(antlr4::Token* token) {
  ExprPtr expr = NewExpr(ExprKind::kLiteral, Span(token));
  expr->literal = NumberLiteral(source_.Slice(token->getStartIndex(), token->getStopIndex() + 1));
  return expr;
}

// --- Text and positions ------------------------------------------------------------------------

std::string AstBuilder::Text(antlr4::Token* token) const {
  return std::string(source_.Slice(token->getStartIndex(), token->getStopIndex() + 1));
}

std::string AstBuilder::Name(P::IdentifierContext* ctx) const { return Text(ctx->getStart()); }

SourceSpan AstBuilder::Span(antlr4::Token* token) const { return Span(token, token); }

SourceSpan AstBuilder::Span(antlr4::ParserRuleContext* ctx) const {
  return Span(ctx->getStart(), ctx->getStop());
}

SourceSpan AstBuilder::Span(antlr4::Token* first, antlr4::Token* last) const {
  return {source_.Utf16Offset(first->getStartIndex()), source_.Utf16Offset(last->getStopIndex() + 1)};
}

}  // namespace cosmos::query::parser_internal
