#include "query/execution/cancellation.h"

namespace cosmos::query {

Status Cancellation::Look() const {
  if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
    return Status::ServiceUnavailable("The server is shutting down; the query was abandoned. Retry it once the "
                                      "server is back.");
  }
  if (Clock::now() >= deadline_) {
    return Status::RequestTimeout("Request timed out. The query could not finish its page within the server's "
                                  "time limit; narrow it with a filter on the partition key or an indexed "
                                  "property, or split the work.");
  }
  return Status();
}

}  // namespace cosmos::query
