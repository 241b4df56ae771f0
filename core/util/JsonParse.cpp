// Depth-capped JSON parsing with the parser's message kept, for row-level and file-level errors.
#include "core/util/JsonParse.h"

#include "core/util/Utf8.h"

namespace maskscope {

std::string JsonTooDeep::message() const {
  return "JSON nests deeper than the limit of " + std::to_string(limit) + " levels (line " + std::to_string(line) +
         ", column " + std::to_string(column) + ")";
}

std::optional<JsonTooDeep> findJsonTooDeep(std::string_view text, int maxDepth) {
  int depth = 0;
  bool inString = false, escape = false;
  long line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return JsonTooDeep{line, long(i - lineStart + 1), long(i), maxDepth};
    } else if (c == ']' || c == '}') {
      --depth;
    }
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    }
  }
  return std::nullopt;
}

size_t countJsonValues(std::string_view text) {
  size_t n = 0;
  bool inString = false, escape = false;
  for (const char c : text) {
    if (inString) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == ',' || c == '[' || c == '{') {
      ++n;
    }
  }
  return n;
}

std::string shortJsonParseMessage(const std::string& what) {
  constexpr size_t kMaxExcerpt = 80;
  auto pos = what.find("parse error");
  std::string msg = pos == std::string::npos ? what : what.substr(pos);
  const auto read = msg.find("last read: '");
  if (read == std::string::npos || msg.size() - read < kMaxExcerpt + 16) return msg;
  size_t cut = read + 12 + kMaxExcerpt;
  while (cut > read && (static_cast<unsigned char>(msg[cut]) & 0xC0) == 0x80) --cut; // whole code points
  return msg.substr(0, cut) + "...' (" + std::to_string(msg.size() - read - 13) + " bytes)";
}

namespace {

// Any nlohmann exception (parse_error, and out_of_range 406 for a number like 1e999999) as a short
// message without its "[json.exception...]" prefix; a quoted number is cut like a "last read".
std::string parserMessage(const nlohmann::json::exception& e) {
  std::string msg = shortJsonParseMessage(e.what());
  if (msg.rfind("[json.exception.", 0) == 0) {
    const auto close = msg.find("] ");
    if (close != std::string::npos) msg.erase(0, close + 2);
  }
  constexpr size_t kMaxMessage = 200;
  if (msg.size() > kMaxMessage) msg = msg.substr(0, kMaxMessage) + "...' (" + std::to_string(msg.size()) + " bytes)";
  return utf8::sanitize(msg);
}

// Byte of the error, 0-based, when the parser knows it (parse errors); 0 otherwise.
size_t errorByte(const nlohmann::json::exception& e) {
  const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e);
  return pe && pe->byte > 0 ? pe->byte - 1 : 0;
}

template <class Json> Json parseOrExplain(const std::string& text, std::string* error, long* byteOffset) {
  if (auto deep = findJsonTooDeep(text)) {
    if (error) *error = deep->message();
    if (byteOffset) *byteOffset = deep->byteOffset;
    return Json(Json::value_t::discarded);
  }
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    if (error) *error = parserMessage(e);
    if (byteOffset) *byteOffset = long(errorByte(e));
  }
  return Json(Json::value_t::discarded);
}

// where, moved to byte offset `byte` of text (line and column counted from where.line).
SourceLocation at(const std::string& text, SourceLocation where, size_t byte) {
  byte = std::min(byte, text.size());
  long line = where.line > 0 ? where.line : 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < byte; ++i)
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  where.line = line;
  where.column = long(byte - lineStart + 1);
  where.byteOffset = long(byte);
  return where;
}

template <class Json> Json parseOrThrow(const std::string& text, const SourceLocation& where) {
  if (auto deep = findJsonTooDeep(text))
    throw Error("JSON nests deeper than the limit of " + std::to_string(deep->limit) + " levels",
                at(text, where, size_t(deep->byteOffset)));
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error("invalid JSON: " + parserMessage(e), at(text, where, errorByte(e)));
  }
}

} // namespace

nlohmann::json parseJsonOrExplain(const std::string& text, std::string* error, long* byteOffset) {
  return parseOrExplain<nlohmann::json>(text, error, byteOffset);
}

nlohmann::ordered_json parseOrderedJsonOrExplain(const std::string& text, std::string* error, long* byteOffset) {
  return parseOrExplain<nlohmann::ordered_json>(text, error, byteOffset);
}

nlohmann::json parseJsonOrThrow(const std::string& text, const SourceLocation& where) {
  return parseOrThrow<nlohmann::json>(text, where);
}

nlohmann::ordered_json parseOrderedJsonOrThrow(const std::string& text, const SourceLocation& where) {
  return parseOrThrow<nlohmann::ordered_json>(text, where);
}

} // namespace maskscope
