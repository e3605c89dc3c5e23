// Cancellation: how a running query learns that it must stop. Work that can end its page early
// does so at the page's time budget (see PageRequest); this is for work that cannot (a sorted or
// aggregated page, one pathological row): past a deadline it is abandoned with 408, and when the
// server shuts down with 503, so that a worker thread is never held indefinitely.
// Thread-safety: a Cancellation belongs to one query execution (one thread); the stop flag it
// watches may be raised from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "common/status.h"

namespace cosmos::query {

class Cancellation {
 public:
  using Clock = std::chrono::steady_clock;

  Cancellation() = default;  // never stops
  Cancellation(Clock::time_point deadline, const std::atomic<bool>* stop) : deadline_(deadline), stop_(stop) {}

  // OK while the work may go on; 408 past the deadline, 503 once the stop flag is up. Cheap
  // enough to call once per row: it looks at the clock and the flag every kCallsPerLook calls.
  Status Check() {
    if (++calls_ % kCallsPerLook != 0) return Status();
    return Look();
  }

 private:
  static constexpr uint32_t kCallsPerLook = 64;

  Status Look() const;

  Clock::time_point deadline_ = Clock::time_point::max();
  const std::atomic<bool>* stop_ = nullptr;
  uint32_t calls_ = 0;
};

}  // namespace cosmos::query
