// Errors of the query language, in the shape the service reports them: the Status message is
// the service's JSON error payload
//   {"errors":[{"severity":"Error","location":{"start":7,"end":11},"code":"SC1001","message":"..."}]}
// so that clients that parse it (and people reading it) see positions and the service's codes.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "query/ast.h"

namespace cosmos::query {

// Codes used by the service (SC1001 syntax error, SC2001 unresolved identifier, SC2005 unknown
// function, ...). `span` is the offending text, 0-based character offsets.
Status QueryError(std::string_view code, std::string_view message, SourceSpan span);
// An error the service reports without a location.
Status QueryErrorWithoutLocation(std::string_view code, std::string_view message);

}  // namespace cosmos::query
