#include "engine/admission/throttle.h"

#include "tests/test_support.h"

namespace cosmos::engine {

using namespace std::chrono_literals;

TEST_CASE("throttle: a partition spends one second of its share, then waits for the refill", "[throttle]") {
  Throttle throttle(/*enforce=*/true);
  auto start = Throttle::Clock::now();
  Throttle::PartitionId hot{1, 0}, cold{1, 1};
  // 100 RU/s: ten 10-RU requests fit in the first second, the eleventh waits.
  for (int i = 0; i < 10; ++i) {
    REQUIRE_FALSE(throttle.Admit(hot, 100, start));
    throttle.Charge(hot, 10);
  }
  auto wait = throttle.Admit(hot, 100, start);
  REQUIRE(wait);
  CHECK(*wait == 1);  // the bucket is exactly empty: any refill admits
  throttle.Charge(hot, 0);
  // One expensive request takes the bucket below zero; the wait is the time to refill the debt.
  REQUIRE_FALSE(throttle.Admit(hot, 100, start + 10ms));
  throttle.Charge(hot, 51);  // +1 RU refilled in 10 ms, -51: 50 RU in debt
  auto debt = throttle.Admit(hot, 100, start + 10ms);
  REQUIRE(debt);
  CHECK(*debt == 501);
  CHECK(throttle.Admit(hot, 100, start + 510ms));
  CHECK_FALSE(throttle.Admit(hot, 100, start + 511ms));
  // Another partition of the same container has its own budget.
  CHECK_FALSE(throttle.Admit(cold, 100, start + 10ms));

  auto usage = throttle.Usage();
  CHECK(usage[hot].throttled == 3);
  CHECK(usage[hot].request_units == 151);
  CHECK(usage[cold].throttled == 0);
}

TEST_CASE("throttle: off by default, but still counting", "[throttle]") {
  Throttle throttle(/*enforce=*/false);
  for (int i = 0; i < 100; ++i) {
    CHECK_FALSE(throttle.Admit({1, 0}, 100));
    throttle.Charge({1, 0}, 10);
  }
  CHECK(throttle.Usage()[{1, 0}].request_units == 1000);
  CHECK(throttle.Usage()[{1, 0}].throttled == 0);
}

}  // namespace cosmos::engine
