#include "common/json_scan.h"

#include <algorithm>

#include "common/json_parse.h"

namespace cosmos {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

void SkipSpace(std::string_view text, size_t& i) {
  while (i < text.size() && IsSpace(text[i])) ++i;
}

// At an opening quote: moves past the closing quote. False when unterminated.
bool SkipString(std::string_view text, size_t& i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      ++i;
      return true;
    }
  }
  return false;
}

// Moves past one value of any kind. False on malformed text.
bool SkipValue(std::string_view text, size_t& i) {
  if (i >= text.size()) return false;
  if (text[i] == '"') return SkipString(text, i);
  if (text[i] == '{' || text[i] == '[') {
    int depth = 0;
    while (i < text.size()) {
      char c = text[i];
      if (c == '"') {
        if (!SkipString(text, i)) return false;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) {
          ++i;
          return true;
        }
      }
      ++i;
    }
    return false;
  }
  while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && !IsSpace(text[i])) ++i;
  return true;
}

Json FilteredFullParse(std::string_view text, const std::vector<std::string>& names) {
  Json full = ParseJson(text);
  if (full.is_discarded() || !full.is_object()) return full;
  Json selected = Json::object();
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (std::find(names.begin(), names.end(), it.key()) != names.end()) selected[it.key()] = std::move(it.value());
  }
  return selected;
}

}  // namespace

Json ParseSelectedProperties(std::string_view text, const std::vector<std::string>& names) {
  Json selected = Json::object();
  size_t i = 0;
  SkipSpace(text, i);
  if (i >= text.size() || text[i] != '{') return FilteredFullParse(text, names);
  ++i;
  SkipSpace(text, i);
  if (i < text.size() && text[i] == '}') return selected;
  while (i < text.size()) {
    SkipSpace(text, i);
    if (i >= text.size() || text[i] != '"') return FilteredFullParse(text, names);
    size_t key_start = i;
    if (!SkipString(text, i)) return FilteredFullParse(text, names);
    std::string_view raw_key = text.substr(key_start + 1, i - key_start - 2);
    std::string key;
    if (raw_key.find('\\') == std::string_view::npos) {
      key.assign(raw_key);
    } else {  // an escaped name: let the JSON parser decode it
      Json decoded = ParseJson(text.substr(key_start, i - key_start));
      if (!decoded.is_string()) return FilteredFullParse(text, names);
      key = decoded.get<std::string>();
    }
    SkipSpace(text, i);
    if (i >= text.size() || text[i] != ':') return FilteredFullParse(text, names);
    ++i;
    SkipSpace(text, i);
    size_t value_start = i;
    if (!SkipValue(text, i)) return FilteredFullParse(text, names);
    if (std::find(names.begin(), names.end(), key) != names.end()) {
      Json value = ParseJson(text.substr(value_start, i - value_start));
      if (value.is_discarded()) return value;
      selected[key] = std::move(value);
    }
    SkipSpace(text, i);
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == '}') return selected;
    return FilteredFullParse(text, names);
  }
  return FilteredFullParse(text, names);
}

}  // namespace cosmos
