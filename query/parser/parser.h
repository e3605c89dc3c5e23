// ParseQuery: Cosmos SQL text -> our AST (query/ast.h). The ANTLR grammar lives in
// query/grammar/CosmosSql.g4; no ANTLR type escapes this module.
// Syntax errors come back as BadRequest in the service's shape (query/query_error.h), code
// SC1001 "Syntax error, incorrect syntax near '<token>'." with the offending token's span.
// Thread-safety: safe to call concurrently.
#pragma once

#include <memory>
#include <string_view>

#include "common/result.h"
#include "query/ast.h"

namespace cosmos::query {

Result<std::shared_ptr<const SelectQuery>> ParseQuery(std::string_view text);

}  // namespace cosmos::query
