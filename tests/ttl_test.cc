// Time to live in the engine: expired documents are invisible at once and the sweep deletes them.
#include <chrono>
#include <thread>

#include "common/json.h"
#include "engine/account.h"
#include "storage/store.h"
#include "tests/test_support.h"

using cosmos::Json;
using cosmos::engine::Account;
using cosmos::engine::ContainerAddress;
using cosmos::engine::ItemKey;
using cosmos::engine::ItemWrite;
using cosmos::engine::ResourceName;

namespace {

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

TEST_CASE("the sweep deletes expired documents and only those; an upsert over an expired one creates", "[ttl]") {
  auto store = cosmos::storage::Store::Open({});
  REQUIRE_OK(store);
  Account account(std::move(store).value());
  REQUIRE_OK(account.CreateDatabase(R"({"id":"db"})"));
  REQUIRE_OK(account.CreateContainer(ResourceName{"db"}, R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":-1})"));
  ContainerAddress address{ResourceName{"db"}, ResourceName{"c"}};
  REQUIRE_OK(account.CreateItem(ItemWrite{address, R"(["a"])", R"({"id":"x","pk":"a","ttl":5})", {}}));
  REQUIRE_OK(account.CreateItem(ItemWrite{address, R"(["a"])", R"({"id":"y","pk":"a"})", {}}));

  auto nothing = account.SweepExpiredDocuments(Now(), 100);
  REQUIRE_OK(nothing);
  CHECK(*nothing == 0);
  REQUIRE_OK(account.ReadItem(ItemKey{address, R"(["a"])", ResourceName{"x"}}, {}));

  // Ten seconds on, x has expired: the sweep removes it, and y (no ttl, default -1) stays.
  auto swept = account.SweepExpiredDocuments(Now() + 10, 100);
  REQUIRE_OK(swept);
  CHECK(*swept == 1);
  CHECK(account.ReadItem(ItemKey{address, R"(["a"])", ResourceName{"x"}}, {}).status().code() ==
        cosmos::ErrorCode::kNotFound);
  REQUIRE_OK(account.ReadItem(ItemKey{address, R"(["a"])", ResourceName{"y"}}, {}));

  // An item whose ttl ran out but that no sweep has removed yet is gone for writes too.
  REQUIRE_OK(account.CreateItem(ItemWrite{address, R"(["a"])", R"({"id":"z","pk":"a","ttl":1})", {}}));
  auto expired_at = Now() + 2;
  while (Now() < expired_at) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto upserted = account.UpsertItem(ItemWrite{address, R"(["a"])", R"({"id":"z","pk":"a","v":2})", {}});
  REQUIRE_OK(upserted);
  CHECK(upserted->created);
}
