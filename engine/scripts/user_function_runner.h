// UserFunctionRunner: a container's user-defined functions as one query page calls them
// (query::UserFunctions, udf.name(args)), run in JavaScript by ScriptEngine::Functions. The
// arguments go over as JSON with undefined kept; the result comes back as the service's values
// (numbers as doubles, undefined when the function returns nothing).
// Thread-safety: belongs to one query page on one thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "engine/scripts/script_engine.h"
#include "engine/shared/container_cache.h"
#include "query/binder.h"
#include "query/functions/user_functions.h"
#include "storage/store.h"

namespace cosmos::engine {

class UserFunctionRunner : public query::UserFunctions {
 public:
  // The UDFs a query calls, loaded from the container's: nullptr when it calls none; kBadRequest
  // naming the first the container lacks. Calls fail once `time_limit` has passed since the first.
  static Result<std::unique_ptr<UserFunctionRunner>> ForQuery(storage::Transaction& txn,
                                                              const ResolvedContainer& container,
                                                              const query::BoundQuery& query,
                                                              std::chrono::milliseconds time_limit);

  Result<query::Value> Call(const std::string& name, std::span<const query::Value> arguments) override;

 private:
  UserFunctionRunner(std::vector<std::pair<std::string, std::string>> bodies, std::chrono::milliseconds time_limit)
      : bodies_(std::move(bodies)), time_limit_(time_limit) {}

  std::vector<std::pair<std::string, std::string>> bodies_;  // (name, body)
  std::chrono::milliseconds time_limit_;
  std::unique_ptr<ScriptEngine::Functions> functions_;  // compiled on the first call
};

}  // namespace cosmos::engine
