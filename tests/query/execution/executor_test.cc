#include "query/execution/executor.h"

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
