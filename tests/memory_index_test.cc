// The store's index (storage/memory_index.h): every lookup the engine makes, against a plain
// model of the index, in an in-memory store and a file store; its changes undone with the SQLite
// transaction's (savepoints, parts, whole groups); and what each reader's snapshot sees while
// the writer goes on (versions, purges, and a writer and readers on threads side by side).
#include "storage/memory_index.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "storage/schema.h"
#include "storage/store.h"
#include "tests/test_support.h"

using cosmos::storage::ContainerRecord;
using cosmos::storage::DatabaseRecord;
using cosmos::storage::DocumentRecord;
using cosmos::storage::DocumentScope;
using cosmos::storage::IndexEntry;
using cosmos::storage::IndexRow;
using cosmos::storage::IndexScan;
using cosmos::storage::MemoryIndex;
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

// "4" and 50 bytes alike, then `tail`.
std::string LongValue(const std::string& tail) { return Join("4", std::string(50, 'x')) + tail; }

Written MakeDocument(int64_t seq, std::mt19937& random) {
  Written written;
  written.record = DocumentRecord{seq, Join("k", std::to_string(seq % 5)), Join("d", std::to_string(seq)), "{}",
                                  "\"e\"", seq};
  auto pick = [&](int values) { return std::to_string(random() % values); };
  written.entries = {{"/a", Join("3", pick(12))}, {"/b", Join("4s", pick(3))}, {"/arr/[]", Join("3", pick(4))},
                     {"/arr/[]", Join("3", pick(4))},
                     // Values alike in their first 16 bytes, or holding NULs, as composite ones do.
                     {"/long", Join("4a-shared-prefix-", pick(3))}, {"/long", std::string("4a\0\0", 4) + pick(3)},
                     // Long values alike far past their head, of two lengths.
                     {"/longer", LongValue(pick(3))}, {"/longer", LongValue(pick(2)) + "+tail"}};
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

// The index as a plain set of (path, value, partition hash, document seq), and each lookup as the
// engine defines it (store.h), computed by filtering and sorting it.
class ModelIndex {
 public:
  void Insert(const Written& written) {
    keys_[written.record.seq] = written.record.partition_key;
    for (const IndexEntry& entry : written.entries) entries_.insert(Row(written, entry));
  }
  void Delete(const Written& written, const std::vector<IndexEntry>& entries) {
    for (const IndexEntry& entry : entries) entries_.erase(Row(written, entry));
  }

  // The rows of `path` between the bounds, in key order.
  std::vector<IndexRow> Rows(const std::string& path, const std::string& lower, bool lower_inclusive,
                             const std::string& upper, bool upper_inclusive) const {
    std::vector<IndexRow> rows;
    for (const auto& [entry_path, value, hash, seq] : entries_) {
      if (entry_path != path || (lower_inclusive ? value < lower : value <= lower)) continue;
      if (!upper.empty() && (upper_inclusive ? value > upper : value >= upper)) continue;
      rows.push_back(IndexRow{value, hash, seq});
    }
    return rows;
  }
  bool InScope(const IndexRow& row, const DocumentScope& scope) const {
    if (scope.partition_key) return row.partition_hash == cosmos::storage::PartitionHash(*scope.partition_key);
    const std::string& key = keys_.at(row.document_seq);
    return key >= scope.min_key && (!scope.max_key || key < *scope.max_key);
  }
  int64_t Count(const std::string& path) const {
    return static_cast<int64_t>(Rows(path, "", true, "", false).size());
  }
  cosmos::storage::IndexSize Size() const {
    cosmos::storage::IndexSize size;
    for (const auto& [path, value, hash, seq] : entries_) {
      ++size.entries;
      size.bytes += static_cast<int64_t>(path.size() + value.size()) + cosmos::storage::kIndexEntryPointerBytes;
    }
    return size;
  }

 private:
  using Entry = std::tuple<std::string, std::string, int64_t, int64_t>;
  static Entry Row(const Written& written, const IndexEntry& entry) {
    return {entry.path, entry.value, cosmos::storage::PartitionHash(written.record.partition_key), written.record.seq};
  }
  std::set<Entry> entries_;
  std::map<int64_t, std::string> keys_;
};

bool Before(const IndexRow& a, const IndexRow& b) {
  return std::tie(a.value, a.partition_hash, a.document_seq) < std::tie(b.value, b.partition_hash, b.document_seq);
}

}  // namespace

// Index sizes at which `recent` folds into sorted runs (memory_index.h) are 0, the default (no run
// forms in these tests), or tiny ones, so that runs form, merge, and hold removed entries.
StoreOptions WithFold(StoreOptions options, size_t fold) {
  options.index_fold_entries = fold;
  return options;
}

TEST_CASE("the index answers every lookup as a plain model of it does", "[store][memory_index]") {
  std::mt19937 random(7);
  std::vector<Written> documents;
  for (int64_t seq = 1; seq <= 120; ++seq) documents.push_back(MakeDocument(seq, random));
  ModelIndex model;
  for (const Written& written : documents) model.Insert(written);
  for (int64_t seq = 3; seq <= 120; seq += 7) {
    const Written& written = documents[seq - 1];
    model.Delete(written, {written.entries[0], written.entries[2]});
  }

  for (size_t fold : {size_t{0}, size_t{4}})
  for (bool in_file : {false, true}) {
    INFO((in_file ? "a file store (reads on snapshots)" : "an in-memory store") << ", folds at " << fold);
    cosmos_test::ScratchDir dir("cosmolite-memory-index-");
    std::unique_ptr<Store> store = OpenSeeded(WithFold(in_file ? cosmos_test::FileStore(dir) : StoreOptions{}, fold));
    {
      // Eight documents to a group: each commit folds when the fold size is small.
      std::optional<Transaction> txn;
      for (const Written& written : documents) {
        if (!txn) {
          auto begun = store->BeginWrite();
          REQUIRE_OK(begun);
          txn.emplace(std::move(begun).value());
        }
        REQUIRE_OK(txn->InsertDocument(kContainer, written.record));
        // Half through the path for new documents (repeats go in once), half the other.
        if (written.record.seq % 2 == 0) {
          REQUIRE_OK(txn->InsertNewIndexEntries(kContainer, written.record.seq, written.record.partition_key, written.entries));
        } else {
          REQUIRE_OK(txn->InsertIndexEntries(kContainer, written.record.seq, written.record.partition_key, written.entries));
        }
        if (written.record.seq % 8 == 0) {
          REQUIRE_OK(txn->Commit());
          txn.reset();
        }
      }
      if (txn) REQUIRE_OK(txn->Commit());
    }
    {
      // Some entries go again, as a replaced document's would, in a later group.
      auto txn = store->BeginWrite();
      REQUIRE_OK(txn);
      for (int64_t seq = 3; seq <= 120; seq += 7) {
        const Written& written = documents[seq - 1];
        REQUIRE_OK(txn->DeleteIndexEntries(kContainer, seq, written.record.partition_key, {written.entries[0], written.entries[2]}));
      }
      REQUIRE_OK(txn->Commit());
    }

    auto read = store->BeginRead();
    REQUIRE_OK(read);
    Transaction& index = *read;
    CHECK(index.OnSnapshot() == in_file);
    auto size = index.MeasureIndex(kContainer);
    REQUIRE_OK(size);
    CHECK(size->entries == model.Size().entries);
    CHECK(size->bytes == model.Size().bytes);
    CHECK(size->entries > 300);
    for (const char* path : {"/a", "/b", "/arr/[]", "/long", "/longer", "/none"}) {
      CHECK(index.CountIndexEntries(kContainer, path).value() == model.Count(path));
    }

    const std::vector<std::string> bounds = {"", "3", "30", "35", "38", "399", "4", "4s1", "4s2", "5",
                                             "4a-shared-prefix", "4a-shared-prefix-1", std::string("4a\0\0", 4),
                                             LongValue(""), LongValue("1"), LongValue("1+tail")};
    const std::vector<DocumentScope> scopes = {DocumentScope::All(), DocumentScope::Partition("k2"),
                                               DocumentScope::KeyRange("k1", std::string("k3")),
                                               DocumentScope::KeyRange("k3", std::nullopt)};
    int compared = 0;
    for (const char* path : {"/a", "/b", "/arr/[]", "/long", "/longer"}) {
      for (const std::string& lower : bounds) {
        for (const std::string& upper : bounds) {
          for (bool lower_inclusive : {true, false}) {
            for (bool upper_inclusive : {true, false}) {
              INFO(path << " [" << lower << (lower_inclusive ? "=" : "") << ", " << upper << (upper_inclusive ? "=" : "") << "]");
              const std::vector<IndexRow> rows = model.Rows(path, lower, lower_inclusive, upper, upper_inclusive);
              for (const DocumentScope& scope : scopes) {
                std::vector<int64_t> seqs;
                std::vector<std::pair<int64_t, std::string>> values;
                for (const IndexRow& row : rows) {
                  if (!model.InScope(row, scope)) continue;
                  seqs.push_back(row.document_seq);
                  values.emplace_back(row.document_seq, row.value);
                }
                const uint64_t entries = seqs.size();
                std::sort(seqs.begin(), seqs.end());
                seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
                // One per document: the first of its values in key order.
                std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
                values.erase(std::unique(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                             values.end());
                uint64_t read_entries = 0;
                auto found = index.LookupIndex(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, scope, read_entries);
                REQUIRE_OK(found);
                CHECK(*found == seqs);
                CHECK(read_entries == entries);
                auto found_values = index.LookupIndexValues(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, scope, read_entries);
                REQUIRE_OK(found_values);
                CHECK(*found_values == values);
                ++compared;
              }
              for (std::optional<std::string> partition : {std::optional<std::string>(), std::optional<std::string>("k4")}) {
                std::vector<IndexRow> in_partition;
                for (const IndexRow& row : rows) {
                  if (!partition || model.InScope(row, DocumentScope::Partition(*partition))) in_partition.push_back(row);
                }
                for (int64_t limit : {0, 1, 7, 1000}) {
                  CHECK(index.CountIndexRange(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, partition, limit).value() ==
                        std::min<int64_t>(std::max<int64_t>(limit, 0), static_cast<int64_t>(in_partition.size())));
                }
                for (bool descending : {false, true}) {
                  std::vector<IndexRow> expected = in_partition;
                  if (descending) std::reverse(expected.begin(), expected.end());
                  // Page through in fives, resuming after the last row as a continuation does.
                  std::vector<IndexRow> paged;
                  std::optional<IndexRow> after;
                  for (int page = 0; page < 100; ++page) {
                    auto found = index.ScanIndex(kContainer, path, lower, lower_inclusive, upper, upper_inclusive, descending, partition, after, 5);
                    REQUIRE_OK(found);
                    for (const IndexRow& row : *found) {
                      if (after) CHECK((descending ? Before(row, *after) : Before(*after, row)));
                    }
                    paged.insert(paged.end(), found->begin(), found->end());
                    ++compared;
                    if (found->size() < 5) break;
                    after = found->back();
                  }
                  REQUIRE(Text(paged) == Text(expected));
                }
              }
            }
          }
        }
      }
    }
    CHECK(compared > 5000);
  }
}

TEST_CASE("the in-memory index undoes its changes with the transaction's", "[store][memory_index]") {
  const size_t fold = GENERATE(0, 1);
  INFO("folds at " << fold);
  std::unique_ptr<Store> store = OpenSeeded(WithFold({}, fold));
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

TEST_CASE("a reader sees the index entries of its snapshot while the writer goes on", "[store][memory_index]") {
  const size_t fold = GENERATE(0, 1);
  INFO("folds at " << fold);
  cosmos_test::ScratchDir dir("cosmolite-memory-index-snapshot-");
  std::unique_ptr<Store> store = OpenSeeded(WithFold(cosmos_test::FileStore(dir), fold));
  auto write = [&](const std::function<void(Transaction&)>& changes) {
    auto txn = store->BeginWrite();
    REQUIRE_OK(txn);
    changes(*txn);
    REQUIRE_OK(txn->Commit());
  };
  auto values = [&](Transaction& read) {
    uint64_t entries = 0;
    auto found = read.LookupIndexValues(kContainer, "/v", "3", true, "4", false, DocumentScope::All(), entries);
    REQUIRE_OK(found);
    return *found;
  };
  using Values = std::vector<std::pair<int64_t, std::string>>;
  write([](Transaction& txn) {
    REQUIRE_OK(txn.InsertDocument(kContainer, DocumentRecord{1, "k", "d1", "{}", "\"e\"", 1}));
    REQUIRE_OK(txn.InsertNewIndexEntries(kContainer, 1, "k", {{"/v", "31"}}));
  });
  auto early = store->BeginRead();
  REQUIRE_OK(early);
  CHECK(values(*early) == Values{{1, "31"}});  // its snapshot begins here
  auto registered_early = store->BeginRead();  // registered now, its snapshot begins later
  REQUIRE_OK(registered_early);

  // Document 1 changes its value; document 2 comes.
  write([](Transaction& txn) {
    REQUIRE_OK(txn.DeleteIndexEntries(kContainer, 1, "k", {{"/v", "31"}}));
    REQUIRE_OK(txn.InsertIndexEntries(kContainer, 1, "k", {{"/v", "32"}}));
    REQUIRE_OK(txn.InsertDocument(kContainer, DocumentRecord{2, "k", "d2", "{}", "\"e\"", 2}));
    REQUIRE_OK(txn.InsertNewIndexEntries(kContainer, 2, "k", {{"/v", "33"}}));
  });
  // Back to the first value, in a later group: the same entry again, beside its older version.
  write([](Transaction& txn) {
    REQUIRE_OK(txn.DeleteIndexEntries(kContainer, 1, "k", {{"/v", "32"}}));
    REQUIRE_OK(txn.InsertIndexEntries(kContainer, 1, "k", {{"/v", "31"}}));
  });
  CHECK(values(*early) == Values{{1, "31"}});
  auto scanned = early->ScanIndex(kContainer, "/v", "", true, "", false, /*descending=*/true, std::nullopt, std::nullopt, 10);
  REQUIRE_OK(scanned);
  CHECK(Text(*scanned) == Text({IndexRow{"31", cosmos::storage::PartitionHash("k"), 1}}));
  CHECK(values(*registered_early) == Values{{1, "31"}, {2, "33"}});
  auto late = store->BeginRead();
  REQUIRE_OK(late);
  CHECK(values(*late) == Values{{1, "31"}, {2, "33"}});
  // A write sees the latest entries, and counts are the latest's for every reader.
  write([&](Transaction& txn) { CHECK(values(txn) == Values{{1, "31"}, {2, "33"}}); });
  CHECK(early->CountIndexEntries(kContainer, "/v").value() == 2);
}

TEST_CASE("removed entries stay while a reader may see them, and go after", "[store][memory_index]") {
  const size_t fold = GENERATE(MemoryIndex::kDefaultFoldEntries, 1);
  INFO("folds at " << fold);
  MemoryIndex index(/*committed_group=*/10, fold);
  auto seen_by = [&](uint64_t snapshot) {
    std::vector<std::string> seen;
    IndexScan scan{"", true, "", false, false, nullptr, std::nullopt, snapshot};
    index.Scan(kContainer, "/v", scan, [&](const IndexRow& row) {
      seen.push_back(row.value);
      return true;
    });
    return seen;
  };
  using Seen = std::vector<std::string>;
  CHECK(index.Insert(kContainer, "/v", IndexRow{"31", 0, 1}, 11));
  CHECK_FALSE(index.Insert(kContainer, "/v", IndexRow{"31", 0, 1}, 11));  // there already
  CHECK(index.Insert(kContainer, "/v", IndexRow{"32", 0, 2}, 11));
  CHECK(seen_by(10) == Seen{});
  CHECK(seen_by(MemoryIndex::kLatest) == Seen{"31", "32"});
  index.Commit(11);
  const uint64_t reader = index.OpenReader();
  CHECK(reader == 11);

  CHECK(index.Erase(kContainer, "/v", IndexRow{"31", 0, 1}, 12));
  CHECK_FALSE(index.Erase(kContainer, "/v", IndexRow{"31", 0, 1}, 12));  // gone already
  CHECK(index.Insert(kContainer, "/v", IndexRow{"33", 0, 3}, 12));
  CHECK(index.Erase(kContainer, "/v", IndexRow{"33", 0, 3}, 12));  // added and removed by one group: erased
  CHECK(index.Count(kContainer, "/v") == 1);
  index.Commit(12);
  CHECK(seen_by(11) == Seen{"31", "32"});
  CHECK(seen_by(12) == Seen{"32"});
  CHECK(index.HeldEntries() == 2);  // the removed "31" waits for the reader

  // Removed and added back in one group: the entry simply lives on.
  CHECK(index.Erase(kContainer, "/v", IndexRow{"32", 0, 2}, 13));
  CHECK(index.Insert(kContainer, "/v", IndexRow{"32", 0, 2}, 13));
  index.Commit(13);
  CHECK(seen_by(11) == Seen{"31", "32"});
  CHECK(seen_by(13) == Seen{"32"});

  index.CloseReader(reader);
  CHECK(index.HeldEntries() == 2);  // purged with the next commit
  index.Commit(14);
  CHECK(index.HeldEntries() == 1);
  CHECK(seen_by(MemoryIndex::kLatest) == Seen{"32"});

  // Undone: a removal, an addition, a container's erasure.
  index.Savepoint();
  CHECK(index.Erase(kContainer, "/v", IndexRow{"32", 0, 2}, 15));
  CHECK(index.Insert(kContainer, "/v", IndexRow{"34", 0, 4}, 15));
  index.EraseContainer(kContainer, 15);
  CHECK(seen_by(MemoryIndex::kLatest) == Seen{});
  index.RollBackToSavepoint();
  index.ReleaseSavepoint();
  CHECK(seen_by(MemoryIndex::kLatest) == Seen{"32"});
  CHECK(index.Count(kContainer, "/v") == 1);
  CHECK(index.HeldEntries() == 1);

  // Two entries of one long value: one goes, the other keeps it.
  const std::string long_value = LongValue("!");
  CHECK(index.Insert(kContainer, "/v", IndexRow{long_value, 0, 5}, 16));
  CHECK(index.Insert(kContainer, "/v", IndexRow{long_value, 0, 6}, 16));
  index.Commit(16);
  CHECK(index.Erase(kContainer, "/v", IndexRow{long_value, 0, 5}, 17));
  index.Commit(17);
  CHECK(seen_by(MemoryIndex::kLatest) == Seen{"32", long_value});
  CHECK(index.Size(kContainer).entries == 2);
}

TEST_CASE("readers on threads see whole commits while the writer replaces entries", "[store][memory_index]") {
  const size_t fold = GENERATE(0, 16);
  INFO("folds at " << fold);
  cosmos_test::ScratchDir dir("cosmolite-memory-index-threads-");
  std::unique_ptr<Store> store = OpenSeeded(WithFold(cosmos_test::FileStore(dir), fold));
  // Each document has one entry at /v; a write moves it to another value. A reader that saw part
  // of a commit would find a document twice, or not at all.
  constexpr int64_t kDocuments = 300;
  std::vector<std::string> current(kDocuments + 1);
  {
    auto txn = store->BeginWrite();
    REQUIRE_OK(txn);
    for (int64_t seq = 1; seq <= kDocuments; ++seq) {
      REQUIRE_OK(txn->InsertDocument(kContainer, DocumentRecord{seq, Join("k", std::to_string(seq % 7)),
                                                                Join("d", std::to_string(seq)), "{}", "\"e\"", seq}));
      current[seq] = Join("3", std::to_string(seq));
      REQUIRE_OK(txn->InsertNewIndexEntries(kContainer, seq, Join("k", std::to_string(seq % 7)), {{"/v", current[seq]}}));
    }
    REQUIRE_OK(txn->Commit());
  }
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, reads{0};
  auto reader = [&] {
    while (!stop.load()) {
      auto read = store->BeginRead();
      if (!read.ok()) {
        ++failures;
        continue;
      }
      uint64_t entries = 0;
      auto first = read->LookupIndexValues(kContainer, "/v", "", true, "", false, DocumentScope::All(), entries);
      std::this_thread::yield();  // the writer commits meanwhile
      std::vector<IndexRow> paged;
      std::optional<IndexRow> after;
      for (;;) {
        auto page = read->ScanIndex(kContainer, "/v", "", true, "", false, false, std::nullopt, after, 7);
        if (!page.ok()) break;
        paged.insert(paged.end(), page->begin(), page->end());
        if (page->size() < 7) break;
        after = page->back();
      }
      auto again = read->LookupIndexValues(kContainer, "/v", "", true, "", false, DocumentScope::All(), entries);
      if (!first.ok() || !again.ok() || first->size() != kDocuments || *first != *again ||
          paged.size() != static_cast<size_t>(kDocuments)) {
        ++failures;
      }
      ++reads;
    }
  };
  std::thread reader_a(reader), reader_b(reader);
  std::mt19937 random(11);
  for (int round = 0; round < 400; ++round) {
    auto txn = store->BeginWrite();
    REQUIRE_OK(txn);
    for (int change = 0; change < 5; ++change) {
      const int64_t seq = 1 + static_cast<int64_t>(random() % kDocuments);
      const std::string key = Join("k", std::to_string(seq % 7));
      std::string next = Join("3", std::to_string(random() % 1000));
      if (next == current[seq]) continue;
      REQUIRE_OK(txn->DeleteIndexEntries(kContainer, seq, key, {{"/v", current[seq]}}));
      REQUIRE_OK(txn->InsertIndexEntries(kContainer, seq, key, {{"/v", next}}));
      current[seq] = next;
    }
    REQUIRE_OK(txn->Commit());
  }
  stop = true;
  reader_a.join();
  reader_b.join();
  CHECK(failures.load() == 0);
  CHECK(reads.load() > 0);
}
