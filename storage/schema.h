// The SQLite schema of a cosmolite data file, applied (idempotently) when a Store opens. Shared
// with bench/sqlite_baseline.cc, so that the raw-SQLite baseline measures exactly this layout.
#pragma once

#include <cstdint>

namespace cosmos::storage {

// Schema version 8 keeps no index entries in the file (index_entries and index_sizes are dropped):
// the index lives in memory (memory_index.h), rebuilt from the documents each time a store opens. store_state
// holds the last commit group, which tells a reader's snapshot which entries it sees.
// Schema version 7 indexes each document's _ts, and adds index_sizes: each container's index
// entries and their bytes, kept with every change to index_entries, so that reports read a row
// instead of counting the index. The index of a version 6 file is dropped and rebuilt (counted
// as it is built), as that of versions 4 and 5.
// Schema version 6 adds the logical partition to every index entry (partition_hash, before the
// document), so that a query inside one logical partition reads only that partition's entries,
// and an index of a logical partition's documents in seq order (documents_by_partition). The
// index of a version 4 or 5 file is dropped and rebuilt by the engine in the background.
// Schema version 5 stores composite index entries (the same table, under "composite:" paths);
// the engine rebuilds the index of a version 4 container that has composite indexes.
// Schema version 4 adds index_entries (and offers); a version 3 file gets both tables empty, and
// the engine builds the index of every container in the background.
// Schema version 3. Documents sit in an ordinary rowid table: ~1 KB bodies in a WITHOUT ROWID
// table spill into overflow pages and make inserts and point reads several times slower.
// The unique index on (container, partition_key, id) makes each logical partition one index
// range; the engine starts every partition_key with the effective partition key, so that each
// physical partition (a range of effective keys) is one index range too. AUTOINCREMENT keeps sequence numbers (and so resource ids) from ever being reused.
inline constexpr int kSchemaVersion = 8;
// Applied after kSchemaSql, once an older file has its expires_at column (version 3).
inline constexpr char kExpiryIndexSql[] =
    "CREATE INDEX IF NOT EXISTS documents_by_expiry ON documents(expires_at) WHERE expires_at IS NOT NULL;";

// An index entry's bytes in an index's size (MeasureIndex): its path and value, and this for the
// partition hash and document seq it points with.
inline constexpr int64_t kIndexEntryPointerBytes = 16;
inline constexpr char kSchemaSql[] = R"sql(
CREATE TABLE IF NOT EXISTS databases(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS containers(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  database_seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  lsn INTEGER NOT NULL DEFAULT 0,
  UNIQUE(database_seq, id));
CREATE TABLE IF NOT EXISTS documents(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  container_seq INTEGER NOT NULL,
  partition_key TEXT NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  etag TEXT NOT NULL,
  lsn INTEGER NOT NULL,
  expires_at INTEGER);
CREATE UNIQUE INDEX IF NOT EXISTS documents_by_key ON documents(container_seq, partition_key, id);
CREATE INDEX IF NOT EXISTS documents_by_lsn ON documents(container_seq, lsn);
-- A container's documents in seq (insertion) order, which is the order the service returns a
-- physical partition's documents in: the index holds (container_seq, rowid).
CREATE INDEX IF NOT EXISTS documents_by_container ON documents(container_seq);
-- A logical partition's documents in seq order (the index holds the rowid): a query inside one
-- partition streams them without sorting the partition.
CREATE INDEX IF NOT EXISTS documents_by_partition ON documents(container_seq, partition_key);
CREATE TABLE IF NOT EXISTS logical_partitions(
  container_seq INTEGER NOT NULL,
  partition_key TEXT NOT NULL,
  document_count INTEGER NOT NULL,
  total_bytes INTEGER NOT NULL,
  PRIMARY KEY(container_seq, partition_key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unique_key_entries(
  container_seq INTEGER NOT NULL,
  partition_key TEXT NOT NULL,
  key_index INTEGER NOT NULL,
  value TEXT NOT NULL,
  document_seq INTEGER NOT NULL,
  PRIMARY KEY(container_seq, partition_key, key_index, value)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unique_key_entries_by_document
  ON unique_key_entries(container_seq, document_seq);
CREATE TABLE IF NOT EXISTS change_log(
  container_seq INTEGER NOT NULL,
  lsn INTEGER NOT NULL,
  partition_key TEXT NOT NULL,
  entry TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY(container_seq, lsn)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS change_log_by_expiry ON change_log(expires_at);
CREATE TABLE IF NOT EXISTS offers(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  resource_seq INTEGER NOT NULL,
  is_database INTEGER NOT NULL,
  body TEXT NOT NULL,
  UNIQUE(is_database, resource_seq));
-- index_builds lists containers whose index (memory_index.h) is being (re)built: all of them as a
-- file opens.
CREATE TABLE IF NOT EXISTS index_builds(
  container_seq INTEGER PRIMARY KEY,
  after_seq INTEGER NOT NULL,
  total INTEGER NOT NULL,
  done INTEGER NOT NULL);
-- Containers without a changeFeedPolicy whose change log an all-versions-and-deletes reader
-- started: it holds every change after since_lsn.
CREATE TABLE IF NOT EXISTS change_log_starts(
  container_seq INTEGER PRIMARY KEY,
  since_lsn INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS partition_key_ranges(
  container_seq INTEGER NOT NULL,
  range_id INTEGER NOT NULL,
  min_inclusive TEXT NOT NULL,
  max_exclusive TEXT NOT NULL,
  parents TEXT NOT NULL,
  version INTEGER NOT NULL,
  gone INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(container_seq, range_id)) WITHOUT ROWID;
-- Users of a database and their permissions (one per resource and user).
CREATE TABLE IF NOT EXISTS users(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  database_seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE(database_seq, id));
CREATE TABLE IF NOT EXISTS permissions(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  user_seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  resource TEXT NOT NULL,
  scope TEXT NOT NULL,
  UNIQUE(user_seq, id));
CREATE UNIQUE INDEX IF NOT EXISTS permissions_by_resource ON permissions(user_seq, resource);
-- Stored procedures, triggers and user-defined functions of a container (kind: sprocs, triggers,
-- udfs), their definitions as JSON.
CREATE TABLE IF NOT EXISTS scripts(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  container_seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE(container_seq, kind, id));
-- Counters of the store: 'commit_group', the last commit group (written with each).
CREATE TABLE IF NOT EXISTS store_state(
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL) WITHOUT ROWID;
-- Secrets the account keeps across restarts (the key that signs resource tokens).
CREATE TABLE IF NOT EXISTS account_secrets(
  name TEXT PRIMARY KEY,
  value BLOB NOT NULL) WITHOUT ROWID;

)sql";

}  // namespace cosmos::storage
