#include "storage/memory_index.h"

#include <algorithm>
#include <cstring>

namespace cosmos::storage {
namespace {

bool SameRow(const IndexRow& a, const IndexRow& b) {
  return a.document_seq == b.document_seq && a.partition_hash == b.partition_hash && a.value == b.value;
}

// Entries a scan examines per hold of the lock: a writer waits for at most this many.
constexpr size_t kScanChunk = 256;

}  // namespace

MemoryIndex::Entry::Entry(IndexRow from, uint64_t born_in) : head{0, 0}, row(std::move(from)), born(born_in) {
  const size_t length = std::min<size_t>(row.value.size(), 16);
  for (size_t i = 0; i < length; ++i) {
    head[i / 8] |= static_cast<uint64_t>(static_cast<unsigned char>(row.value[i])) << (56 - 8 * (i % 8));
  }
}

int MemoryIndex::CompareBeyondHead(const std::string& a, const std::string& b) {
  if (a.size() > 16 && b.size() > 16) {
    const size_t common = std::min(a.size(), b.size()) - 16;
    if (int by_bytes = std::memcmp(a.data() + 16, b.data() + 16, common); by_bytes != 0) return by_bytes;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

void MemoryIndex::Count(PathRows& path, const Entry& entry, int sign) {
  path.live += sign;
  path.size->entries += sign;
  path.size->bytes += sign * (path.path_bytes + static_cast<int64_t>(entry.row.value.size()) + kIndexEntryPointerBytes);
}

MemoryIndex::Rows::iterator MemoryIndex::FindAlive(Rows& rows, const IndexRow& row) {
  for (auto entry = rows.lower_bound(Entry(row, 0)); entry != rows.end() && SameRow(entry->row, row); ++entry) {
    if (entry->died == kAlive) return entry;
  }
  return rows.end();
}

bool MemoryIndex::Insert(int64_t container_seq, std::string_view path, IndexRow row, uint64_t group) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  if (found == paths_.end()) {
    found = paths_.emplace(PathKey(container_seq, std::string(path)),
                           PathRows{Rows(), 0, &sizes_[container_seq], static_cast<int64_t>(path.size())}).first;
  }
  PathRows& path_rows = found->second;
  Rows& rows = path_rows.rows;
  Entry probe(std::move(row), 0);
  const auto first = rows.lower_bound(probe);
  // Among the row's versions, one alive leaves nothing to do; one this group removed comes back.
  auto removed_here = rows.end();
  for (auto entry = first; entry != rows.end() && SameRow(entry->row, probe.row); ++entry) {
    if (entry->died == kAlive) return false;
    if (entry->died == group) removed_here = entry;
  }
  ++changes_;
  if (removed_here != rows.end()) {
    removed_here->died = kAlive;
    Count(path_rows, *removed_here, +1);
    undo_.push_back({&path_rows, *removed_here, Change::kRestored, group});
    return true;
  }
  probe.born = group;
  auto position = rows.insert(first, std::move(probe));
  Count(path_rows, *position, +1);
  undo_.push_back({&path_rows, *position, Change::kInserted, group});
  return true;
}

void MemoryIndex::Remove(PathRows& path, Rows::iterator entry, uint64_t group) {
  Count(path, *entry, -1);
  ++changes_;
  if (entry->born == group) {  // no reader has seen it: it can go now
    undo_.push_back({&path, *entry, Change::kErased, group});
    path.rows.erase(entry);
    return;
  }
  entry->died = group;
  undo_.push_back({&path, *entry, Change::kRemoved, group});
}

bool MemoryIndex::Erase(int64_t container_seq, std::string_view path, const IndexRow& row, uint64_t group) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  if (found == paths_.end()) return false;
  auto entry = FindAlive(found->second.rows, row);
  if (entry == found->second.rows.end()) return false;
  Remove(found->second, entry, group);
  return true;
}

void MemoryIndex::EraseContainer(int64_t container_seq, uint64_t group) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  for (auto path = paths_.lower_bound(PathKey(container_seq, "")); path != paths_.end() && path->first.first == container_seq;
       ++path) {
    PathRows& path_rows = path->second;
    // Marking leaves the set's shape alone; entries of this group are erased after the walk.
    std::vector<Entry> added_here;
    for (auto entry = path_rows.rows.begin(); entry != path_rows.rows.end(); ++entry) {
      if (entry->died != kAlive) continue;
      if (entry->born == group) {
        added_here.push_back(*entry);
      } else {
        Remove(path_rows, entry, group);
      }
    }
    for (const Entry& entry : added_here) Remove(path_rows, path_rows.rows.find(entry), group);
  }
}

const MemoryIndex::PathRows* MemoryIndex::Find(int64_t container_seq, std::string_view path) const {
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  return found == paths_.end() ? nullptr : &found->second;
}

int64_t MemoryIndex::Count(int64_t container_seq, std::string_view path) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const PathRows* rows = Find(container_seq, path);
  return rows == nullptr ? 0 : rows->live;
}

IndexSize MemoryIndex::Size(int64_t container_seq) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto found = sizes_.find(container_seq);
  return found == sizes_.end() ? IndexSize{} : found->second;
}

int64_t MemoryIndex::HeldEntries() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  int64_t held = 0;
  for (const auto& [key, path] : paths_) held += static_cast<int64_t>(path.rows.size());
  return held;
}

void MemoryIndex::Scan(int64_t container_seq, std::string_view path, const IndexScan& scan,
                       const std::function<bool(const IndexRow&)>& visit) const {
  constexpr int64_t kLowest = INT64_MIN, kHighest = INT64_MAX;
  const EntryLess less;
  const std::string lower(scan.lower), upper(scan.upper);
  const Entry lower_bound = scan.lower_inclusive ? Entry(IndexRow{lower, kLowest, kLowest}, 0)
                                                 : Entry(IndexRow{lower, kHighest, kHighest}, kAlive);
  std::optional<Entry> upper_bound;
  if (!upper.empty()) {
    upper_bound = scan.upper_inclusive ? Entry(IndexRow{upper, kHighest, kHighest}, kAlive)
                                       : Entry(IndexRow{upper, kLowest, kLowest}, 0);
  }
  // The scan goes a chunk at a time, resuming past the last entry it examined. The entries its
  // snapshot sees stay while it is open (they are purged only once no reader can see them), so
  // the pieces join up to one consistent scan.
  std::optional<Entry> resume;
  if (scan.after != nullptr) resume = Entry(*scan.after, scan.descending ? 0 : kAlive);
  std::vector<IndexRow> chunk;
  for (;;) {
    bool finished = false;
    chunk.clear();
    {
      std::shared_lock<std::shared_mutex> lock(mu_);
      const PathRows* path_rows = Find(container_seq, path);
      if (path_rows == nullptr) return;
      const Rows& rows = path_rows->rows;
      // [begin, end): the entries within the value bounds and past `resume` in the scan's direction.
      auto begin = scan.lower_inclusive ? rows.lower_bound(lower_bound) : rows.upper_bound(lower_bound);
      auto end = !upper_bound              ? rows.end()
                 : scan.upper_inclusive    ? rows.upper_bound(*upper_bound)
                                           : rows.lower_bound(*upper_bound);
      if (resume) {
        if (scan.descending) {
          auto past = rows.lower_bound(*resume);
          if (past != rows.end() && (end == rows.end() || less(*past, *end))) end = past;
        } else {
          auto past = rows.upper_bound(*resume);
          if (past == rows.end() || (begin != rows.end() && less(*begin, *past))) begin = past;
        }
      }
      // Empty, or bounds the wrong way round.
      if (begin == rows.end() || (end != rows.end() && !less(*begin, *end))) return;
      auto take = [&](const Entry& entry) {
        if (entry.SeenBy(scan.snapshot) && (!scan.partition_hash || entry.row.partition_hash == *scan.partition_hash)) {
          chunk.push_back(entry.row);
        }
      };
      size_t examined = 0;
      if (scan.descending) {
        auto entry = end;
        while (entry != begin && examined < kScanChunk) {
          --entry;
          ++examined;
          take(*entry);
        }
        finished = entry == begin;
        resume = *entry;
      } else {
        auto entry = begin;
        for (; entry != end && examined < kScanChunk; ++entry, ++examined) take(*entry);
        finished = entry == end;
        resume = *std::prev(entry);
      }
    }
    for (const IndexRow& row : chunk) {
      if (!visit(row)) return;
    }
    if (finished) return;
  }
}

uint64_t MemoryIndex::OpenReader() {
  std::lock_guard<std::mutex> lock(readers_mu_);
  readers_.insert(committed_group_);
  return committed_group_;
}

void MemoryIndex::CloseReader(uint64_t registration) {
  std::lock_guard<std::mutex> lock(readers_mu_);
  if (auto found = readers_.find(registration); found != readers_.end()) readers_.erase(found);
}

void MemoryIndex::UndoTo(size_t mark) {
  if (undo_.size() <= mark) return;
  std::unique_lock<std::shared_mutex> lock(mu_);
  while (undo_.size() > mark) {
    Undo& undo = undo_.back();
    Rows& rows = undo.path->rows;
    switch (undo.change) {
      case Change::kInserted:
        rows.erase(undo.entry);
        Count(*undo.path, undo.entry, -1);
        break;
      case Change::kErased:
        undo.entry.died = kAlive;
        Count(*undo.path, undo.entry, +1);
        rows.insert(std::move(undo.entry));
        break;
      case Change::kRemoved:
        rows.find(undo.entry)->died = kAlive;
        Count(*undo.path, undo.entry, +1);
        break;
      case Change::kRestored:
        rows.find(undo.entry)->died = undo.group;
        Count(*undo.path, undo.entry, -1);
        break;
    }
    undo_.pop_back();
    ++changes_;
  }
}

void MemoryIndex::RollBackToSavepoint() {
  if (!savepoints_.empty()) UndoTo(savepoints_.back());
}

void MemoryIndex::Commit(uint64_t group) {
  for (Undo& undo : undo_) {
    if (undo.change == Change::kRemoved) graves_.push_back({undo.path, std::move(undo.entry)});
  }
  undo_.clear();
  savepoints_.clear();
  {
    std::lock_guard<std::mutex> lock(readers_mu_);
    committed_group_ = group;
  }
  Purge();
}

void MemoryIndex::RollBack() {
  UndoTo(0);
  savepoints_.clear();
}

void MemoryIndex::Purge() {
  uint64_t oldest_view;
  {
    std::lock_guard<std::mutex> lock(readers_mu_);
    oldest_view = readers_.empty() ? committed_group_ : std::min(*readers_.begin(), committed_group_);
  }
  // An entry removed in group D is seen by snapshots before D only.
  if (graves_.empty() || graves_.front().entry.died > oldest_view) return;
  std::unique_lock<std::shared_mutex> lock(mu_);
  while (!graves_.empty() && graves_.front().entry.died <= oldest_view) {
    Grave& grave = graves_.front();
    auto entry = grave.path->rows.find(grave.entry);
    // It may have come back (and gone again, with a grave of its own) since.
    if (entry != grave.path->rows.end() && entry->died <= oldest_view) grave.path->rows.erase(entry);
    graves_.pop_front();
  }
}

}  // namespace cosmos::storage
