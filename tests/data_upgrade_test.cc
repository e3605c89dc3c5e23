// A data file written before documents were keyed by effective partition key (schema version 1)
// is upgraded when it opens: every document is found again, by point read and by query, and
// the containers get their partition key ranges.
#include <string>

#include <sqlite3.h>

#include "common/json.h"
#include "engine/account.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/test_support.h"

using cosmos::Json;
using cosmos::engine::Account;
using cosmos::engine::ContainerAddress;
using cosmos::engine::ItemKey;
using cosmos::engine::ItemWrite;
using cosmos::engine::QueryRequest;
using cosmos::engine::ResourceName;
using cosmos::storage::Store;

namespace {

// Runs `sql` on a closed data file, as an older cosmolite would have left it.
void RewriteDataFile(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  INFO((error ? error : ""));
  sqlite3_free(error);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

// Rewrites a current data file the way version 1 stored it: partition keys without the
// effective partition key, no ranges, user_version 1.
void DowngradeToVersion1(const std::string& path) {
  RewriteDataFile(path,
                  "UPDATE documents SET partition_key = substr(partition_key, instr(partition_key, ' ') + 1);"
                  "UPDATE logical_partitions SET partition_key = substr(partition_key, instr(partition_key, ' ') + 1);"
                  "UPDATE unique_key_entries SET partition_key = substr(partition_key, instr(partition_key, ' ') + 1);"
                  "DELETE FROM partition_key_ranges;"
                  "PRAGMA user_version = 1;");
}

// prefix + number, built in two steps (g++ 12 misreports "lit" + string under -Werror=restrict).
std::string Numbered(const char* prefix, int number) {
  std::string text = prefix;
  text += std::to_string(number);
  return text;
}

std::string KeyHeader(int i) { return Json::array({Numbered("p", i % 5)}).dump(); }

}  // namespace

TEST_CASE("a version 1 data file is rekeyed by effective partition key when it opens", "[upgrade]") {
  cosmos_test::ScratchDir dir("cosmolite-upgrade-test-");
  auto options = cosmos_test::FileStore(dir);
  ContainerAddress address{ResourceName{"db"}, ResourceName{"c"}};
  {
    auto store = Store::Open(options);
    REQUIRE_OK(store);
    Account account(std::move(store).value());
    REQUIRE_OK(account.CreateDatabase(R"({"id":"db"})"));
    REQUIRE_OK(account.CreateContainer(
        ResourceName{"db"},
        R"({"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]}})"));
    for (int i = 0; i < 20; ++i) {
      std::string body = Json{{"id", Numbered("d", i)}, {"pk", Numbered("p", i % 5)}, {"email", Numbered("e", i)}}.dump();
      REQUIRE_OK(account.CreateItem(ItemWrite{address, KeyHeader(i), body, {}}));
    }
  }
  DowngradeToVersion1(options.path);

  {
  auto store = Store::Open(options);
  REQUIRE_OK(store);
  CHECK(store.value()->opened_schema_version() == 1);
  cosmos::engine::AccountOptions account_options;
  account_options.min_physical_partitions = 4;
  Account account(std::move(store).value(), account_options);
  REQUIRE_OK(account.UpgradeDataFile());

  for (int i = 0; i < 20; ++i) {
    auto read = account.ReadItem(ItemKey{address, KeyHeader(i), ResourceName{Numbered("d", i)}}, {});
    REQUIRE_OK(read);
  }
  auto ranges = account.ReadPartitionKeyRanges(address, std::nullopt, false);
  REQUIRE_OK(ranges);
  CHECK(ranges->count == 4);

  QueryRequest count;
  count.container = address;
  std::string body = R"({"query":"SELECT VALUE c.id FROM c WHERE c.pk = 'p3'"})";
  count.body = body;
  count.enable_cross_partition = true;
  auto counted = account.QueryItems(count);
  REQUIRE_OK(counted);
  CHECK(Json::parse(counted->body)["Documents"].size() == 4);

  // Sizes and unique keys followed the new keys: a duplicate email is still refused, and a new
  // document goes in.
  auto duplicate = account.CreateItem(ItemWrite{address, "[\"p1\"]", R"({"id":"x","pk":"p1","email":"e1"})", {}});
  CHECK(duplicate.status().code() == cosmos::ErrorCode::kConflict);
  REQUIRE_OK(account.CreateItem(ItemWrite{address, "[\"p1\"]", R"({"id":"y","pk":"p1","email":"new"})", {}}));

  }
  // Upgraded once: the next open finds a current file.
  auto reopened = Store::Open(options);
  REQUIRE_OK(reopened);
  CHECK(reopened.value()->opened_schema_version() == cosmos::storage::kSchemaVersion);
}

TEST_CASE("a version 3 data file gets offers and its indexes built in the background", "[upgrade]") {
  cosmos_test::ScratchDir dir("cosmolite-upgrade3-test-");
  auto options = cosmos_test::FileStore(dir);
  ContainerAddress address{ResourceName{"db"}, ResourceName{"c"}};
  {
    auto store = Store::Open(options);
    REQUIRE_OK(store);
    Account account(std::move(store).value());
    REQUIRE_OK(account.CreateDatabase(R"({"id":"db"})"));
    REQUIRE_OK(account.CreateContainer(ResourceName{"db"}, R"({"id":"c","partitionKey":{"paths":["/pk"]}})"));
    for (int i = 0; i < 30; ++i) {
      std::string body = Json{{"id", Numbered("d", i)}, {"pk", Numbered("p", i % 5)}, {"n", i}}.dump();
      REQUIRE_OK(account.CreateItem(ItemWrite{address, KeyHeader(i), body, {}}));
    }
  }
  // Version 3 had no offers.
  RewriteDataFile(options.path, "DELETE FROM offers; PRAGMA user_version = 3;");
  auto store = Store::Open(options);
  REQUIRE_OK(store);
  CHECK(store.value()->opened_schema_version() == 3);
  Account account(std::move(store).value());
  REQUIRE_OK(account.UpgradeDataFile());

  std::string body = R"({"query":"SELECT VALUE c.id FROM c WHERE c.n = 7"})";
  QueryRequest query;
  query.container = address;
  query.body = body;
  query.enable_cross_partition = true;
  auto scanned = account.QueryItems(query);  // the index is not built yet: a scan, still right
  REQUIRE_OK(scanned);
  CHECK(Json::parse(scanned->body)["Documents"] == Json::array({"d7"}));
  CHECK(scanned->fan_out.documents_scanned == 30);
  auto building = account.ReadContainer(address);
  REQUIRE_OK(building);
  CHECK(building->index_transformation_progress == 0);

  int steps = 0;
  for (;;) {
    auto more = account.ContinueIndexBuilds(/*limit=*/8);
    REQUIRE_OK(more);
    ++steps;
    if (!*more) break;
  }
  CHECK(steps == 4);  // 30 documents, 8 a step
  auto built = account.ReadContainer(address);
  REQUIRE_OK(built);
  CHECK(built->index_transformation_progress == 100);
  auto indexed = account.QueryItems(query);
  REQUIRE_OK(indexed);
  CHECK(Json::parse(indexed->body)["Documents"] == Json::array({"d7"}));
  CHECK(indexed->fan_out.documents_scanned == 1);
  CHECK(indexed->fan_out.access_path == "index lookup on /n");

  auto offers = account.ListOffers({});
  REQUIRE_OK(offers);
  REQUIRE(offers->count == 1);
  CHECK(Json::parse(offers->body)["Offers"][0]["content"]["offerThroughput"] == 400);
}

TEST_CASE("a version 5 data file rebuilds every container's index, with each entry's logical partition",
          "[upgrade]") {
  cosmos_test::ScratchDir dir("cosmolite-upgrade4-test-");
  auto options = cosmos_test::FileStore(dir);
  ContainerAddress composite{ResourceName{"db"}, ResourceName{"composite"}};
  ContainerAddress plain{ResourceName{"db"}, ResourceName{"plain"}};
  {
    auto store = Store::Open(options);
    REQUIRE_OK(store);
    Account account(std::move(store).value());
    REQUIRE_OK(account.CreateDatabase(R"({"id":"db"})"));
    REQUIRE_OK(account.CreateContainer(ResourceName{"db"}, R"({"id":"composite","partitionKey":{"paths":["/pk"]},
        "indexingPolicy":{"compositeIndexes":[[{"path":"/a"},{"path":"/n","order":"descending"}]]}})"));
    REQUIRE_OK(account.CreateContainer(ResourceName{"db"}, R"({"id":"plain","partitionKey":{"paths":["/pk"]}})"));
    for (int i = 0; i < 20; ++i) {
      std::string body = Json{{"id", Numbered("d", i)}, {"pk", Numbered("p", i % 5)}, {"a", i % 2}, {"n", i}}.dump();
      REQUIRE_OK(account.CreateItem(ItemWrite{composite, KeyHeader(i), body, {}}));
      REQUIRE_OK(account.CreateItem(ItemWrite{plain, KeyHeader(i), body, {}}));
    }
  }
  // Version 5 kept index entries without their partition's hash.
  RewriteDataFile(options.path,
                  "CREATE TABLE index_entries(container_seq INTEGER NOT NULL, "
                  "path TEXT NOT NULL, value BLOB NOT NULL, document_seq INTEGER NOT NULL, "
                  "PRIMARY KEY(container_seq, path, value, document_seq)) WITHOUT ROWID; "
                  "PRAGMA user_version = 5;");
  auto store = Store::Open(options);
  REQUIRE_OK(store);
  CHECK(store.value()->opened_schema_version() == 5);
  Account account(std::move(store).value());
  REQUIRE_OK(account.UpgradeDataFile());
  CHECK(account.ReadContainer(composite)->index_transformation_progress == 0);
  CHECK(account.ReadContainer(plain)->index_transformation_progress == 0);
  for (;;) {
    auto more = account.ContinueIndexBuilds(/*limit=*/64);
    REQUIRE_OK(more);
    if (!*more) break;
  }
  std::string body = R"({"query":"SELECT TOP 3 VALUE c.id FROM c ORDER BY c.a, c.n DESC"})";
  QueryRequest query;
  query.container = composite;
  query.body = body;
  query.enable_cross_partition = true;
  auto ordered = account.QueryItems(query);
  REQUIRE_OK(ordered);
  CHECK(Json::parse(ordered->body)["Documents"] == Json::array({"d18", "d16", "d14"}));
  CHECK(ordered->fan_out.documents_scanned == 3);  // read from the rebuilt composite index

  // Inside one logical partition the rebuilt entries name only that partition's documents.
  QueryRequest in_partition;
  in_partition.container = plain;
  in_partition.body = R"({"query":"SELECT VALUE c.id FROM c WHERE c.n >= 10"})";
  in_partition.partition_key_header = KeyHeader(3);
  auto found = account.QueryItems(in_partition);
  REQUIRE_OK(found);
  CHECK(Json::parse(found->body)["Documents"] == Json::array({"d13", "d18"}));
  CHECK(found->fan_out.access_path == "index lookup on /n");
  CHECK(found->fan_out.documents_scanned == 2);
}

namespace {

// The index size the store keeps, through the partition report.
std::pair<int64_t, int64_t> KeptIndex(Account& account, const char* container) {
  auto report = account.PartitionReport(1);
  REQUIRE_OK(report);
  Json parsed = Json::parse(*report);
  for (const Json& entry : parsed["containers"]) {
    if (entry["container"] == std::string("dbs/db/colls/") + container) {
      return {entry["indexEntries"].get<int64_t>(), entry["indexBytes"].get<int64_t>()};
    }
  }
  FAIL("no such container in the report");
  return {};
}

// Whether the closed data file still has a table of that name.
bool HasTable(const std::string& path, const char* table) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &stmt,
                             nullptr) == SQLITE_OK);
  sqlite3_bind_text(stmt, 1, table, -1, SQLITE_STATIC);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  const bool found = sqlite3_column_int64(stmt, 0) > 0;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return found;
}

}  // namespace

TEST_CASE("index sizes kept through every write match the index rebuilt as the file opens", "[upgrade]") {
  cosmos_test::ScratchDir dir("cosmolite-index-size-test-");
  auto options = cosmos_test::FileStore(dir);
  ContainerAddress address{ResourceName{"db"}, ResourceName{"c"}};
  std::pair<int64_t, int64_t> kept;
  {
    auto store = Store::Open(options);
    REQUIRE_OK(store);
    Account account(std::move(store).value());
    REQUIRE_OK(account.CreateDatabase(R"({"id":"db"})"));
    REQUIRE_OK(account.CreateContainer(ResourceName{"db"}, R"({"id":"c","partitionKey":{"paths":["/pk"]}})"));
    for (int i = 0; i < 30; ++i) {
      // Arrays repeat a value: the same entry twice is stored (and counted) once.
      std::string body = Json{{"id", Numbered("d", i)}, {"pk", Numbered("p", i % 5)}, {"n", i},
                              {"tags", {"a", "a", Numbered("t", i)}}, {"ünïcode", "é"}}.dump();
      REQUIRE_OK(account.CreateItem(ItemWrite{address, KeyHeader(i), body, {}}));
    }
    for (int i = 0; i < 10; ++i) {
      std::string body = Json{{"id", Numbered("d", i)}, {"pk", Numbered("p", i % 5)}, {"n", -i}}.dump();
      REQUIRE_OK(account.ReplaceItem(ItemWrite{address, KeyHeader(i), body, {}}, ResourceName{Numbered("d", i)}));
    }
    for (int i = 20; i < 25; ++i) {
      REQUIRE_OK(account.DeleteItem(ItemKey{address, KeyHeader(i), ResourceName{Numbered("d", i)}}, {}));
    }
    kept = KeptIndex(account, "c");
    CHECK(kept.first > 100);
  }
  // A version 7 file kept its entries in a table, which goes as the file opens.
  RewriteDataFile(options.path, "CREATE TABLE index_entries(container_seq INTEGER); PRAGMA user_version = 7;");
  auto store = Store::Open(options);
  REQUIRE_OK(store);
  CHECK(store.value()->opened_schema_version() == 7);
  Account account(std::move(store).value());
  REQUIRE_OK(account.UpgradeDataFile());
  CHECK(KeptIndex(account, "c") == std::pair<int64_t, int64_t>{0, 0});  // not built yet
  for (;;) {
    auto more = account.ContinueIndexBuilds(/*limit=*/8);
    REQUIRE_OK(more);
    if (!*more) break;
  }
  auto rebuilt = KeptIndex(account, "c");
  CAPTURE(rebuilt.first, rebuilt.second, kept.first, kept.second);
  CHECK(rebuilt == kept);
  CHECK_FALSE(HasTable(options.path, "index_entries"));
  // The rebuilt index has every document's _ts.
  QueryRequest query;
  query.container = address;
  query.body = R"({"query":"SELECT VALUE COUNT(1) FROM c WHERE c._ts > 0"})";
  query.enable_cross_partition = true;
  auto counted = account.QueryItems(query);
  REQUIRE_OK(counted);
  CHECK(Json::parse(counted->body)["Documents"] == Json::array({25}));
  CHECK(counted->fan_out.access_path == "index only on /_ts");
}
