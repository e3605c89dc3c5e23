// Aggregates: COUNT, SUM, AVG, MIN, MAX, COUNTIF, MAKELIST, MAKESET. Undefined inputs are
// skipped; SUM and AVG become undefined as soon as one defined input is not a number; MIN and MAX
// order mixed kinds as null < false < true < numbers < strings and become undefined on an array
// or object.
#include <limits>
#include <vector>

#include "query/functions/registry.h"

namespace cosmos::query {
namespace {

class CountAccumulator : public Accumulator {
 public:
  void Add(const Value& v) override {
    if (!v.is_undefined()) ++count_;
  }
  Value Finish() const override { return Value::Number(static_cast<double>(count_)); }

 private:
  uint64_t count_ = 0;
};

class SumAccumulator : public Accumulator {
 public:
  explicit SumAccumulator(bool average) : average_(average) {}
  void Add(const Value& v) override {
    if (v.is_undefined()) return;
    if (!v.is_number()) {
      invalid_ = true;
      return;
    }
    sum_ += v.number();
    ++count_;
  }
  Value Finish() const override {
    if (invalid_) return Value();
    if (!average_) return Value::Number(sum_);
    if (count_ == 0) return Value();
    return Value::Number(sum_ / static_cast<double>(count_));
  }

 private:
  bool average_;
  bool invalid_ = false;
  double sum_ = 0;
  uint64_t count_ = 0;
};

class ExtremeAccumulator : public Accumulator {
 public:
  explicit ExtremeAccumulator(bool max) : max_(max) {}
  void Add(const Value& v) override {
    if (v.is_undefined()) return;
    if (v.is_array() || v.is_object()) {
      invalid_ = true;
      return;
    }
    if (best_.is_undefined()) {
      best_ = v;
      return;
    }
    int c = CompareTotal(v, best_);
    if (max_ ? c > 0 : c < 0) best_ = v;
  }
  Value Finish() const override { return invalid_ ? Value() : best_; }

 private:
  bool max_;
  bool invalid_ = false;
  Value best_;
};

// COUNTIF(condition): the rows whose condition is true.
class CountIfAccumulator : public Accumulator {
 public:
  void Add(const Value& v) override {
    if (IsTrue(v)) ++count_;
  }
  Value Finish() const override { return Value::Number(static_cast<double>(count_)); }

 private:
  uint64_t count_ = 0;
};

// MAKELIST / MAKESET: the defined values as an array (MAKESET without repeats), in input order.
class ListAccumulator : public Accumulator {
 public:
  explicit ListAccumulator(bool distinct) : distinct_(distinct) {}
  void Add(const Value& v) override {
    if (v.is_undefined()) return;
    if (distinct_) {
      for (const Value& seen : values_)
        if (SameValue(seen, v)) return;
    }
    values_.push_back(v);
  }
  Value Finish() const override {
    Json array = Json::array();
    for (const Value& v : values_) array.push_back(v.ToJson());
    return Value::FromJson(std::move(array));
  }

 private:
  bool distinct_;
  std::vector<Value> values_;
};

}  // namespace

void RegisterAggregateFunctions(FunctionRegistry& registry) {
  registry.Add({.name = "COUNT", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new CountAccumulator()); }});
  registry.Add({.name = "SUM", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new SumAccumulator(false)); }});
  registry.Add({.name = "AVG", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new SumAccumulator(true)); }});
  registry.Add({.name = "MIN", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new ExtremeAccumulator(false)); }});
  registry.Add({.name = "MAX", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new ExtremeAccumulator(true)); }});
  registry.Add({.name = "COUNTIF", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new CountIfAccumulator()); }});
  registry.Add({.name = "MAKELIST", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new ListAccumulator(false)); }});
  registry.Add({.name = "MAKESET", .min_args = 1, .max_args = 1,
                .make_accumulator = [] { return std::unique_ptr<Accumulator>(new ListAccumulator(true)); }});
}

}  // namespace cosmos::query
