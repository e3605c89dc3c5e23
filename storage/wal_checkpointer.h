// WalCheckpointer: a file store's WAL checkpoints, off the write path. The Store owns one per file
// store and installs AfterCommit as its writing connection's WAL commit hook; the checkpointer
// copies WAL pages into the database on a thread and connection of its own, and truncates the
// WAL file once writes pause. Internal to storage/.
// Thread-safety: AfterCommit may be called from any thread (the committing writer's); the
// connection is used by the checkpointer's thread only. Destruction stops and joins the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "storage/sqlite/connection.h"

namespace cosmos::storage {


// Checkpoints the WAL on a thread and connection of its own, so that copying pages into the
// database file, and its fsync, stay off the write path. Writers keep appending meanwhile; the
// WAL starts over from its beginning once a checkpoint has caught up with it.
class WalCheckpointer {
 public:
  // A commit that leaves at least this many WAL pages not yet in the database asks for a
  // checkpoint. (Asking at every commit would cost a pass, and an fsync, for every few writes.)
  // SQLite's own threshold is 1,000; at 4,000 (16 MB) a page that many commits change (a
  // logical partition's size, the upper pages of a B-tree) is copied a quarter as often: 1 KB
  // creates on a data directory took about 4 us less CPU each, and ran about 5% faster.
  static constexpr int kRequestPages = 4000;
  // Past `inline_pages` (by default 40,000: 165 MB of 4 KB pages with frame headers) the
  // committing writer checkpoints too. Under steady writes the background pass always trails
  // the latest commit, and the WAL can start over only after a checkpoint that caught up; the
  // writer's pass, which has little left to copy, is that one. Its two fsyncs stall every write,
  // so it should be rare. At 10,000 pages it ran about four times a second under telemetry
  // ingest: 40,000 gave that ingest 10-15% more documents/s and halved the p99 of 1 KB creates
  // (about 14 ms to 7); 15,000 pages (62 MB), measured again for the soak of issue 31, cost 1 KB
  // creates 8% and their p99 four times (31 ms against 7.6). Recovery after a crash reads at most
  // this much WAL (about 60 ms to ready at 165 MB).
  // The WAL stays within about kRequestPages of it even when reads never pause (AfterCommit).
  // Once the writes have paused for `truncate_after_idle`, a pass also truncates the WAL file.
  WalCheckpointer(std::unique_ptr<sqlite::Connection> connection, int inline_pages,
                  std::chrono::milliseconds truncate_after_idle);
  ~WalCheckpointer();

  // The hook for the writing connection (sqlite::Connection::SetWalCommitHook).
  sqlite::Connection::CheckpointAfterCommit AfterCommit(int wal_pages);

  // The WAL file's size when it holds `wal_pages` pages of 4 KB with their frame headers.
  static int64_t FileLimitBytes(int wal_pages) { return int64_t{wal_pages} * (4096 + 24) + 32; }

 private:
  void Loop();

  const int inline_pages_;
  const std::chrono::milliseconds truncate_after_idle_;
  std::unique_ptr<sqlite::Connection> connection_;  // used by the thread only
  std::mutex mu_;
  std::condition_variable wake_;
  bool requested_ = false;      // guarded by mu_: a pass is asked for or running
  int next_restart_pages_ = 0;  // guarded by mu_: the WAL size at which the writer next waits to restart
  int checkpointed_pages_ = 0;  // guarded by mu_: WAL pages in the database after the last pass
  bool stopping_ = false;       // guarded by mu_
  bool wal_written_ = false;    // guarded by mu_: commits since the WAL file was last truncated
  std::chrono::steady_clock::time_point last_commit_;  // guarded by mu_
  std::thread thread_;          // last: starts once the members above exist
};

}  // namespace cosmos::storage
