// A VFS over the default one that writes each commit's WAL frames in a few large writes.
//
// Why: SQLite writes every WAL frame as two pwrite calls (its 24-byte header, then the page), so
// a group commit of 36 pages costs 72 system calls, each locking the file and walking the page
// cache: a quarter of the write thread under 1 KB creates.
//
// How: frames written one after another are gathered in memory and written together once the
// commit frame (the one whose header carries the database size) is complete, in pieces of up to
// 128 KB (the most the default VFS writes at once), and before any other operation on the WAL
// (read, sync, truncate, size, lock, close). A commit therefore reaches the file before SQLite
// publishes it in the WAL index, as without the layer, and a failed write fails the commit.
// Files other than WALs are the default VFS's own.
//
// Thread-safety: RegisterWalBatchingVfs is safe to call from any thread. A WAL file is used by
// its connection's thread only, as SQLite's own files are.
#pragma once

namespace cosmos::storage::sqlite {

// Registers the VFS (once) and returns its name for sqlite3_open_v2, or nullptr when it could not
// be registered (the default VFS then serves, which is correct, only slower).
const char* RegisterWalBatchingVfs();

// WAL writes the VFS received, and the system calls it made for them (for tests).
struct WalWriteCounts {
  long long frames_written = 0;  // xWrite calls on WAL files
  long long flushes = 0;         // times gathered frames went down to the file (in writes of up to 128 KB)
};
WalWriteCounts WalBatchingCounts();

}  // namespace cosmos::storage::sqlite
