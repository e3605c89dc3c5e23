#include "storage/store.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "storage/wal_checkpointer.h"
#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::storage::ContainerRecord;
using cosmos::storage::DatabaseRecord;
using cosmos::storage::DocumentRecord;
using cosmos::storage::SeqKind;
using cosmos::storage::Store;
using cosmos::storage::StoreOptions;

namespace {

struct Seeded {
  std::unique_ptr<Store> store;
  int64_t container = 0;
};

Seeded SeedStore(const StoreOptions& options = {}) {
  auto store = Store::Open(options);
  REQUIRE_OK(store);
  auto txn = store.value()->BeginWrite();
  REQUIRE_OK(txn);
  REQUIRE_OK(txn->InsertDatabase(DatabaseRecord{1, "db", "{}"}));
  REQUIRE_OK(txn->InsertContainer(ContainerRecord{1, 1, "c", "{}", 0}));
  REQUIRE_OK(txn->Commit());
  return {std::move(store).value(), 1};
}

DocumentRecord Document(int64_t seq, const std::string& pk, const std::string& id, const std::string& body) {
  return DocumentRecord{seq, pk, id, body, "\"e" + std::to_string(seq) + "\"", seq};
}

}  // namespace

TEST_CASE("documents are unique per logical partition", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  REQUIRE_OK(txn->InsertDocument(container, Document(1, "[\"a\"]", "x", "{\"id\":\"x\"}")));
  REQUIRE_OK(txn->InsertDocument(container, Document(2, "[\"b\"]", "x", "{\"id\":\"x\"}")));
  CHECK(txn->InsertDocument(container, Document(3, "[\"a\"]", "x", "{}")).code() == ErrorCode::kConflict);
  REQUIRE_OK(txn->Commit());
}

TEST_CASE("logical partition sizes follow inserts, updates and deletes", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  REQUIRE_OK(txn->InsertDocument(container, Document(1, "[\"a\"]", "x", std::string(100, 'x'))));
  REQUIRE_OK(txn->InsertDocument(container, Document(2, "[\"a\"]", "y", std::string(50, 'y'))));
  auto size = txn->GetLogicalPartitionSize(container, "[\"a\"]");
  REQUIRE_OK(size);
  CHECK(size->document_count == 2);
  CHECK(size->total_bytes == 150);
  REQUIRE_OK(txn->UpdateDocument(container, Document(1, "[\"a\"]", "x", std::string(10, 'z'))));
  CHECK(txn->GetLogicalPartitionSize(container, "[\"a\"]")->total_bytes == 60);
  auto found = txn->FindDocument(container, "[\"a\"]", "y");
  REQUIRE_OK(found);
  REQUIRE(found.value());
  REQUIRE_OK(txn->DeleteDocument(container, *found.value()));
  CHECK(txn->GetLogicalPartitionSize(container, "[\"a\"]")->document_count == 1);
}

TEST_CASE("sequence numbers are never reused, even after deletes", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  auto first = txn->NextSeq(SeqKind::kDocument);
  REQUIRE_OK(first);
  REQUIRE_OK(txn->InsertDocument(container, Document(*first, "[1]", "x", "{}")));
  REQUIRE_OK(txn->DeleteDocument(container, Document(*first, "[1]", "x", "{}")));
  auto second = txn->NextSeq(SeqKind::kDocument);
  REQUIRE_OK(second);
  CHECK(*second == *first + 1);
}

TEST_CASE("an uncommitted transaction leaves nothing behind", "[store]") {
  auto [store, container] = SeedStore();
  {
    auto txn = store->BeginWrite();
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->InsertDocument(container, Document(1, "[1]", "x", "{}")));
  }  // rolled back
  auto read = store->BeginRead();
  REQUIRE_OK(read);
  auto found = read->FindDocument(container, "[1]", "x");
  REQUIRE_OK(found);
  CHECK_FALSE(found.value());
}

TEST_CASE("document pages follow seq (insertion) order from a seq", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  int64_t seq = 1;
  for (const char* pk : {"[\"b\"]", "[\"a\"]"}) {
    for (const char* id : {"2", "1", "3"}) REQUIRE_OK(txn->InsertDocument(container, Document(seq++, pk, id, "{}")));
  }
  auto ids = [&, container = container](const cosmos::storage::DocumentScope& scope, int64_t from_seq,
                                        int64_t limit) {
    auto rows = txn->ListDocuments(container, scope, from_seq, limit);
    REQUIRE_OK(rows);
    std::vector<std::string> listed;
    for (const auto& row : *rows) listed.push_back(row.partition_key + row.id);
    return listed;
  };
  using cosmos::storage::DocumentScope;
  CHECK(ids(DocumentScope::All(), 0, 4) == std::vector<std::string>{"[\"b\"]2", "[\"b\"]1", "[\"b\"]3", "[\"a\"]2"});
  CHECK(ids(DocumentScope::All(), 4, 10) == std::vector<std::string>{"[\"a\"]2", "[\"a\"]1", "[\"a\"]3"});
  CHECK(ids(DocumentScope::Partition("[\"a\"]"), 0, 10) ==
        std::vector<std::string>{"[\"a\"]2", "[\"a\"]1", "[\"a\"]3"});
  CHECK(ids(DocumentScope::Partition("[\"a\"]"), 5, 10) == std::vector<std::string>{"[\"a\"]1", "[\"a\"]3"});
  CHECK(ids(DocumentScope::Partition("[\"b\"]"), 4, 10).empty());
  CHECK(ids(DocumentScope::KeyRange("[\"b\"]", std::nullopt), 2, 1) == std::vector<std::string>{"[\"b\"]1"});
}

TEST_CASE("a key range lists the documents whose partition key text falls inside it", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  int64_t seq = 1;
  // Keys as the engine writes them: effective partition key, a space, the logical key.
  for (const char* pk : {"0A [1]", "10 [2]", "1F [3]", "30 [4]"}) {
    REQUIRE_OK(txn->InsertDocument(container, Document(seq++, pk, "x", "{\"a\":1}")));
  }
  auto middle = txn->ListDocuments(container, cosmos::storage::DocumentScope::KeyRange("10", "30"), 0, 10);
  REQUIRE_OK(middle);
  REQUIRE(middle->size() == 2);
  CHECK(middle->at(0).partition_key == "10 [2]");
  CHECK(middle->at(1).partition_key == "1F [3]");
  auto from_start = txn->ListDocuments(container, cosmos::storage::DocumentScope::KeyRange("", "10"), 0, 10);
  REQUIRE_OK(from_start);
  CHECK(from_start->size() == 1);
  auto resumed = txn->ListDocuments(container, cosmos::storage::DocumentScope::KeyRange("10", std::nullopt), 3, 10);
  REQUIRE_OK(resumed);
  CHECK(resumed->size() == 2);  // seqs 3 and 4
  auto measured = txn->MeasureKeyRange(container, "10", "FF");
  REQUIRE_OK(measured);
  CHECK(measured->document_count == 3);
  CHECK(measured->total_bytes == 3 * 7);
}

TEST_CASE("changes list the documents of a scope written after an LSN, in LSN order", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  // Document(seq, ...) writes lsn = seq.
  REQUIRE_OK(txn->InsertDocument(container, Document(3, "0A [1]", "a", "{\"_ts\":100}")));
  REQUIRE_OK(txn->InsertDocument(container, Document(1, "20 [2]", "b", "{\"_ts\":50}")));
  REQUIRE_OK(txn->InsertDocument(container, Document(2, "0A [1]", "c", "{\"_ts\":200}")));
  auto all = txn->ListChanges(container, cosmos::storage::DocumentScope::All(), 0, 10);
  REQUIRE_OK(all);
  REQUIRE(all->size() == 3);
  CHECK(all->at(0).id == "b");
  CHECK(all->at(2).id == "a");
  auto after = txn->ListChanges(container, cosmos::storage::DocumentScope::All(), 2, 10);
  REQUIRE_OK(after);
  REQUIRE(after->size() == 1);
  CHECK(after->at(0).id == "a");
  auto range = txn->ListChanges(container, cosmos::storage::DocumentScope::KeyRange("", "10"), 0, 10);
  REQUIRE_OK(range);
  CHECK(range->size() == 2);
  auto partition = txn->ListChanges(container, cosmos::storage::DocumentScope::Partition("20 [2]"), 0, 10);
  REQUIRE_OK(partition);
  CHECK(partition->size() == 1);
  auto since = txn->ListChanges(container, cosmos::storage::DocumentScope::All(), 0, 10, int64_t{100});
  REQUIRE_OK(since);
  CHECK(since->size() == 2);
  auto limited = txn->ListChanges(container, cosmos::storage::DocumentScope::All(), 0, 1);
  REQUIRE_OK(limited);
  CHECK(limited->size() == 1);
}

TEST_CASE("the change log lists entries of a scope after an LSN and drops them when their retention ends", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  REQUIRE_OK(txn->AppendChange(container, 1, "0A [1]", "{\"n\":1}", 100));
  REQUIRE_OK(txn->AppendChange(container, 2, "20 [2]", "{\"n\":2}", 200));
  REQUIRE_OK(txn->AppendChange(container, 3, "0A [1]", "{\"n\":3}", 300));
  auto all = txn->ListChangeLog(container, cosmos::storage::DocumentScope::All(), 0, 10);
  REQUIRE_OK(all);
  REQUIRE(all->size() == 3);
  CHECK(all->at(2).second == "{\"n\":3}");
  auto later = txn->ListChangeLog(container, cosmos::storage::DocumentScope::Partition("0A [1]"), 1, 10);
  REQUIRE_OK(later);
  REQUIRE(later->size() == 1);
  CHECK(later->at(0).first == 3);
  REQUIRE_OK(txn->PruneChangeLog(200));
  auto kept = txn->ListChangeLog(container, cosmos::storage::DocumentScope::All(), 0, 10);
  REQUIRE_OK(kept);
  REQUIRE(kept->size() == 1);
  CHECK(kept->at(0).first == 3);
}

TEST_CASE("partition key ranges are kept with their parents and gone flag", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  REQUIRE_OK(txn->InsertPartitionKeyRange(container, {0, "", "FF", "[]", 1, false}));
  REQUIRE_OK(txn->InsertPartitionKeyRange(container, {1, "", "20", "[0]", 2, false}));
  REQUIRE_OK(txn->InsertPartitionKeyRange(container, {2, "20", "FF", "[0]", 2, false}));
  REQUIRE_OK(txn->MarkPartitionKeyRangeGone(container, 0));
  auto ranges = txn->ListPartitionKeyRanges(container);
  REQUIRE_OK(ranges);
  REQUIRE(ranges->size() == 3);
  CHECK(ranges->at(0).gone);
  CHECK_FALSE(ranges->at(1).gone);
  CHECK(ranges->at(2).min_inclusive == "20");
  CHECK(ranges->at(2).parents == "[0]");
  CHECK(ranges->at(2).version == 2);
  REQUIRE_OK(txn->DeleteContainer(container));
  CHECK(txn->ListPartitionKeyRanges(container)->empty());
}

TEST_CASE("deleting a database removes its containers and documents", "[store]") {
  auto [store, container] = SeedStore();
  auto txn = store->BeginWrite();
  REQUIRE_OK(txn);
  REQUIRE_OK(txn->InsertDocument(container, Document(1, "[1]", "x", "{}")));
  REQUIRE_OK(txn->DeleteDatabase(1));
  CHECK_FALSE(txn->FindContainerBySeq(1, container).value());
  CHECK(txn->ListDocuments(container, cosmos::storage::DocumentScope::All(), 0, 10)->empty());
}

TEST_CASE("data in a file survives reopening", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-store-test-");
  auto options = cosmos_test::FileStore(dir);
  {
    auto [store, container] = SeedStore(options);
    auto txn = store->BeginWrite();
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->InsertDocument(container, Document(1, "[1]", "x", "{\"v\":1}")));
    REQUIRE_OK(txn->Commit());
  }
  {
    auto store = Store::Open(options);
    REQUIRE_OK(store);
    auto txn = store.value()->BeginRead();
    REQUIRE_OK(txn);
    auto found = txn->FindDocument(1, "[1]", "x");
    REQUIRE_OK(found);
    REQUIRE(found.value());
    CHECK(found.value()->body == "{\"v\":1}");
  }
}

TEST_CASE("concurrent writers share commits and a failed write rolls back alone", "[store]") {
  auto [store, container] = SeedStore();
  constexpr int kThreads = 8;
  constexpr int kWritesPerThread = 200;
  std::vector<std::thread> threads;
  std::atomic<int> acknowledged{0}, conflicts{0}, failures{0};  // Catch assertions are not thread-safe
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&, thread] {
      for (int index = 0; index < kWritesPerThread; ++index) {
        auto txn = store->BeginWrite();
        auto seq = txn.ok() ? txn->NextSeq(SeqKind::kDocument) : cosmos::Result<int64_t>(txn.status());
        if (!seq.ok()) {
          ++failures;
          continue;
        }
        // Every fourth write collides with an id another thread also writes.
        std::string id = index % 4 == 0 ? "shared-" + std::to_string(index) : std::to_string(thread) + "-" + std::to_string(index);
        cosmos::Status inserted = txn->InsertDocument(container, Document(*seq, "[1]", id, "{}"));
        if (!inserted.ok()) {
          ++conflicts;
          continue;  // dropped without Commit: rolls back this write only
        }
        if (txn->Commit().ok()) {
          ++acknowledged;
        } else {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(failures == 0);
  auto read = store->BeginRead();
  REQUIRE_OK(read);
  auto rows = read->ListDocuments(container, cosmos::storage::DocumentScope::All(), 0, 100000);
  REQUIRE_OK(rows);
  CHECK(static_cast<int>(rows->size()) == acknowledged.load());
  CHECK(acknowledged + conflicts == kThreads * kWritesPerThread);
  CHECK(conflicts == (kThreads - 1) * (kWritesPerThread / 4));
  CHECK(read->GetLogicalPartitionSize(container, "[1]")->document_count == acknowledged.load());
}

// Regression: a read that stopped after its row (a point read) kept its SELECT open, the
// connection kept that read snapshot, and the WAL could never be checkpointed (1.4 GB after
// 100k small documents, and every page lookup slowed down).
TEST_CASE("the WAL is checkpointed although reads stop before the last row", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-wal-test-");
  {
    StoreOptions options = cosmos_test::FileStore(dir);
    options.wal_restart_pages = 2500;  // 10 MB with frame headers
    auto [store, container] = SeedStore(options);
    std::string body(1024, 'x');
    for (int64_t seq = 1; seq <= 8000; ++seq) {
      {
        auto write = store->BeginWrite();
        REQUIRE_OK(write);
        std::string id = std::to_string(seq);
        REQUIRE_OK(write->InsertDocument(container, Document(seq, "[\"p\"]", id, body)));
        REQUIRE_OK(write->Commit());
      }
      auto read = store->BeginRead();
      REQUIRE_OK(read);
      REQUIRE_OK(read->FindDocument(container, "[\"p\"]", "1"));  // a point read steps once and stops
    }
    // 8,000 commits of a 1 KB document write far more WAL pages (over 100 MB) than the store lets
    // pile up before its writer checkpoints.
    CHECK(std::filesystem::file_size(dir.path() / "data.db-wal") < 24u * 1024 * 1024);
  }
}

// The soak of issue 31: under writes with reads that never pause, the WAL file must stay near
// the size the writer's checkpoint keeps it under (journal_size_limit cuts it back when it
// starts over), not grow with the writes.
TEST_CASE("the WAL file stays bounded while reads never pause", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-wal-busy-test-");
  StoreOptions options = cosmos_test::FileStore(dir);
  options.wal_restart_pages = 2500;  // 10 MB with frame headers
  auto wal = dir.path() / "data.db-wal";
  auto [store, container] = SeedStore(options);
  std::string body(1024, 'x');
  std::atomic<bool> writing{true};
  std::atomic<int> failed_reads{0};  // Catch2 assertions are for the test's own thread only
  auto read_constantly = [&, container = container] {
    while (writing) {
      auto read = store->BeginRead();
      if (!read.ok() || !read->FindDocument(container, "[\"p\"]", "1").ok() ||
          !read->ListDocuments(container, cosmos::storage::DocumentScope::All(), 0, 50).ok()) {
        failed_reads++;
      }
    }
  };
  std::thread reader1(read_constantly), reader2(read_constantly);
  uintmax_t largest = 0;
  for (int64_t seq = 1; seq <= 20000; ++seq) {
    auto write = store->BeginWrite();
    REQUIRE_OK(write);
    REQUIRE_OK(write->InsertDocument(container, Document(seq, "[\"p\"]", std::to_string(seq), body)));
    REQUIRE_OK(write->Commit());
    if (seq % 100 == 0) largest = std::max(largest, std::filesystem::file_size(wal));
  }
  writing = false;
  reader1.join();
  reader2.join();
  CHECK(failed_reads == 0);
  // 20,000 commits write about 330 MB of WAL frames; before the writer waited for the reads, the
  // file reached 38-87 MB after 12,000 of them.
  INFO("largest WAL file: " << largest << " bytes");
  // The writer waits for the reads to restart the WAL kRequestPages (4,000) past its threshold
  // (27 MB); on a loaded machine (a reader thread descheduled inside its read) a wait may time
  // out, and the next is 4,000 pages further: a clean-clone CI run beside other tests once saw
  // four in a row (75 MB). Growth with the writes would reach 330 MB.
  constexpr uintmax_t kStep = cosmos::storage::WalCheckpointer::kRequestPages;
  CHECK(largest < (2500u + 5 * kStep) * (4096u + 24u));  // pages with their frame headers: 93 MB
}

// After a burst of writes the WAL can be large (up to wal_restart_pages); once writes pause, the
// store copies it into the database and truncates its file, and nothing is lost.
TEST_CASE("the WAL file is truncated once writes pause", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-wal-idle-test-");
  StoreOptions options = cosmos_test::FileStore(dir);
  options.wal_truncate_idle_ms = 100;
  auto wal = dir.path() / "data.db-wal";
  auto wal_bytes = [&] { return std::filesystem::exists(wal) ? std::filesystem::file_size(wal) : 0; };
  auto [store, container] = SeedStore(options);
  std::string body(1024, 'x');
  auto write_burst = [&, container = container](int64_t first) {
    for (int64_t seq = first; seq < first + 300; ++seq) {
      auto write = store->BeginWrite();
      REQUIRE_OK(write);
      REQUIRE_OK(write->InsertDocument(container, Document(seq, "[\"p\"]", std::to_string(seq), body)));
      REQUIRE_OK(write->Commit());
    }
  };
  auto wait_for_empty_wal = [&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (wal_bytes() > 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return wal_bytes();
  };
  write_burst(1);
  CHECK(wal_bytes() > 0u);  // the burst is in the WAL, not yet in the database
  CHECK(wait_for_empty_wal() == 0u);
  write_burst(301);  // the WAL starts again, and is truncated again after this pause
  CHECK(wal_bytes() > 0u);
  CHECK(wait_for_empty_wal() == 0u);
  auto read = store->BeginRead();
  REQUIRE_OK(read);
  for (const char* id : {"1", "300", "301", "600"}) {
    auto found = read->FindDocument(container, "[\"p\"]", id);
    REQUIRE_OK(found);
    CHECK(found->has_value());
  }
}

TEST_CASE("a write batch commits its writes once, at its end, with the writes that joined it", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-batch-test-");
  auto options = cosmos_test::FileStore(dir);
  {
    auto [store, container] = SeedStore(options);
    auto write = [&, container = container](int64_t seq, const std::string& id, bool commit) {
      auto txn = store->BeginWrite();
      if (!txn.ok()) return txn.status();
      COSMOS_RETURN_IF_ERROR(txn->InsertDocument(container, Document(seq, "[1]", id, "{}")));
      return commit ? txn->Commit() : cosmos::Status();  // not committed: rolls back this write only
    };
    store->BeginBatch();
    REQUIRE_OK(write(1, "batch-1", true));  // returns at once: the batch's end commits it
    REQUIRE_OK(write(2, "dropped", false));
    std::atomic<bool> joined_committed{false};
    std::thread other([&] {
      if (write(3, "other-thread", true).ok()) joined_committed = true;
    });
    REQUIRE_OK(write(4, "batch-2", true));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK_FALSE(joined_committed.load());  // it joined the batch's group, which is not committed yet
    REQUIRE_OK(store->EndBatch());
    other.join();
    CHECK(joined_committed.load());
  }
  {
    auto store = Store::Open(options);
    REQUIRE_OK(store);
    auto read = store.value()->BeginRead();
    REQUIRE_OK(read);
    auto rows = read->ListDocuments(1, cosmos::storage::DocumentScope::All(), 0, 10);
    REQUIRE_OK(rows);
    std::vector<std::string> ids;
    for (const auto& row : *rows) ids.push_back(row.id);
    std::sort(ids.begin(), ids.end());
    CHECK(ids == std::vector<std::string>{"batch-1", "batch-2", "other-thread"});
  }
}

TEST_CASE("a write that is not isolated spoils its group only if it fails after a change", "[store]") {
  auto [store, container] = SeedStore({});
  auto write = [&, container = container](int64_t seq, const std::string& id, bool commit) {
    auto txn = store->BeginWrite(/*isolated=*/false);
    if (!txn.ok()) return txn.status();
    COSMOS_RETURN_IF_ERROR(txn->InsertDocument(container, Document(seq, "[1]", id, "{}")));
    return commit ? txn->Commit() : cosmos::Status();
  };
  auto ids = [&, container = container] {
    auto read = store->BeginRead();
    REQUIRE_OK(read);
    auto rows = read->ListDocuments(container, cosmos::storage::DocumentScope::All(), 0, 10);
    REQUIRE_OK(rows);
    std::vector<std::string> found;
    for (const auto& row : *rows) found.push_back(row.id);
    std::sort(found.begin(), found.end());
    return found;
  };

  // Refused before any change (a duplicate id): the batch's other writes commit.
  store->BeginBatch();
  REQUIRE_OK(write(1, "a", true));
  CHECK(write(2, "a", true).code() == cosmos::ErrorCode::kConflict);
  REQUIRE_OK(write(3, "b", true));
  REQUIRE_OK(store->EndBatch());
  CHECK(ids() == std::vector<std::string>{"a", "b"});

  // Dropped after a change: the whole batch is undone and its end reports it.
  store->BeginBatch();
  REQUIRE_OK(write(4, "c", true));
  REQUIRE_OK(write(5, "half-done", false));
  REQUIRE_OK(write(6, "d", true));
  CHECK_FALSE(store->EndBatch().ok());
  CHECK(ids() == std::vector<std::string>{"a", "b"});

  // Isolated before its change, a dropped write leaves the others be; after one, it cannot be.
  store->BeginBatch();
  {
    auto txn = store->BeginWrite(/*isolated=*/false);
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->Isolate());
    REQUIRE_OK(txn->InsertDocument(container, Document(7, "[1]", "isolated-dropped", "{}")));
  }
  {
    auto txn = store->BeginWrite(/*isolated=*/false);
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->InsertDocument(container, Document(8, "[1]", "e", "{}")));
    CHECK_FALSE(txn->Isolate().ok());
    REQUIRE_OK(txn->Commit());
  }
  REQUIRE_OK(store->EndBatch());
  CHECK(ids() == std::vector<std::string>{"a", "b", "e"});
}

TEST_CASE("container LSNs are counted in memory, read back at once and kept in the file", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-lsn-test-");
  auto options = cosmos_test::FileStore(dir);
  {
    auto [store, container] = SeedStore(options);
    store->BeginBatch();
    for (int64_t expected = 1; expected <= 3; ++expected) {
      auto txn = store->BeginWrite(/*isolated=*/false);
      REQUIRE_OK(txn);
      auto lsn = txn->NextLsn(container);
      REQUIRE_OK(lsn);
      CHECK(*lsn == expected);
      REQUIRE_OK(txn->Commit());
    }
    auto read_lsn = [&] {
      auto read = store->BeginRead();
      REQUIRE_OK(read);
      auto found = read->FindContainerBySeq(container);
      REQUIRE_OK(found);
      REQUIRE(found->has_value());
      return (*found)->lsn;
    };
    {
      // A write sees the count before the batch commits, when the row still says 0 ...
      auto txn = store->BeginWrite();
      REQUIRE_OK(txn);
      auto found = txn->FindContainerBySeq(container);
      REQUIRE_OK(found);
      CHECK((*found)->lsn == 3);
    }
    CHECK(read_lsn() == 0);  // ... and a read sees what is committed: none of the three yet
    REQUIRE_OK(store->EndBatch());
    CHECK(read_lsn() == 3);
    {
      auto dropped = store->BeginWrite();  // takes an LSN, then rolls back: a gap in the count
      REQUIRE_OK(dropped);
      REQUIRE_OK(dropped->NextLsn(container));
    }
  }
  auto store = Store::Open(options);
  REQUIRE_OK(store);
  auto txn = store.value()->BeginWrite();
  REQUIRE_OK(txn);
  auto lsn = txn->NextLsn(1);
  REQUIRE_OK(lsn);
  CHECK(*lsn >= 4);
  auto found = txn->FindContainerBySeq(1);
  REQUIRE_OK(found);
  CHECK((*found)->lsn == *lsn);
}

TEST_CASE("a file store's reads run beside an open write and see only committed writes", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-read-pool-test-");
  auto options = cosmos_test::FileStore(dir);
  auto [store, container] = SeedStore(options);
  // Runs on another thread too, where Catch's assertions may not: a failed read counts as seen.
  auto document_visible = [&store = store, container = container] {
    auto read = store->BeginRead();
    if (!read.ok()) return true;
    auto found = read->FindDocument(container, "[\"a\"]", "x");
    return !found.ok() || found->has_value();
  };
  // Declared before the write, so that a failed check releases the write before joining the read.
  std::future<bool> seen_during_write;
  {
    auto write = store->BeginWrite();
    REQUIRE_OK(write);
    REQUIRE_OK(write->InsertDocument(container, Document(1, "[\"a\"]", "x", "{\"id\":\"x\"}")));
    seen_during_write = std::async(std::launch::async, document_visible);
    REQUIRE(seen_during_write.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    CHECK_FALSE(seen_during_write.get());
    REQUIRE_OK(write->Commit());
  }
  CHECK(document_visible());
}

TEST_CASE("a file store's read is one snapshot: both writes of a transaction or neither", "[store]") {
  cosmos_test::ScratchDir dir("cosmolite-read-snapshot-test-");
  auto options = cosmos_test::FileStore(dir);
  auto [store, container] = SeedStore(options);
  constexpr int kPairs = 400;
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, reads{0}, failed{0};
  auto reader = [&, &store = store, container = container] {  // no Catch assertions off the main thread
    while (!done.load()) {
      for (int pair = 1; pair <= kPairs && !done.load(); pair += 7) {
        auto read = store->BeginRead();
        if (!read.ok()) {
          ++failed;
          continue;
        }
        std::string id = std::to_string(pair);
        auto first = read->FindDocument(container, "[\"a\"]", id);  // written first ...
        std::this_thread::yield();  // ... so a read without a snapshot could miss it and see the second
        auto second = read->FindDocument(container, "[\"b\"]", id);
        if (!first.ok() || !second.ok()) {
          ++failed;
          continue;
        }
        if (first->has_value() != second->has_value()) ++torn;
        ++reads;
      }
    }
  };
  std::thread reader_one(reader), reader_two(reader);
  for (int pair = 1; pair <= kPairs; ++pair) {
    auto write = store->BeginWrite();
    REQUIRE_OK(write);
    std::string id = std::to_string(pair);
    REQUIRE_OK(write->InsertDocument(container, Document(2 * pair, "[\"a\"]", id, "{}")));
    REQUIRE_OK(write->InsertDocument(container, Document(2 * pair + 1, "[\"b\"]", id, "{}")));
    REQUIRE_OK(write->Commit());
  }
  done = true;
  reader_one.join();
  reader_two.join();
  CHECK(failed.load() == 0);
  CHECK(reads.load() > 0);
  CHECK(torn.load() == 0);
}
