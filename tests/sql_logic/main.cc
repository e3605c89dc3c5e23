// sql_logic_tests: registers every tests/sql/**/*.test file as one Catch2 test case, named by its
// path under tests/sql and tagged [sql] plus one tag per folder, e.g. "functions/string.test"
// [sql][functions]. ctest runs one file per test by passing its name as the test spec.
//
//   sql_logic_tests                       every file
//   sql_logic_tests "[where]"             one folder
//   sql_logic_tests where/basic.test      one file
//   sql_logic_tests --rewrite <spec>      also writes the actual rows into the expected blocks
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sql_logic/sql_logic_file.h"
#include "tests/sql_logic/sql_logic_runner.h"

namespace {

namespace fs = std::filesystem;

bool rewrite_mode = false;

std::string ReadFile(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

// Runs one file; Catch reports each failure and the file goes on to its next query.
class FileTest : public Catch::ITestInvoker {
 public:
  FileTest(fs::path path, std::string name) : path_(std::move(path)), name_(std::move(name)) {}

  void invoke() const override {
    std::string text = ReadFile(path_);
    auto file = cosmos_sql_test::ParseTestFile("tests/sql/" + name_, text);
    if (!file.ok()) FAIL(file.status().message());
    cosmos_sql_test::FileOutcome outcome = cosmos_sql_test::RunTestFile(file.value());
    for (const auto& failure : outcome.failures) FAIL_CHECK(failure.message);
    if (rewrite_mode && !outcome.rewrites.empty()) {
      std::ofstream(path_, std::ios::binary) << cosmos_sql_test::ApplyRewrites(text, outcome.rewrites);
    }
    SUCCEED();
  }

 private:
  fs::path path_;
  std::string name_;
};

// Catch keeps pointers to names, tags and file names: they live here until exit.
std::deque<std::string> registered_strings;

const std::string& Keep(std::string text) { return registered_strings.emplace_back(std::move(text)); }

void RegisterFiles(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".test") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    std::string name = path.lexically_relative(root).generic_string();
    std::string tags = "[sql]";
    for (const auto& folder : fs::path(name).parent_path()) {
      tags.append("[").append(folder.generic_string()).append("]");
    }
    const std::string& kept_name = Keep(name);
    const std::string& kept_tags = Keep(tags);
    const std::string& kept_file = Keep(path.string());
    Catch::AutoReg(new FileTest(path, name), Catch::SourceLineInfo(kept_file.c_str(), 1), "",
                   Catch::NameAndTags(kept_name, kept_tags));
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rewrite") == 0) {
      rewrite_mode = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  RegisterFiles(COSMOLITE_SQL_TEST_DIR);
  return Catch::Session().run(static_cast<int>(args.size()), args.data());
}
