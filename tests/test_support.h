// Helpers shared by the unit tests.
#pragma once

#include <catch2/catch.hpp>

#include "common/result.h"

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
}  // namespace cosmos_test
