// Fuzz target: continuation tokens. Any x-ms-continuation text given to a paged query — ORDER BY,
// streaming, aggregate — must resume correctly or be refused with 400, never crash.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/partitioning/read_order.h"
#include "query/binder.h"
#include "query/execution/executor.h"
#include "query/parser/parser.h"

namespace {

class SmallSource : public cosmos::query::DocumentSource {
 public:
  explicit SmallSource(int64_t start) : next_(start < 0 ? 0 : start) {}
  cosmos::Result<bool> Next(cosmos::query::SourceDocument& doc) override {
    if (next_ >= 8) return false;
    doc.json = std::make_shared<const cosmos::Json>(cosmos::Json{{"id", std::to_string(next_)}, {"n", next_ % 3},
                                                                 {"tags", {"a", "b"}}});
    doc.bytes = 30;
    doc.position = cosmos::engine::ReadPosition{next_++, "", "FF"}.ToJson();
    return true;
  }

 private:
  int64_t next_;
};

const cosmos::query::BoundQuery& Prepared(int which) {
  static const char* const kQueries[] = {"SELECT c.id FROM c ORDER BY c.n", "SELECT VALUE t FROM c JOIN t IN c.tags",
                                         "SELECT c.n, COUNT(1) AS k FROM c GROUP BY c.n",
                                         "SELECT DISTINCT VALUE c.n FROM c", "SELECT TOP 5 c.id FROM c ORDER BY c.n DESC"};
  static std::unique_ptr<cosmos::query::BoundQuery> bound[5];
  if (!bound[which]) {
    auto parsed = cosmos::query::ParseQuery(kQueries[which]);
    bound[which] = std::make_unique<cosmos::query::BoundQuery>(
        std::move(cosmos::query::Bind(std::move(parsed).value(), kQueries[which])).value());
  }
  return *bound[which];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  int which = data[0] % 5;
  cosmos::query::PageRequest request;
  request.max_items = 2;
  request.continuation = std::string(reinterpret_cast<const char*>(data) + 1, size - 1);
  cosmos::query::OpenSource open = [](const cosmos::Json* start)
      -> cosmos::Result<std::unique_ptr<cosmos::query::DocumentSource>> {
    std::optional<cosmos::engine::ReadPosition> position;
    if (start != nullptr) {
      position = cosmos::engine::ReadPosition::FromJson(*start);
      if (!position) return cosmos::Status::BadRequest("Invalid Continuation Token");
    }
    return std::unique_ptr<cosmos::query::DocumentSource>(std::make_unique<SmallSource>(position ? position->seq : 0));
  };
  (void)cosmos::query::ExecutePage(Prepared(which), cosmos::Json(), open, request);
  return 0;
}
