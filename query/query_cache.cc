#include "query/query_cache.h"

#include "query/parser/parser.h"

namespace cosmos::query {

Result<std::shared_ptr<const BoundQuery>> PreparedQueryCache::Prepare(std::string_view text,
                                                                     const ComputedProperties* computed) {
  if (computed != nullptr && computed->empty()) computed = nullptr;
  // The same text means another query under other computed properties: they join the key.
  std::string keyed;
  if (computed != nullptr) keyed = computed->signature() + '\x1f' + std::string(text);
  std::string_view key = computed != nullptr ? std::string_view(keyed) : text;
  {
    std::lock_guard lock(mu_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
  }
  // Parse and bind outside the lock; two threads may prepare the same text once each.
  COSMOS_ASSIGN_OR_RETURN(auto parsed, ParseQuery(text));
  if (computed != nullptr) computed->Expand(const_cast<SelectQuery&>(*parsed));  // ours alone until bound
  COSMOS_ASSIGN_OR_RETURN(auto bound, Bind(std::move(parsed), text));
  auto prepared = std::make_shared<const BoundQuery>(std::move(bound));

  std::lock_guard lock(mu_);
  if (index_.find(key) == index_.end()) {
    lru_.emplace_front(std::string(key), prepared);
    index_.emplace(lru_.front().first, lru_.begin());
    if (lru_.size() > capacity_) {
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }
  return std::shared_ptr<const BoundQuery>(prepared);
}

}  // namespace cosmos::query
