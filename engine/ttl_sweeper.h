// TtlSweeper: a background thread that deletes documents whose time to live ran out, a batch at a
// time, about once a second. Expired documents are already invisible to reads, queries and feeds;
// the sweeper reclaims their storage without charging anyone's throughput.
// Thread-safety: construct and destroy on one thread; the destructor stops and joins the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/account.h"

namespace cosmos::engine {

class TtlSweeper {
 public:
  explicit TtlSweeper(Account& account, std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~TtlSweeper();
  TtlSweeper(const TtlSweeper&) = delete;
  TtlSweeper& operator=(const TtlSweeper&) = delete;

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
