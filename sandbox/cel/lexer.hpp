#pragma once
// The tokens of CEL's grammar (cel-spec langdef, as cel-go's ANTLR lexer has them).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/cel/value.hpp"

namespace respool::sandbox::cel {

enum class Tok : std::uint8_t {
  End,
  Ident,
  EscIdent,  // `quoted.field-name`
  Int,
  Uint,
  Double,
  String,
  Bytes,
  True,
  False,
  Null,
  In,
  Punct,  // text holds the operator or punctuation: == != <= >= && || ! < > + - * / % ? : . , [ ] {
          // } ( )
  Error,  // text holds the message
};

struct Token {
  Tok tok = Tok::End;
  std::int32_t pos = 0;  // byte offset
  std::string text;      // source text (Punct, Ident, literals), or the decoded name of EscIdent
  Value value;           // literals
};

// All tokens of `source`, ending with Tok::End, or with a Tok::Error token at the first
// character no token starts with or at a malformed literal.
std::vector<Token> tokenize(std::string_view source);

}  // namespace respool::sandbox::cel
