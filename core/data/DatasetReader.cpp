// Streaming dataset reading. JSONL is read a line at a time; a JSON list is scanned element by
// element (string- and depth-aware), so neither form is ever loaded whole.
#include "core/data/DatasetReader.h"
#include "core/data/RowShapes.h"
#include "core/resources/BuiltinResources.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"

#include <cstdio>
#include <filesystem>

namespace maskscope {

std::string RowError::toString() const {
  return file + (line >= 0 ? ":" + std::to_string(line) : std::string()) + ": " +
         (item >= 0 ? "item " + std::to_string(item) + ": " : std::string()) + reason;
}

// ---- byte source over a file or an in-memory resource, with line counting ----------------
struct DatasetReader::Source {
  std::FILE* file = nullptr;
  std::string_view memory;
  size_t memPos = 0;
  std::vector<char> buf = std::vector<char>(size_t(1) << 20);
  size_t bufPos = 0, bufLen = 0;
  int64_t consumed = 0, total = 1;
  long line = 1;
  enum class Mode { Unknown, Lines, List, Done } mode = Mode::Unknown;

  ~Source() {
    if (file) std::fclose(file);
  }

  int get() {
    int c = peek();
    if (c < 0) return c;
    ++bufPos;
    ++consumed;
    if (c == '\n') ++line;
    return c;
  }
  int peek() {
    if (!file) return memPos + bufPos < memory.size() ? static_cast<unsigned char>(memory[memPos + bufPos]) : -1;
    if (bufPos >= bufLen) {
      bufLen = std::fread(buf.data(), 1, buf.size(), file);
      bufPos = 0;
      if (bufLen == 0) return -1;
    }
    return static_cast<unsigned char>(buf[bufPos]);
  }
  void skipSpace() {
    for (int c = peek(); c == ' ' || c == '\t' || c == '\r' || c == '\n'; c = peek()) get();
  }
};

DatasetReader::DatasetReader(const std::string& spec) : spec_(spec), src_(std::make_unique<Source>()) {
  if (spec == "builtin:demo") {
    auto data = builtinResource("demo/dataset.jsonl");
    if (!data) throw Error("the demo dataset is missing from this build", {spec});
    src_->memory = *data;
    src_->total = std::max<int64_t>(1, int64_t(data->size()));
  } else {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(spec, ec)) throw Error("no such dataset file", {spec});
    src_->file = std::fopen(spec.c_str(), "rb");
    if (!src_->file) throw Error("cannot open dataset file", {spec});
    src_->total = std::max<int64_t>(1, int64_t(std::filesystem::file_size(spec, ec)));
  }
  // A UTF-8 byte-order mark is allowed at the very start.
  if (src_->peek() == 0xEF) {
    src_->get();
    if (src_->get() != 0xBB || src_->get() != 0xBF) throw Error("invalid byte-order mark", {spec, 1, 1});
  }
}

DatasetReader::~DatasetReader() = default;

double DatasetReader::progress() const { return std::min(1.0, double(src_->consumed) / double(src_->total)); }

void DatasetReader::skip(long line, std::string reason) { skipItem(line, std::move(reason), item_); }

void DatasetReader::skipItem(long line, std::string reason, long item) {
  ++rowsSkipped_;
  if (errors_.size() < kMaxKeptErrors) errors_.push_back({spec_, line, std::move(reason), item});
}

bool DatasetReader::nextRawRow(std::string& text, long& line) {
  Source& s = *src_;
  text.clear();
  if (s.mode == Source::Mode::Unknown) {
    s.skipSpace();
    if (s.peek() == '[') {
      s.get();
      s.mode = Source::Mode::List;
    } else
      s.mode = Source::Mode::Lines;
  }
  if (s.mode == Source::Mode::Done) return false;
  return s.mode == Source::Mode::Lines ? nextLine(text, line) : nextListElement(text, line);
}

// JSONL: the next non-blank line.
bool DatasetReader::nextLine(std::string& text, long& line) {
  Source& s = *src_;
  for (;;) {
    line = s.line;
    rowOffset_ = s.consumed;
    text.clear();
    bool tooLong = false;
    int c;
    while ((c = s.get()) >= 0 && c != '\n') {
      if (text.size() < kMaxRowBytes)
        text += char(c);
      else
        tooLong = true;
    }
    if (tooLong) {
      skip(line, "row is longer than 64 MiB");
      if (c < 0) {
        s.mode = Source::Mode::Done;
        return false;
      }
      continue;
    }
    bool blank = text.find_first_not_of(" \t\r") == std::string::npos;
    rowBytes_ = int64_t(text.size());
    if (!blank) return true;
    if (c < 0) {
      s.mode = Source::Mode::Done;
      return false;
    }
  }
}

// A JSON list: the next element of the top-level array (string- and depth-aware).
bool DatasetReader::nextListElement(std::string& text, long& line) {
  Source& s = *src_;
  for (;;) {
    s.skipSpace();
    int c = s.peek();
    if (c == ',') {
      s.get();
      continue;
    }
    if (c == ']') {
      s.get();
      s.mode = Source::Mode::Done;
      return false;
    }
    if (c < 0) {
      skipItem(s.line, "unexpected end of file inside the top-level JSON list (missing ']')", -1);
      s.mode = Source::Mode::Done;
      return false;
    }
    ++item_; // an element starts here
    break;
  }
  line = s.line;
  rowOffset_ = s.consumed;
  int depth = 0;
  bool inString = false, escape = false;
  for (;;) {
    int c = s.get();
    if (c < 0) {
      skip(line, "unexpected end of file inside a row");
      s.mode = Source::Mode::Done;
      return false;
    }
    if (text.size() >= kMaxRowBytes) {
      skip(line, "row is longer than 64 MiB");
      s.mode = Source::Mode::Done; // cannot resynchronise reliably inside a giant element
      return false;
    }
    text += char(c);
    if (inString) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']')
      --depth;
    if (depth <= 0) {
      int p = s.peek();
      if (depth < 0 || p == ',' || p == ']' || p == ' ' || p == '\n' || p == '\r' || p == '\t' || p < 0) {
        if (depth < 0) text.pop_back();
        rowBytes_ = int64_t(text.size());
        return true;
      }
    }
  }
}

bool DatasetReader::nextJson(OrderedJson& row, long& line) {
  std::string text;
  while (nextRawRow(text, line)) {
    std::string parseError;
    row = parseOrderedJsonOrExplain(text, &parseError);
    if (!row.is_discarded()) return true;
    skip(line, "invalid JSON: " + parseError);
  }
  return false;
}

bool DatasetReader::next(Conversation& out) {
  OrderedJson row;
  long line = -1;
  while (nextJson(row, line)) {
    try {
      out = conversationFromJson(row);
    } catch (const Error& e) {
      skip(line, e.message());
      continue;
    }
    out.sourceFile = spec_;
    out.sourceLine = line;
    out.sourceItem = item_;
    out.rowIndex = rowsRead_++;
    return true;
  }
  return false;
}

std::vector<Conversation> readDataset(const std::string& spec, std::vector<RowError>* errors, long limit) {
  DatasetReader reader(spec);
  std::vector<Conversation> rows;
  Conversation c;
  while ((limit < 0 || long(rows.size()) < limit) && reader.next(c)) rows.push_back(std::move(c));
  if (errors) *errors = reader.errors();
  return rows;
}

Conversation readDatasetRow(const std::string& spec, long row) {
  if (row < 0) throw Error("row must be 0 or more", {spec});
  DatasetReader reader(spec);
  Conversation c;
  while (reader.next(c))
    if (c.rowIndex == row) return c;
  // Say why rows were unreadable, or the user only learns that row 0 "does not exist".
  const std::string why = reader.errors().empty() ? "" : " (first skipped: " + reader.errors().front().toString() + ")";
  throw Error("the dataset has only " + std::to_string(reader.rowsRead()) + " readable rows; row " +
                  std::to_string(row) + " does not exist" + why,
              {spec});
}

} // namespace maskscope
