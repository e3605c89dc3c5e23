// AstBuilder: walks a syntactically valid ANTLR parse tree of CosmosSql.g4 and builds our AST
// (query/ast.h). Internal to the parser module; ParseQuery (parser.cc) is the front door.
// Thread-safety: one builder per parse; not shareable.
#pragma once

#include <memory>

#include "CosmosSqlBaseVisitor.h"
#include "CosmosSqlParser.h"
#include "query/ast.h"
#include "query/parser/source_text.h"

namespace cosmos::query::parser_internal {

class AstBuilder : private cosmos_sql_grammar::CosmosSqlBaseVisitor {
 public:
  using P = cosmos_sql_grammar::CosmosSqlParser;

  explicit AstBuilder(const SourceText& source) : source_(source) {}

  // REQUIRES: `query` parsed without syntax errors.
  std::shared_ptr<SelectQuery> BuildQuery(P::SelectQueryContext* query);

  // The most candidates an IN list of the built query has (the service limits them).
  size_t largest_in_list() const { return largest_in_list_; }

 private:
  // Expressions go through the visitor's double dispatch: each visit method leaves its result in
  // built_ and Build() hands it back (antlrcpp::Any cannot carry a unique_ptr).
  ExprPtr Build(antlr4::tree::ParseTree* node);

  antlrcpp::Any visitOperatorScalar(P::OperatorScalarContext* ctx) override;
  antlrcpp::Any visitAndScalar(P::AndScalarContext* ctx) override;
  antlrcpp::Any visitOrScalar(P::OrScalarContext* ctx) override;
  antlrcpp::Any visitCoalesceScalar(P::CoalesceScalarContext* ctx) override;
  antlrcpp::Any visitConditionalScalar(P::ConditionalScalarContext* ctx) override;
  antlrcpp::Any visitPrimaryOperand(P::PrimaryOperandContext* ctx) override;
  antlrcpp::Any visitUnaryOperator(P::UnaryOperatorContext* ctx) override;
  antlrcpp::Any visitBinaryOperator(P::BinaryOperatorContext* ctx) override;
  antlrcpp::Any visitIdentifierPrimary(P::IdentifierPrimaryContext* ctx) override;
  antlrcpp::Any visitParameterPrimary(P::ParameterPrimaryContext* ctx) override;
  antlrcpp::Any visitLiteralPrimary(P::LiteralPrimaryContext* ctx) override;
  antlrcpp::Any visitArrayPrimary(P::ArrayPrimaryContext* ctx) override;
  antlrcpp::Any visitObjectPrimary(P::ObjectPrimaryContext* ctx) override;
  antlrcpp::Any visitParenthesizedPrimary(P::ParenthesizedPrimaryContext* ctx) override;
  antlrcpp::Any visitSubqueryPrimary(P::SubqueryPrimaryContext* ctx) override;
  antlrcpp::Any visitExistsPrimary(P::ExistsPrimaryContext* ctx) override;
  antlrcpp::Any visitArraySubqueryPrimary(P::ArraySubqueryPrimaryContext* ctx) override;
  antlrcpp::Any visitCallPrimary(P::CallPrimaryContext* ctx) override;
  antlrcpp::Any visitPropertyPrimary(P::PropertyPrimaryContext* ctx) override;
  antlrcpp::Any visitIndexPrimary(P::IndexPrimaryContext* ctx) override;

  ExprPtr Predicate(ExprPtr operand, P::PredicateContext* predicate, SourceSpan span);
  ExprPtr FunctionCall(P::FunctionCallContext* ctx);
  ExprPtr Literal(P::LiteralContext* ctx);
  ExprPtr CountValue(P::CountValueContext* ctx);
  ExprPtr StringLiteralExpr(antlr4::Token* token);
  ExprPtr NumberLiteralExpr(antlr4::Token* token);
  ExprPtr Subquery(ExprKind kind, P::SelectQueryContext* query, SourceSpan span);
  void Selection(P::SelectionContext* ctx, SelectQuery* query);
  FromSource Source(P::FromSourceContext* ctx);
  ExprPtr Collection(P::CollectionContext* ctx, std::string* inferred_alias);
  void OrderBy(P::OrderByClauseContext* ctx, SelectQuery* query);

  std::string Text(antlr4::Token* token) const;
  std::string Name(P::IdentifierContext* ctx) const;
  SourceSpan Span(antlr4::Token* token) const;
  SourceSpan Span(antlr4::ParserRuleContext* ctx) const;
  SourceSpan Span(antlr4::Token* first, antlr4::Token* last) const;

  const SourceText& source_;
  size_t largest_in_list_ = 0;
  ExprPtr built_;
};

}  // namespace cosmos::query::parser_internal
