// Result<T>: either a value or a failed Status (a small stand-in for C++23 std::expected).
// Thread-safety: as for T.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "common/status.h"

namespace cosmos {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : state_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(state_).ok() && "a Result needs a value or an error");
  }

  bool ok() const { return std::holds_alternative<T>(state_); }
  // REQUIRES: !ok()
  const Status& status() const { return std::get<Status>(state_); }
  // REQUIRES: ok()
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace cosmos

// Evaluates `expr` (a Status); returns it from the current function when it failed.
#define COSMOS_RETURN_IF_ERROR(expr)         \
  do {                                       \
    ::cosmos::Status status_macro_ = (expr); \
    if (!status_macro_.ok()) return status_macro_; \
  } while (false)

#define COSMOS_CONCAT_INNER_(a, b) a##b
#define COSMOS_CONCAT_(a, b) COSMOS_CONCAT_INNER_(a, b)
// Evaluates `rexpr` (a Result<T>); on failure returns its Status, otherwise moves the value
// into the declaration `lhs` (e.g. `auto row`).
#define COSMOS_ASSIGN_OR_RETURN(lhs, rexpr)                         \
  auto COSMOS_CONCAT_(result_macro_, __LINE__) = (rexpr);           \
  if (!COSMOS_CONCAT_(result_macro_, __LINE__).ok())                \
    return COSMOS_CONCAT_(result_macro_, __LINE__).status();        \
  lhs = std::move(COSMOS_CONCAT_(result_macro_, __LINE__)).value()
