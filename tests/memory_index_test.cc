// The index of an in-memory store (storage/memory_index.h) against the index_entries table of a
// file store: the same writes into both, then every lookup the engine makes, compared answer for
// answer; and its changes undone with the SQLite transaction's (savepoints, parts, whole groups).
#include "storage/memory_index.h"

#include <random>

#include "storage/store.h"
#include "tests/test_support.h"

using cosmos::storage::ContainerRecord;
using cosmos::storage::DatabaseRecord;
using cosmos::storage::DocumentRecord;
using cosmos::storage::DocumentScope;
using cosmos::storage::IndexEntry;
using cosmos::storage::IndexRow;
using cosmos::storage::Store;
using cosmos::storage::StoreOptions;
using cosmos::storage::Transaction;

namespace {

constexpr int64_t kContainer = 1;

std::unique_ptr<Store> OpenSeeded(const StoreOptions& options) {
  auto store = Store::Open(options);
  REQUIRE_OK(store);
  auto txn = store.value()->BeginWrite();
  REQUIRE_OK(txn);
  REQUIRE_OK(txn->InsertDatabase(DatabaseRecord{1, "db", "{}"}));
  REQUIRE_OK(txn->InsertContainer(ContainerRecord{kContainer, 1, "c", "{}", 0}));
  REQUIRE_OK(txn->Commit());
  return std::move(store).value();
}

// prefix + text, appended: g++ 12 misreports "literal" + std::string (-Wrestrict).
std::string Join(const char* prefix, const std::string& text) {
  std::string joined = prefix;
  joined += text;
  return joined;
}

// A document of partition "k<seq % 5>" with entries at /a (a value of 12), /b (a string), /arr
// (two values of 4, sometimes the same) and /long (two long or odd values).
struct Written {
  DocumentRecord record;
  std::vector<IndexEntry> entries;
};

Written MakeDocument(int64_t seq, std::mt19937& random) {
  Written written;
  written.record = DocumentRecord{seq, Join("k", std::to_string(seq % 5)), Join("d", std::to_string(seq)), "{}",
                                  "\"e\"", seq};
  auto pick = [&](int values) { return std::to_string(random() % values); };
  written.entries = {{"/a", Join("3", pick(12))}, {"/b", Join("4s", pick(3))}, {"/arr/[]", Join("3", pick(4))},
                     {"/arr/[]", Join("3", pick(4))},
                     // Values alike in their first 16 bytes, or holding NULs, as composite ones do.
                     {"/long", Join("4a-shared-prefix-", pick(3))}, {"/long", std::string("4a\0\0", 4) + pick(3)}};
  return written;
}

std::string Text(const std::vector<IndexRow>& rows) {
  std::string text;
  for (const IndexRow& row : rows) {
    text += row.value;
    text += '/';
    text += std::to_string(row.partition_hash);
    text += '/';
    text += std::to_string(row.document_seq);
    text += ' ';
  }
  return text;
}

}  // namespace

TEST_CASE("the in-memory index answers every lookup as the index_entries table does", "[store][memory_index]") {
  cosmos_test::ScratchDir dir("cosmolite-memory-index-");
  std::unique_ptr<Store> in_memory = OpenSeeded({});
  std::unique_ptr<Store> in_file = OpenSeeded(cosmos_test::FileStore(dir));
  std::mt19937 random(7);
  std::vector<Written> documents;
  for (int64_t seq = 1; seq <= 120; ++seq) documents.push_back(MakeDocument(seq, random));
  for (Store* store : {in_memory.get(), in_file.get()}) {
    auto txn = store->BeginWrite();
    REQUIRE_OK(txn);
    for (const Written& written : documents) {
      REQUIRE_OK(txn->InsertDocument(kContainer, written.record));
      // Half through the path for new documents (repeats go in once), half the other.
      if (written.record.seq % 2 == 0) {
        REQUIRE_OK(txn->InsertNewIndexEntries(kContainer, written.record.seq, written.record.partition_key, written.entries));
      } else {
        REQUIRE_OK(txn->InsertIndexEntries(kContainer, written.record.seq, written.record.partition_key, written.entries));
      }
    }
    // Some entries go again, as a replaced document's would.
    for (int64_t seq = 3; seq <= 120; seq += 7) {
      const Written& written = documents[seq - 1];
      REQUIRE_OK(txn->DeleteIndexEntries(kContainer, seq, written.record.partition_key, {written.entries[0], written.entries[2]}));
    }
    REQUIRE_OK(txn->Commit());
  }

  auto in_memory_read = in_memory->BeginRead();
  auto in_file_read = in_file->BeginRead();
  REQUIRE_OK(in_memory_read);
  REQUIRE_OK(in_file_read);
  Transaction& memory = *in_memory_read;
  Transaction& file = *in_file_read;

  auto memory_size = memory.MeasureIndex(kContainer);
  auto file_size = file.MeasureIndex(kContainer);
  REQUIRE_OK(memory_size);
  REQUIRE_OK(file_size);
  CHECK(memory_size->entries == file_size->entries);
  CHECK(memory_size->bytes == file_size->bytes);
  CHECK(memory_size->entries > 300);
  for (const char* path : {"/a", "/b", "/arr/[]", "/long", "/none"}) {
    CHECK(memory.CountIndexEntries(kContainer, path).value() == file.CountIndexEntries(kContainer, path).value());
  }

  const std::vector<std::string> bounds = {"", "3", "30", "35", "38", "399", "4", "4s1", "4s2", "5",
                                           "4a-shared-prefix", "4a-shared-prefix-1", std::string("4a\0\0", 4)};
  const std::vector<DocumentScope> scopes = {DocumentScope::All(), DocumentScope::Partition("k2"),
                                             DocumentScope::KeyRange("k1", std::string("k3")),
                                             DocumentScope::KeyRange("k3", std::nullopt)};
  int compared = 0;
  for (const char* path : {"/a", "/b", "/arr/[]", "/long"}) {
    for (const std::string& lower : bounds) {
      for (const std::string& upper : bounds) {
        for (bool lower_inclusive : {true, false}) {
          for (bool upper_inclusive : {true, false}) {
            INFO(path << " [" << lower << (lower_inclusive ? "=" : "") << ", " << upper << (upper_inclusive ? "=" : "") << "]");
            for (const DocumentScope& scope : scopes) {
              uint64_t memory_read = 0, file_read = 0;
              auto memory_seqs = memory.LookupIndex(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, scope, memory_read);
              auto file_seqs = file.LookupIndex(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, scope, file_read);
              REQUIRE_OK(memory_seqs);
              REQUIRE_OK(file_seqs);
              CHECK(*memory_seqs == *file_seqs);
              CHECK(memory_read == file_read);
              auto memory_values = memory.LookupIndexValues(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, scope, memory_read);
              auto file_values = file.LookupIndexValues(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, scope, file_read);
              REQUIRE_OK(memory_values);
              REQUIRE_OK(file_values);
              CHECK(*memory_values == *file_values);
              ++compared;
            }
            for (std::optional<std::string> partition : {std::optional<std::string>(), std::optional<std::string>("k4")}) {
              for (int64_t limit : {0, 1, 7, 1000}) {
                CHECK(memory.CountIndexRange(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, partition, limit).value() ==
                      file.CountIndexRange(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, partition, limit).value());
              }
              for (bool descending : {false, true}) {
                // Page through in fives, resuming after the last row as a continuation does.
                std::optional<IndexRow> after;
                for (int page = 0; page < 40; ++page) {
                  auto memory_rows = memory.ScanIndex(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, descending, partition, after, 5);
                  auto file_rows = file.ScanIndex(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, descending, partition, after, 5);
                  REQUIRE_OK(memory_rows);
                  REQUIRE_OK(file_rows);
                  REQUIRE(Text(*memory_rows) == Text(*file_rows));
                  ++compared;
                  if (memory_rows->size() < 5) break;
                  after = memory_rows->back();
                }
              }
            }
          }
        }
      }
    }
  }
  CHECK(compared > 5000);
}

TEST_CASE("the in-memory index undoes its changes with the transaction's", "[store][memory_index]") {
  std::unique_ptr<Store> store = OpenSeeded({});
  auto count = [&](const char* path) {
    auto read = store->BeginRead();
    REQUIRE_OK(read);
    return read->CountIndexEntries(kContainer, path).value();
  };
  auto write = [&](int64_t seq, const char* path, bool isolated, bool commit) {
    auto txn = store->BeginWrite(isolated);
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->InsertDocument(kContainer, DocumentRecord{seq, "k", Join("d", std::to_string(seq)), "{}", "\"e\"", seq}));
    REQUIRE_OK(txn->InsertNewIndexEntries(kContainer, seq, "k", {{path, "31"}}));
    if (commit) REQUIRE_OK(txn->Commit());
  };

  // In one batch (one group): an isolated write dropped takes its savepoint's changes alone.
  store->BeginBatch();
  write(1, "/kept", true, true);
  write(2, "/dropped", true, false);
  REQUIRE_OK(store->EndBatch());
  CHECK(count("/kept") == 1);
  CHECK(count("/dropped") == 0);

  // A part of a write undone alone; the write commits the rest.
  {
    auto txn = store->BeginWrite(true);
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->InsertIndexEntries(kContainer, 1, "k", {{"/part", "kept"}}));
    REQUIRE_OK(txn->BeginPart());
    REQUIRE_OK(txn->InsertIndexEntries(kContainer, 1, "k", {{"/part", "undone"}}));
    REQUIRE_OK(txn->DeleteIndexEntries(kContainer, 1, "k", {{"/kept", "31"}}));
    REQUIRE_OK(txn->EndPart(/*keep=*/false));
    REQUIRE_OK(txn->Commit());
  }
  CHECK(count("/part") == 1);
  CHECK(count("/kept") == 1);

  // A write that is not isolated, dropped after its change, spoils its batch: all of it goes.
  store->BeginBatch();
  write(3, "/batch", false, true);
  write(4, "/batch", false, false);
  CHECK_FALSE(store->EndBatch().ok());
  CHECK(count("/batch") == 0);

  // A container's entries erased (as a rebuild starts) come back when that write is dropped.
  {
    auto txn = store->BeginWrite(true);
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->StartIndexBuild(kContainer));
  }
  CHECK(count("/kept") == 1);
  CHECK(count("/part") == 1);
  {
    auto txn = store->BeginWrite(true);
    REQUIRE_OK(txn);
    REQUIRE_OK(txn->StartIndexBuild(kContainer));
    REQUIRE_OK(txn->Commit());
  }
  CHECK(count("/kept") == 0);
  CHECK(count("/part") == 0);
}
