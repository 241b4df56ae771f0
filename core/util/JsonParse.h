// The one way the program parses JSON it did not write itself (datasets, batch dumps, tokenizer and
// model configs, collator specs, messages files, safetensors headers): depth-capped before parsing,
// with errors that name the file, line and column.
#pragma once
#include "core/util/Error.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace maskscope {

// Deeper than any real config or conversation; shallow enough that every recursive walk over a
// parsed value (nlohmann's copy, dump and compare, row-shape conversion, template values) stays far
// inside a 1 MiB stack.
// Worker threads get kWorkerStackBytes (StackSizes.h), sized for this cap and the template ones.
inline constexpr int kMaxJsonDepth = 128;

struct JsonTooDeep {
  long line = 1, column = 1; // 1-based, of the bracket that opens level maxDepth + 1
  long byteOffset = 0;       // 0-based
  int limit = kMaxJsonDepth;
  std::string message() const;
};

// A string-aware bracket scan (no recursion, no allocation): where text first opens more than
// maxDepth nested arrays/objects, or nothing. Malformed text is left for the parser to report.
std::optional<JsonTooDeep> findJsonTooDeep(std::string_view text, int maxDepth = kMaxJsonDepth);

// An upper bound of the values (array elements and object members) in text, from a string-aware
// scan of commas and brackets: lets a reader refuse a document whose parsed form would not fit in
// memory (a parsed value takes 16 bytes or more) before parsing it.
size_t countJsonValues(std::string_view text);

// nlohmann's parse-error text without its "[json.exception...]" prefix, and with the "last read"
// excerpt (the whole offending token: a 10 MB unterminated string) cut to a readable length.
std::string shortJsonParseMessage(const std::string& what);

// Row-level parsing: on failure returns a discarded value and sets *error to what went wrong
// (the parser's message, or the depth with line and column inside text).
nlohmann::json parseJsonOrExplain(const std::string& text, std::string* error, long* byteOffset = nullptr);
// The same, keeping object keys in file order.
nlohmann::ordered_json parseOrderedJsonOrExplain(const std::string& text, std::string* error,
                                                 long* byteOffset = nullptr);

// File-level parsing: throws Error at "file:line:column". where.file names the input; where.line,
// when set, is the file line text starts on (a JSONL row), so reported lines are file lines.
nlohmann::json parseJsonOrThrow(const std::string& text, const SourceLocation& where);
nlohmann::ordered_json parseOrderedJsonOrThrow(const std::string& text, const SourceLocation& where);

} // namespace maskscope
