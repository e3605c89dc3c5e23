// BackgroundWorker: one thread for the account's upkeep, about once a second and a batch at a
// time: it deletes documents whose time to live ran out (already invisible to reads, queries and
// feeds) and builds the indexes of containers whose indexing policy changed. Neither charges
// anyone's throughput.
// Thread-safety: construct and destroy on one thread; the destructor stops and joins the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/account.h"

namespace cosmos::engine {

class BackgroundWorker {
 public:
  explicit BackgroundWorker(Account& account, std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

 private:
  void Run();

  Account& account_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace cosmos::engine
