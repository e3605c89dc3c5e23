#include "query/functions/registry.h"

#include "common/encoding.h"

namespace cosmos::query {

const FunctionRegistry& FunctionRegistry::Instance() {
  static const FunctionRegistry* const kRegistry = [] {
    auto* registry = new FunctionRegistry();
    RegisterAggregateFunctions(*registry);
    RegisterStringFunctions(*registry);
    RegisterMathFunctions(*registry);
    RegisterArrayFunctions(*registry);
    RegisterTypeFunctions(*registry);
    RegisterDateTimeFunctions(*registry);
    RegisterSpatialFunctions(*registry);
    RegisterVectorFunctions(*registry);
    RegisterFullTextFunctions(*registry);
    return registry;
  }();
  return *kRegistry;
}

const FunctionDef* FunctionRegistry::Find(std::string_view name) const {
  auto it = by_lower_name_.find(ToLowerAscii(name));
  return it == by_lower_name_.end() ? nullptr : &it->second;
}

void FunctionRegistry::Add(FunctionDef def) {
  std::string key = ToLowerAscii(def.name);
  by_lower_name_.insert_or_assign(std::move(key), std::move(def));
}

}  // namespace cosmos::query
