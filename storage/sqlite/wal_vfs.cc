#include "storage/sqlite/wal_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <new>
#include <string>

namespace cosmos::storage::sqlite {
namespace {

constexpr char kVfsName[] = "cosmolite-wal-batching";
constexpr int kFrameHeaderBytes = 24;
// Past this many gathered bytes the frames go down even before their commit frame.
constexpr size_t kMaxPendingBytes = 8u << 20;
// The most the default (unix) VFS writes in one call: it takes the low 17 bits of a length.
constexpr size_t kMaxWriteBytes = 0x1ffff;

std::atomic<long long> frames_written{0};
std::atomic<long long> flushes{0};

sqlite3_vfs* default_vfs = nullptr;
sqlite3_vfs batching_vfs{};

// A WAL file: SQLite's own (`real`, right behind this object in the memory SQLite gives the VFS)
// plus the frames written since the last flush.
struct WalFile {
  sqlite3_file base;  // first: SQLite sees a WalFile as a sqlite3_file
  sqlite3_file* real;
  std::string pending;
  sqlite3_int64 pending_offset = 0;
  bool page_expected = false;  // a frame header is pending and its page comes next
  bool commit_frame = false;   // that header is a commit frame's
};

WalFile* Wal(sqlite3_file* file) { return reinterpret_cast<WalFile*>(file); }

int Flush(WalFile* wal) {
  if (wal->pending.empty()) return SQLITE_OK;
  flushes.fetch_add(1, std::memory_order_relaxed);
  int rc = SQLITE_OK;
  for (size_t done = 0; done < wal->pending.size() && rc == SQLITE_OK; done += kMaxWriteBytes) {
    size_t amount = std::min(kMaxWriteBytes, wal->pending.size() - done);
    rc = wal->real->pMethods->xWrite(wal->real, wal->pending.data() + done, static_cast<int>(amount),
                                     wal->pending_offset + static_cast<sqlite3_int64>(done));
  }
  wal->pending.clear();
  wal->page_expected = false;
  return rc;
}

// The commit frame's header stores the database size in pages (bytes 4..7, big-endian); every
// other frame's stores 0.
bool IsCommitFrameHeader(const void* data) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  return (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
}

int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  WalFile* wal = Wal(file);
  frames_written.fetch_add(1, std::memory_order_relaxed);
  if (!wal->pending.empty() && offset != wal->pending_offset + static_cast<sqlite3_int64>(wal->pending.size())) {
    int rc = Flush(wal);
    if (rc != SQLITE_OK) return rc;
  }
  if (wal->pending.empty()) wal->pending_offset = offset;
  wal->pending.append(static_cast<const char*>(data), static_cast<size_t>(amount));
  bool flush_now;
  if (amount == kFrameHeaderBytes && !wal->page_expected) {
    // A frame header, written on its own as SQLite 3.40 does: wait for its page.
    wal->page_expected = true;
    wal->commit_frame = IsCommitFrameHeader(data);
    flush_now = false;
  } else if (wal->page_expected) {
    // The page of the pending header: a commit frame ends the commit.
    wal->page_expected = false;
    flush_now = wal->commit_frame;
  } else {
    flush_now = true;  // anything else (the WAL header, an unknown pattern) goes down at once
  }
  if (flush_now || wal->pending.size() >= kMaxPendingBytes) return Flush(wal);
  return SQLITE_OK;
}

int Close(sqlite3_file* file) {
  WalFile* wal = Wal(file);
  int flushed = Flush(wal);
  int closed = wal->real->pMethods ? wal->real->pMethods->xClose(wal->real) : SQLITE_OK;
  wal->~WalFile();
  return flushed != SQLITE_OK ? flushed : closed;
}

// Writes out the gathered frames, then makes the call on SQLite's own file: every operation but
// a write sees the WAL as if each frame had gone down at once.
template <typename Method, typename... Args>
int FlushThen(sqlite3_file* file, Method sqlite3_io_methods::*method, Args... args) {
  WalFile* wal = Wal(file);
  int rc = Flush(wal);
  return rc != SQLITE_OK ? rc : (wal->real->pMethods->*method)(wal->real, args...);
}

// Calls on SQLite's own file that neither read nor change it: nothing to write first.
template <typename Method, typename... Args>
int Forward(sqlite3_file* file, Method sqlite3_io_methods::*method, Args... args) {
  sqlite3_file* real = Wal(file)->real;
  return (real->pMethods->*method)(real, args...);
}

int Read(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
  return FlushThen(file, &sqlite3_io_methods::xRead, data, amount, offset);
}
int Truncate(sqlite3_file* file, sqlite3_int64 size) { return FlushThen(file, &sqlite3_io_methods::xTruncate, size); }
int Sync(sqlite3_file* file, int flags) { return FlushThen(file, &sqlite3_io_methods::xSync, flags); }
int FileSize(sqlite3_file* file, sqlite3_int64* size) { return FlushThen(file, &sqlite3_io_methods::xFileSize, size); }
int Lock(sqlite3_file* file, int level) { return FlushThen(file, &sqlite3_io_methods::xLock, level); }
int Unlock(sqlite3_file* file, int level) { return FlushThen(file, &sqlite3_io_methods::xUnlock, level); }
int FileControl(sqlite3_file* file, int op, void* arg) {
  return FlushThen(file, &sqlite3_io_methods::xFileControl, op, arg);
}
int CheckReservedLock(sqlite3_file* file, int* out) {
  return Forward(file, &sqlite3_io_methods::xCheckReservedLock, out);
}
int SectorSize(sqlite3_file* file) { return Forward(file, &sqlite3_io_methods::xSectorSize); }
int DeviceCharacteristics(sqlite3_file* file) { return Forward(file, &sqlite3_io_methods::xDeviceCharacteristics); }

// Version 1: a WAL file is never memory-mapped and holds no shared-memory index.
const sqlite3_io_methods kWalMethods = {
    1,    Close,   Read,   Write,   Truncate, Sync,   FileSize, Lock, Unlock, CheckReservedLock, FileControl, SectorSize,
    DeviceCharacteristics,
    nullptr, nullptr, nullptr, nullptr,  // shared memory: never asked of a WAL file
    nullptr, nullptr};                   // memory mapping: likewise

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  if ((flags & SQLITE_OPEN_WAL) == 0) return default_vfs->xOpen(default_vfs, name, file, flags, out_flags);
  auto* wal = new (file) WalFile();
  wal->base.pMethods = nullptr;  // until the real file is open: SQLite then skips xClose
  wal->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + sizeof(WalFile));
  wal->real->pMethods = nullptr;
  int rc = default_vfs->xOpen(default_vfs, name, wal->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    if (wal->real->pMethods) wal->real->pMethods->xClose(wal->real);
    wal->~WalFile();
    return rc;
  }
  wal->base.pMethods = &kWalMethods;
  return SQLITE_OK;
}

}  // namespace

const char* RegisterWalBatchingVfs() {
  static const char* registered = []() -> const char* {
    default_vfs = sqlite3_vfs_find(nullptr);
    if (default_vfs == nullptr) return nullptr;
    batching_vfs = *default_vfs;  // the default's functions, and the data they use
    batching_vfs.pNext = nullptr;
    batching_vfs.zName = kVfsName;
    batching_vfs.szOsFile = static_cast<int>(sizeof(WalFile)) + default_vfs->szOsFile;
    batching_vfs.xOpen = Open;
    if (sqlite3_vfs_register(&batching_vfs, /*makeDflt=*/0) != SQLITE_OK) return nullptr;
    return kVfsName;
  }();
  return registered;
}

WalWriteCounts WalBatchingCounts() {
  return {frames_written.load(std::memory_order_relaxed), flushes.load(std::memory_order_relaxed)};
}

}  // namespace cosmos::storage::sqlite
