// UserFunctions: the user-defined functions a query calls as udf.name(args). The query layer only
// calls them; whoever runs the query supplies them (the engine runs a container's UDFs in
// JavaScript: engine/scripts/user_function_runner.h), through PageRequest::user_functions.
// Thread-safety: belongs to one query page on one thread.
#pragma once

#include <span>
#include <string>

#include "common/result.h"
#include "query/value.h"

namespace cosmos::query {

class UserFunctions {
 public:
  virtual ~UserFunctions() = default;

  // The result of `name` called with `arguments` (undefined when it returns undefined). An error
  // fails the query: kBadRequest for a function that does not exist or that throws.
  virtual Result<Value> Call(const std::string& name, std::span<const Value> arguments) = 0;
};

}  // namespace cosmos::query
