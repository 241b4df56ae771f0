// Splits a Jinja template into data and tag tokens, applying jinja2's whitespace rules as
// transformers configures them: trim_blocks, lstrip_blocks, `-`/`+` markers, no trailing newline.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace maskscope::jinja {

enum class Tok : uint8_t { Data, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Int, Float, Op, Eof };

struct Token {
  Tok kind = Tok::Eof;
  std::string text; // data text, name, decoded string literal, operator
  int64_t ival = 0;
  double fval = 0;
  uint32_t pos = 0; // byte offset in the normalized source
};

struct LexOptions {
  bool trimBlocks = true;
  bool lstripBlocks = true;
};

// Normalizes newlines (\r\n, \r -> \n) and drops one trailing newline, as jinja2's default
// keep_trailing_newline=False does. Offsets in tokens refer to the returned text.
std::string normalizeSource(const std::string& source);

// Throws LexError on malformed input (unterminated tags, strings, comments).
struct LexError {
  std::string message;
  uint32_t pos;
};
std::vector<Token> lex(const std::string& normalizedSource, const LexOptions& options = {});

} // namespace maskscope::jinja
