// An offset index of a dataset file: one pass records where each good row lies (byte offset,
// length, line) and the few fixed-size facts the app's filters need, never the texts; a row is read
// back from the file when it is shown, through a small LRU cache. Lets the app open 5 GB datasets.
#pragma once
#include "core/data/DatasetReader.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace maskscope {

// Roles a row's messages hold, as bits of IndexedRow::roles.
enum RoleBit : uint8_t { kRoleSystem = 1, kRoleUser = 2, kRoleAssistant = 4, kRoleTool = 8, kRoleOther = 16 };

// One good row: 32 bytes whatever the row holds.
struct IndexedRow {
  int64_t offset = 0;    // first byte of the row in the file
  uint32_t bytes = 0;    // its length (rows over DatasetReader::kMaxRowBytes are refused when indexing)
  int32_t line = -1;     // 1-based line of the row (JSONL) or of its opening brace (JSON list)
  int32_t item = -1;     // a JSON-list file: index of the row in the list; else -1
  uint16_t messages = 0; // number of messages, capped at 65535
  uint8_t roles = 0;     // RoleBit set of the messages' roles
  uint8_t plainText = 0; // 1: a plain-text prompt/completion row
  uint32_t chars = 0;    // UTF-8 bytes of all contents (messages, plain prompt and completion), capped
};
static_assert(sizeof(IndexedRow) == 32, "the index keeps 32 bytes a row");

class DatasetIndex {
public:
  // Reads spec once (a .jsonl/.json file, or builtin:demo). progress gets the fraction read (0..1)
  // now and then and may return false to stop: build then throws Error("cancelled"). Throws Error
  // when the file cannot be opened. cacheBytes caps the rows kept parsed (a row longer than the
  // cap is parsed each time it is asked for, never kept).
  static std::shared_ptr<const DatasetIndex> build(const std::string& spec,
                                                   const std::function<bool(double)>& progress = {},
                                                   size_t cacheBytes = kDefaultCacheBytes);
  ~DatasetIndex();
  DatasetIndex(const DatasetIndex&) = delete;
  DatasetIndex& operator=(const DatasetIndex&) = delete;

  const std::string& spec() const { return spec_; }
  size_t rowCount() const { return rows_.size(); }
  const IndexedRow& row(size_t r) const { return rows_.at(r); }
  // Good row r read back from the file and parsed (sourceFile, sourceLine, sourceItem, rowIndex set as
  // DatasetReader sets them). Throws Error naming the file and line when the file changed on disk
  // since it was indexed or the row no longer parses. Safe to call from several threads.
  Conversation conversation(size_t r) const;
  // Streams the good rows from row `from` on, in order, through a fresh sequential reader (no cache,
  // memory of one row): visit(r, row) returns false to stop. For searches and measures over every
  // row. Throws Error when the file changed on disk since it was indexed (before or during).
  void forEachRow(size_t from, const std::function<bool(size_t, const Conversation&)>& visit) const;
  // The row's bytes as the file holds them (capped at DatasetReader::kMaxRowBytes by build).
  std::string rowText(size_t r) const;
  const std::vector<RowError>& errors() const { return errors_; } // first DatasetReader::kMaxKeptErrors
  long rowsSkipped() const { return rowsSkipped_; }
  // The file's size or modification time differ from when it was indexed ("" when unchanged; a
  // sentence naming the file otherwise). builtin: specs never change.
  std::string changedOnDisk() const;
  // What the index itself holds, in bytes (row entries, errors and the cache).
  size_t memoryBytes() const;

  static constexpr size_t kDefaultCacheBytes = size_t(16) << 20;
  static constexpr size_t kMaxCachedRows = 256;

private:
  explicit DatasetIndex(std::string spec, size_t cacheBytes);
  void index(const std::function<bool(double)>& progress);
  Conversation parse(size_t r, const std::string& text) const;

  std::string spec_;
  // A deque, not a vector: it grows in small blocks, so indexing a 5 GB file never holds two copies
  // of the entries while reallocating (a vector's peak is 3x its final size).
  std::deque<IndexedRow> rows_;
  std::vector<RowError> errors_;
  long rowsSkipped_ = 0;
  int fd_ = -1;             // the file, for pread; -1 for builtin: specs
  std::string_view memory_; // builtin: specs
  int64_t fileSize_ = 0;
  int64_t fileMtimeNs_ = 0;
  size_t cacheBytes_;
  // LRU cache of parsed rows: most recent first; the map finds a row's entry.
  mutable std::mutex cacheMutex_;
  mutable std::list<std::pair<size_t, std::shared_ptr<const Conversation>>> lru_;
  mutable std::unordered_map<size_t, decltype(lru_)::iterator> cached_;
  mutable size_t cachedBytes_ = 0;
};

} // namespace maskscope
