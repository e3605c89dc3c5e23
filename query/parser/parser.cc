// Placeholder until the ANTLR-based parser lands.
#include "query/parser/parser.h"

namespace cosmos::query {

Result<std::shared_ptr<const SelectQuery>> ParseQuery(std::string_view) {
  return Status::BadRequest("the query parser is not built yet");
}

}  // namespace cosmos::query
