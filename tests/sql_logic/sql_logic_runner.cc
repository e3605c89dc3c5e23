#include "tests/sql_logic/sql_logic_runner.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "engine/account.h"
#include "engine/partitioning/partition_key.h"
#include "server/error_mapping.h"
#include "storage/store.h"
#include "tests/sql_logic/client_pipeline.h"

namespace cosmos_sql_test {
namespace {

using cosmos::ErrorCode;
using cosmos::Json;
using cosmos::Status;
using cosmos::engine::Account;
using cosmos::engine::ContainerAddress;
using cosmos::engine::PartitionKeyDefinition;
using cosmos::engine::PartitionKeyValue;
using cosmos::engine::QueryRequest;
using cosmos::engine::ResourceName;

constexpr char kDatabaseId[] = "db";
// A query that keeps answering continuations past this many pages is a bug, not a big result.
constexpr int kMaxPages = 10000;

const char* const kSystemProperties[] = {"_rid", "_self", "_etag", "_attachments", "_ts"};

// The HTTP status the server answers for an error: the mapping lives in one place.
int HttpStatusOf(ErrorCode code) { return code == ErrorCode::kOk ? 200 : cosmos::server::MapError(code).status; }

void Normalize(nlohmann::json& value) {
  if (value.is_number_float()) {
    double number = value.get<double>();
    if (std::isfinite(number) && std::trunc(number) == number && std::fabs(number) < 9.0e15) {
      value = static_cast<int64_t>(number);
    }
  } else if (value.is_number_unsigned()) {
    uint64_t number = value.get<uint64_t>();
    if (number <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) value = static_cast<int64_t>(number);
  } else if (value.is_structured()) {
    for (auto& element : value) Normalize(element);
  }
}

// Removes the system properties of a top-level object, and of any nested object that is a whole
// stored document (it has both _rid and _self), e.g. `c` in SELECT * FROM c JOIN t IN c.tags.
template <typename JsonType>
void StripSystemProperties(JsonType& row, bool top_level = true) {
  if (row.is_object() && (top_level || (row.contains("_rid") && row.contains("_self")))) {
    for (const char* name : kSystemProperties) row.erase(name);
  }
  if (row.is_structured()) {
    for (auto& element : row) StripSystemProperties(element, false);
  }
}

// The row as it is displayed and rewritten: compact, in the engine's property order.
std::string DisplayRow(Json row) {
  StripSystemProperties(row);
  return row.dump();
}

std::string Indent(const std::string& text) {
  std::string indented = "    ";
  for (char c : text) {
    indented += c;
    if (c == '\n') indented += "    ";
  }
  return indented;
}

std::string RowList(const std::vector<std::string>& rows) {
  if (rows.empty()) return "    (no rows)\n";
  std::string list;
  for (const auto& row : rows) list += "    " + row + "\n";
  return list;
}

// Everything a query returned over all its pages.
struct QueryRun {
  std::optional<Status> error;
  std::vector<Json> rows;
  std::vector<size_t> page_counts;
  double charge = 0;
};

// Runs a file in a fresh account whose containers get `physical_partitions` ranges, kept in memory
// or, with `data_file` set, in that file (whose queries read on snapshots: storage/memory_index.h).
class FileRunner {
 public:
  FileRunner(const TestFile& file, int physical_partitions, std::string data_file = "")
      : file_(file), physical_partitions_(physical_partitions), data_file_(std::move(data_file)) {}

  FileOutcome Run() {
    cosmos::storage::StoreOptions store_options;
    store_options.path = data_file_;
    auto store = cosmos::storage::Store::Open(store_options);
    if (!store.ok()) return Abort(0, "cannot open the store: " + store.status().message());
    cosmos::engine::AccountOptions options;
    options.min_physical_partitions = physical_partitions_;
    account_ = std::make_unique<Account>(std::move(store).value(), options);
    auto database = account_->CreateDatabase(Json{{"id", kDatabaseId}}.dump());
    if (!database.ok()) return Abort(0, "cannot create the database: " + database.status().message());

    for (const Step& step : file_.steps) {
      if (const auto* container = std::get_if<ContainerStep>(&step)) {
        if (!CreateContainer(*container)) break;
      } else if (const auto* insert = std::get_if<InsertStep>(&step)) {
        if (!container_) {
          Fail(insert->line, "'insert' before any 'container'");
          break;
        }
        InsertDocuments(insert->documents);
      } else if (const auto* query = std::get_if<QueryStep>(&step)) {
        if (!container_) {
          Fail(query->line, "'query' before any 'container'");
          break;
        }
        try {
          RunQuery(*query);
        } catch (const std::exception& e) {
          Fail(query->line, std::string("exception while running the query: ") + e.what() + "\n" +
                                "  query:\n" + Indent(query->sql));
        }
      }
    }
    return std::move(outcome_);
  }

 private:
  FileOutcome Abort(int line, const std::string& message) {
    Fail(line, message);
    return std::move(outcome_);
  }

  void Fail(int line, const std::string& message) {
    outcome_.failures.push_back({line, file_.path + ":" + std::to_string(line) + ": [" +
                                           std::to_string(physical_partitions_) + " physical partitions" +
                                           (data_file_.empty() ? "" : ", file store") + "] " + message});
  }

  bool CreateContainer(const ContainerStep& step) {
    Json key = {{"paths", step.paths}, {"kind", step.multihash ? "MultiHash" : "Hash"}};
    if (step.multihash) key["version"] = 2;
    Json definition = {{"id", step.id}, {"partitionKey", key}};
    if (!step.indexing_policy.empty()) {
      definition["indexingPolicy"] = Json::parse(step.indexing_policy, nullptr, /*allow_exceptions=*/false);
    }
    if (!step.properties.empty()) {
      Json properties = Json::parse(step.properties, nullptr, /*allow_exceptions=*/false);
      if (!properties.is_object()) {
        Fail(step.line, "properties=<json> is not an object");
        return false;
      }
      definition.update(properties);
    }
    auto created = account_->CreateContainer(ResourceName{kDatabaseId}, definition.dump());
    if (!created.ok()) {
      Fail(step.line, "cannot create container '" + step.id + "': " + created.status().message());
      return false;
    }
    auto parsed = PartitionKeyDefinition::Parse(key);
    if (!parsed.ok()) {
      Fail(step.line, "bad partition key definition: " + parsed.status().message());
      return false;
    }
    container_ = ContainerAddress{ResourceName{kDatabaseId}, ResourceName{step.id}};
    key_definition_ = std::move(parsed).value();
    InsertDocuments(step.documents);
    return true;
  }

  void InsertDocuments(const std::vector<DocumentLine>& documents) {
    for (const DocumentLine& document : documents) {
      Json parsed = Json::parse(document.json);
      cosmos::engine::ItemWrite write;
      write.container = *container_;
      write.partition_key_header = PartitionKeyValue::FromDocument(key_definition_, parsed).ToHeaderText();
      write.body = document.json;
      auto created = account_->CreateItem(write);
      if (!created.ok()) Fail(document.line, "cannot insert the document: " + created.status().message());
    }
  }

  QueryRun Execute(const QueryStep& step, int64_t max_item_count) {
    Json body = {{"query", step.sql}};
    if (!step.parameters.empty()) {
      Json parameters = Json::array();
      for (const auto& parameter : step.parameters) {
        parameters.push_back({{"name", parameter.name}, {"value", Json::parse(parameter.json)}});
      }
      body["parameters"] = std::move(parameters);
    }
    std::string body_text = body.dump();

    QueryRequest request;
    request.container = *container_;
    request.body = body_text;
    if (step.partition_key) {
      Json key = Json::parse(*step.partition_key);
      request.partition_key_header = key.is_array() ? key.dump() : Json::array({key}).dump();
    } else {
      request.enable_cross_partition = true;
    }
    request.max_item_count = max_item_count;

    QueryRun run;
    std::string continuation;
    for (int page = 0; page < kMaxPages; ++page) {
      auto response = account_->QueryItems(request);
      if (!response.ok() && response.status().code() == ErrorCode::kQueryNeedsClientPlan && page == 0) {
        return RunOnClient(request, response.status().additional_error_info());
      }
      if (!response.ok()) {
        run.error = response.status();
        return run;
      }
      run.charge += response->request_charge;
      Json documents = Json::parse(response->body).at("Documents");
      run.page_counts.push_back(documents.size());
      for (auto& row : documents) run.rows.push_back(std::move(row));
      if (!response->continuation || response->continuation->empty()) return run;
      continuation = *response->continuation;
      request.continuation = continuation;
    }
    run.error = Status::Internal("the continuation never ends (over " + std::to_string(kMaxPages) + " pages)");
    return run;
  }

  // What the SDK does when the gateway answers with a query plan: runs it range by range and
  // merges the rows itself (client_pipeline.h).
  QueryRun RunOnClient(const QueryRequest& request, const std::string& plan) {
    QueryRun run;
    auto pipeline = cosmos_sql_test::RunClientPipeline(*account_, request, plan);
    if (!pipeline.ok()) {
      run.error = pipeline.status();
      return run;
    }
    run.rows = std::move(pipeline->rows);
    run.page_counts = std::move(pipeline->page_counts);
    run.charge = pipeline->charge;
    return run;
  }

  static std::vector<std::string> Canonical(const std::vector<std::string>& rows, bool sorted) {
    std::vector<std::string> canonical;
    for (const auto& row : rows) canonical.push_back(CanonicalRow(row));
    if (sorted) std::sort(canonical.begin(), canonical.end());
    return canonical;
  }

  static std::vector<std::string> Displayed(const std::vector<Json>& rows) {
    std::vector<std::string> displayed;
    for (const auto& row : rows) displayed.push_back(DisplayRow(row));
    return displayed;
  }

  void RunQuery(const QueryStep& step) {
    std::string query_text = "  query:\n" + Indent(step.sql) + "\n";
    QueryRun run = Execute(step, -1);

    if (step.expect_error) {
      if (!run.error) {
        Fail(step.line, "expected error " + std::to_string(step.error_status) + " but the query succeeded\n" +
                            query_text + "  actual:\n" + RowList(Displayed(run.rows)));
        return;
      }
      int status = HttpStatusOf(run.error->code());
      bool message_matches = step.error_pattern.empty() ||
                             std::regex_search(run.error->message(), std::regex(step.error_pattern));
      if (status != step.error_status || !message_matches) {
        Fail(step.line, "wrong error\n" + query_text + "  expected: " + std::to_string(step.error_status) + " /" +
                            step.error_pattern + "/\n  actual:   " + std::to_string(status) + " " +
                            run.error->message() + "\n");
      }
      return;
    }

    if (run.error) {
      Fail(step.line, "the query failed with " + std::to_string(HttpStatusOf(run.error->code())) + ": " +
                          run.error->message() + "\n" + query_text + "  expected:\n" + RowList(step.expected));
      return;
    }
    std::vector<std::string> actual = Displayed(run.rows);
    if (Canonical(actual, step.rowsort) != Canonical(step.expected, step.rowsort)) {
      outcome_.rewrites.push_back({step.expected_begin, step.expected_end, actual});
      Fail(step.line, std::string("wrong result") + (step.rowsort ? " (rowsort)" : "") + "\n" + query_text +
                          "  expected:\n" + RowList(step.expected) + "  actual:\n" + RowList(actual));
      return;
    }
    if (step.max_charge && run.charge > *step.max_charge) {
      std::ostringstream message;
      message << "request charge " << run.charge << " exceeds charge<=" << *step.max_charge << "\n" << query_text;
      Fail(step.line, message.str());
    }
    if (step.page_size > 0) CheckPaged(step, actual, query_text);
  }

  // Runs again with max_item_count = page_size: every page fits, and the pages add up to the
  // unpaged result.
  void CheckPaged(const QueryStep& step, const std::vector<std::string>& unpaged, const std::string& query_text) {
    QueryRun run = Execute(step, step.page_size);
    std::string label = "pagesize=" + std::to_string(step.page_size) + ": ";
    if (run.error) {
      Fail(step.line, label + "a page failed with " + std::to_string(HttpStatusOf(run.error->code())) + ": " +
                          run.error->message() + "\n" + query_text);
      return;
    }
    for (size_t page = 0; page < run.page_counts.size(); ++page) {
      if (run.page_counts[page] > static_cast<size_t>(step.page_size)) {
        Fail(step.line, label + "page " + std::to_string(page + 1) + " holds " +
                            std::to_string(run.page_counts[page]) + " rows\n" + query_text);
        return;
      }
    }
    std::vector<std::string> paged = Displayed(run.rows);
    if (Canonical(paged, step.rowsort) != Canonical(unpaged, step.rowsort)) {
      Fail(step.line, label + "the pages differ from the unpaged result (" + std::to_string(run.page_counts.size()) +
                          " pages)\n" + query_text + "  unpaged:\n" + RowList(unpaged) + "  paged:\n" + RowList(paged));
    }
  }

  const TestFile& file_;
  const int physical_partitions_;
  const std::string data_file_;
  std::unique_ptr<Account> account_;
  std::optional<ContainerAddress> container_;
  PartitionKeyDefinition key_definition_;
  FileOutcome outcome_;
};

}  // namespace

std::string CanonicalRow(const std::string& json) {
  nlohmann::json row = nlohmann::json::parse(json);
  StripSystemProperties(row);
  Normalize(row);
  return row.dump();
}

FileOutcome RunTestFile(const TestFile& file) {
  FileOutcome outcome;
  // Each partition count in memory, then the last one again in a data file.
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("cosmolite-sql-logic-" + std::to_string(::getpid()));
  std::vector<std::pair<int, std::string>> runs;
  for (int physical_partitions : file.partitions) runs.emplace_back(physical_partitions, "");
  if (!file.partitions.empty()) runs.emplace_back(file.partitions.back(), (scratch / "data.db").string());
  for (const auto& [physical_partitions, data_file] : runs) {
    if (!data_file.empty()) {
      std::filesystem::remove_all(scratch);
      std::filesystem::create_directories(scratch);
    }
    FileOutcome run = FileRunner(file, physical_partitions, data_file).Run();
    if (!data_file.empty()) std::filesystem::remove_all(scratch);
    outcome.failures.insert(outcome.failures.end(), run.failures.begin(), run.failures.end());
    // A block both runs got wrong is rewritten once, with the rows of the first run.
    for (Rewrite& rewrite : run.rewrites) {
      bool rewritten = std::any_of(outcome.rewrites.begin(), outcome.rewrites.end(),
                                   [&](const Rewrite& earlier) { return earlier.begin == rewrite.begin; });
      if (!rewritten) outcome.rewrites.push_back(std::move(rewrite));
    }
  }
  return outcome;
}

std::string ApplyRewrites(const std::string& text, const std::vector<Rewrite>& rewrites) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  // Later blocks first, so earlier line numbers stay valid.
  std::vector<Rewrite> ordered = rewrites;
  std::sort(ordered.begin(), ordered.end(), [](const Rewrite& a, const Rewrite& b) { return a.begin > b.begin; });
  for (const Rewrite& rewrite : ordered) {
    auto begin = lines.begin() + std::min<size_t>(rewrite.begin - 1, lines.size());
    auto end = lines.begin() + std::min<size_t>(rewrite.end - 1, lines.size());
    begin = lines.erase(begin, end);
    lines.insert(begin, rewrite.rows.begin(), rewrite.rows.end());
  }
  std::string rewritten;
  for (const auto& line : lines) rewritten += line + "\n";
  return rewritten;
}

}  // namespace cosmos_sql_test
