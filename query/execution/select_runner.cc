#include "query/execution/select_runner.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "query/vector_search.h"

namespace cosmos::query {

struct SelectRunner::Sorted {
  std::vector<Value> keys;
  uint64_t sequence;  // input order breaks ties, so equal keys keep storage order
  Value value;
  Json position;      // the source document's position, when origins are tracked
  std::string sort_key;  // and its sort key, when its source is in ORDER BY order
};

struct SelectRunner::Group {
  std::vector<Value> key;
  Row representative;  // the group's first row: grouped expressions are evaluated on it
  std::vector<std::unique_ptr<Accumulator>> accumulators;
};

namespace {

bool KeysLess(const std::vector<Value>& a, const std::vector<Value>& b, const std::vector<bool>& descending) {
  for (size_t i = 0; i < descending.size(); ++i) {
    int c = CompareTotal(a[i], b[i]);
    if (c != 0) return descending[i] ? c > 0 : c < 0;
  }
  return false;
}

Status CountValue(const Expr* e, EvalContext& ctx, const char* clause, std::optional<uint64_t>& out) {
  if (e == nullptr) return Status();
  Row empty;
  Value v = Evaluate(*e, empty, ctx);
  if (!v.is_number() || v.number() < 0 || std::trunc(v.number()) != v.number() || v.number() > 4294967295.0) {
    return Status::BadRequest(std::string("The count value provided for a ") + clause +
                              " clause must be a non-negative integer.");
  }
  out = static_cast<uint64_t>(v.number());
  return Status();
}

}  // namespace

SelectRunner::SelectRunner(const SelectQuery& q, EvalContext& ctx, std::optional<uint64_t> keep_first)
    : q_(q), info_(ctx.query->info(q)), ctx_(ctx), descending_(OrderDescending(q, ctx)), keep_first_(keep_first) {
  streaming_ = q.order_by.empty() && !info_.is_grouped() && !info_.is_aggregate() && !q.distinct;
  rank_ = RankComponentsOf(q);
  for (const OrderByItem& item : q.order_by) drops_unscored_.push_back(DropsUnscoredRows(item));
  fuses_ranks_ = RankScore(q) != nullptr && IsSystemCall(*RankScore(q), "RRF");
}

SelectRunner::~SelectRunner() = default;

Status SelectRunner::Counts(const SelectQuery& q, EvalContext& ctx, std::optional<uint64_t>& top, uint64_t& offset,
                            std::optional<uint64_t>& limit) {
  COSMOS_RETURN_IF_ERROR(CountValue(q.top.get(), ctx, "TOP", top));
  std::optional<uint64_t> off;
  COSMOS_RETURN_IF_ERROR(CountValue(q.offset.get(), ctx, "OFFSET", off));
  offset = off.value_or(0);
  return CountValue(q.limit.get(), ctx, "LIMIT", limit);
}

Status SelectRunner::Consume(Row& input, std::vector<Value>* streamed) {
  input.resize(static_cast<size_t>(info_.slot_count));
  return Expand(0, input, streamed);
}

Status SelectRunner::ConsumeFirstSource(const Value& value, std::vector<Value>* streamed) {
  Row row(static_cast<size_t>(info_.slot_count));
  size_t slot = static_cast<size_t>(info_.first_slot);
  if (!q_.from[0].iterate) {
    row[slot] = value;
    return Expand(1, row, streamed);
  }
  if (!value.is_array()) return Status();
  for (size_t i = 0; i < value.size(); ++i) {
    row[slot] = value.At(i);
    COSMOS_RETURN_IF_ERROR(Expand(1, row, streamed));
  }
  return Status();
}

Status SelectRunner::Expand(size_t source_index, Row& row, std::vector<Value>* streamed) {
  COSMOS_RETURN_IF_ERROR(ctx_.cancellation.Check());
  if (source_index == q_.from.size()) return Accept(row, streamed);
  const FromSource& source = q_.from[source_index];
  size_t slot = static_cast<size_t>(info_.first_slot) + source_index;
  if (source.collection->kind == ExprKind::kScalarSubquery) {
    std::vector<Value> results;
    COSMOS_RETURN_IF_ERROR(RunSubquery(*source.collection->subquery, row, ctx_, results));
    for (auto& v : results) {
      if (source.iterate) {
        if (!v.is_array()) continue;
        for (size_t i = 0; i < v.size(); ++i) {
          row[slot] = v.At(i);
          COSMOS_RETURN_IF_ERROR(Expand(source_index + 1, row, streamed));
        }
      } else {
        row[slot] = v;
        COSMOS_RETURN_IF_ERROR(Expand(source_index + 1, row, streamed));
      }
    }
    return Status();
  }
  Value collection = Evaluate(*source.collection, row, ctx_);
  if (source.iterate) {
    if (!collection.is_array()) return Status();
    for (size_t i = 0; i < collection.size(); ++i) {
      row[slot] = collection.At(i);
      COSMOS_RETURN_IF_ERROR(Expand(source_index + 1, row, streamed));
    }
    return Status();
  }
  if (collection.is_undefined()) return Status();
  row[slot] = std::move(collection);
  return Expand(source_index + 1, row, streamed);
}

Status SelectRunner::Accept(Row& row, std::vector<Value>* streamed) {
  if (q_.where && !where_satisfied_ && !IsTrue(Evaluate(*q_.where, row, ctx_))) return ctx_.functions.error;

  if (info_.is_grouped() || info_.is_aggregate()) {
    std::vector<Value> key;
    key.reserve(q_.group_by.size());
    size_t hash = 0;
    for (const auto& g : q_.group_by) {
      key.push_back(Evaluate(*g, row, ctx_));
      hash = hash * 31 + HashValue(key.back());
    }
    Group* group = nullptr;
    auto [first, last] = group_index_.equal_range(hash);
    for (auto it = first; it != last && group == nullptr; ++it) {
      Group& candidate = groups_[it->second];
      bool same = true;
      for (size_t i = 0; i < key.size() && same; ++i) same = SameValue(candidate.key[i], key[i]);
      if (same) group = &candidate;
    }
    if (group == nullptr) {
      group_index_.emplace(hash, groups_.size());
      Group& created = groups_.emplace_back();
      created.key = std::move(key);
      created.representative = row;
      for (const Expr* aggregate : info_.aggregates) created.accumulators.push_back(aggregate->function->make_accumulator());
      group = &created;
    }
    for (size_t i = 0; i < info_.aggregates.size(); ++i) {
      group->accumulators[i]->Add(Evaluate(*info_.aggregates[i]->children[0], row, ctx_));
    }
    return ctx_.functions.error;
  }

  Value projected = Project(row);
  if (!ctx_.functions.error.ok()) return ctx_.functions.error;
  if (projected.is_undefined()) return Status();
  if (streaming_) {
    streamed->push_back(std::move(projected));
    return Status();
  }
  bool tracks = TracksOrigins(q_, info_);
  Json position = ctx_.document_position && tracks ? *ctx_.document_position : Json();
  std::string sort_key = ctx_.document_sort_key && tracks ? *ctx_.document_sort_key : std::string();
  std::vector<Value> keys = SortKeys(row);
  // ORDER BY VectorDistance lists the documents a vector index would: those with a score.
  for (size_t i = 0; i < keys.size() && i < drops_unscored_.size(); ++i) {
    if (keys[i].is_undefined() && drops_unscored_[i]) return Status();
  }
  sorted_.push_back({std::move(keys), sequence_++, std::move(projected), std::move(position), std::move(sort_key)});
  // A fused rank depends on every row: none can be dropped before Finish.
  if (keep_first_ && !q_.distinct && !fuses_ranks_ && sorted_.size() >= 2 * *keep_first_ + 64) Prune();
  return Status();
}

// Keeps only the rows that can still be among the first keep_first_ in the final order.
void SelectRunner::Prune() {
  auto less = [this](const Sorted& a, const Sorted& b) {
    if (KeysLess(a.keys, b.keys, descending_)) return true;
    if (KeysLess(b.keys, a.keys, descending_)) return false;
    return a.sequence < b.sequence;
  };
  size_t keep = static_cast<size_t>(*keep_first_);
  if (sorted_.size() <= keep) return;
  std::nth_element(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(keep), sorted_.end(), less);
  sorted_.resize(keep);
}

std::vector<Value> SelectRunner::SortKeys(const Row& row) {
  // The top-level select over a source that computed the document's keys.
  if (ctx_.document_order_keys != nullptr && &q_ == &ctx_.query->root() &&
      ctx_.document_order_keys->size() == q_.order_by.size()) {
    return *ctx_.document_order_keys;
  }
  std::vector<Value> keys;
  if (!rank_.scores.empty()) {
    for (const Expr* score : rank_.scores) keys.push_back(Evaluate(*score, row, ctx_));
    return keys;
  }
  keys.reserve(q_.order_by.size());
  for (const auto& o : q_.order_by) keys.push_back(Evaluate(*o.expr, row, ctx_));
  return keys;
}

Value SelectRunner::Project(const Row& row) {
  if (q_.select_star) return row[static_cast<size_t>(info_.first_slot)];
  if (q_.select_value) return Evaluate(*q_.items[0].expr, row, ctx_);
  Json object = Json::object();
  for (size_t i = 0; i < q_.items.size(); ++i) {
    Value v = Evaluate(*q_.items[i].expr, row, ctx_);
    if (!v.is_undefined()) object[info_.output_names[i]] = v.ToJson();
  }
  return Value::FromJson(std::move(object));
}

bool SelectRunner::TracksOrigins(const SelectQuery& q, const SelectInfo& info) {
  return !q.order_by.empty() && !info.is_grouped() && !info.is_aggregate() && !q.distinct && !info.container_subquery;
}

Status SelectRunner::Finish(std::vector<Value>& streamed, std::vector<Value>& out, std::vector<RowOrigin>* origins) {
  std::optional<uint64_t> top, limit;
  uint64_t offset = 0;
  COSMOS_RETURN_IF_ERROR(Counts(q_, ctx_, top, offset, limit));
  uint64_t end = UINT64_MAX;
  if (top) end = std::min(end, *top);
  if (limit) end = std::min(end, offset + *limit);
  if (streaming_) {
    for (uint64_t i = offset; i < streamed.size() && i < end; ++i) out.push_back(std::move(streamed[i]));
    return Status();
  }

  if (info_.is_grouped() || info_.is_aggregate()) {
    // An aggregate without GROUP BY always yields one row, even over no input.
    if (groups_.empty() && !info_.is_grouped()) {
      Group& only = groups_.emplace_back();
      only.representative.resize(static_cast<size_t>(info_.slot_count));
      for (const Expr* aggregate : info_.aggregates) only.accumulators.push_back(aggregate->function->make_accumulator());
    }
    for (auto& group : groups_) {
      std::vector<Value> results;
      results.reserve(group.accumulators.size());
      for (const auto& acc : group.accumulators) results.push_back(acc->Finish());
      ctx_.aggregate_results = &results;
      Value projected = Project(group.representative);
      ctx_.aggregate_results = nullptr;
      if (!ctx_.functions.error.ok()) return ctx_.functions.error;
      if (projected.is_undefined()) continue;
      sorted_.push_back({SortKeys(group.representative), sequence_++, std::move(projected), Json(), std::string()});
    }
  }

  if (fuses_ranks_) COSMOS_RETURN_IF_ERROR(FuseRanks());
  if (!q_.order_by.empty()) {
    std::stable_sort(sorted_.begin(), sorted_.end(), [this](const Sorted& a, const Sorted& b) {
      if (KeysLess(a.keys, b.keys, descending_)) return true;
      if (KeysLess(b.keys, a.keys, descending_)) return false;
      return a.sequence < b.sequence;
    });
  }

  uint64_t index = 0;
  struct ValueHash {
    size_t operator()(const Value& v) const { return HashValue(v); }
  };
  struct ValueEq {
    bool operator()(const Value& a, const Value& b) const { return SameValue(a, b); }
  };
  std::unordered_set<Value, ValueHash, ValueEq> seen;
  for (auto& row : sorted_) {
    if (q_.distinct && !seen.insert(row.value).second) continue;
    if (index >= end) break;
    if (index++ < offset) continue;
    out.push_back(std::move(row.value));
    if (origins != nullptr) origins->push_back({std::move(row.keys), std::move(row.position), std::move(row.sort_key)});
  }
  sorted_.clear();
  return Status();
}

// Reciprocal rank fusion, as the SDKs fuse the component queries of a hybrid search plan: each
// component ranks the rows by its score, most relevant first (a negative weight reverses that
// order), equal scores sharing a rank (1, 1, 2, ...), rows without a score after all others;
// a row's fused score is the sum of |weight| / (60 + rank) over the components.
Status SelectRunner::FuseRanks() {
  constexpr double kRankConstant = 60;
  std::vector<double> weights(rank_.scores.size(), 1.0);
  if (rank_.weights != nullptr) {
    Row empty;
    Value written = Evaluate(*rank_.weights, empty, ctx_);
    if (!written.is_array() || written.json().size() != rank_.scores.size() ||
        !std::all_of(written.json().begin(), written.json().end(), [](const Json& w) { return w.is_number(); })) {
      return Status::BadRequest("The weights of RRF must be an array of as many numbers as it has scoring functions.");
    }
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = written.json()[i].get<double>();
  }
  std::vector<double> fused(sorted_.size(), 0.0);
  std::vector<size_t> order(sorted_.size());
  for (size_t component = 0; component < rank_.scores.size(); ++component) {
    const bool descends = ScoreDescends(*rank_.scores[component], ctx_) == (weights[component] >= 0);
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto score = [&](size_t row) -> const Value& { return sorted_[row].keys[component]; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const bool a_scored = score(a).is_number(), b_scored = score(b).is_number();
      if (a_scored != b_scored) return a_scored;
      if (!a_scored) return false;
      return descends ? score(a).number() > score(b).number() : score(a).number() < score(b).number();
    });
    double rank = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      const Value& current = score(order[i]);
      const bool same = i > 0 && current.is_number() == score(order[i - 1]).is_number() &&
                        (!current.is_number() || current.number() == score(order[i - 1]).number());
      if (!same) rank += 1;
      fused[order[i]] += std::abs(weights[component]) / (kRankConstant + rank);
    }
  }
  for (size_t i = 0; i < sorted_.size(); ++i) sorted_[i].keys = {Value::Number(fused[i])};
  return Status();
}

Status RunSubquery(const SelectQuery& q, const Row& outer, EvalContext& ctx, std::vector<Value>& out) {
  SelectRunner runner(q, ctx);
  Row row = outer;
  std::vector<Value> streamed;
  COSMOS_RETURN_IF_ERROR(runner.Consume(row, &streamed));
  return runner.Finish(streamed, out);
}

}  // namespace cosmos::query
