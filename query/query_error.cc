#include "query/query_error.h"

#include "common/json.h"

namespace cosmos::query {

Status QueryError(std::string_view code, std::string_view message, SourceSpan span) {
  Json error = Json::object();
  error["severity"] = "Error";
  error["location"] = Json{{"start", span.start}, {"end", span.end}};
  error["code"] = code;
  error["message"] = message;
  return Status::BadRequest(Json{{"errors", Json::array({error})}}.dump());
}

Status QueryErrorWithoutLocation(std::string_view code, std::string_view message) {
  Json error = Json::object();
  error["severity"] = "Error";
  error["code"] = code;
  error["message"] = message;
  return Status::BadRequest(Json{{"errors", Json::array({error})}}.dump());
}

}  // namespace cosmos::query
