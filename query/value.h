// Value: what a query expression evaluates to — undefined, or one JSON value of the six JSON
// kinds. Cosmos SQL distinguishes "undefined" (a missing property, a comparison of different
// types) from null; undefined never appears in results.
//
// A Value shares ownership of the JSON it points into: a property of a document is a view of
// that document, not a copy, so copying a Value is cheap. Values are immutable.
// Thread-safety: immutable, safe to share across threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"

namespace cosmos::query {

// The seven kinds, declared in the order the service sorts mixed types by (ORDER BY, MIN, MAX):
// undefined < null < boolean < number < string < array < object.
enum class Kind { kUndefined, kNull, kBoolean, kNumber, kString, kArray, kObject };

class Value {
 public:
  Value() = default;  // undefined

  static Value Undefined() { return Value(); }
  static Value Null();
  static Value Boolean(bool b);
  // Integral doubles within ±2^53 are kept as JSON integers so that they print as `3`, not `3.0`.
  static Value Number(double d);
  static Value String(std::string s);
  // Takes ownership of a JSON value (any kind; a discarded JSON value becomes undefined).
  static Value FromJson(Json json);
  // A view of `child`, which must live inside the JSON that `owner` keeps alive.
  static Value View(const std::shared_ptr<const Json>& owner, const Json& child);

  Kind kind() const;
  bool is_undefined() const { return json_ == nullptr; }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_boolean() const { return kind() == Kind::kBoolean; }
  bool is_number() const { return kind() == Kind::kNumber; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // REQUIRES: the matching kind.
  bool boolean() const { return json_->get<bool>(); }
  double number() const { return json_->get<double>(); }
  const std::string& string() const { return json_->get_ref<const std::string&>(); }
  // REQUIRES: defined. The JSON this value stands for.
  const Json& json() const { return *json_; }

  // Objects: the property `name`, undefined when absent or when this is not an object.
  Value Property(std::string_view name) const;
  // Arrays: the element at `index`, undefined when out of range or not an array.
  Value Element(double index) const;
  // Arrays and objects: number of elements / properties; 0 otherwise.
  size_t size() const;
  // Arrays: the element at position i. REQUIRES: is_array() and i < size().
  Value At(size_t i) const;

  // A copy of the JSON (for building new arrays/objects). REQUIRES: defined.
  Json ToJson() const { return *json_; }
  // Compact JSON text; "undefined" for undefined (diagnostics only).
  std::string ToString() const;

 private:
  explicit Value(std::shared_ptr<const Json> json) : json_(std::move(json)) {}
  std::shared_ptr<const Json> json_;
};

// The three-valued comparisons of the language. Values of different kinds, and arrays or
// objects under < <= > >=, compare to undefined (std::nullopt).
// Equality: same kind and deeply equal (numbers by value, objects regardless of property order).
std::optional<bool> Equals(const Value& a, const Value& b);
// Ordering for < <= > >=: defined only for two numbers, two strings (by code point) or two
// booleans (false < true). Returns <0, 0, >0.
std::optional<int> CompareSameKind(const Value& a, const Value& b);

// The total order used by ORDER BY, MIN/MAX and DISTINCT ordering: by Kind, then by value
// within a kind (arrays element-wise, objects by their compact JSON text).
int CompareTotal(const Value& a, const Value& b);

// Deep equality as used by DISTINCT, GROUP BY and IN: undefined equals undefined.
bool SameValue(const Value& a, const Value& b);
// A hash consistent with SameValue.
size_t HashValue(const Value& v);

// True when the value is the boolean true (WHERE keeps exactly these rows).
inline bool IsTrue(const Value& v) { return v.is_boolean() && v.boolean(); }

}  // namespace cosmos::query
