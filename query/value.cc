#include "query/value.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace cosmos::query {
namespace {

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

Kind KindOf(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return Kind::kNull;
    case Json::value_t::boolean: return Kind::kBoolean;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return Kind::kNumber;
    case Json::value_t::string: return Kind::kString;
    case Json::value_t::array: return Kind::kArray;
    case Json::value_t::object: return Kind::kObject;
    default: return Kind::kUndefined;
  }
}

// Object properties sorted by name, so that objects compare regardless of property order.
std::vector<std::pair<const std::string*, const Json*>> SortedMembers(const Json& object) {
  std::vector<std::pair<const std::string*, const Json*>> members;
  members.reserve(object.size());
  for (auto it = object.begin(); it != object.end(); ++it) members.emplace_back(&it.key(), &it.value());
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return *a.first < *b.first; });
  return members;
}

bool JsonDeepEquals(const Json& a, const Json& b) {
  Kind ka = KindOf(a), kb = KindOf(b);
  if (ka != kb) return false;
  switch (ka) {
    case Kind::kNull: return true;
    case Kind::kBoolean: return a.get<bool>() == b.get<bool>();
    case Kind::kNumber: return a.get<double>() == b.get<double>();
    case Kind::kString: return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
    case Kind::kArray:
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!JsonDeepEquals(a[i], b[i])) return false;
      return true;
    case Kind::kObject: {
      if (a.size() != b.size()) return false;
      for (auto it = a.begin(); it != a.end(); ++it) {
        auto other = b.find(it.key());
        if (other == b.end() || !JsonDeepEquals(it.value(), *other)) return false;
      }
      return true;
    }
    case Kind::kUndefined: return true;
  }
  return false;
}

int SignOf(double d) { return d < 0 ? -1 : (d > 0 ? 1 : 0); }

int JsonCompareTotal(const Json& a, const Json& b) {
  Kind ka = KindOf(a), kb = KindOf(b);
  if (ka != kb) return static_cast<int>(ka) < static_cast<int>(kb) ? -1 : 1;
  switch (ka) {
    case Kind::kNull:
    case Kind::kUndefined: return 0;
    case Kind::kBoolean: return static_cast<int>(a.get<bool>()) - static_cast<int>(b.get<bool>());
    case Kind::kNumber: return SignOf(a.get<double>() - b.get<double>());
    case Kind::kString: {
      // UTF-8 byte order is code point order.
      int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Kind::kArray: {
      size_t n = std::min(a.size(), b.size());
      for (size_t i = 0; i < n; ++i)
        if (int c = JsonCompareTotal(a[i], b[i]); c != 0) return c;
      return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
    }
    case Kind::kObject: {
      auto ma = SortedMembers(a), mb = SortedMembers(b);
      size_t n = std::min(ma.size(), mb.size());
      for (size_t i = 0; i < n; ++i) {
        if (int c = ma[i].first->compare(*mb[i].first); c != 0) return c < 0 ? -1 : 1;
        if (int c = JsonCompareTotal(*ma[i].second, *mb[i].second); c != 0) return c;
      }
      return ma.size() < mb.size() ? -1 : (ma.size() > mb.size() ? 1 : 0);
    }
  }
  return 0;
}

size_t HashJson(const Json& j) {
  switch (KindOf(j)) {
    case Kind::kNull: return 0x9e3779b9;
    case Kind::kBoolean: return j.get<bool>() ? 0x51 : 0x50;
    case Kind::kNumber: {
      double d = j.get<double>();
      if (d == 0) d = 0;  // -0 == 0
      return std::hash<double>()(d);
    }
    case Kind::kString: return std::hash<std::string>()(j.get_ref<const std::string&>());
    case Kind::kArray: {
      size_t h = 0x1234;
      for (const auto& e : j) h = h * 31 + HashJson(e);
      return h;
    }
    case Kind::kObject: {
      size_t h = 0x4321;  // order-independent: sum of member hashes
      for (auto it = j.begin(); it != j.end(); ++it)
        h += std::hash<std::string>()(it.key()) * 17 + HashJson(it.value());
      return h;
    }
    case Kind::kUndefined: return 0;
  }
  return 0;
}

std::shared_ptr<const Json> MakeShared(Json j) { return std::make_shared<const Json>(std::move(j)); }

}  // namespace

Value Value::Null() {
  static const auto kNull = MakeShared(Json(nullptr));
  return Value(kNull);
}

Value Value::Boolean(bool b) {
  static const auto kTrue = MakeShared(Json(true));
  static const auto kFalse = MakeShared(Json(false));
  return Value(b ? kTrue : kFalse);
}

Value Value::Number(double d) {
  if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= kMaxExactInteger && !(d == 0 && std::signbit(d)))
    return Value(MakeShared(Json(static_cast<int64_t>(d))));
  return Value(MakeShared(Json(d)));
}

Value Value::String(std::string s) { return Value(MakeShared(Json(std::move(s)))); }

Value Value::FromJson(Json json) {
  if (json.is_discarded()) return Value();
  return Value(MakeShared(std::move(json)));
}

Value Value::View(const std::shared_ptr<const Json>& owner, const Json& child) {
  return Value(std::shared_ptr<const Json>(owner, &child));
}

Kind Value::kind() const { return json_ ? KindOf(*json_) : Kind::kUndefined; }

Value Value::Property(std::string_view name) const {
  if (!json_ || !json_->is_object()) return Value();
  auto it = json_->find(name);
  if (it == json_->end()) return Value();
  return View(json_, *it);
}

Value Value::Element(double index) const {
  if (!json_ || !json_->is_array()) return Value();
  if (!(index >= 0) || std::trunc(index) != index || index >= static_cast<double>(json_->size())) return Value();
  return View(json_, (*json_)[static_cast<size_t>(index)]);
}

size_t Value::size() const {
  if (!json_ || !(json_->is_array() || json_->is_object())) return 0;
  return json_->size();
}

Value Value::At(size_t i) const { return View(json_, (*json_)[i]); }

std::string Value::ToString() const { return json_ ? json_->dump() : "undefined"; }

std::optional<bool> Equals(const Value& a, const Value& b) {
  if (a.is_undefined() || b.is_undefined()) return std::nullopt;
  if (a.kind() != b.kind()) return std::nullopt;
  return JsonDeepEquals(a.json(), b.json());
}

std::optional<int> CompareSameKind(const Value& a, const Value& b) {
  Kind k = a.kind();
  if (k != b.kind()) return std::nullopt;
  if (k != Kind::kNumber && k != Kind::kString && k != Kind::kBoolean) return std::nullopt;
  return JsonCompareTotal(a.json(), b.json());
}

int CompareTotal(const Value& a, const Value& b) {
  if (a.is_undefined() || b.is_undefined()) {
    return a.is_undefined() == b.is_undefined() ? 0 : (a.is_undefined() ? -1 : 1);
  }
  return JsonCompareTotal(a.json(), b.json());
}

bool SameValue(const Value& a, const Value& b) {
  if (a.is_undefined() || b.is_undefined()) return a.is_undefined() == b.is_undefined();
  return JsonDeepEquals(a.json(), b.json());
}

size_t HashValue(const Value& v) { return v.is_undefined() ? 0x77 : HashJson(v.json()); }

}  // namespace cosmos::query
