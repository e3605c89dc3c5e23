#include "engine/admission/request_charge.h"

#include "tests/test_support.h"

namespace cosmos::engine {

// The published figures the model is calibrated to (docs/request-units.md).
TEST_CASE("request charges: the model table", "[charge]") {
  CHECK(ReadCharge(200) == 1.0);
  CHECK(ReadCharge(1024) == 1.0);
  CHECK(ReadCharge(100 * 1024) == 10.0);
  CHECK(ReadCharge(1024, ConsistencyLevel::kStrong) == 2.0);
  CHECK(ReadCharge(1024, ConsistencyLevel::kBoundedStaleness) == 2.0);
  CHECK(ReadCharge(1024, ConsistencyLevel::kEventual) == 1.0);

  // A 1 KB item with 15 to 30 indexed values under the default policy: 5-6 RU.
  CHECK(CreateCharge(1024, 15) == 5.1);
  CHECK(CreateCharge(1024, 30) == 6.0);
  CHECK(CreateCharge(1024, 2) == 4.32);           // everything but id and one path excluded
  CHECK(CreateCharge(100 * 1024, 0) == 49.2);     // 100 KB, not indexed: about 50 RU
  CHECK(CreateCharge(2048, 15) > CreateCharge(1024, 15));
  CHECK(CreateCharge(1024, 60) > CreateCharge(1024, 15));
  CHECK(ReplaceCharge(1024, 15, 15) == 10.2);
  CHECK(DeleteCharge(1024, 15) == CreateCharge(1024, 15));

  QueryWork empty;
  CHECK(QueryCharge(empty) == 2.3);
  QueryWork work;
  work.documents_loaded = 100;
  work.document_bytes = 100 * 1024;
  work.output_bytes = 10 * 1024;
  CHECK(QueryCharge(work) == 4.06);  // 2.3 + 100 × 0.005 + 100 KB × 0.0093 + 10 KB × 0.033
  CHECK(QueryCharge(work, ConsistencyLevel::kStrong) == 2 * QueryCharge(work));
  // One value looked up in the index, one small document returned: the published ~2.8 RU.
  QueryWork lookup;
  lookup.index_seeks = 1;
  lookup.index_entries = 1;
  lookup.documents_loaded = 1;
  lookup.document_bytes = 1024;
  lookup.rows_returned = 1;
  lookup.output_bytes = 1024;
  CHECK(QueryCharge(lookup) == 2.82);
  // Every physical partition visited pays the minimum.
  QueryWork fanned_out;
  fanned_out.partitions_visited = 40;
  CHECK(QueryCharge(fanned_out) == 92);
}

TEST_CASE("request charges: a request may only relax the account's consistency", "[charge]") {
  CHECK(ReadConsistency(ConsistencyLevel::kSession, std::nullopt).value() == ConsistencyLevel::kSession);
  CHECK(ReadConsistency(ConsistencyLevel::kStrong, std::string("eventual")).value() == ConsistencyLevel::kEventual);
  CHECK(ReadConsistency(ConsistencyLevel::kStrong, std::nullopt).value() == ConsistencyLevel::kStrong);
  auto stronger = ReadConsistency(ConsistencyLevel::kSession, std::string("Strong"));
  REQUIRE_FALSE(stronger.ok());
  CHECK(stronger.status().code() == ErrorCode::kBadRequest);
  CHECK(stronger.status().message().find("not stronger than the service consistency level") != std::string::npos);
  CHECK_FALSE(ReadConsistency(ConsistencyLevel::kSession, std::string("Linearizable")).ok());
}

}  // namespace cosmos::engine
