// ParseQuery: Cosmos SQL text -> our AST (query/ast.h). The ANTLR grammar lives in
// query/grammar/CosmosSql.g4; no ANTLR type escapes this module.
// Syntax errors come back as BadRequest in the service's shape (query/query_error.h), code
// SC1001 "Syntax error, incorrect syntax near '<token>'." with the offending token's span, or
// "Syntax error, unexpected end-of-file." with an empty span at the end of the text.
// Thread-safety: safe to call concurrently.
//
// What the tree looks like, beyond ast.h:
//  - Spans count UTF-16 code units from the start of the text (as the service's .NET strings
//    do; for ASCII, characters). Parentheses only group: `(a)` has the span of `a`.
//  - A sign applied to a number literal is folded into it: `-3` is the literal -3 (the lexer has
//    no signed numbers, so that `OFFSET -1` fails at the '-' as the service does).
//  - Integer literals that fit int64 are JSON integers; other numbers (fraction, exponent, too
//    big) are doubles. 0x hex literals are integers too.
//  - ORDER BY RANK f(...) has no field in OrderByItem: its item is a call RANK(f(...)), with the
//    name as written, so later stages can recognise (or reject) hybrid-search ranking.
//  - Unwritten FROM aliases are inferred: the name for `c`, the last property for `c.a.b` or
//    `c["b"]`, none (empty) for a path ending in an array index or for a subquery.
//
// Operator precedence, loosest first. The docs only fix NOT > AND > OR and describe ?: and ?? as
// working like C#/JavaScript; the rest follows the SDK's own ANTLR grammar (sql.g4 in
// azure-cosmos-dotnet-v3), which orders the binary operators like C with || (concatenation) in
// C's logical-or slot, and treats NOT as a unary operator like - and ~:
//   ? :  (right)   ??  (right)   OR   AND   [NOT] BETWEEN / IN / LIKE (no chaining)
//   ||   |   ^   &   = != <>   < <= > >=   << >> >>>   + -   * / %   unary NOT - + ~
//   then the accessors . and [ ] on primaries.
// So `NOT a = b` is `(NOT a) = b` and `a || b = c` is `a || (b = c)`.
//
// Reserved words (case-insensitive): AND ARRAY AS ASC BETWEEN BY DESC DISTINCT ESCAPE EXISTS FROM
// GROUP IN JOIN LIKE LIMIT NOT OFFSET OR ORDER SELECT TOP VALUE WHERE, plus true false null
// undefined udf (lower case only). `c.value` is therefore a syntax error: write c["value"].
// RANK is special only after ORDER BY. Function names are plain identifiers (LEFT, RIGHT, ...).
//
// Nesting is bounded (brackets, prefix and right-associative operators, and operator chains) so
// that a hostile query cannot exhaust the stack; real queries stay far below the limits.
#pragma once

#include <memory>
#include <string_view>

#include "common/result.h"
#include "query/ast.h"

namespace cosmos::query {

Result<std::shared_ptr<const SelectQuery>> ParseQuery(std::string_view text);

}  // namespace cosmos::query
