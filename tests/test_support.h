// Helpers shared by the unit tests.
#pragma once

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "common/result.h"
#include "storage/store.h"

// Checks a Status or Result in one line, printing the message when it failed.
#define REQUIRE_OK(expr)                                   \
  do {                                                     \
    auto&& require_ok_value_ = (expr);                     \
    INFO(cosmos_test::MessageOf(require_ok_value_));       \
    REQUIRE(require_ok_value_.ok());                       \
  } while (false)

namespace cosmos_test {
inline std::string MessageOf(const cosmos::Status& status) { return status.message(); }
template <typename T>
std::string MessageOf(const cosmos::Result<T>& result) {
  return result.ok() ? std::string() : result.status().message();
}

// An empty directory for one test under the system's temp directory, named after `prefix` and
// the process id, and removed with everything in it when the object goes (declare it before the
// stores that use it).
class ScratchDir {
 public:
  explicit ScratchDir(const char* prefix) {
    std::string name = prefix;
    name += std::to_string(::getpid());  // appended: g++ 12 misreports "literal" + string (-Wrestrict)
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  const std::filesystem::path& path() const { return path_; }
  // The path of a file in the directory.
  std::string File(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Options for a store kept in a file (data.db) of `dir`, rather than in memory.
inline cosmos::storage::StoreOptions FileStore(const ScratchDir& dir) {
  cosmos::storage::StoreOptions options;
  options.path = dir.File("data.db");
  return options;
}
}  // namespace cosmos_test
