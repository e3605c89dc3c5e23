// The .test file format of the SQL logic tests (see README.md beside this file): a container and
// its documents, then query blocks with their expected rows or expected error.
// Parsing only; sql_logic_runner.h runs what this produces. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/result.h"

namespace cosmos_sql_test {

// A JSON document to insert, with the line it came from.
struct DocumentLine {
  int line = 0;
  std::string json;
};

// `container <id> /path` or `container <id> multihash /a /b`, optionally followed by
// `indexing=<json policy>` and `properties=<json object>` (more properties of the container, such
// as a vectorEmbeddingPolicy): creates the container that the following queries run against, then
// inserts the documents listed after `----`.
struct ContainerStep {
  int line = 0;
  std::string id;
  std::vector<std::string> paths;
  bool multihash = false;
  std::string indexing_policy;  // JSON text; empty: the default policy
  std::string properties;       // JSON object text; empty: none
  std::vector<DocumentLine> documents;
};

// `insert`: more documents for the current container.
struct InsertStep {
  int line = 0;
  std::vector<DocumentLine> documents;
};

struct QueryParameter {
  std::string name;  // with its @
  std::string json;  // the value as JSON text
};

// `query [options]` with its expected rows, or `query error <status> /regex/`.
struct QueryStep {
  int line = 0;
  std::string sql;
  // Options.
  bool rowsort = false;
  std::vector<QueryParameter> parameters;
  std::optional<std::string> partition_key;  // JSON: a component, or the whole header as an array
  int64_t page_size = 0;                     // 0: no paged run
  std::optional<double> max_charge;
  // Expectation: rows, or an error.
  bool expect_error = false;
  int error_status = 0;
  std::string error_pattern;  // ECMAScript regex searched in the message; empty: any message
  std::vector<std::string> expected;  // one JSON value per row
  // Lines [expected_begin, expected_end) hold the expected rows (1-based), for --rewrite.
  int expected_begin = 0;
  int expected_end = 0;
};

using Step = std::variant<ContainerStep, InsertStep, QueryStep>;

struct TestFile {
  std::string path;
  // `# partitions: 1 4`: the physical partition counts to run the file with, each in a fresh account.
  std::vector<int> partitions = {1, 4};
  std::vector<Step> steps;
};

// Parses the text of a .test file. `path` only names the file in messages.
// Returns kBadRequest, naming path:line, for a malformed file.
cosmos::Result<TestFile> ParseTestFile(const std::string& path, const std::string& text);

// Splits an option list at spaces outside JSON strings, brackets and braces, so that
// `param=@names:["a b","c"]` stays one token.
std::vector<std::string> SplitOptions(const std::string& text);

}  // namespace cosmos_sql_test
