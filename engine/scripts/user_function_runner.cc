#include "engine/scripts/user_function_runner.h"

#include <algorithm>

#include "common/json_parse.h"

namespace cosmos::engine {

Result<std::unique_ptr<UserFunctionRunner>> UserFunctionRunner::ForQuery(storage::Transaction& txn,
                                                                         const ResolvedContainer& container,
                                                                         const query::BoundQuery& query,
                                                                         std::chrono::milliseconds time_limit) {
  if (query.user_functions().empty()) return std::unique_ptr<UserFunctionRunner>();
  COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListScripts(container.container.seq, "udfs"));
  std::vector<std::pair<std::string, std::string>> bodies;
  for (const std::string& name : query.user_functions()) {
    auto found = std::find_if(records.begin(), records.end(), [&](const storage::ScriptRecord& r) { return r.id == name; });
    if (found == records.end()) {
      return Status::BadRequest("'udf." + name + "' is not a recognized user-defined function name.");
    }
    Json definition = ParseJson(found->body);
    bodies.emplace_back(name, definition.value("body", std::string()));
  }
  return std::unique_ptr<UserFunctionRunner>(new UserFunctionRunner(std::move(bodies), time_limit));
}

Result<query::Value> UserFunctionRunner::Call(const std::string& name, std::span<const query::Value> arguments) {
  if (!functions_) {
    COSMOS_ASSIGN_OR_RETURN(functions_, ScriptEngine::Functions::Compile(bodies_, time_limit_));
  }
  Json array = Json::array();
  std::vector<size_t> undefined_at;
  for (size_t index = 0; index < arguments.size(); ++index) {
    if (arguments[index].is_undefined()) {
      undefined_at.push_back(index);
      array.push_back(nullptr);
    } else {
      array.push_back(arguments[index].ToJson());
    }
  }
  COSMOS_ASSIGN_OR_RETURN(auto result, functions_->Call(name, array.dump(), undefined_at));
  if (!result) return query::Value();
  return query::Value::FromJson(ParseJson(*result));
}

}  // namespace cosmos::engine
