// MemoryIndex: the index entries of an in-memory store, kept in ordered sets in process memory
// rather than in SQLite's index_entries table (schema.h), which a file store keeps.
//
// Why: with SQLite in memory, an entry costs a B-tree descent through SQLite's page cache, the
// copy of every page it changes into the transaction's journal, and a statement; a 1 KB document
// of 20 properties has 22 entries, and they were two thirds of the write thread's time. Here an
// entry is one insertion into a B-tree of (value, partition hash, document seq) per container
// and path, in the order the table's primary key gives, so lookups answer exactly as the table's.
//
// Transactions: every change is logged so that it can be undone, mirroring the store's SQLite
// transaction: Savepoint/RollBackToSavepoint/ReleaseSavepoint follow SAVEPOINT, ROLLBACK TO and
// RELEASE; Commit forgets the log, RollBack undoes all of it.
//
// Thread-safety: none of its own. The Store's lock guards it: an in-memory store runs one
// transaction at a time, reads included.
#pragma once

#include <absl/container/btree_set.h>  // and its internal btree_set_container (Rows below)

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/records.h"

namespace cosmos::storage {

// The bounds of a scan over one path's entries, as LookupIndex takes them: encoded values, an
// empty upper bound open; `after` (optional) resumes strictly past a row in the scan's direction;
// `partition_hash`, when set, keeps one logical partition's rows.
struct IndexScan {
  std::string_view lower;
  bool lower_inclusive = true;
  std::string_view upper;
  bool upper_inclusive = false;
  bool descending = false;
  const IndexRow* after = nullptr;
  std::optional<int64_t> partition_hash;
};

class MemoryIndex {
 public:
  // True when the entry was not there (and is now).
  bool Insert(int64_t container_seq, std::string_view path, IndexRow row);
  // True when the entry was there (and is gone).
  bool Erase(int64_t container_seq, std::string_view path, const IndexRow& row);
  // Removes every entry of a container.
  void EraseContainer(int64_t container_seq);

  // Calls visit(row) for the rows of `path` within the scan, in key order (backwards when
  // descending), until it returns false.
  void Scan(int64_t container_seq, std::string_view path, const IndexScan& scan,
            const std::function<bool(const IndexRow&)>& visit) const;
  // How many entries `path` has.
  int64_t Count(int64_t container_seq, std::string_view path) const;

  void Savepoint() { savepoints_.push_back(undo_.size()); }
  void RollBackToSavepoint();  // undoes the changes since the innermost savepoint, which stays open
  void ReleaseSavepoint() { savepoints_.pop_back(); }
  void Commit();    // the transaction's changes stay: forget how to undo them
  void RollBack();  // undoes every change of the transaction

  // Changes made so far (never decreasing): a transaction compares it to learn whether it changed
  // anything.
  uint64_t changes() const { return changes_; }

 private:
  // A row with the first 16 bytes of its value (zero-padded) packed big-endian in two integers:
  // most comparisons end there, without reading the value's characters, which a value longer than
  // 15 bytes (any number: a type byte and 16 hex digits) keeps on the heap, a cache miss away.
  struct Entry {
    explicit Entry(IndexRow row);
    uint64_t head[2];
    IndexRow row;
  };
  struct EntryLess {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.head[0] != b.head[0]) return a.head[0] < b.head[0];
      if (a.head[1] != b.head[1]) return a.head[1] < b.head[1];
      if (int by_value = a.row.value.compare(b.row.value); by_value != 0) return by_value < 0;
      if (a.row.partition_hash != b.row.partition_hash) return a.row.partition_hash < b.row.partition_hash;
      return a.row.document_seq < b.row.document_seq;
    }
  };
  // absl::btree_set's own container with nodes of kNodeBytes instead of the 256 its public alias
  // fixes: a 256-byte node holds four 64-byte entries, a nearly binary tree with a cache miss
  // per level; at 1 KB a node holds 15 and a million entries sit five levels deep.
  static constexpr int kNodeBytes = 1024;
  using Rows = absl::container_internal::btree_set_container<absl::container_internal::btree<
      absl::container_internal::set_params<Entry, EntryLess, std::allocator<Entry>, kNodeBytes, /*IsMulti=*/false>>>;
  using PathKey = std::pair<int64_t, std::string>;
  struct PathLess {
    using is_transparent = void;
    bool operator()(const PathKey& a, const PathKey& b) const { return a < b; }
    bool operator()(const PathKey& a, const std::pair<int64_t, std::string_view>& b) const {
      return a.first != b.first ? a.first < b.first : std::string_view(a.second) < b.second;
    }
    bool operator()(const std::pair<int64_t, std::string_view>& a, const PathKey& b) const {
      return a.first != b.first ? a.first < b.first : a.second < std::string_view(b.second);
    }
  };
  // One change, and so what undoes it: `row` went into `rows` (inserted) or out of it.
  struct Undo {
    Rows* rows;
    IndexRow row;
    bool inserted;
  };

  const Rows* Find(int64_t container_seq, std::string_view path) const;
  void UndoTo(size_t mark);

  // A node map, so that the Rows an Undo points to stay put; a path's set stays (empty) when its
  // entries go, and container seqs are never reused.
  std::map<PathKey, Rows, PathLess> paths_;
  std::vector<Undo> undo_;
  std::vector<size_t> savepoints_;  // positions in undo_
  uint64_t changes_ = 0;
};

}  // namespace cosmos::storage
