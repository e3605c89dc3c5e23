// A thin layer over SQLite's own page cache that makes a commit's cache truncation cheap again.
//
// Why: when a B-tree balance reorders sibling pages, SQLite 3.40 parks one page under a
// temporary number, the page of the pending byte (1 GiB / page size + 1, e.g. 262145). The page
// moves on at once, but the cache's highest key stays there, and every commit afterwards asks
// the cache to drop pages past the end of the database: with the highest key far past the end,
// the default cache walks its whole hash table (every cached page) to find none. With a 64 MB
// cache and random inserts that walk cost about a tenth of the write thread.
//
// The layer keeps its own highest key, the parked page apart, and lets a truncation through
// only when some page can lie at or past the limit. Everything else is SQLite's cache as is.
//
// Thread-safety: InstallPageCacheLayer is safe to call from any thread, any number of times; it
// takes effect only before SQLite initialises (the first connection opens). The layer's state is
// per cache, that is per connection, and SQLite calls a cache under its connection's own lock.
#pragma once

namespace cosmos::storage::sqlite {

// Installs the layer once for the process. Returns false when SQLite was already initialised
// (the default cache stays, which is correct, only slower).
bool InstallPageCacheLayer();

// Truncations the layer let through to SQLite's cache, and those it answered itself (for tests).
struct PageCacheTruncations {
  long long forwarded = 0;
  long long skipped = 0;
};
PageCacheTruncations PageCacheTruncationCounts();

}  // namespace cosmos::storage::sqlite
