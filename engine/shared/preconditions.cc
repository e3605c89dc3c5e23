#include "engine/shared/preconditions.h"

#include "common/json.h"
#include "engine/shared/messages.h"

namespace cosmos::engine {

std::string EtagOf(const std::string& resource_body) {
  return Json::parse(resource_body)["_etag"].get<std::string>();
}

Status CheckIfMatch(const Preconditions& preconditions, const std::string& current_etag) {
  if (preconditions.if_match && *preconditions.if_match != "*" && *preconditions.if_match != current_etag) {
    return Status::PreconditionFailed(kPreconditionMessage);
  }
  return Status();
}

}  // namespace cosmos::engine

