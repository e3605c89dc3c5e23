// The page-cache layer (storage/sqlite/page_cache.h) must answer truncations itself only when
// no cached page can lie past the limit: random inserts (which make B-tree balances park pages)
// commit without reaching SQLite's truncation, and a rolled-back transaction that grew the file
// still drops its pages, so later transactions never see them.
#include "storage/sqlite/page_cache.h"

#include "tests/sqlite_test_support.h"

using cosmos::storage::sqlite::Connection;
using cosmos::storage::sqlite::InstallPageCacheLayer;
using cosmos::storage::sqlite::PageCacheTruncationCounts;
using cosmos_test::IntegrityCheck;
using cosmos_test::QueryInt;

namespace {

// 100 rows of random keys and 200-byte values: inserts land all over the B-tree.
const std::string kInsertHundred = cosmos_test::InsertRandomRows(100, "zeroblob(200)");

}  // namespace

TEST_CASE("the page-cache layer skips empty truncations and keeps rollbacks exact", "[storage][page_cache]") {
  cosmos_test::ScratchDir dir("cosmolite-page-cache-test-");
  auto opened = Connection::Open(dir.File("t.db"));
  REQUIRE_OK(opened);
  Connection& connection = *opened.value();
  // Installed by the first open in this process; asking again changes nothing.
  REQUIRE(InstallPageCacheLayer());
  REQUIRE_OK(connection.Execute(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536;"
      "CREATE TABLE t(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;"));

  auto before = PageCacheTruncationCounts();
  for (int commit = 0; commit < 200; ++commit) {
    REQUIRE_OK(connection.Execute("BEGIN;" + kInsertHundred + "COMMIT;"));
  }
  auto after_inserts = PageCacheTruncationCounts();
  // Every commit truncates; with pages parked by balances, SQLite's own cache would walk its
  // whole hash table each time, and the layer answers those itself.
  CHECK(after_inserts.skipped - before.skipped >= 150);
  CHECK(QueryInt(connection, "SELECT count(*) FROM t") == 20000);
  CHECK(IntegrityCheck(connection) == "ok");

  // A transaction that grows the file and rolls back: its new pages must leave the cache.
  int64_t pages_before = QueryInt(connection, "PRAGMA page_count");
  REQUIRE_OK(connection.Execute("BEGIN;"));
  for (int batch = 0; batch < 50; ++batch) REQUIRE_OK(connection.Execute(kInsertHundred));
  CHECK(QueryInt(connection, "PRAGMA page_count") > pages_before);
  REQUIRE_OK(connection.Execute("ROLLBACK;"));
  CHECK(PageCacheTruncationCounts().forwarded > after_inserts.forwarded);
  CHECK(QueryInt(connection, "PRAGMA page_count") == pages_before);
  CHECK(QueryInt(connection, "SELECT count(*) FROM t") == 20000);

  // The same page numbers, allocated again, hold only what the new transaction writes.
  for (int commit = 0; commit < 50; ++commit) {
    REQUIRE_OK(connection.Execute("BEGIN;" + kInsertHundred + "COMMIT;"));
  }
  CHECK(QueryInt(connection, "SELECT count(*) FROM t") == 25000);
  CHECK(QueryInt(connection, "SELECT count(*) FROM t WHERE length(k) = 40 AND v = zeroblob(200)") == 25000);
  CHECK(IntegrityCheck(connection) == "ok");

  // A second connection reads everything the first committed (shared file, separate caches).
  auto reader = Connection::Open(dir.File("t.db"));
  REQUIRE_OK(reader);
  CHECK(QueryInt(*reader.value(), "SELECT count(*) FROM t") == 25000);
}
