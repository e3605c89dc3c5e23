// Decoding of number and string literal tokens into JSON values. The lexer has already checked
// their shape (query/grammar/CosmosSql.g4), so these cannot fail.
#pragma once

#include <string>
#include <string_view>

#include "common/json.h"

namespace cosmos::query::parser_internal {

// A NUMBER token: decimal, decimal with fraction/exponent, or 0x hexadecimal. Integers that fit
// int64 exactly become JSON integers; everything else becomes a double (inf when it overflows).
Json NumberLiteral(std::string_view text);

// A STRING token including its quotes ('...' or "..."): the UTF-8 value with the escapes
// \' \" \\ \/ \b \f \n \r \t \uXXXX decoded. A \uXXXX surrogate pair becomes one code point; a
// lone surrogate becomes U+FFFD, since UTF-8 cannot carry it.
std::string StringLiteral(std::string_view quoted);

}  // namespace cosmos::query::parser_internal
