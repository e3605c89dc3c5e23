#include "engine/queries/document_condition.h"

#include <memory>

#include "query/execution/executor.h"

namespace cosmos::engine {
namespace {

// The one document, as a query's source.
class SingleDocument : public query::DocumentSource {
 public:
  explicit SingleDocument(const Json& document) : document_(document) {}
  Result<bool> Next(query::SourceDocument& doc) override {
    if (done_) return false;
    done_ = true;
    // Borrowed, not copied: the page runs and ends within DocumentMatches, while `document_` lives.
    doc.json = std::shared_ptr<const Json>(std::shared_ptr<const Json>(), &document_);
    doc.position = 0;
    return true;
  }

 private:
  const Json& document_;
  bool done_ = false;
};

}  // namespace

Result<bool> DocumentMatches(query::PreparedQueryCache& cache, const std::string& condition, const Json& document) {
  COSMOS_ASSIGN_OR_RETURN(auto prepared, cache.Prepare("SELECT VALUE 1 " + condition));
  query::OpenSource open_source = [&](const Json*) -> Result<std::unique_ptr<query::DocumentSource>> {
    return std::unique_ptr<query::DocumentSource>(new SingleDocument(document));
  };
  query::PageRequest page_request;
  page_request.max_items = 1;
  COSMOS_ASSIGN_OR_RETURN(auto page, query::ExecutePage(*prepared, Json::array(), open_source, page_request));
  return !page.rows.empty();
}

}  // namespace cosmos::engine
