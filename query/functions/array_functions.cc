// Placeholder until the family lands: registers nothing yet.
#include "query/functions/registry.h"

namespace cosmos::query {

void RegisterArrayFunctions(FunctionRegistry& /*registry*/) {}

}  // namespace cosmos::query
