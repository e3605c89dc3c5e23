#include "tests/sql_logic/sql_logic_file.h"

#include <charconv>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

namespace cosmos_sql_test {
namespace {

using cosmos::Result;
using cosmos::Status;

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

bool IsValidJson(const std::string& text) { return nlohmann::json::accept(text); }

// Walks the lines of a file, 1-based.
class LineReader {
 public:
  explicit LineReader(const std::string& text) {
    std::istringstream stream(text);
    std::string line;
    while (std::getline(stream, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines_.push_back(line);
    }
  }
  bool AtEnd() const { return next_ >= lines_.size(); }
  const std::string& Peek() const { return lines_[next_]; }
  std::string Next() { return lines_[next_++]; }
  int LineNumber() const { return static_cast<int>(next_) + 1; }  // of the line Peek() returns

 private:
  std::vector<std::string> lines_;
  size_t next_ = 0;
};

class FileParser {
 public:
  FileParser(const std::string& path, const std::string& text) : path_(path), reader_(text) {}

  Result<TestFile> Parse() {
    TestFile file;
    file.path = path_;
    while (!reader_.AtEnd()) {
      int line_number = reader_.LineNumber();
      std::string line = Trim(reader_.Next());
      if (line.empty()) continue;
      if (line[0] == '#') {
        if (StartsWith(line, "# partitions:")) {
          auto partitions = ParsePartitions(line.substr(13), line_number);
          if (!partitions.ok()) return partitions.status();
          file.partitions = std::move(partitions).value();
        }
        continue;
      }
      std::vector<std::string> words = SplitOptions(line);
      const std::string& directive = words[0];
      Status status;
      if (directive == "container") {
        status = ParseContainer(words, line_number, file);
      } else if (directive == "insert") {
        status = ParseInsert(words, line_number, file);
      } else if (directive == "query") {
        status = ParseQuery(line, words, line_number, file);
      } else {
        status = Error(line_number, "unknown directive '" + directive + "'");
      }
      if (!status.ok()) return status;
    }
    return file;
  }

 private:
  Status Error(int line, const std::string& message) const {
    return Status::BadRequest(path_ + ":" + std::to_string(line) + ": " + message);
  }

  Result<std::vector<int>> ParsePartitions(const std::string& list, int line) {
    std::vector<int> counts;
    for (const std::string& word : SplitOptions(Trim(list))) {
      int count = 0;
      auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), count);
      if (error != std::errc() || end != word.data() + word.size() || count < 1) {
        return Error(line, "partition counts are positive integers, got '" + word + "'");
      }
      counts.push_back(count);
    }
    if (counts.empty()) return Error(line, "'# partitions:' needs at least one count");
    return counts;
  }

  // Reads documents, one JSON object a line, until a blank line or the end of the file.
  Status ReadDocuments(std::vector<DocumentLine>& documents) {
    while (!reader_.AtEnd()) {
      int line_number = reader_.LineNumber();
      std::string line = Trim(reader_.Next());
      if (line.empty()) break;
      if (line[0] == '#') continue;
      auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_object()) return Error(line_number, "a document must be one JSON object on one line");
      documents.push_back({line_number, line});
    }
    return Status();
  }

  Status ExpectSeparator(const char* after) {
    if (reader_.AtEnd() || Trim(reader_.Peek()) != "----") {
      return Error(reader_.LineNumber(), std::string("expected '----' after ") + after);
    }
    reader_.Next();
    return Status();
  }

  Status ParseContainer(const std::vector<std::string>& words, int line, TestFile& file) {
    ContainerStep step;
    step.line = line;
    size_t next = 2;
    if (words.size() >= 3 && words[2] == "multihash") {
      step.multihash = true;
      next = 3;
    }
    if (words.size() <= next) return Error(line, "usage: container <id> /path | container <id> multihash /a /b");
    step.id = words[1];
    bool options = false;  // indexing= and properties= come after the paths
    for (size_t i = next; i < words.size(); ++i) {
      if (words[i].rfind("indexing=", 0) == 0) {
        step.indexing_policy = words[i].substr(9);
        options = true;
        continue;
      }
      if (words[i].rfind("properties=", 0) == 0) {
        step.properties = words[i].substr(11);
        options = true;
        continue;
      }
      if (options) return Error(line, "indexing=<json> and properties=<json> come last");
      if (words[i].empty() || words[i][0] != '/') return Error(line, "a partition key path starts with '/'");
      step.paths.push_back(words[i]);
    }
    if (!step.multihash && step.paths.size() != 1) return Error(line, "use 'multihash' for several paths");
    COSMOS_RETURN_IF_ERROR(ExpectSeparator("container"));
    COSMOS_RETURN_IF_ERROR(ReadDocuments(step.documents));
    file.steps.push_back(std::move(step));
    return Status();
  }

  Status ParseInsert(const std::vector<std::string>& words, int line, TestFile& file) {
    if (words.size() != 1) return Error(line, "'insert' takes no options");
    InsertStep step;
    step.line = line;
    COSMOS_RETURN_IF_ERROR(ReadDocuments(step.documents));
    file.steps.push_back(std::move(step));
    return Status();
  }

  Status ParseQueryOption(const std::string& word, int line, QueryStep& step) {
    if (word == "rowsort") {
      step.rowsort = true;
    } else if (StartsWith(word, "param=")) {
      size_t colon = word.find(':');
      if (colon == std::string::npos || word.size() < 8 || word[6] != '@') {
        return Error(line, "usage: param=@name:<json>");
      }
      QueryParameter parameter{word.substr(6, colon - 6), word.substr(colon + 1)};
      if (!IsValidJson(parameter.json)) return Error(line, "parameter " + parameter.name + " is not JSON");
      step.parameters.push_back(std::move(parameter));
    } else if (StartsWith(word, "pk=")) {
      step.partition_key = word.substr(3);
      if (!IsValidJson(*step.partition_key)) return Error(line, "pk= takes a JSON value");
    } else if (StartsWith(word, "pagesize=")) {
      std::string number = word.substr(9);
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), step.page_size);
      if (error != std::errc() || end != number.data() + number.size() || step.page_size < 1) {
        return Error(line, "pagesize= takes a positive integer");
      }
    } else if (StartsWith(word, "charge<=")) {
      std::string number = word.substr(8);
      char* end = nullptr;
      double charge = std::strtod(number.c_str(), &end);
      if (number.empty() || *end != '\0') return Error(line, "charge<= takes a number");
      step.max_charge = charge;
    } else {
      return Error(line, "unknown query option '" + word + "'");
    }
    return Status();
  }

  // `header` is the directive line itself: an error pattern may hold spaces.
  Status ParseQuery(const std::string& header, const std::vector<std::string>& words, int line,
                    TestFile& file) {
    QueryStep step;
    step.line = line;
    size_t next = 1;
    if (words.size() >= 2 && words[1] == "error") {
      step.expect_error = true;
      if (words.size() < 3) return Error(line, "usage: query error <status> [/regex/]");
      step.error_status = std::atoi(words[2].c_str());
      if (step.error_status < 400 || step.error_status > 599) return Error(line, "an error status is 4xx or 5xx");
      // The pattern is everything between the first '/' after the status and the last '/'.
      size_t status_at = header.find(words[2], header.find("error") + 5);
      std::string rest = Trim(header.substr(status_at + words[2].size()));
      if (!rest.empty()) {
        if (rest.size() < 2 || rest.front() != '/' || rest.back() != '/') {
          return Error(line, "the error pattern is written /regex/");
        }
        step.error_pattern = rest.substr(1, rest.size() - 2);
      }
      next = words.size();
    }
    for (size_t i = next; i < words.size(); ++i) COSMOS_RETURN_IF_ERROR(ParseQueryOption(words[i], line, step));

    // The query text: until '----', or for an error until a blank line or the end.
    std::string sql;
    bool separated = false;
    while (!reader_.AtEnd()) {
      std::string text = reader_.Peek();
      if (Trim(text) == "----") {
        reader_.Next();
        separated = true;
        break;
      }
      if (Trim(text).empty()) break;
      reader_.Next();
      if (!sql.empty()) sql += '\n';
      sql += text;
    }
    if (sql.empty()) return Error(line, "the query text is missing");
    step.sql = sql;
    if (step.expect_error) {
      if (separated) return Error(line, "an error query has no '----' block");
    } else {
      if (!separated) return Error(reader_.LineNumber(), "expected '----' after the query text");
      step.expected_begin = reader_.LineNumber();
      while (!reader_.AtEnd() && !Trim(reader_.Peek()).empty()) {
        int row_line = reader_.LineNumber();
        std::string row = Trim(reader_.Next());
        if (!IsValidJson(row)) return Error(row_line, "an expected row must be one JSON value");
        step.expected.push_back(row);
      }
      step.expected_end = reader_.LineNumber();
    }
    file.steps.push_back(std::move(step));
    return Status();
  }

  std::string path_;
  LineReader reader_;
};

}  // namespace

std::vector<std::string> SplitOptions(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      word += c;
      if (c == '\\' && i + 1 < text.size()) {
        word += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if ((c == ' ' || c == '\t') && depth == 0) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    word += c;
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

cosmos::Result<TestFile> ParseTestFile(const std::string& path, const std::string& text) {
  return FileParser(path, text).Parse();
}

}  // namespace cosmos_sql_test
