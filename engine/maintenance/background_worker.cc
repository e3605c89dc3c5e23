#include "engine/maintenance/background_worker.h"

#include <spdlog/spdlog.h>

#include "common/thread_name.h"

namespace cosmos::engine {

BackgroundWorker::BackgroundWorker(Account& account, std::chrono::milliseconds interval)
    : account_(account), interval_(interval), thread_([this] { Run(); }) {}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void BackgroundWorker::Run() {
  NameThisThread("cosmolite-upkeep");
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    for (;;) {
      Result<int64_t> swept = account_.SweepExpiredDocuments(NowSeconds(), kMaintenanceBatch);
      if (!swept.ok()) {
        spdlog::warn("time-to-live sweep failed: {}", swept.status().message());
        break;
      }
      if (*swept < kMaintenanceBatch) break;
    }
    for (;;) {
      Result<bool> more = account_.ContinueIndexBuilds(kMaintenanceBatch);
      if (!more.ok()) {
        spdlog::warn("index build failed: {}", more.status().message());
        break;
      }
      if (!*more) break;
      // Let waiting requests take the store between batches.
      std::this_thread::yield();
    }
    lock.lock();
  }
}

}  // namespace cosmos::engine
