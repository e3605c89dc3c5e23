#include "tests/sql_logic/client_pipeline.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "query/value.h"
#include "tests/sql_logic/hybrid_pipeline.h"

namespace cosmos_sql_test {
namespace {

using cosmos::Json;
using cosmos::Result;
using cosmos::Status;
using cosmos::engine::Account;
using cosmos::engine::QueryRequest;
using cosmos::query::Value;

// The placeholder of an ORDER BY rewrite; the SDK puts `true` there on a fresh query.
constexpr std::string_view kOrderByFilterPlaceholder = "{documentdb-formattableorderbyquery-filter}";
// The page size the SDK asks the ranges for when the caller sets none (QueryExecution.DEFAULT_PAGE_SIZE).
constexpr int64_t kSdkDefaultPageSize = 10;
// A range that keeps answering continuations past this many pages is a bug, not a big result.
constexpr int kMaxPagesPerRange = 10000;

Status PipelineError(const std::string& message) { return Status::Internal("client pipeline: " + message); }

// A JSON member as a Value: undefined when the object lacks it.
Value MemberOf(const Json& object, const char* name) {
  if (!object.is_object()) return Value();
  auto found = object.find(name);
  return found == object.end() ? Value() : Value::FromJson(*found);
}

// ---- The ranges ---------------------------------------------------------------------------------

// True when the plan's query range {min, max, isMinInclusive, isMaxInclusive} overlaps the
// partition key range [min_inclusive, max_exclusive). Effective partition keys compare ordinally.
bool Overlaps(const Json& query_range, const std::string& min_inclusive, const std::string& max_exclusive) {
  std::string min = query_range.value("min", "");
  std::string max = query_range.value("max", "");
  bool min_inclusive_end = query_range.value("isMinInclusive", true);
  bool max_inclusive_end = query_range.value("isMaxInclusive", false);
  bool empty = min > max || (min == max && !(min_inclusive_end && max_inclusive_end));
  if (empty) return false;
  bool starts_before_end = min < max_exclusive;
  bool ends_after_start = max_inclusive_end ? max >= min_inclusive : max > min_inclusive;
  return starts_before_end && ends_after_start;
}

// One partition key range of the query, read page by page through its own continuation (the
// SDK's DocumentProducer). Rows wait in buffer() until a stage takes them.
class RangeReader {
 public:
  RangeReader(std::string id, QueryRequest request) : id_(std::move(id)), request_(std::move(request)) {
    request_.partition_key_range_id = id_;
  }

  const std::string& id() const { return id_; }
  // No page left to fetch (rows may still wait in the buffer).
  bool exhausted() const { return exhausted_; }
  std::deque<Json>& buffer() { return buffer_; }

  // Fetches the next page into buffer(), counting it in `page_counts` and `charge`.
  // REQUIRES: !exhausted().
  Status FetchPage(Account& account, std::vector<size_t>& page_counts, double& charge) {
    if (++pages_ > kMaxPagesPerRange) {
      return PipelineError("range " + id_ + " keeps answering continuations (over " +
                           std::to_string(kMaxPagesPerRange) + " pages)");
    }
    auto response = account.QueryItems(request_);
    if (!response.ok()) return response.status();
    charge += response->request_charge;
    Json documents = Json::parse(response->body).at("Documents");
    page_counts.push_back(documents.size());
    for (auto& row : documents) buffer_.push_back(std::move(row));
    if (response->continuation && !response->continuation->empty()) {
      request_.continuation = *response->continuation;
    } else {
      exhausted_ = true;
    }
    return Status();
  }

 private:
  std::string id_;
  QueryRequest request_;
  std::deque<Json> buffer_;
  bool exhausted_ = false;
  int pages_ = 0;
};

// The ranges a query reaches, in effective-key order, and the tally of their pages.
class Fanout {
 public:
  explicit Fanout(Account& account) : account_(account) {}

  void Add(RangeReader reader) { readers_.push_back(std::move(reader)); }
  size_t size() const { return readers_.size(); }
  RangeReader& reader(size_t index) { return readers_[index]; }
  Status Fetch(size_t index) { return readers_[index].FetchPage(account_, page_counts_, charge_); }

  std::vector<size_t> TakePageCounts() { return std::move(page_counts_); }
  double charge() const { return charge_; }

 private:
  Account& account_;
  std::vector<RangeReader> readers_;
  std::vector<size_t> page_counts_;
  double charge_ = 0;
};

// ---- Stages -------------------------------------------------------------------------------------

using MaybeRow = std::optional<Json>;

// One stage of the pipeline: yields rows one at a time, pulling from the stage below only as
// far as it needs, so that TOP and LIMIT stop the requests as the SDK does.
class Stage {
 public:
  virtual ~Stage() = default;
  // The next row; nullopt at the end.
  virtual Result<MaybeRow> Next() = 0;
};

// Rows of the ranges as they come (ParallelQueryExecutionContext): each round fetches one page
// of every range that has pages left, then hands out the rows range by range.
class ParallelStage : public Stage {
 public:
  explicit ParallelStage(Fanout& fanout) : fanout_(fanout) {}

  Result<MaybeRow> Next() override {
    for (;;) {
      for (size_t index = 0; index < fanout_.size(); ++index) {
        std::deque<Json>& buffer = fanout_.reader(index).buffer();
        if (!buffer.empty()) {
          Json row = std::move(buffer.front());
          buffer.pop_front();
          return MaybeRow(std::move(row));
        }
      }
      bool fetched = false;
      for (size_t index = 0; index < fanout_.size(); ++index) {
        if (fanout_.reader(index).exhausted()) continue;
        COSMOS_RETURN_IF_ERROR(fanout_.Fetch(index));
        fetched = true;
      }
      if (!fetched) return MaybeRow();
    }
  }

 private:
  Fanout& fanout_;
};

// ORDER BY (OrderByQueryExecutionContext + OrderByEndpointComponent): a k-way merge of the
// ranges, each already sorted, by their rows' orderByItems; equal keys keep range order. Yields
// each row's payload, or the whole row (`emit_raw`, what a hybrid search component hands on).
class OrderByStage : public Stage {
 public:
  OrderByStage(Fanout& fanout, std::vector<bool> descending, bool emit_raw = false)
      : fanout_(fanout), descending_(std::move(descending)), emit_raw_(emit_raw) {}

  Result<MaybeRow> Next() override {
    for (;;) {
      // A range whose rows ran out fetches its next page before the heads are compared.
      std::optional<size_t> best;
      for (size_t index = 0; index < fanout_.size(); ++index) {
        RangeReader& reader = fanout_.reader(index);
        while (reader.buffer().empty() && !reader.exhausted()) {
          COSMOS_RETURN_IF_ERROR(fanout_.Fetch(index));
          COSMOS_RETURN_IF_ERROR(CheckRows(reader));
        }
        if (reader.buffer().empty()) continue;
        if (!best || Compare(reader.buffer().front(), fanout_.reader(*best).buffer().front()) < 0) best = index;
      }
      if (!best) return MaybeRow();
      std::deque<Json>& buffer = fanout_.reader(*best).buffer();
      Json row = std::move(buffer.front());
      buffer.pop_front();
      if (emit_raw_) return MaybeRow(std::move(row));
      // An undefined payload is no row (the service never returns undefined).
      if (auto payload = row.find("payload"); payload != row.end()) return MaybeRow(std::move(*payload));
    }
  }

 private:
  Status CheckRows(RangeReader& reader) const {
    for (const Json& row : reader.buffer()) {
      if (!row.is_object() || !row.contains("orderByItems") || !row["orderByItems"].is_array() ||
          row["orderByItems"].size() != descending_.size()) {
        return PipelineError("range " + reader.id() + " returned an ORDER BY row without " +
                             std::to_string(descending_.size()) + " orderByItems: " + row.dump());
      }
    }
    return Status();
  }

  // Compares two rows by their orderByItems ([{"item": v}, ...]; a missing item is undefined).
  int Compare(const Json& a, const Json& b) const {
    for (size_t index = 0; index < descending_.size(); ++index) {
      int order = cosmos::query::CompareTotal(MemberOf(a["orderByItems"][index], "item"),
                                              MemberOf(b["orderByItems"][index], "item"));
      if (order != 0) return descending_[index] ? -order : order;
    }
    return 0;
  }

  Fanout& fanout_;
  std::vector<bool> descending_;
  bool emit_raw_;
};

// How one aggregate's partial results from the ranges combine (Aggregators/*.ts).
enum class AggregateKind { kValue, kCount, kSum, kAverage, kMin, kMax, kMakeList, kMakeSet };

Result<AggregateKind> AggregateKindOf(const Json& name) {
  if (name.is_null()) return AggregateKind::kValue;  // not an aggregate: a grouping key's value
  if (name == "Count" || name == "CountIf") return AggregateKind::kCount;
  if (name == "Sum") return AggregateKind::kSum;
  if (name == "Average") return AggregateKind::kAverage;
  if (name == "Min") return AggregateKind::kMin;
  if (name == "Max") return AggregateKind::kMax;
  if (name == "MakeList") return AggregateKind::kMakeList;
  if (name == "MakeSet") return AggregateKind::kMakeSet;
  return PipelineError("unknown aggregate in the query plan: " + name.dump());
}

// What a range returned for one aggregate (emptyGroup.ts extractAggregateResult): the `item2` of
// {"item": …, "item2": …} when present, else its `item`; an empty object means undefined.
Result<Value> PartialOf(const Json& entry) {
  if (!entry.is_object()) return PipelineError("an aggregate's partial result is not an object: " + entry.dump());
  if (entry.contains("item2")) return Value::FromJson(entry["item2"]);
  return MemberOf(entry, "item");
}

// One aggregate of one group, combined over the partial results of the ranges.
class GroupAggregate {
 public:
  explicit GroupAggregate(AggregateKind kind) : kind_(kind) {}

  // Adds a range's partial result (for kValue, the value itself). kInternal for a partial of
  // the wrong shape.
  Status Add(const Value& partial) {
    switch (kind_) {
      case AggregateKind::kValue:
        if (value_.is_undefined()) value_ = partial;  // every range has the same grouping key
        return Status();
      case AggregateKind::kCount:
        if (!partial.is_number()) return Malformed(partial);
        number_ += partial.number();
        return Status();
      case AggregateKind::kSum:
        if (partial.is_undefined()) {
          undefined_ = true;
        } else if (partial.is_number()) {
          number_ += partial.number();
        } else {
          return Malformed(partial);
        }
        return Status();
      case AggregateKind::kAverage: {
        Value sum = partial.Property("sum");
        Value count = partial.Property("count");
        if (!count.is_number()) return Malformed(partial);
        if (sum.is_undefined()) {
          if (count.number() > 0) undefined_ = true;  // SUM over a non-number
        } else if (sum.is_number()) {
          number_ += sum.number();
          count_ += count.number();
        } else {
          return Malformed(partial);
        }
        return Status();
      }
      case AggregateKind::kMin:
      case AggregateKind::kMax:
        return AddExtreme(partial);
      case AggregateKind::kMakeList:
      case AggregateKind::kMakeSet:
        if (partial.is_undefined()) return Status();
        if (!partial.is_array()) return Malformed(partial);
        for (size_t index = 0; index < partial.size(); ++index) {
          Value element = partial.At(index);
          bool repeat = kind_ == AggregateKind::kMakeSet &&
                        std::any_of(list_.begin(), list_.end(),
                                    [&](const Value& seen) { return cosmos::query::SameValue(seen, element); });
          if (!repeat) list_.push_back(element);
        }
        return Status();
    }
    return Status();
  }

  // The combined value; undefined leaves the property (or the VALUE row) out.
  Value Finish() const {
    if (undefined_) return Value();
    switch (kind_) {
      case AggregateKind::kValue:
      case AggregateKind::kMin:
      case AggregateKind::kMax:
        return value_;
      case AggregateKind::kCount:
      case AggregateKind::kSum:
        return Value::Number(number_);
      case AggregateKind::kAverage:
        return count_ > 0 ? Value::Number(number_ / count_) : Value();
      case AggregateKind::kMakeList:
      case AggregateKind::kMakeSet: {
        Json array = Json::array();
        for (const Value& element : list_) array.push_back(element.ToJson());
        return Value::FromJson(std::move(array));
      }
    }
    return Value();
  }

 private:
  // MIN and MAX partials are {"min": v, "count": n} (or a bare value from an `item`): no `min`
  // with a count of 0 is an empty range; with a count above 0, a MIN that was undefined there.
  Status AddExtreme(const Value& partial) {
    const char* key = kind_ == AggregateKind::kMin ? "min" : "max";
    Value candidate = partial;
    if (partial.is_object()) {
      candidate = partial.Property(key);
      Value count = partial.Property("count");
      if (!count.is_number()) return Malformed(partial);
      if (candidate.is_undefined()) {
        if (count.number() > 0) undefined_ = true;
        return Status();
      }
    }
    if (candidate.is_undefined()) return Status();
    int order = value_.is_undefined() ? 0 : cosmos::query::CompareTotal(candidate, value_);
    if (value_.is_undefined() || (kind_ == AggregateKind::kMin ? order < 0 : order > 0)) value_ = candidate;
    return Status();
  }

  Status Malformed(const Value& partial) const {
    return PipelineError("a range returned a partial result the SDK cannot combine: " + partial.ToString());
  }

  AggregateKind kind_;
  bool undefined_ = false;
  double number_ = 0;  // COUNT, SUM; AVG's sum
  double count_ = 0;   // AVG's count
  Value value_;        // a grouping key's value; MIN, MAX
  std::vector<Value> list_;  // MAKELIST, MAKESET
};

// The groups of GROUP BY and aggregates, in the order they were first seen. Queries without
// GROUP BY have one group.
template <typename Group>
class Groups {
 public:
  // A new group starts as a copy of `empty`.
  explicit Groups(Group empty) : empty_(std::move(empty)) {}

  // The group of `key` (the row's groupByItems; undefined without GROUP BY), created if new.
  Group& Find(const Value& key) {
    for (auto& [group_key, group] : groups_) {
      if (cosmos::query::SameValue(group_key, key)) return group;
    }
    return groups_.emplace_back(key, empty_).second;
  }
  std::vector<std::pair<Value, Group>>& all() { return groups_; }

 private:
  Group empty_;
  std::vector<std::pair<Value, Group>> groups_;
};

// Drains the stage below and yields the rows `Finish` builds from all of them.
class DrainingStage : public Stage {
 public:
  explicit DrainingStage(std::unique_ptr<Stage> input) : input_(std::move(input)) {}

  Result<MaybeRow> Next() override {
    if (!finished_) {
      for (;;) {
        COSMOS_ASSIGN_OR_RETURN(MaybeRow row, input_->Next());
        if (!row) break;
        COSMOS_RETURN_IF_ERROR(Add(*row));
      }
      output_ = Finish();
      finished_ = true;
    }
    if (output_.empty()) return MaybeRow();
    Json row = std::move(output_.front());
    output_.pop_front();
    return MaybeRow(std::move(row));
  }

 protected:
  virtual Status Add(const Json& row) = 0;
  virtual std::deque<Json> Finish() = 0;

  // The groupByItems of a GROUP BY row (undefined without GROUP BY) and its payload.
  static std::pair<Value, Value> Split(const Json& row, bool payload_is_row) {
    if (row.is_object() && row.contains("groupByItems")) {
      return {Value::FromJson(row["groupByItems"]), MemberOf(row, "payload")};
    }
    return {Value(), payload_is_row ? Value::FromJson(row) : MemberOf(row, "payload")};
  }

 private:
  std::unique_ptr<Stage> input_;
  bool finished_ = false;
  std::deque<Json> output_;
};

// SELECT VALUE with aggregates or GROUP BY (GroupByValueEndpointComponent): a row is
// [partial] (or {"groupByItems", "payload": [partial]}); without an aggregate, the payload is the
// grouping value itself. Yields one value per group, undefined ones left out.
class GroupByValueStage : public DrainingStage {
 public:
  GroupByValueStage(std::unique_ptr<Stage> input, AggregateKind kind)
      : DrainingStage(std::move(input)), kind_(kind), groups_(GroupAggregate(kind)) {}

 protected:
  Status Add(const Json& row) override {
    auto [key, payload] = Split(row, /*payload_is_row=*/true);
    GroupAggregate& group = groups_.Find(key);
    if (kind_ == AggregateKind::kValue) return group.Add(payload);
    if (!payload.is_array() || payload.size() == 0) {
      return PipelineError("an aggregate row is not [partial]: " + row.dump());
    }
    COSMOS_ASSIGN_OR_RETURN(Value partial, PartialOf(payload.At(0).json()));
    return group.Add(partial);
  }

  std::deque<Json> Finish() override {
    std::deque<Json> rows;
    for (auto& [key, group] : groups_.all()) {
      Value value = group.Finish();
      if (!value.is_undefined()) rows.push_back(value.ToJson());
    }
    return rows;
  }

 private:
  AggregateKind kind_;
  Groups<GroupAggregate> groups_;
};

// GROUP BY and aggregates without VALUE (GroupByEndpointComponent): a row is
// {"groupByItems": [...], "payload": {alias: {"item": partial} or the grouping value}}, the kind
// of each alias from groupByAliasToAggregateType. Yields one object per group.
class GroupByStage : public DrainingStage {
 public:
  GroupByStage(std::unique_ptr<Stage> input, Json alias_kinds)
      : DrainingStage(std::move(input)), alias_kinds_(std::move(alias_kinds)), groups_(Fields()) {}

 protected:
  using Fields = std::vector<std::pair<std::string, GroupAggregate>>;

  Status Add(const Json& row) override {
    auto [key, payload] = Split(row, /*payload_is_row=*/false);
    if (!payload.is_object()) return PipelineError("a GROUP BY row has no payload object: " + row.dump());
    Fields& fields = groups_.Find(key);
    for (auto member = payload.json().begin(); member != payload.json().end(); ++member) {
      auto field = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == member.key(); });
      if (field == fields.end()) {
        COSMOS_ASSIGN_OR_RETURN(AggregateKind kind, AggregateKindOf(alias_kinds_.value(member.key(), Json())));
        fields.emplace_back(member.key(), GroupAggregate(kind));
        field = std::prev(fields.end());
      }
      bool is_aggregate = !alias_kinds_.value(member.key(), Json()).is_null();
      if (is_aggregate) {
        COSMOS_ASSIGN_OR_RETURN(Value partial, PartialOf(member.value()));
        COSMOS_RETURN_IF_ERROR(field->second.Add(partial));
      } else {
        COSMOS_RETURN_IF_ERROR(field->second.Add(Value::FromJson(member.value())));
      }
    }
    return Status();
  }

  std::deque<Json> Finish() override {
    std::deque<Json> rows;
    for (auto& [key, fields] : groups_.all()) {
      Json object = Json::object();
      for (const auto& [alias, aggregate] : fields) {
        Value value = aggregate.Finish();
        if (!value.is_undefined()) object[alias] = value.ToJson();
      }
      rows.push_back(std::move(object));
    }
    return rows;
  }

 private:
  Json alias_kinds_;
  Groups<Fields> groups_;
};

// DISTINCT (OrderedDistinctEndpointComponent, UnorderedDistinctEndpointComponent): rows equal by
// value to one already yielded are dropped. Ordered input only needs the last one.
class DistinctStage : public Stage {
 public:
  DistinctStage(std::unique_ptr<Stage> input, bool ordered) : input_(std::move(input)), ordered_(ordered) {}

  Result<MaybeRow> Next() override {
    for (;;) {
      COSMOS_ASSIGN_OR_RETURN(MaybeRow row, input_->Next());
      if (!row) return MaybeRow();
      Value value = Value::FromJson(*row);
      bool seen = std::any_of(seen_.begin(), seen_.end(),
                              [&](const Value& other) { return cosmos::query::SameValue(other, value); });
      if (seen) continue;
      if (ordered_) seen_.clear();
      seen_.push_back(std::move(value));
      return row;
    }
  }

 private:
  std::unique_ptr<Stage> input_;
  bool ordered_;
  std::vector<Value> seen_;
};

// COUNT over a DISTINCT subquery (dCountInfo): the ranges run the DISTINCT query, and the count of
// the distinct rows is the result, as a VALUE or as {dCountAlias: n}. The JS SDK does not declare
// the DCount feature; this follows the .NET SDK (DCountQueryPipelineStage), last in its pipeline.
class DistinctCountStage : public DrainingStage {
 public:
  DistinctCountStage(std::unique_ptr<Stage> input, std::string alias)
      : DrainingStage(std::move(input)), alias_(std::move(alias)) {}

 protected:
  Status Add(const Json&) override {
    ++count_;
    return Status();
  }

  std::deque<Json> Finish() override {
    Json count = count_;
    if (alias_.empty()) return {count};
    return {Json{{alias_, count}}};
  }

 private:
  std::string alias_;
  int64_t count_ = 0;
};

// TOP n (as OFFSET 0 LIMIT n) and OFFSET/LIMIT (OffsetLimitEndpointComponent). Stops pulling once
// the limit is reached, so no further pages are requested.
class OffsetLimitStage : public Stage {
 public:
  OffsetLimitStage(std::unique_ptr<Stage> input, int64_t offset, int64_t limit)
      : input_(std::move(input)), offset_(offset), limit_(limit) {}

  Result<MaybeRow> Next() override {
    for (; offset_ > 0; --offset_) {
      COSMOS_ASSIGN_OR_RETURN(MaybeRow skipped, input_->Next());
      if (!skipped) return MaybeRow();
    }
    if (limit_ <= 0) return MaybeRow();
    --limit_;
    return input_->Next();
  }

 private:
  std::unique_ptr<Stage> input_;
  int64_t offset_;
  int64_t limit_;
};

// ---- The pipeline -------------------------------------------------------------------------------

// The query each range runs: the plan's rewrittenQuery (its ORDER BY placeholder made `true`),
// or the original query when it is "", with the request's parameters.
Result<std::string> RangeQueryBody(std::string_view request_body, const Json& query_info) {
  Json body = Json::parse(std::string(request_body), nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return PipelineError("the request body is not a JSON object");
  std::string rewritten = query_info.value("rewrittenQuery", "");
  if (!rewritten.empty()) {
    if (size_t at = rewritten.find(kOrderByFilterPlaceholder); at != std::string::npos) {
      rewritten.replace(at, kOrderByFilterPlaceholder.size(), "true");
    }
    body["query"] = rewritten;
  }
  return body.dump();
}

// The ranges the plan's queryRanges overlap, in effective-key order, each with its own copy of
// the per-range request.
Status AddTargetRanges(Account& account, const QueryRequest& range_request, const Json& query_ranges,
                       Fanout& fanout) {
  auto feed = account.ReadPartitionKeyRanges(range_request.container, std::nullopt, /*incremental=*/false);
  if (!feed.ok()) return feed.status();
  Json ranges = Json::parse(feed->body).at("PartitionKeyRanges");
  std::sort(ranges.begin(), ranges.end(), [](const Json& a, const Json& b) {
    return a["minInclusive"].get<std::string>() < b["minInclusive"].get<std::string>();
  });
  for (const Json& range : ranges) {
    std::string min = range["minInclusive"].get<std::string>();
    std::string max = range["maxExclusive"].get<std::string>();
    bool targeted = std::any_of(query_ranges.begin(), query_ranges.end(),
                                [&](const Json& query_range) { return Overlaps(query_range, min, max); });
    if (targeted) fanout.Add(RangeReader(range["id"].get<std::string>(), range_request));
  }
  return Status();
}

// A queryInfo list or map that is present and not empty.
bool NonEmpty(const Json& query_info, const char* name) {
  auto found = query_info.find(name);
  return found != query_info.end() && !found->is_null() && !found->empty();
}

// A queryInfo flag that is present and true.
bool IsSet(const Json& query_info, const char* name) { return query_info.value(name, Json()) == true; }

// The stages the SDK stacks for the plan (PipelinedQueryExecutionContext.createStreamingEndpoint).
Result<std::unique_ptr<Stage>> BuildStages(const Json& query_info, Fanout& fanout) {
  std::unique_ptr<Stage> stage;
  Json order_by = query_info.value("orderBy", Json::array());
  if (order_by.is_array() && !order_by.empty()) {
    std::vector<bool> descending;
    for (const Json& direction : order_by) descending.push_back(direction == "Descending");
    stage = std::make_unique<OrderByStage>(fanout, std::move(descending));
  } else {
    stage = std::make_unique<ParallelStage>(fanout);
  }

  bool group_by = NonEmpty(query_info, "groupByAliasToAggregateType") || NonEmpty(query_info, "aggregates") ||
                  NonEmpty(query_info, "groupByExpressions");
  if (group_by && IsSet(query_info, "hasSelectValue")) {
    Json aggregates = query_info.value("aggregates", Json::array());
    COSMOS_ASSIGN_OR_RETURN(AggregateKind kind, AggregateKindOf(aggregates.empty() ? Json() : aggregates[0]));
    stage = std::make_unique<GroupByValueStage>(std::move(stage), kind);
  } else if (group_by) {
    stage = std::make_unique<GroupByStage>(std::move(stage),
                                           query_info.value("groupByAliasToAggregateType", Json::object()));
  }

  std::string distinct = query_info.value("distinctType", "None");
  if (distinct == "Ordered" || distinct == "Unordered") {
    stage = std::make_unique<DistinctStage>(std::move(stage), distinct == "Ordered");
  }

  const Json top = query_info.value("top", Json());
  if (top.is_number()) stage = std::make_unique<OffsetLimitStage>(std::move(stage), 0, top.get<int64_t>());
  const Json offset = query_info.value("offset", Json());
  const Json limit = query_info.value("limit", Json());
  if (offset.is_number() && limit.is_number()) {
    stage = std::make_unique<OffsetLimitStage>(std::move(stage), offset.get<int64_t>(), limit.get<int64_t>());
  }

  if (const Json d_count = query_info.value("dCountInfo", Json()); d_count.is_object()) {
    const Json alias = d_count.value("dCountAlias", Json());
    stage = std::make_unique<DistinctCountStage>(std::move(stage), alias.is_string() ? alias.get<std::string>() : "");
  }
  return stage;
}

// The request the SDK sends a range: the caller's, addressed to a range (set by RangeReader) rather
// than a partition key, from its first page, with the SDK's page size when the caller set none.
QueryRequest RangeRequestOf(const QueryRequest& request) {
  QueryRequest range_request = request;
  range_request.partition_key_header.reset();
  range_request.enable_cross_partition = true;
  range_request.start_epk.reset();
  range_request.end_epk.reset();
  range_request.continuation.reset();
  if (range_request.max_item_count == 0) range_request.max_item_count = kSdkDefaultPageSize;
  return range_request;
}

// ---- Hybrid search (hybrid_pipeline.h) ----------------------------------------------------------

Result<ClientPipelineRun> RunHybridPipeline(Account& account, const QueryRequest& range_request, Json body,
                                            const Json& plan) {
  ClientPipelineRun run;
  // One query on the ranges, rows merged in `order` (raw, as a hybrid component hands them on) or
  // range after range.
  RangeRunner run_ranges = [&](const std::string& query, const Json& query_ranges,
                               std::optional<std::vector<bool>> order, std::vector<Json>& rows) -> Status {
    QueryRequest request = range_request;
    body["query"] = query;
    const std::string text = body.dump();  // the request holds a view of it
    request.body = text;
    Fanout fanout(account);
    COSMOS_RETURN_IF_ERROR(AddTargetRanges(account, request, query_ranges, fanout));
    std::unique_ptr<Stage> stage;
    if (order) {
      stage = std::make_unique<OrderByStage>(fanout, std::move(*order), /*emit_raw=*/true);
    } else {
      stage = std::make_unique<ParallelStage>(fanout);
    }
    for (;;) {
      COSMOS_ASSIGN_OR_RETURN(MaybeRow row, stage->Next());
      if (!row) break;
      rows.push_back(std::move(*row));
    }
    std::vector<size_t> counts = fanout.TakePageCounts();
    run.page_counts.insert(run.page_counts.end(), counts.begin(), counts.end());
    run.charge += fanout.charge();
    return Status();
  };
  COSMOS_ASSIGN_OR_RETURN(run.rows, RunHybridSearch(plan["hybridSearchQueryInfo"], plan["queryRanges"], run_ranges));
  return run;
}

}  // namespace

Result<ClientPipelineRun> RunClientPipeline(Account& account, const QueryRequest& request,
                                            const std::string& plan_text) {
  Json plan = Json::parse(plan_text, nullptr, /*allow_exceptions=*/false);
  const bool hybrid = plan.is_object() && plan.value("hybridSearchQueryInfo", Json()).is_object();
  if (!plan.is_object() || (!hybrid && !plan.value("queryInfo", Json()).is_object()) ||
      !plan.value("queryRanges", Json()).is_array()) {
    return PipelineError("the query plan lacks queryInfo or queryRanges: " + plan_text);
  }
  if (hybrid) {
    Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (!body.is_object()) return PipelineError("the request body is not a JSON object");
    return RunHybridPipeline(account, RangeRequestOf(request), std::move(body), plan);
  }
  const Json& query_info = plan["queryInfo"];
  // A non-streaming ORDER BY (vector search) makes the SDK drain every range into a bounded
  // priority queue (NonStreamingOrderByEndpointComponent) rather than merge pages as they come; as
  // each range returns its rows in order, BuildStages' ORDER BY merge yields the same rows, ties
  // apart.
  // queryIterator.ts createPipelinedExecutionContext
  if (NonEmpty(query_info, "aggregates") && !IsSet(query_info, "hasSelectValue")) {
    return PipelineError("Aggregate queries must use the VALUE keyword (the plan lists aggregates without VALUE)");
  }

  COSMOS_ASSIGN_OR_RETURN(std::string body, RangeQueryBody(request.body, query_info));
  QueryRequest range_request = RangeRequestOf(request);
  range_request.body = body;

  Fanout fanout(account);
  COSMOS_RETURN_IF_ERROR(AddTargetRanges(account, range_request, plan["queryRanges"], fanout));
  COSMOS_ASSIGN_OR_RETURN(std::unique_ptr<Stage> pipeline, BuildStages(query_info, fanout));

  ClientPipelineRun run;
  for (;;) {
    COSMOS_ASSIGN_OR_RETURN(MaybeRow row, pipeline->Next());
    if (!row) break;
    run.rows.push_back(std::move(*row));
  }
  run.page_counts = fanout.TakePageCounts();
  run.charge = fanout.charge();
  return run;
}

}  // namespace cosmos_sql_test
