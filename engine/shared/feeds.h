// Feeds and their pages: how many items a page holds, how feeds of databases, containers and
// offers continue, and the feed body the SDKs read ({"_rid":..., "<Key>":[...], "_count":N}).
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/api.h"

namespace cosmos::engine {

// Pages of a feed stop at this many items or roughly this many bytes, whichever comes first.
inline constexpr int64_t kDefaultPageItems = 100;
inline constexpr int64_t kMaxPageItems = 1000;
inline constexpr size_t kMaxPageBytes = 4 * 1024 * 1024;

// Items per page for x-ms-max-item-count: 0 is the default page, -1 lets the server choose.
int64_t PageSize(int64_t max_item_count);

// Database, container and offer feeds continue after the sequence number of the last resource
// returned. 0 when there is no continuation; kBadRequest for a malformed one.
Result<int64_t> SeqContinuation(const std::optional<std::string>& continuation);

// Assembles {"_rid":..., "<key>":[bodies...], "_count":N} without re-parsing the bodies.
std::string FeedBody(const std::string& owner_rid, const char* key, const std::vector<std::string>& bodies);

// One page of a database, container or offer feed. `records` were listed in seq order, up to one
// past the page (page_size + 1): when that one is there, the page continues after the last seq
// it returns.
template <typename Record>
FeedResponse SeqFeedPage(std::vector<Record> records, int64_t page_size, const std::string& owner_rid,
                         const char* key) {
  FeedResponse response;
  if (static_cast<int64_t>(records.size()) > page_size) {
    records.resize(page_size);
    response.continuation = std::to_string(records.back().seq);
  }
  std::vector<std::string> bodies;
  for (auto& record : records) bodies.push_back(std::move(record.body));
  response.owner_rid = owner_rid;
  response.count = static_cast<int64_t>(bodies.size());
  response.body = FeedBody(owner_rid, key, bodies);
  response.request_charge = MetadataReadCharge();
  return response;
}

// An etag that is a number (a change-feed LSN, a range-set version), quoted as etags are.
std::string QuotedNumber(int64_t number);

}  // namespace cosmos::engine
