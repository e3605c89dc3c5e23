// Array functions: ARRAY_CONCAT, ARRAY_CONTAINS(_ANY/_ALL), ARRAY_LENGTH, ARRAY_SLICE, the Set*
// family, the ARRAY_* reductions (SUM, AVG, MEDIAN, MIN, MAX) and CHOOSE.
//
// Arguments of the wrong kind give undefined. Values are compared deeply (numbers by value,
// objects regardless of property order). Each call charges one work unit plus one per array
// element it visits, so scans of long arrays cost more.
#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <vector>

#include "query/functions/registry.h"

namespace cosmos::query {
namespace {

struct ValueHash {
  size_t operator()(const Value& v) const { return HashValue(v); }
};
struct ValueEqual {
  bool operator()(const Value& a, const Value& b) const { return SameValue(a, b); }
};
// Distinct values under deep equality; holds views, so the arrays must outlive it.
using ValueSet = std::unordered_set<Value, ValueHash, ValueEqual>;

ValueSet ElementsOf(const Value& array, FunctionContext& ctx) {
  ValueSet set;
  for (size_t i = 0; i < array.size(); ++i) set.insert(array.At(i));
  ctx.work += array.size();
  return set;
}

// Appends `v` to `out` unless an equal value was appended before (order of first appearance).
void AppendDistinct(const Value& v, ValueSet& seen, Json& out) {
  if (seen.insert(v).second) out.push_back(v.ToJson());
}

// ARRAY_CONTAINS's partial match: an object matches when it has every property of the pattern
// with an equal value; anything else must be equal as a whole.
bool ElementMatches(const Value& element, const Value& pattern, bool partial) {
  if (!partial || !pattern.is_object() || !element.is_object()) return SameValue(element, pattern);
  const Json& wanted = pattern.json();
  for (auto it = wanted.begin(); it != wanted.end(); ++it) {
    Value actual = element.Property(it.key());
    if (actual.is_undefined() || !SameValue(actual, pattern.Property(it.key()))) return false;
  }
  return true;
}

bool ArrayHas(const Value& array, const Value& pattern, bool partial, FunctionContext& ctx) {
  for (size_t i = 0; i < array.size(); ++i) {
    ++ctx.work;
    if (ElementMatches(array.At(i), pattern, partial)) return true;
  }
  return false;
}

Value ArrayConcat(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  Json result = Json::array();
  for (const Value& arg : args) {
    if (!arg.is_array()) return Value();
    for (const Json& element : arg.json()) result.push_back(element);
    ctx.work += arg.size();
  }
  return Value::FromJson(std::move(result));
}

// An undefined value to look for makes the answer undefined rather than false.
Value ArrayContains(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array() || args[1].is_undefined()) return Value();
  bool partial = false;
  if (args.size() > 2) {
    if (!args[2].is_boolean()) return Value();
    partial = args[2].boolean();
  }
  return Value::Boolean(ArrayHas(args[0], args[1], partial, ctx));
}

// ARRAY_CONTAINS_ANY / _ALL combine one test per value with the three-valued OR / AND of the
// language, an undefined value counting as an unknown test: documented, ANY([1,2,3,4], 1,
// undefined) is true, ANY([1,2,3,4], 5, undefined) undefined, ALL([1,2,3,4], 1, undefined)
// undefined and ALL([1,2,3,4], 5, undefined) false.
Value ArrayContainsAny(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array()) return Value();
  bool unknown = false;
  for (const Value& wanted : args.subspan(1)) {
    if (wanted.is_undefined()) {
      unknown = true;
    } else if (ArrayHas(args[0], wanted, false, ctx)) {
      return Value::Boolean(true);
    }
  }
  return unknown ? Value() : Value::Boolean(false);
}

Value ArrayContainsAll(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array()) return Value();
  bool unknown = false;
  for (const Value& wanted : args.subspan(1)) {
    if (wanted.is_undefined()) {
      unknown = true;
    } else if (!ArrayHas(args[0], wanted, false, ctx)) {
      return Value::Boolean(false);
    }
  }
  return unknown ? Value() : Value::Boolean(true);
}

Value ArrayLength(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array()) return Value();
  return Value::Number(static_cast<double>(args[0].size()));
}

// ARRAY_SLICE(array, start [, length]): a negative start counts from the end; start and length
// are clamped to the array, and a length of zero or less gives [].
Value ArraySlice(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array() || !args[1].is_number()) return Value();
  if (args.size() > 2 && !args[2].is_number()) return Value();
  if (std::isnan(args[1].number()) || (args.size() > 2 && std::isnan(args[2].number()))) return Value();
  const double size = static_cast<double>(args[0].size());
  double start = std::trunc(args[1].number());
  if (start < 0) start += size;
  start = std::clamp(start, 0.0, size);
  double end = size;
  if (args.size() > 2) end = std::clamp(start + std::trunc(args[2].number()), start, size);
  Json result = Json::array();
  for (size_t i = static_cast<size_t>(start); i < static_cast<size_t>(end); ++i) {
    result.push_back(args[0].json()[i]);
    ++ctx.work;
  }
  return Value::FromJson(std::move(result));
}

// The distinct elements of `source`, in its order, that are (keep_present) or are not in `reference`.
Value FilterDistinct(const Value& source, const Value& reference, bool keep_present, FunctionContext& ctx) {
  ++ctx.work;
  if (!source.is_array() || !reference.is_array()) return Value();
  ValueSet in_reference = ElementsOf(reference, ctx);
  ValueSet seen;
  Json result = Json::array();
  for (size_t i = 0; i < source.size(); ++i) {
    Value v = source.At(i);
    if (in_reference.contains(v) == keep_present) AppendDistinct(v, seen, result);
  }
  ctx.work += source.size();
  return Value::FromJson(std::move(result));
}

// SetIntersect keeps the order of the second array: documented, SetIntersect([1, 2, "A", "B"],
// ["A", 1]) is ["A", 1].
Value SetIntersect(std::span<const Value> args, FunctionContext& ctx) {
  return FilterDistinct(args[1], args[0], /*keep_present=*/true, ctx);
}

Value SetUnion(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array() || !args[1].is_array()) return Value();
  ValueSet seen;
  Json result = Json::array();
  for (const Value& array : {args[0], args[1]}) {
    for (size_t i = 0; i < array.size(); ++i) AppendDistinct(array.At(i), seen, result);
    ctx.work += array.size();
  }
  return Value::FromJson(std::move(result));
}

// The distinct elements of the first array that the second lacks, in first-array order.
Value SetDifference(std::span<const Value> args, FunctionContext& ctx) {
  return FilterDistinct(args[0], args[1], /*keep_present=*/false, ctx);
}

// Equal as sets: same distinct elements, regardless of order and repetition.
Value SetEqual(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array() || !args[1].is_array()) return Value();
  ValueSet first = ElementsOf(args[0], ctx), second = ElementsOf(args[1], ctx);
  if (first.size() != second.size()) return Value::Boolean(false);
  for (const Value& v : first) {
    if (!second.contains(v)) return Value::Boolean(false);
  }
  return Value::Boolean(true);
}

// The elements as doubles, or false when the array holds anything but numbers.
bool NumbersOf(const Value& array, std::vector<double>& numbers, FunctionContext& ctx) {
  ctx.work += array.size();
  for (size_t i = 0; i < array.size(); ++i) {
    Value element = array.At(i);
    if (!element.is_number()) return false;
    numbers.push_back(element.number());
  }
  return true;
}

Value ArraySum(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  std::vector<double> numbers;
  if (!args[0].is_array() || !NumbersOf(args[0], numbers, ctx)) return Value();
  double sum = 0;
  for (double n : numbers) sum += n;
  return Value::Number(sum);
}

Value ArrayAvg(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  std::vector<double> numbers;
  if (!args[0].is_array() || !NumbersOf(args[0], numbers, ctx) || numbers.empty()) return Value();
  double sum = 0;
  for (double n : numbers) sum += n;
  return Value::Number(sum / static_cast<double>(numbers.size()));
}

Value ArrayMedian(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  std::vector<double> numbers;
  if (!args[0].is_array() || !NumbersOf(args[0], numbers, ctx) || numbers.empty()) return Value();
  std::sort(numbers.begin(), numbers.end());
  size_t middle = numbers.size() / 2;
  if (numbers.size() % 2 == 1) return Value::Number(numbers[middle]);
  return Value::Number((numbers[middle - 1] + numbers[middle]) / 2);
}

// ARRAY_MIN / ARRAY_MAX order mixed kinds as null < booleans < numbers < strings, like the
// MIN / MAX aggregates; an array or object element makes the result undefined.
template <bool kMax>
Value ArrayExtreme(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_array()) return Value();
  ctx.work += args[0].size();
  Value best;
  for (size_t i = 0; i < args[0].size(); ++i) {
    Value element = args[0].At(i);
    if (element.is_array() || element.is_object()) return Value();
    if (best.is_undefined()) {
      best = element;
      continue;
    }
    int order = CompareTotal(element, best);
    if (kMax ? order > 0 : order < 0) best = element;
  }
  return best;
}

// CHOOSE(index, e1, e2, ...): the index-th expression, counting from 1; undefined out of range.
Value Choose(std::span<const Value> args, FunctionContext& ctx) {
  ++ctx.work;
  if (!args[0].is_number()) return Value();
  double index = args[0].number();
  if (std::trunc(index) != index || index < 1 || index >= static_cast<double>(args.size())) return Value();
  return args[static_cast<size_t>(index)];
}

}  // namespace

void RegisterArrayFunctions(FunctionRegistry& registry) {
  registry.AddScalar("ARRAY_CONCAT", 2, -1, ArrayConcat);
  registry.AddScalar("ARRAY_CONTAINS", 2, 3, ArrayContains);
  registry.AddScalar("ARRAY_CONTAINS_ANY", 2, -1, ArrayContainsAny);
  registry.AddScalar("ARRAY_CONTAINS_ALL", 2, -1, ArrayContainsAll);
  registry.AddScalar("ARRAY_LENGTH", 1, 1, ArrayLength);
  registry.AddScalar("ARRAY_SLICE", 2, 3, ArraySlice);
  registry.AddScalar("SetIntersect", 2, 2, SetIntersect);
  registry.AddScalar("SetUnion", 2, 2, SetUnion);
  registry.AddScalar("SetDifference", 2, 2, SetDifference);
  registry.AddScalar("SetEqual", 2, 2, SetEqual);
  registry.AddScalar("ARRAY_SUM", 1, 1, ArraySum);
  registry.AddScalar("ARRAY_AVG", 1, 1, ArrayAvg);
  registry.AddScalar("ARRAY_MEDIAN", 1, 1, ArrayMedian);
  registry.AddScalar("ARRAY_MIN", 1, 1, ArrayExtreme<false>);
  registry.AddScalar("ARRAY_MAX", 1, 1, ArrayExtreme<true>);
  registry.AddScalar("CHOOSE", 2, -1, Choose);
}

}  // namespace cosmos::query
