// Placeholder until the family lands: registers nothing yet.
#include "query/functions/registry.h"

namespace cosmos::query {

void RegisterMathFunctions(FunctionRegistry& /*registry*/) {}

}  // namespace cosmos::query
