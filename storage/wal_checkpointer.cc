#include "storage/wal_checkpointer.h"

#include <utility>

#include "common/result.h"
#include "common/thread_name.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {

WalCheckpointer::WalCheckpointer(std::unique_ptr<sqlite::Connection> connection, int inline_pages,
                                 std::chrono::milliseconds truncate_after_idle)
    : inline_pages_(inline_pages),
      truncate_after_idle_(truncate_after_idle),
      connection_(std::move(connection)),
      thread_([this] { Loop(); }) {}

WalCheckpointer::~WalCheckpointer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

sqlite::Connection::CheckpointAfterCommit WalCheckpointer::AfterCommit(int wal_pages) {
  using Checkpoint = sqlite::Connection::CheckpointAfterCommit;
  bool request;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The first commit since the WAL was truncated wakes the thread, to truncate after the next
    // pause (before, only a checkpoint request woke it, so a burst shorter than kRequestPages after
    // a truncation stayed in the WAL).
    const bool first_since_truncation = !wal_written_;
    wal_written_ = true;
    last_commit_ = std::chrono::steady_clock::now();
    // Past the inline threshold the writer checkpoints, and the WAL starts over at its next write
    // unless a read of an older snapshot is open then. Reads that overlap without a pause keep
    // it from ever starting over: every kRequestPages further the writer's pass waits for them
    // (briefly; the next write waits meanwhile). The background pass is not asked past the
    // threshold, so that it is idle when the writer's own pass (which would otherwise find it
    // busy and give up) runs.
    if (wal_pages < inline_pages_) next_restart_pages_ = inline_pages_ + kRequestPages;
    if (wal_pages >= next_restart_pages_) {
      next_restart_pages_ = wal_pages + kRequestPages;
      return Checkpoint::kRestart;
    }
    if (wal_pages >= inline_pages_) return Checkpoint::kPassive;
    if (wal_pages < checkpointed_pages_) checkpointed_pages_ = 0;  // the WAL started over
    request = !requested_ && wal_pages - checkpointed_pages_ >= kRequestPages;
    requested_ = requested_ || request;
    request = request || first_since_truncation;
  }
  if (request) wake_.notify_one();
  return Checkpoint::kNone;
}

void WalCheckpointer::Loop() {
  NameThisThread("cosmolite-ckpt");
  std::unique_lock<std::mutex> lock(mu_);
  auto asked = [&] { return stopping_ || requested_; };
  for (;;) {
    if (!wal_written_) {
      wake_.wait(lock, [&] { return asked() || wal_written_; });
      if (!asked()) continue;  // written since the truncation: now wait for a pause
    } else if (!wake_.wait_until(lock, last_commit_ + truncate_after_idle_, asked)) {
      if (std::chrono::steady_clock::now() < last_commit_ + truncate_after_idle_) continue;
      wal_written_ = false;  // a commit during the pass sets it again
      lock.unlock();
      // Gives up at once while a write or an older read is open; the next pause tries again.
      Result<bool> truncated = connection_->CheckpointTruncate();
      lock.lock();
      if (truncated.ok() && *truncated) {
        checkpointed_pages_ = 0;
      } else {
        wal_written_ = true;
        last_commit_ = std::chrono::steady_clock::now();  // not before another pause
      }
      continue;
    }
    if (stopping_) return;
    lock.unlock();
    // A failed pass loses nothing: the frames stay in the WAL and a later request retries.
    Result<int> checkpointed = connection_->CheckpointPassive();
    lock.lock();
    requested_ = false;
    if (checkpointed.ok()) checkpointed_pages_ = *checkpointed;
  }
}

}  // namespace cosmos::storage
