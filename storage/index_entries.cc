#include "storage/store.h"

#include <algorithm>
#include <functional>
#include <string>

#include "storage/memory_index.h"
#include "storage/sqlite/connection.h"

namespace cosmos::storage {
int64_t PartitionHash(std::string_view partition_key) {
  // FNV-1a: stable across builds and platforms, as a value kept in data files must be.
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char byte : partition_key) {
    hash ^= byte;
    hash *= 1099511628211ull;
  }
  return static_cast<int64_t>(hash);
}

Status Transaction::InsertIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                                       const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  const int64_t partition_hash = PartitionHash(partition_key);
  MemoryIndex& index = *memory_index();
  for (const IndexEntry& entry : entries) {
    index.Insert(container_seq, entry.path, IndexRow{entry.value, partition_hash, document_seq}, group_);
  }
  return Status();
}

Status Transaction::InsertNewIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                                          const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  // In key order, which also puts repeats side by side: consecutive inserts then descend to
  // nearby nodes.
  std::vector<const IndexEntry*> sorted;
  sorted.reserve(entries.size());
  for (const IndexEntry& entry : entries) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const IndexEntry* a, const IndexEntry* b) {
    int by_path = a->path.compare(b->path);
    return by_path != 0 ? by_path < 0 : a->value < b->value;
  });
  sorted.erase(std::unique(sorted.begin(), sorted.end(), [](const IndexEntry* a, const IndexEntry* b) { return *a == *b; }),
               sorted.end());
  const int64_t partition_hash = PartitionHash(partition_key);
  MemoryIndex& index = *memory_index();
  for (const IndexEntry* entry : sorted) {
    if (!index.InsertNew(container_seq, entry->path, IndexRow{entry->value, partition_hash, document_seq}, group_)) {
      return Status::Internal("an index entry of a new document was in the index already");
    }
  }
  return Status();
}

Status Transaction::DeleteIndexEntries(int64_t container_seq, int64_t document_seq, std::string_view partition_key,
                                       const std::vector<IndexEntry>& entries) {
  if (entries.empty()) return Status();
  const int64_t partition_hash = PartitionHash(partition_key);
  MemoryIndex& index = *memory_index();
  for (const IndexEntry& entry : entries) {
    index.Erase(container_seq, entry.path, IndexRow{entry.value, partition_hash, document_seq}, group_);
  }
  return Status();
}

namespace {

// The PartitionHash of a logical partition, if one is named.
std::optional<int64_t> HashOf(const std::optional<std::string>& partition_key) {
  return partition_key ? std::optional<int64_t>(PartitionHash(*partition_key)) : std::nullopt;
}

// The index rows at `path` between the bounds that lie in `scope`, in key order: a logical
// partition's by their hash, a range of keys by their document's partition_key (read through
// `connection`, on the transaction's snapshot).
Status ScanScoped(const MemoryIndex& index, sqlite::Connection& connection, int64_t container_seq, std::string_view path,
                  std::string_view lower, bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                  const DocumentScope& scope, uint64_t snapshot, const std::function<void(const IndexRow&)>& take) {
  const bool whole_container = !scope.partition_key && scope.min_key.empty() && !scope.max_key;
  const IndexScan scan{lower, lower_inclusive, upper, upper_inclusive, /*descending=*/false, /*after=*/nullptr,
                       HashOf(scope.partition_key), snapshot};
  if (scope.partition_key || whole_container) {
    index.Scan(container_seq, path, scan, [&](const IndexRow& row) {
      take(row);
      return true;
    });
    return Status();
  }
  COSMOS_ASSIGN_OR_RETURN(auto* key_of, connection.Prepare("SELECT partition_key FROM documents WHERE seq = ?"));
  Status status;
  index.Scan(container_seq, path, scan, [&](const IndexRow& row) {
    key_of->Reset();
    key_of->Bind(1, row.document_seq);
    Result<bool> has_row = key_of->Step();
    if (!has_row.ok()) {
      status = has_row.status();
      return false;
    }
    if (!*has_row) return true;
    std::string key = key_of->ColumnText(0);
    if (key >= scope.min_key && (!scope.max_key || key < *scope.max_key)) take(row);
    return true;
  });
  key_of->Reset();
  return status;
}

}  // namespace

Result<std::vector<int64_t>> Transaction::LookupIndex(int64_t container_seq, std::string_view path,
                                                      std::string_view lower, bool lower_inclusive,
                                                      std::string_view upper, bool upper_inclusive,
                                                      const DocumentScope& scope, uint64_t& entries_read) {
  COSMOS_ASSIGN_OR_RETURN(uint64_t snapshot, IndexSnapshot());
  std::vector<int64_t> seqs;
  COSMOS_RETURN_IF_ERROR(ScanScoped(*memory_index(), *connection_, container_seq, path, lower, lower_inclusive, upper,
                                    upper_inclusive, scope, snapshot,
                                    [&seqs](const IndexRow& row) { seqs.push_back(row.document_seq); }));
  entries_read += seqs.size();
  // Several entries of one document (array elements) name it once.
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
  return seqs;
}

Result<std::vector<std::pair<int64_t, std::string>>> Transaction::LookupIndexValues(
    int64_t container_seq, std::string_view path, std::string_view lower, bool lower_inclusive, std::string_view upper,
    bool upper_inclusive, const DocumentScope& scope, uint64_t& entries_read) {
  COSMOS_ASSIGN_OR_RETURN(uint64_t snapshot, IndexSnapshot());
  using Row = std::pair<int64_t, std::string>;
  std::vector<Row> rows;
  COSMOS_RETURN_IF_ERROR(ScanScoped(*memory_index(), *connection_, container_seq, path, lower, lower_inclusive, upper,
                                    upper_inclusive, scope, snapshot,
                                    [&rows](const IndexRow& row) { rows.emplace_back(row.document_seq, row.value); }));
  entries_read += rows.size();
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.first < b.first; });
  rows.erase(std::unique(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.first == b.first; }),
             rows.end());
  return rows;
}

Result<std::vector<IndexRow>> Transaction::ScanIndex(int64_t container_seq, std::string_view path,
                                                     std::string_view lower, bool lower_inclusive,
                                                     std::string_view upper, bool upper_inclusive, bool descending,
                                                     const std::optional<std::string>& partition_key,
                                                     const std::optional<IndexRow>& after, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(uint64_t snapshot, IndexSnapshot());
  std::vector<IndexRow> rows;
  if (limit <= 0) return rows;
  const IndexScan scan{lower, lower_inclusive, upper, upper_inclusive, descending, after ? &*after : nullptr,
                       HashOf(partition_key), snapshot};
  memory_index()->Scan(container_seq, path, scan, [&](const IndexRow& row) {
    rows.push_back(row);
    return static_cast<int64_t>(rows.size()) < limit;
  });
  return rows;
}

Status Transaction::VisitIndexEntries(int64_t container_seq, std::string_view path,
                                      const std::optional<std::string>& partition_key, size_t prefetch_bytes,
                                      uint64_t& entries_read, const std::function<void(const IndexRow&)>& visit) {
  COSMOS_ASSIGN_OR_RETURN(uint64_t snapshot, IndexSnapshot());
  memory_index()->Visit(container_seq, path, snapshot, HashOf(partition_key), prefetch_bytes, [&](const IndexRow& row) {
    ++entries_read;
    visit(row);
  });
  return Status();
}

Result<int64_t> Transaction::CountIndexEntries(int64_t container_seq, std::string_view path) {
  return memory_index()->Count(container_seq, path);
}

Result<IndexSize> Transaction::MeasureIndex(int64_t container_seq) { return memory_index()->Size(container_seq); }

Result<int64_t> Transaction::CountIndexRange(int64_t container_seq, std::string_view path, std::string_view lower,
                                             bool lower_inclusive, std::string_view upper, bool upper_inclusive,
                                             const std::optional<std::string>& partition_key, int64_t limit) {
  COSMOS_ASSIGN_OR_RETURN(uint64_t snapshot, IndexSnapshot());
  int64_t count = 0;
  if (limit <= 0) return count;
  const IndexScan scan{lower, lower_inclusive, upper, upper_inclusive, /*descending=*/false, /*after=*/nullptr,
                       HashOf(partition_key), snapshot};
  memory_index()->Scan(container_seq, path, scan, [&](const IndexRow&) { return ++count < limit; });
  return count;
}

Status Transaction::EraseContainerIndex(int64_t container_seq) {
  memory_index()->EraseContainer(container_seq, group_);
  return Status();
}

}  // namespace cosmos::storage
