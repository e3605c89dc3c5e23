// Runs a parsed .test file against a fresh in-memory engine::Account, once per physical partition
// count the file names, and compares each query's rows (or error) with the expectation.
// Cross-partition queries that need the SDK's pipeline run through client_pipeline.h.
// Thread-compatible: one runner per file.
#pragma once

#include <string>
#include <vector>

#include "tests/sql_logic/sql_logic_file.h"

namespace cosmos_sql_test {

// One mismatch, already formatted with file:line, the query, expected and actual.
struct Failure {
  int line = 0;
  std::string message;
};

// The rows a mismatching query actually returned, to write back into the file under --rewrite.
struct Rewrite {
  int begin = 0;  // lines [begin, end) of the expected block, 1-based
  int end = 0;
  std::vector<std::string> rows;
};

struct FileOutcome {
  std::vector<Failure> failures;
  std::vector<Rewrite> rewrites;
};

// Runs `file` once per count in file.partitions, each in a fresh account; every failure message
// names its count ("[4 physical partitions]").
FileOutcome RunTestFile(const TestFile& file);

// `text` with each rewritten expected block replaced by its actual rows.
std::string ApplyRewrites(const std::string& text, const std::vector<Rewrite>& rewrites);

// The form rows are compared in: numbers that hold an integer become integers, objects forget
// their property order, and the system properties (_rid, _self, _etag, _attachments, _ts) are
// removed from a top-level object and from any nested whole document (an object with both _rid
// and _self). Returns the canonical JSON text.
std::string CanonicalRow(const std::string& json);

}  // namespace cosmos_sql_test
