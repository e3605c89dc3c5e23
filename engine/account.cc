#include "engine/account.h"

namespace cosmos::engine {

Account::Account(std::unique_ptr<storage::Store> store, AccountOptions options)
    : context_(std::move(store), options),
      admission_(context_),
      catalog_(context_),
      items_(context_, admission_),
      queries_(context_, admission_),
      security_(context_),
      scripts_(context_, admission_, items_, queries_),
      change_feed_(context_, admission_),
      ranges_(context_),
      maintenance_(context_, catalog_) {}

Status Account::RunWriteBatch(const std::function<void()>& writes) {
  storage::Store& store = context_.store();
  store.BeginBatch();
  writes();
  return store.EndBatch();
}

}  // namespace cosmos::engine
