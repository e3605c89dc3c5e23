// The WAL-batching VFS (storage/sqlite/wal_vfs.h): each commit reaches the WAL file in one write,
// and whatever a commit wrote is on the file when it returns, for other connections, for a
// checkpoint and for recovery after a crash.
#include "storage/sqlite/wal_vfs.h"

#include <filesystem>

#include "tests/sqlite_test_support.h"

using cosmos::storage::sqlite::Connection;
using cosmos::storage::sqlite::WalBatchingCounts;
using cosmos_test::IntegrityCheck;
using cosmos_test::QueryInt;

namespace {

const std::string kInsertFifty = cosmos_test::InsertRandomRows(50, "randomblob(300)");

}  // namespace

TEST_CASE("the WAL-batching VFS writes each commit at once and loses nothing", "[storage][wal_vfs]") {
  cosmos_test::ScratchDir dir("cosmolite-wal-vfs-test-");
  std::string path = dir.File("t.db");
  auto opened = Connection::Open(path, /*batch_wal_writes=*/true);
  REQUIRE_OK(opened);
  Connection& writer = *opened.value();
  // NORMAL is the server's default; FULL (--sync-full) also syncs and pads the WAL at each commit.
  std::string synchronous = GENERATE(std::string("NORMAL"), std::string("FULL"));
  REQUIRE_OK(writer.Execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = " + synchronous + ";"
                            "CREATE TABLE t(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;"));
  // Another connection on the default VFS, as the checkpointer is.
  auto other = Connection::Open(path);
  REQUIRE_OK(other);
  REQUIRE_OK(other.value()->Execute("PRAGMA journal_mode = WAL"));

  auto before = WalBatchingCounts();
  for (int commit = 1; commit <= 100; ++commit) {
    REQUIRE_OK(writer.Execute("BEGIN;" + kInsertFifty + "COMMIT;"));
    // The commit is on the file: another connection sees it at once.
    CHECK(QueryInt(*other.value(), "SELECT count(*) FROM t") == commit * 50);
  }
  auto after = WalBatchingCounts();
  // Each commit wrote many frames (a header and a page each) and reached the file in one pass.
  CHECK(after.frames_written - before.frames_written >= 100 * 10);
  CHECK(after.flushes - before.flushes <= 100 + 20);  // and the WAL header when the WAL starts over

  // A checkpoint from the other connection copies what the writer's WAL holds.
  REQUIRE_OK(other.value()->CheckpointPassive());
  CHECK(IntegrityCheck(*other.value()) == "ok");
  // A rolled-back transaction leaves nothing behind; the next commit still lands.
  REQUIRE_OK(writer.Execute("BEGIN;" + kInsertFifty + "ROLLBACK;"));
  REQUIRE_OK(writer.Execute("BEGIN;" + kInsertFifty + "COMMIT;"));
  CHECK(QueryInt(*other.value(), "SELECT count(*) FROM t") == 5050);

  // A copy of the files as they are now, as after a crash (no shared-memory index): recovery
  // finds every commit in the WAL.
  std::string copy = dir.File("crash.db");
  std::filesystem::copy_file(path, copy);
  std::filesystem::copy_file(path + "-wal", copy + "-wal");
  auto recovered = Connection::Open(copy);
  REQUIRE_OK(recovered);
  CHECK(QueryInt(*recovered.value(), "SELECT count(*) FROM t") == 5050);
  CHECK(IntegrityCheck(*recovered.value()) == "ok");
}
