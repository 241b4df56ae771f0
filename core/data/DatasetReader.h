// Streaming dataset reader: JSONL or a JSON list, rows in the messages, prompt/completion,
// ShareGPT or Alpaca shape. Bad rows are reported (file, line, reason) and skipped.
#pragma once
#include "core/data/Conversation.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

struct RowError {
  std::string file;
  long line = -1;
  std::string reason;
  long item = -1;               // a JSON-list file: the element's 0-based index in the list
  std::string toString() const; // "file:line: reason" ("file:line: item I: reason" in a JSON list)
};

class DatasetReader {
public:
  // spec: a .jsonl/.json file or builtin:demo. Throws Error when the file cannot be opened.
  explicit DatasetReader(const std::string& spec);
  ~DatasetReader();
  DatasetReader(const DatasetReader&) = delete;
  DatasetReader& operator=(const DatasetReader&) = delete;

  // The next good row; false at the end. Bad rows go to errors() and are skipped.
  bool next(Conversation& out);
  // The next row that parses as JSON (any shape), with its 1-based line; false at the end. For
  // readers of other row shapes (preference data), which report their own bad rows with skip().
  bool nextJson(OrderedJson& row, long& line);
  // A JSON-list file: the 0-based index in the list of the row read last (nextJson, next); else -1.
  long lastItem() const { return item_; }
  // Where the row read last (nextJson, next) lies in the input: its first byte (a UTF-8 byte-order
  // mark counts) and its length, so DatasetIndex can read it back on its own.
  int64_t lastRowOffset() const { return rowOffset_; }
  int64_t lastRowBytes() const { return rowBytes_; }
  void skip(long line, std::string reason);                       // counts a bad row and keeps its error
  const std::vector<RowError>& errors() const { return errors_; } // first kMaxKeptErrors
  // The errors kept since the last call, handed over (the cap then counts from empty again): a
  // caller that takes them as they come sees every bad row.
  std::vector<RowError> takeErrors() { return std::exchange(errors_, {}); }
  long rowsRead() const { return rowsRead_; }
  long rowsSkipped() const { return rowsSkipped_; }
  double progress() const; // fraction of the input consumed, 0..1
  const std::string& spec() const { return spec_; }

  static constexpr size_t kMaxKeptErrors = 1000;
  static constexpr size_t kMaxRowBytes = size_t(64) << 20; // one row over 64 MiB is refused

private:
  struct Source;
  bool nextRawRow(std::string& text, long& line);
  bool nextLine(std::string& text, long& line);
  bool nextListElement(std::string& text, long& line);
  void skipItem(long line, std::string reason, long item);

  std::string spec_;
  std::unique_ptr<Source> src_;
  std::vector<RowError> errors_;
  long rowsRead_ = 0;
  long rowsSkipped_ = 0;
  long item_ = -1;
  int64_t rowOffset_ = -1;
  int64_t rowBytes_ = 0;
};

// Reads every good row (or the first limit rows). errors may be null.
std::vector<Conversation> readDataset(const std::string& spec, std::vector<RowError>* errors = nullptr,
                                      long limit = -1);
// Reads good row number `row` (0-based); throws Error when there are fewer rows.
Conversation readDatasetRow(const std::string& spec, long row);

} // namespace maskscope
