#include "query/parser/parser.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "CosmosSqlLexer.h"
#include "CosmosSqlParser.h"
#include "antlr4-runtime.h"
#include "query/parser/ast_builder.h"
#include "query/parser/source_text.h"
#include "query/query_error.h"

namespace cosmos::query {
namespace {

using cosmos_sql_grammar::CosmosSqlLexer;
using cosmos_sql_grammar::CosmosSqlParser;
using parser_internal::AstBuilder;
using parser_internal::SourceText;

// ANTLR's ANTLRInputStream, filled with code points we decoded ourselves (it would otherwise
// decode the UTF-8 again, and throw on malformed input).
class CodePointStream : public antlr4::ANTLRInputStream {
 public:
  explicit CodePointStream(const std::u32string& code_points) { _data = code_points; }
};

// Keeps the first syntax error the parser reports; later ones are consequences of recovery.
class FirstErrorListener : public antlr4::BaseErrorListener {
 public:
  void syntaxError(antlr4::Recognizer*, antlr4::Token* offending, size_t, size_t, const std::string&,
                   std::exception_ptr) override {
    if (offending_ == nullptr) offending_ = offending;
  }
  antlr4::Token* offending() const { return offending_; }

 private:
  antlr4::Token* offending_ = nullptr;
};

SourceSpan TokenSpan(const SourceText& source, const antlr4::Token* token) {
  return {source.Utf16Offset(token->getStartIndex()), source.Utf16Offset(token->getStopIndex() + 1)};
}

Status SyntaxError(const SourceText& source, antlr4::Token* offending) {
  SourceSpan span = TokenSpan(source, offending);
  if (offending->getType() == antlr4::Token::EOF) {
    span.end = span.start;
    return QueryError("SC1001", "Syntax error, unexpected end-of-file.", span);
  }
  std::string near(source.Slice(offending->getStartIndex(), offending->getStopIndex() + 1));
  return QueryError("SC1001", "Syntax error, incorrect syntax near '" + near + "'.", span);
}

// The parser and the AST builder recurse once per nesting level, so a hostile query could
// exhaust the stack. Before parsing, the tokens bound two depths (real queries stay far below):
//  - ANTLR recurses (about 1 KB of stack per level) into brackets, subqueries, prefix operators
//    and the right-associative ?: and ??. kMaxNesting bounds open brackets plus such operators.
//  - The AST builder and the tree's destructor recurse along every operator chain, including
//    left-associative ones like a + b + c that ANTLR parses in a loop. kMaxChain bounds open
//    brackets plus all operators and keywords.
// Counts are kept per bracket level, and a comma starts a sibling so it resets its level.
constexpr int kMaxNesting = 512;
constexpr int kMaxChain = 8192;

const antlr4::Token* FindTooDeepNesting(const std::vector<antlr4::Token*>& tokens) {
  struct Level {
    int nesting = 0;
    int chain = 0;
  };
  std::vector<Level> levels(1);
  int nesting = 0;
  int chain = 0;
  auto add = [&](int nesting_step, int chain_step) {
    levels.back().nesting += nesting_step;
    levels.back().chain += chain_step;
    nesting += nesting_step;
    chain += chain_step;
  };
  for (const antlr4::Token* token : tokens) {
    switch (token->getType()) {
      case CosmosSqlLexer::LEFT_PAREN:
      case CosmosSqlLexer::LEFT_BRACKET:
      case CosmosSqlLexer::LEFT_BRACE:
        ++nesting;
        ++chain;
        levels.emplace_back();
        break;
      case CosmosSqlLexer::RIGHT_PAREN:
      case CosmosSqlLexer::RIGHT_BRACKET:
      case CosmosSqlLexer::RIGHT_BRACE:
        if (levels.size() > 1) {
          add(-levels.back().nesting - 1, -levels.back().chain - 1);
          levels.pop_back();
          // What the brackets closed (a call, an index c['a'], a group) is one more link of the
          // chain around it: c['a']['a']... nests the AST as deep as c.a.a... does.
          add(0, 1);
        }
        break;
      case CosmosSqlLexer::COMMA:
        add(-levels.back().nesting, -levels.back().chain);
        break;
      case CosmosSqlLexer::K_NOT:
      case CosmosSqlLexer::MINUS:
      case CosmosSqlLexer::PLUS:
      case CosmosSqlLexer::TILDE:
      case CosmosSqlLexer::QUESTION:
      case CosmosSqlLexer::DOUBLE_QUESTION:
      case CosmosSqlLexer::K_SELECT:
        add(1, 1);
        break;
      case CosmosSqlLexer::IDENTIFIER:
      case CosmosSqlLexer::PARAMETER:
      case CosmosSqlLexer::NUMBER:
      case CosmosSqlLexer::STRING:
        break;
      default:  // binary operators, '.', and keywords
        add(0, 1);
        break;
    }
    if (nesting > kMaxNesting || chain > kMaxChain) return token;
  }
  return nullptr;
}

// The limits the account advertises in its queryEngineConfiguration (server/routes.cc).
constexpr size_t kMaxQueryTextLength = 262144;
constexpr int kMaxJoins = 10;
constexpr int kMaxLogicalAnd = 500;
constexpr int kMaxLogicalOr = 500;
constexpr size_t kMaxInItems = 16000;

// A query over one of those limits, or nullopt.
std::optional<std::string> OverLimit(const std::vector<antlr4::Token*>& tokens) {
  int joins = 0, ands = 0, ors = 0;
  for (const antlr4::Token* token : tokens) {
    switch (token->getType()) {
      case CosmosSqlLexer::K_JOIN: ++joins; break;
      case CosmosSqlLexer::K_AND: ++ands; break;
      case CosmosSqlLexer::K_OR: ++ors; break;
      default: break;
    }
  }
  if (joins > kMaxJoins) {
    return "The query has " + std::to_string(joins) + " JOINs; at most " + std::to_string(kMaxJoins) + " are allowed.";
  }
  if (ands > kMaxLogicalAnd) {
    return "The query has " + std::to_string(ands) + " AND operators; at most " + std::to_string(kMaxLogicalAnd) +
           " are allowed.";
  }
  if (ors > kMaxLogicalOr) {
    return "The query has " + std::to_string(ors) + " OR operators; at most " + std::to_string(kMaxLogicalOr) +
           " are allowed.";
  }
  return std::nullopt;
}

}  // namespace

Result<std::shared_ptr<const SelectQuery>> ParseQuery(std::string_view text) {
  if (text.size() > kMaxQueryTextLength) {
    return QueryErrorWithoutLocation("SC1001", "The query text is " + std::to_string(text.size()) +
                                                   " characters long; at most " +
                                                   std::to_string(kMaxQueryTextLength) + " are allowed.");
  }
  int bad_offset = 0;
  std::optional<SourceText> source = SourceText::Decode(text, &bad_offset);
  if (!source.has_value()) {
    return QueryError("SC1001", "Syntax error, the query text is not valid UTF-8.",
                      {bad_offset, bad_offset + 1});
  }

  // A fresh lexer and parser per call; ANTLR shares only its (internally locked) DFA caches.
  CodePointStream input(source->code_points());
  CosmosSqlLexer lexer(&input);
  lexer.removeErrorListeners();  // UNEXPECTED_CHARACTER makes every input lexable
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  if (const antlr4::Token* deep = FindTooDeepNesting(tokens.getTokens())) {
    return QueryError("SC1001", "Syntax error, the query is nested too deeply.", TokenSpan(*source, deep));
  }

  // Two stages: SLL prediction with bail-out is much faster and accepts valid queries; only
  // when it fails (a syntax error, or a rare SLL false alarm) parse again with full LL and
  // error reporting, to find the offending token.
  CosmosSqlParser parser(&tokens);
  parser.removeErrorListeners();
  auto* simulator = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
  simulator->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  CosmosSqlParser::ProgramContext* program = nullptr;
  try {
    program = parser.program();
  } catch (const antlr4::ParseCancellationException&) {
    tokens.seek(0);
    parser.reset();
    simulator->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    FirstErrorListener errors;
    parser.addErrorListener(&errors);
    program = parser.program();
    parser.removeErrorListeners();
    if (errors.offending() != nullptr) return SyntaxError(*source, errors.offending());
  }

  if (std::optional<std::string> over = OverLimit(tokens.getTokens())) {
    return QueryErrorWithoutLocation("SC1001", *over);
  }
  AstBuilder builder(*source);
  auto query = std::shared_ptr<const SelectQuery>(builder.BuildQuery(program->selectQuery()));
  if (builder.largest_in_list() > kMaxInItems) {
    return QueryErrorWithoutLocation("SC1001", "An IN list has " + std::to_string(builder.largest_in_list()) +
                                                   " items; at most " + std::to_string(kMaxInItems) + " are allowed.");
  }
  return query;
}

}  // namespace cosmos::query
