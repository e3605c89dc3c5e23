// Helpers for tests that drive a storage::sqlite::Connection directly.
#pragma once

#include <cstdint>
#include <string>

#include "storage/sqlite/connection.h"
#include "tests/test_support.h"

namespace cosmos_test {

// The first column of the first row of `sql`, which must return a row.
inline int64_t QueryInt(cosmos::storage::sqlite::Connection& connection, const std::string& sql) {
  auto statement = connection.Prepare(sql);
  REQUIRE_OK(statement);
  auto row = statement.value()->Step();
  REQUIRE_OK(row);
  REQUIRE(row.value());
  int64_t value = statement.value()->ColumnInt(0);
  statement.value()->Reset();
  return value;
}

// Inserts `rows` rows into t(k, v): a random 40-byte key each, so that they land all over the
// B-tree, and `value` (an SQL expression) as the value.
inline std::string InsertRandomRows(int rows, const std::string& value) {
  return "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + std::to_string(rows) +
         ") INSERT INTO t SELECT randomblob(40), " + value + " FROM n;";
}

// "ok" when SQLite finds the file sound.
inline std::string IntegrityCheck(cosmos::storage::sqlite::Connection& connection) {
  auto statement = connection.Prepare("PRAGMA integrity_check");
  REQUIRE_OK(statement);
  auto row = statement.value()->Step();
  REQUIRE_OK(row);
  std::string result = statement.value()->ColumnText(0);
  statement.value()->Reset();
  return result;
}

}  // namespace cosmos_test
