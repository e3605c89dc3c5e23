#include "storage/memory_index.h"

#include <algorithm>

namespace cosmos::storage {

MemoryIndex::Entry::Entry(IndexRow from) : head{0, 0}, row(std::move(from)) {
  const size_t length = std::min<size_t>(row.value.size(), 16);
  for (size_t i = 0; i < length; ++i) {
    head[i / 8] |= static_cast<uint64_t>(static_cast<unsigned char>(row.value[i])) << (56 - 8 * (i % 8));
  }
}

bool MemoryIndex::Insert(int64_t container_seq, std::string_view path, IndexRow row) {
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  if (found == paths_.end()) found = paths_.emplace(PathKey(container_seq, std::string(path)), Rows()).first;
  Rows& rows = found->second;
  auto [position, inserted] = rows.insert(Entry(std::move(row)));
  if (!inserted) return false;
  undo_.push_back({&rows, position->row, true});
  ++changes_;
  return true;
}

bool MemoryIndex::Erase(int64_t container_seq, std::string_view path, const IndexRow& row) {
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  if (found == paths_.end()) return false;
  Rows& rows = found->second;
  auto position = rows.find(Entry(row));
  if (position == rows.end()) return false;
  undo_.push_back({&rows, position->row, false});
  rows.erase(position);
  ++changes_;
  return true;
}

void MemoryIndex::EraseContainer(int64_t container_seq) {
  for (auto path = paths_.lower_bound(PathKey(container_seq, "")); path != paths_.end() && path->first.first == container_seq;
       ++path) {
    Rows& rows = path->second;
    for (const Entry& entry : rows) undo_.push_back({&rows, entry.row, false});
    changes_ += rows.size();
    rows.clear();
  }
}

const MemoryIndex::Rows* MemoryIndex::Find(int64_t container_seq, std::string_view path) const {
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  return found == paths_.end() ? nullptr : &found->second;
}

int64_t MemoryIndex::Count(int64_t container_seq, std::string_view path) const {
  const Rows* rows = Find(container_seq, path);
  return rows == nullptr ? 0 : static_cast<int64_t>(rows->size());
}

void MemoryIndex::Scan(int64_t container_seq, std::string_view path, const IndexScan& scan,
                       const std::function<bool(const IndexRow&)>& visit) const {
  const Rows* rows = Find(container_seq, path);
  if (rows == nullptr) return;
  constexpr int64_t kLowest = INT64_MIN, kHighest = INT64_MAX;
  const EntryLess less;
  // Of two positions, the earlier and the later (end() is after every row).
  auto earlier = [&](Rows::const_iterator a, Rows::const_iterator b) {
    if (a == rows->end()) return b;
    if (b == rows->end()) return a;
    return less(*b, *a) ? b : a;
  };
  auto later = [&](Rows::const_iterator a, Rows::const_iterator b) { return earlier(a, b) == a ? b : a; };
  // [begin, end): the rows within the value bounds, and past `after` in the scan's direction.
  const std::string lower(scan.lower), upper(scan.upper);
  auto begin = scan.lower_inclusive ? rows->lower_bound(Entry(IndexRow{lower, kLowest, kLowest}))
                                    : rows->upper_bound(Entry(IndexRow{lower, kHighest, kHighest}));
  auto end = upper.empty()           ? rows->end()
             : scan.upper_inclusive ? rows->upper_bound(Entry(IndexRow{upper, kHighest, kHighest}))
                                    : rows->lower_bound(Entry(IndexRow{upper, kLowest, kLowest}));
  if (scan.after != nullptr) {
    if (scan.descending) {
      end = earlier(end, rows->lower_bound(Entry(*scan.after)));
    } else {
      begin = later(begin, rows->upper_bound(Entry(*scan.after)));
    }
  }
  if (later(begin, end) == begin) return;  // empty (or bounds the wrong way round)
  auto keeps = [&](const IndexRow& row) { return !scan.partition_hash || row.partition_hash == *scan.partition_hash; };
  if (scan.descending) {
    for (auto entry = end; entry != begin;) {
      --entry;
      if (keeps(entry->row) && !visit(entry->row)) return;
    }
  } else {
    for (auto entry = begin; entry != end; ++entry) {
      if (keeps(entry->row) && !visit(entry->row)) return;
    }
  }
}

void MemoryIndex::UndoTo(size_t mark) {
  while (undo_.size() > mark) {
    Undo& undo = undo_.back();
    if (undo.inserted) {
      undo.rows->erase(Entry(std::move(undo.row)));
    } else {
      undo.rows->insert(Entry(std::move(undo.row)));
    }
    undo_.pop_back();
    ++changes_;
  }
}

void MemoryIndex::RollBackToSavepoint() {
  if (!savepoints_.empty()) UndoTo(savepoints_.back());
}

void MemoryIndex::Commit() {
  undo_.clear();
  savepoints_.clear();
}

void MemoryIndex::RollBack() {
  UndoTo(0);
  savepoints_.clear();
}

}  // namespace cosmos::storage
