#include "query/execution/executor.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "query/binder.h"
#include "query/parser/parser.h"
#include "tests/test_support.h"

using cosmos::Json;
using cosmos::query::BoundQuery;
using cosmos::query::DocumentSource;
using cosmos::query::OpenSource;
using cosmos::query::PageRequest;
using cosmos::query::SourceDocument;

namespace {

BoundQuery Prepare(const std::string& text) {
  auto parsed = cosmos::query::ParseQuery(text);
  REQUIRE_OK(parsed);
  auto bound = cosmos::query::Bind(std::move(parsed).value(), text);
  REQUIRE_OK(bound);
  return std::move(bound).value();
}

// Documents {"n": i, "tags": [..two..]} for i in [0, count), at positions i, resumable from any.
class CountingSource : public DocumentSource {
 public:
  CountingSource(int count, int start) : count_(count), next_(start) {}
  cosmos::Result<bool> Next(SourceDocument& doc) override {
    if (next_ == count_) return false;
    doc.json = std::make_shared<const Json>(Json{{"n", next_}, {"tags", {"a", "b"}}});
    doc.bytes = 20;
    doc.position = next_++;
    return true;
  }

 private:
  int count_;
  int next_;
};

// Every page of `text` over `count` documents, following continuations with `request`.
std::vector<std::vector<std::string>> Pages(const std::string& text, int count, PageRequest request) {
  BoundQuery query = Prepare(text);
  OpenSource open = [count](const Json* start) -> cosmos::Result<std::unique_ptr<DocumentSource>> {
    return std::unique_ptr<DocumentSource>(std::make_unique<CountingSource>(count, start ? start->get<int>() : 0));
  };
  std::vector<std::vector<std::string>> pages;
  for (int guard = 0; guard < 1000; ++guard) {
    auto page = cosmos::query::ExecutePage(query, Json(), open, request);
    REQUIRE_OK(page);
    pages.push_back(page->rows);
    if (!page->continuation) break;
    request.continuation = page->continuation;
  }
  return pages;
}

std::vector<std::string> Flatten(const std::vector<std::vector<std::string>>& pages) {
  std::vector<std::string> rows;
  for (const auto& page : pages) rows.insert(rows.end(), page.begin(), page.end());
  return rows;
}

}  // namespace

TEST_CASE("a streaming page that runs out of time ends with a continuation that loses no row", "[executor]") {
  PageRequest unhurried;
  unhurried.max_items = 1000;
  PageRequest hurried = unhurried;
  hurried.time_budget = std::chrono::milliseconds(0);

  for (const char* text : {"SELECT VALUE c.n FROM c", "SELECT VALUE t FROM c JOIN t IN c.tags",
                           "SELECT TOP 150 VALUE c.n FROM c", "SELECT VALUE c.n FROM c OFFSET 5 LIMIT 70"}) {
    INFO(text);
    auto all = Pages(text, 200, unhurried);
    REQUIRE(all.size() == 1);
    auto paged = Pages(text, 200, hurried);
    CHECK(paged.size() > 2);                // the clock ended pages the item count would not
    CHECK(Flatten(paged) == all.front());  // and nothing was lost or repeated
  }
}

namespace {

// The status of the first page of `text` over `count` documents.
cosmos::ErrorCode FirstPageCode(const std::string& text, int count, const PageRequest& request) {
  BoundQuery query = Prepare(text);
  OpenSource open = [count](const Json* start) -> cosmos::Result<std::unique_ptr<DocumentSource>> {
    return std::unique_ptr<DocumentSource>(std::make_unique<CountingSource>(count, start ? start->get<int>() : 0));
  };
  auto page = cosmos::query::ExecutePage(query, Json(), open, request);
  return page.ok() ? cosmos::ErrorCode::kOk : page.status().code();
}

}  // namespace

TEST_CASE("work that cannot end its page early is abandoned at its deadline or at shutdown", "[executor]") {
  // Sorted, grouped and aggregated pages cannot end early with a continuation; a streaming page
  // whose rows all fail the filter is abandoned too when the deadline comes before its budget.
  const std::vector<std::string> texts = {
      "SELECT VALUE c.n FROM c ORDER BY c.n DESC", "SELECT VALUE COUNT(1) FROM c",
      "SELECT c.n FROM c GROUP BY c.n",
      "SELECT VALUE 1 FROM c JOIN a IN c.tags JOIN b IN c.tags JOIN d IN c.tags WHERE a = 'z'"};
  for (const std::string& text : texts) {
    INFO(text);
    PageRequest request;
    CHECK(FirstPageCode(text, 2000, request) == cosmos::ErrorCode::kOk);

    PageRequest late = request;
    late.cancel_at = std::chrono::steady_clock::now();
    CHECK(FirstPageCode(text, 2000, late) == cosmos::ErrorCode::kRequestTimeout);

    std::atomic<bool> stop{true};
    PageRequest stopped = request;
    stopped.stop = &stop;
    CHECK(FirstPageCode(text, 2000, stopped) == cosmos::ErrorCode::kServiceUnavailable);
  }
}

TEST_CASE("a page that finishes in time is not abandoned, however many rows it checks", "[executor]") {
  PageRequest request;
  request.max_items = 100000;
  request.cancel_at = std::chrono::steady_clock::now() + std::chrono::hours(1);
  std::atomic<bool> stop{false};
  request.stop = &stop;
  CHECK(FirstPageCode("SELECT VALUE t FROM c JOIN t IN c.tags ORDER BY c.n DESC", 5000, request) ==
        cosmos::ErrorCode::kOk);
}
