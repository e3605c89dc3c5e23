// The one place where an error becomes an HTTP answer: status, x-ms-substatus and the
// Cosmos error body {"code","message"}.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "common/status.h"
#include "server/http_message.h"

namespace cosmos::server {

struct HttpError {
  int status = 500;
  int substatus = 0;          // 0: no x-ms-substatus header
  const char* code = "";      // the "code" of the error body, e.g. "NotFound"
};

HttpError MapError(ErrorCode code);

// Builds the complete error response (status, substatus header, JSON body). The message
// ends with the activity id, as the service's messages do.
HttpResponse ErrorResponse(const Status& status, const std::string& activity_id);

}  // namespace cosmos::server
