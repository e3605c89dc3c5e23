#include "storage/memory_index.h"

#include <algorithm>
#include <cstring>

namespace cosmos::storage {
namespace {

bool SameRow(const IndexRow& a, const IndexRow& b) {
  return a.document_seq == b.document_seq && a.partition_hash == b.partition_hash && a.value == b.value;
}

// Entries a scan examines per hold of the lock: a writer waits for at most this many. The first
// hold examines kFirstScanChunk, each next one twice as many, up to kScanChunk: most scans (a TOP,
// a page) stop early, and gather and copy no more than they need.
constexpr size_t kFirstScanChunk = 32;
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

MemoryIndex::PathRows& MemoryIndex::FindOrAdd(int64_t container_seq, std::string_view path) {
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  if (found != paths_.end()) return found->second;
  // Staggered, so that paths every document fills do not all fold, and merge, at one commit.
  const size_t stagger = (std::hash<std::string_view>{}(path) ^ static_cast<size_t>(container_seq)) %
                         (fold_entries_ / 2 + 1);
  PathRows rows{Rows(), {}, fold_entries_ + stagger, false, 0, 0, 0, &sizes_[container_seq],
                static_cast<int64_t>(path.size())};
  return paths_.emplace(PathKey(container_seq, std::string(path)), std::move(rows)).first->second;
}

void MemoryIndex::ForEachVersion(const PathRows& path, const IndexRow& row, const std::function<void(Found)>& visit) {
  const Entry probe(row, 0);  // before every version of the row
  for (auto entry = path.recent.lower_bound(probe); entry != path.recent.end() && SameRow(entry->row, row); ++entry) {
    visit(Found{&*entry, true});
  }
  for (const Run& run : path.runs) {
    if (row.document_seq < run.min_seq || row.document_seq > run.max_seq) continue;
    for (auto entry = std::lower_bound(run.entries.begin(), run.entries.end(), probe, EntryLess());
         entry != run.entries.end() && SameRow(entry->row, row); ++entry) {
      visit(Found{&*entry, false});
    }
  }
}

MemoryIndex::Found MemoryIndex::Locate(const PathRows& path, const Entry& key) {
  if (auto entry = path.recent.find(key); entry != path.recent.end()) return Found{&*entry, true};
  const EntryLess less;
  for (const Run& run : path.runs) {
    if (key.row.document_seq < run.min_seq || key.row.document_seq > run.max_seq) continue;
    auto entry = std::lower_bound(run.entries.begin(), run.entries.end(), key, less);
    if (entry != run.entries.end() && !less(key, *entry)) return Found{&*entry, false};
  }
  return Found{};
}

bool MemoryIndex::AddRecent(PathRows& path, IndexRow row, uint64_t group) {
  auto [position, added] = path.recent.insert(Entry(std::move(row), group));
  if (!added) return false;
  ++changes_;
  Count(path, *position, +1);
  undo_.push_back({&path, *position, Change::kInserted, group});
  if (!path.fold_due && path.recent.size() >= path.fold_at) {
    path.fold_due = true;
    folds_due_.push_back(&path);
  }
  return true;
}

bool MemoryIndex::Insert(int64_t container_seq, std::string_view path, IndexRow row, uint64_t group) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  PathRows& path_rows = FindOrAdd(container_seq, path);
  // Among the row's versions, one alive leaves nothing to do; one this group removed comes back.
  bool alive = false;
  Found removed_here;
  ForEachVersion(path_rows, row, [&](Found version) {
    if (version.entry->died == kAlive) alive = true;
    if (version.entry->died == group) removed_here = version;
  });
  if (alive) return false;
  if (removed_here.entry == nullptr) return AddRecent(path_rows, std::move(row), group);
  ++changes_;
  removed_here.entry->died = kAlive;
  Count(path_rows, *removed_here.entry, +1);
  undo_.push_back({&path_rows, *removed_here.entry, Change::kRestored, group});
  return true;
}

bool MemoryIndex::InsertNew(int64_t container_seq, std::string_view path, IndexRow row, uint64_t group) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  return AddRecent(FindOrAdd(container_seq, path), std::move(row), group);
}

void MemoryIndex::Remove(PathRows& path, Found entry, uint64_t group) {
  Count(path, *entry.entry, -1);
  ++changes_;
  if (entry.entry->born == group) {  // no reader has seen it, and it is in `recent`: it can go now
    undo_.push_back({&path, *entry.entry, Change::kErased, group});
    path.recent.erase(undo_.back().entry);
    return;
  }
  entry.entry->died = group;
  undo_.push_back({&path, *entry.entry, Change::kRemoved, group});
}

bool MemoryIndex::Erase(int64_t container_seq, std::string_view path, const IndexRow& row, uint64_t group) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  if (found == paths_.end()) return false;
  Found alive;
  ForEachVersion(found->second, row, [&](Found version) {
    if (version.entry->died == kAlive) alive = version;
  });
  if (alive.entry == nullptr) return false;
  Remove(found->second, alive, group);
  return true;
}

void MemoryIndex::EraseContainer(int64_t container_seq, uint64_t group) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  for (auto path = paths_.lower_bound(PathKey(container_seq, "")); path != paths_.end() && path->first.first == container_seq;
       ++path) {
    PathRows& path_rows = path->second;
    // Marking leaves the shapes alone; entries of this group are erased after the walk.
    std::vector<Entry> added_here;
    for (const Entry& entry : path_rows.recent) {
      if (entry.died != kAlive) continue;
      if (entry.born == group) {
        added_here.push_back(entry);
      } else {
        Remove(path_rows, Found{&entry, true}, group);
      }
    }
    for (const Run& run : path_rows.runs) {
      for (const Entry& entry : run.entries) {
        if (entry.died == kAlive) Remove(path_rows, Found{&entry, false}, group);
      }
    }
    for (const Entry& entry : added_here) Remove(path_rows, Found{&*path_rows.recent.find(entry), true}, group);
  }
}

const MemoryIndex::PathRows* MemoryIndex::Find(int64_t container_seq, std::string_view path) const {
  auto found = paths_.find(std::pair<int64_t, std::string_view>(container_seq, path));
  return found == paths_.end() ? nullptr : &found->second;
}

void MemoryIndex::Visit(int64_t container_seq, std::string_view path, uint64_t snapshot,
                        std::optional<int64_t> partition_hash, size_t prefetch_bytes,
                        const std::function<void(const IndexRow&)>& visit) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const PathRows* rows = Find(container_seq, path);
  if (rows == nullptr) return;
  const auto visit_entry = [&](const Entry& entry) {
    if (!entry.SeenBy(snapshot)) return;
    if (partition_hash && entry.row.partition_hash != *partition_hash) return;
    visit(entry.row);
  };
  // A visit may read every value (vector search bounds each embedding's score): the values of the
  // entries eight places ahead are fetched, as far as the visit reads, while this one is read.
  // They live apart on the heap, in no order the processor could guess (runs sort them by value):
  // fetched on demand, a vector search over 100,000 embeddings of 1 KB took 36% longer.
  constexpr size_t kPrefetchAhead = 8;
  for (const Run& run : rows->runs) {
    const size_t n = run.entries.size();
    for (size_t i = 0; i < n; ++i) {
      if (prefetch_bytes > 0 && i + kPrefetchAhead < n) {
        const std::string& ahead = run.entries[i + kPrefetchAhead].row.value;
        const size_t bytes = std::min(prefetch_bytes, ahead.size());
        for (size_t line = 0; line < bytes; line += 64) __builtin_prefetch(ahead.data() + line);
      }
      visit_entry(run.entries[i]);
    }
  }
  for (const Entry& entry : rows->recent) visit_entry(entry);
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
  for (const auto& [key, path] : paths_) {
    held += static_cast<int64_t>(path.recent.size()) - path.purged;
    for (const Run& run : path.runs) held += static_cast<int64_t>(run.entries.size());
  }
  return held;
}

namespace {

// [begin, end) of a sorted sequence that lies within a scan's value bounds and past `resume` in
// its direction. lower_bound/upper_bound search the sequence, whose end is `last`.
template <class Iterator, class Less, class LowerBound, class UpperBound>
std::pair<Iterator, Iterator> ScanRange(Iterator last, const Less& less, const LowerBound& lower_bound,
                                        const UpperBound& upper_bound, const IndexScan& scan, const auto& lower,
                                        const auto& upper, const auto& resume) {
  Iterator begin = scan.lower_inclusive ? lower_bound(lower) : upper_bound(lower);
  Iterator end = !upper                ? last
                 : scan.upper_inclusive ? upper_bound(*upper)
                                        : lower_bound(*upper);
  if (resume) {
    if (scan.descending) {
      Iterator past = lower_bound(*resume);
      if (past != last && (end == last || less(*past, *end))) end = past;
    } else {
      Iterator past = upper_bound(*resume);
      if (past == last || (begin != last && less(*begin, *past))) begin = past;
    }
  }
  // Empty, or bounds the wrong way round.
  if (begin == last || (end != last && !less(*begin, *end))) return {last, last};
  return {begin, end};
}

}  // namespace

void MemoryIndex::Scan(int64_t container_seq, std::string_view path, const IndexScan& scan,
                       const std::function<bool(const IndexRow&)>& visit) const {
  constexpr int64_t kLowest = INT64_MIN, kHighest = INT64_MAX;
  const EntryLess less;
  const std::string lower_value(scan.lower), upper_value(scan.upper);
  const Entry lower = scan.lower_inclusive ? Entry(IndexRow{lower_value, kLowest, kLowest}, 0)
                                           : Entry(IndexRow{lower_value, kHighest, kHighest}, kAlive);
  std::optional<Entry> upper;
  if (!upper_value.empty()) {
    upper = scan.upper_inclusive ? Entry(IndexRow{upper_value, kHighest, kHighest}, kAlive)
                                 : Entry(IndexRow{upper_value, kLowest, kLowest}, 0);
  }
  // `a` comes before `b` in the scan's direction.
  auto before = [&](const Entry& a, const Entry& b) { return scan.descending ? less(b, a) : less(a, b); };
  // The scan goes a chunk at a time, resuming past the last entry it examined. The entries its
  // snapshot sees stay while it is open (they are purged only once no reader can see them), so
  // the pieces join up to one consistent scan.
  std::optional<Entry> resume;
  if (scan.after != nullptr) resume = Entry(*scan.after, scan.descending ? 0 : kAlive);
  // A source's entries not examined yet, in the scan's direction: a run's range [low, high) of its
  // vector, whose next is `at` (its lowest when ascending, its highest when descending), kept from
  // chunk to chunk while the runs stay (runs_version); or `recent`'s, gathered again each chunk.
  struct Cursor {
    const Entry* at = nullptr;  // nullptr: none left
    const Entry* low = nullptr;
    const Entry* high = nullptr;
    const std::vector<const Entry*>* gathered = nullptr;
    size_t index = 0;
  };
  auto advance = [&](Cursor& cursor) {
    if (cursor.gathered != nullptr) {
      cursor.at = ++cursor.index < cursor.gathered->size() ? (*cursor.gathered)[cursor.index] : nullptr;
    } else if (scan.descending) {
      cursor.at = cursor.at == cursor.low ? nullptr : cursor.at - 1;
    } else {
      cursor.at = cursor.at + 1 == cursor.high ? nullptr : cursor.at + 1;
    }
  };
  std::vector<Cursor> cursors;  // `recent`'s, then one per run
  std::optional<uint64_t> runs_version;  // of the runs the cursors point into
  std::vector<const Entry*> recent_entries;
  bool recent_cut = false;  // `recent` had more entries in range than were gathered
  std::vector<IndexRow> chunk;
  size_t chunk_limit = kFirstScanChunk;
  for (;;) {
    chunk.clear();
    {
      std::shared_lock<std::shared_mutex> lock(mu_);
      const PathRows* path_rows = Find(container_seq, path);
      if (path_rows == nullptr) return;
      const Rows& recent = path_rows->recent;
      auto [recent_begin, recent_end] = ScanRange(
          recent.end(), less, [&](const Entry& key) { return recent.lower_bound(key); },
          [&](const Entry& key) { return recent.upper_bound(key); }, scan, lower, upper, resume);
      recent_entries.clear();
      if (scan.descending) {
        while (recent_end != recent_begin && recent_entries.size() < chunk_limit) recent_entries.push_back(&*--recent_end);
        recent_cut = recent_end != recent_begin;
      } else {
        for (; recent_begin != recent_end && recent_entries.size() < chunk_limit; ++recent_begin) {
          recent_entries.push_back(&*recent_begin);
        }
        recent_cut = recent_begin != recent_end;
      }
      if (runs_version != path_rows->runs_version) {  // first chunk, or the runs merged since the last
        runs_version = path_rows->runs_version;
        cursors.assign(path_rows->runs.size() + 1, Cursor{});
        for (size_t i = 0; i < path_rows->runs.size(); ++i) {
          const std::vector<Entry>& entries = path_rows->runs[i].entries;
          auto [begin, end] = ScanRange(
              entries.end(), less,
              [&](const Entry& key) { return std::lower_bound(entries.begin(), entries.end(), key, less); },
              [&](const Entry& key) { return std::upper_bound(entries.begin(), entries.end(), key, less); }, scan,
              lower, upper, resume);
          if (begin == end) continue;
          Cursor& cursor = cursors[i + 1];
          cursor.low = &*begin;
          cursor.high = cursor.low + (end - begin);
          cursor.at = scan.descending ? cursor.high - 1 : cursor.low;
        }
      }
      cursors[0] = Cursor{recent_entries.empty() ? nullptr : recent_entries[0], nullptr, nullptr, &recent_entries, 0};
      // Merged: the source whose next entry comes first gives entries until another's comes first.
      const Entry* last = nullptr;
      size_t examined = 0;
      while (examined < chunk_limit) {
        Cursor* best = nullptr;
        const Entry* second = nullptr;
        for (Cursor& cursor : cursors) {
          if (cursor.at == nullptr) continue;
          if (best == nullptr || before(*cursor.at, *best->at)) {
            if (best != nullptr) second = best->at;
            best = &cursor;
          } else if (second == nullptr || before(*cursor.at, *second)) {
            second = cursor.at;
          }
        }
        if (best == nullptr) break;
        do {
          last = best->at;
          if (last->SeenBy(scan.snapshot) && (!scan.partition_hash || last->row.partition_hash == *scan.partition_hash)) {
            chunk.push_back(last->row);
          }
          ++examined;
          advance(*best);
        } while (examined < chunk_limit && best->at != nullptr && (second == nullptr || before(*best->at, *second)));
      }
      if (last == nullptr) return;
      resume = *last;
      bool finished = !recent_cut && cursors[0].at == nullptr;
      for (size_t i = 1; i < cursors.size(); ++i) finished &= cursors[i].at == nullptr;
      if (finished) chunk_limit = 0;  // marks the last chunk
    }
    for (const IndexRow& row : chunk) {
      if (!visit(row)) return;
    }
    if (chunk_limit == 0) return;
    chunk_limit = std::min(chunk_limit * 2, kScanChunk);
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
    // Entries the open group added are in `recent`; those it removed or restored, anywhere.
    Rows& recent = undo.path->recent;
    switch (undo.change) {
      case Change::kInserted:
        recent.erase(undo.entry);
        Count(*undo.path, undo.entry, -1);
        break;
      case Change::kErased:
        undo.entry.died = kAlive;
        Count(*undo.path, undo.entry, +1);
        recent.insert(std::move(undo.entry));
        break;
      case Change::kRemoved:
        Locate(*undo.path, undo.entry).entry->died = kAlive;
        Count(*undo.path, undo.entry, +1);
        break;
      case Change::kRestored:
        Locate(*undo.path, undo.entry).entry->died = undo.group;
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
  const uint64_t oldest_view = OldestView();
  Purge(oldest_view);
  Fold(oldest_view);
}

void MemoryIndex::RollBack() {
  UndoTo(0);
  savepoints_.clear();
}

uint64_t MemoryIndex::OldestView() const {
  std::lock_guard<std::mutex> lock(readers_mu_);
  return readers_.empty() ? committed_group_ : std::min(*readers_.begin(), committed_group_);
}

void MemoryIndex::Purge(uint64_t oldest_view) {
  // An entry removed in group D is seen by snapshots before D only.
  if (graves_.empty() || graves_.front().entry.died > oldest_view) return;
  std::unique_lock<std::shared_mutex> lock(mu_);
  while (!graves_.empty() && graves_.front().entry.died <= oldest_view) {
    Grave& grave = graves_.front();
    PathRows& path = *grave.path;
    // It may have come back (and gone again, with a grave of its own) since.
    const Found found = Locate(path, grave.entry);
    if (found.entry != nullptr && found.entry->died == grave.entry.died) {
      if (found.in_recent) {
        path.recent.erase(grave.entry);
      } else if (++path.purged; MoreDeadThanAlive(path) && !path.fold_due) {
        path.fold_due = true;  // the next fold merges the runs, dropping the dead
        folds_due_.push_back(&path);
      }
    }
    graves_.pop_front();
  }
}

MemoryIndex::Run MemoryIndex::Merge(Run older, Run newer, uint64_t oldest_view, PathRows& path) {
  Run merged{{}, std::min(older.min_seq, newer.min_seq), std::max(older.max_seq, newer.max_seq)};
  merged.entries.reserve(older.entries.size() + newer.entries.size());
  auto keep = [&](Entry& entry) {
    if (entry.died <= oldest_view) {  // removed, and seen by no reader (Purge counted it)
      path.purged = std::max<int64_t>(path.purged - 1, 0);
    } else {
      merged.entries.push_back(std::move(entry));
    }
  };
  const EntryLess less;
  auto a = older.entries.begin(), b = newer.entries.begin();
  while (a != older.entries.end() && b != newer.entries.end()) keep(less(*b, *a) ? *b++ : *a++);
  for (; a != older.entries.end(); ++a) keep(*a);
  for (; b != newer.entries.end(); ++b) keep(*b);
  return merged;
}

void MemoryIndex::Fold(uint64_t oldest_view) {
  if (folds_due_.empty()) return;
  std::unique_lock<std::shared_mutex> lock(mu_);
  for (PathRows* path : folds_due_) {
    path->fold_due = false;
    std::vector<Run>& runs = path->runs;
    if (path->recent.size() >= path->fold_at) {  // (a rollback may have taken it back below)
      Run run{{}, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
      run.entries.reserve(path->recent.size());
      for (const Entry& entry : path->recent) {
        // A set's elements are const to keep its order; `recent` is cleared next, so moving is safe.
        run.entries.push_back(std::move(const_cast<Entry&>(entry)));
        run.min_seq = std::min(run.min_seq, entry.row.document_seq);
        run.max_seq = std::max(run.max_seq, entry.row.document_seq);
      }
      path->recent.clear();
      runs.push_back(std::move(run));
      ++path->runs_version;
      // Each run at least twice the size of the next newer: few runs, and an entry is copied
      // about log2(entries / fold size) times.
      while (runs.size() >= 2 && runs[runs.size() - 2].entries.size() < 2 * runs.back().entries.size()) {
        Run newer = std::move(runs.back());
        runs.pop_back();
        runs.back() = Merge(std::move(runs.back()), std::move(newer), oldest_view, *path);
      }
    }
    if (MoreDeadThanAlive(*path) && !runs.empty()) {
      const Run none{{}, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
      Run all = Merge(std::move(runs.front()), none, oldest_view, *path);
      for (size_t i = 1; i < runs.size(); ++i) all = Merge(std::move(all), std::move(runs[i]), oldest_view, *path);
      runs.clear();
      runs.push_back(std::move(all));
      ++path->runs_version;
    }
  }
  folds_due_.clear();
}

}  // namespace cosmos::storage
