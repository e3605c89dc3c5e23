// SelectRunner: the pipeline of one SELECT. Input rows enter with the enclosing slots filled
// (the document in slot 0 for the top-level query, the outer row for a subquery); the runner
// expands FROM/JOIN, filters with WHERE, groups and aggregates, sorts, projects, removes
// duplicates and applies TOP/OFFSET/LIMIT.
//
// Streaming selects (no ORDER BY, GROUP BY, aggregate or DISTINCT) hand each projected row to
// the caller at once (`streamed` of Consume); the others collect state and produce their rows
// in Finish.
// Thread-safety: one runner per execution, one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "query/execution/evaluator.h"
#include "query/full_text_search.h"

namespace cosmos::query {

// Where a sorted row came from: its ORDER BY keys and the position of the document that
// produced it. (keys, position) follows the sort order, so a page can resume after a row even on
// a source that holds only part of the original documents (a physical partition after a split).
struct RowOrigin {
  std::vector<Value> keys;
  Json position;
  // The document's sort key as a source in ORDER BY order gave it (empty otherwise): a later
  // page can ask such a source to start there.
  std::string sort_key;
};

class SelectRunner {
 public:
  // `keep_first`: for sorted selects, an upper bound on how many leading rows the caller will
  // ever look at (lets ORDER BY keep a bounded set); nullopt = all.
  SelectRunner(const SelectQuery& q, EvalContext& ctx, std::optional<uint64_t> keep_first = std::nullopt);
  ~SelectRunner();

  bool streaming() const { return streaming_; }
  // Rows a sorted select has collected so far (before TOP/OFFSET/LIMIT and pruning).
  uint64_t rows_collected() const { return sequence_; }

  // Feeds one input row (its enclosing slots filled). Streaming selects append their projected
  // rows to `streamed` (TOP/OFFSET/LIMIT not applied: the caller pages them).
  Status Consume(Row& input, std::vector<Value>* streamed);
  // For the inputs consumed until the next call: whether the source vouches that they satisfy
  // the WHERE clause (an index answered it), which is then not evaluated.
  void SetWhereSatisfied(bool satisfied) { where_satisfied_ = satisfied; }
  // Feeds one row of a container subquery (FROM (SELECT ...) x): `value` binds the first source.
  Status ConsumeFirstSource(const Value& value, std::vector<Value>* streamed);

  // Produces the select's rows, TOP/OFFSET/LIMIT applied: from its collected state, or (for a
  // streaming select) from the rows Consume streamed.
  // `origins`, for an ORDER BY select without grouping or DISTINCT fed with
  // EvalContext::document_position, receives each output row's origin.
  Status Finish(std::vector<Value>& streamed, std::vector<Value>& out, std::vector<RowOrigin>* origins = nullptr);
  // Whether Finish can report row origins for `q` (see above).
  static bool TracksOrigins(const SelectQuery& q, const SelectInfo& info);

  // TOP / OFFSET / LIMIT of this select, evaluated (parameters resolved). Fails with 400 when a
  // parameter is not a non-negative integer.
  static Status Counts(const SelectQuery& q, EvalContext& ctx, std::optional<uint64_t>& top,
                       uint64_t& offset, std::optional<uint64_t>& limit);

 private:
  bool where_satisfied_ = false;
  struct Sorted;
  struct Group;
  Status Expand(size_t source, Row& row, std::vector<Value>* streamed);
  Status Accept(Row& row, std::vector<Value>* streamed);
  Value Project(const Row& row);
  std::vector<Value> SortKeys(const Row& row);
  void Prune();
  // ORDER BY RANK RRF(...): each row's keys are its component scores until Finish replaces them
  // with the fused score (the reciprocal ranks summed).
  Status FuseRanks();

  const SelectQuery& q_;
  const SelectInfo& info_;
  EvalContext& ctx_;
  std::vector<bool> descending_;  // of q_'s ORDER BY items (OrderDescending)
  bool streaming_;
  std::optional<uint64_t> keep_first_;
  RankComponents rank_;  // the scores of ORDER BY RANK, if the select has one
  bool fuses_ranks_ = false;
  std::vector<bool> drops_unscored_;  // per ORDER BY item: rows without its score are left out
  uint64_t sequence_ = 0;
  std::vector<Sorted> sorted_;           // ORDER BY / DISTINCT selects without grouping
  std::vector<Group> groups_;            // GROUP BY and aggregate selects
  std::unordered_multimap<size_t, size_t> group_index_;  // hash of the group key -> groups_ index
};

}  // namespace cosmos::query
