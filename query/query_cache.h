// PreparedQueryCache: parsed and bound queries by their exact text, so a query sent again (the
// next page, the same query from another request) skips parsing and binding.
// Bounded: least recently used entries leave first. Errors are not cached.
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/result.h"
#include "query/binder.h"
#include "query/computed_properties.h"

namespace cosmos::query {

class PreparedQueryCache {
 public:
  explicit PreparedQueryCache(size_t capacity = 1024) : capacity_(capacity) {}

  // Parses and binds `text`, or returns the cached result. 400 for invalid queries. With the
  // container's `computed` properties, their names in the query are expanded before binding.
  Result<std::shared_ptr<const BoundQuery>> Prepare(std::string_view text, const ComputedProperties* computed = nullptr);

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const BoundQuery>>;
  size_t capacity_;
  std::mutex mu_;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // keys view lru_ strings
};

}  // namespace cosmos::query
