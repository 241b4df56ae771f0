// The offset index (DatasetIndex.h): DatasetReader splits and parses each row once, the index keeps
// where it lies and its facts; rows come back with pread and the same parse, through an LRU cache.
#include "core/data/DatasetIndex.h"
#include "core/data/RowShapes.h"
#include "core/resources/BuiltinResources.h"
#include "core/util/Error.h"
#include "core/util/JsonParse.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <limits>

namespace maskscope {

namespace {

uint8_t roleBit(const std::string& role) {
  if (role == "system") return kRoleSystem;
  if (role == "user") return kRoleUser;
  if (role == "assistant") return kRoleAssistant;
  if (role == "tool") return kRoleTool;
  return kRoleOther;
}

IndexedRow factsOf(const Conversation& c) {
  IndexedRow f;
  f.messages = uint16_t(std::min<size_t>(c.messages.size(), std::numeric_limits<uint16_t>::max()));
  size_t chars = c.plainPrompt.size() + c.plainCompletion.size();
  for (const Message& m : c.messages) {
    f.roles |= roleBit(m.role);
    chars += m.content.size();
  }
  f.chars = uint32_t(std::min<size_t>(chars, std::numeric_limits<uint32_t>::max()));
  f.plainText = c.plainText ? 1 : 0;
  return f;
}

bool statFile(int fd, int64_t& size, int64_t& mtimeNs) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  size = int64_t(st.st_size);
  mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + int64_t(st.st_mtim.tv_nsec);
  return true;
}

} // namespace

DatasetIndex::DatasetIndex(std::string spec, size_t cacheBytes) : spec_(std::move(spec)), cacheBytes_(cacheBytes) {}

DatasetIndex::~DatasetIndex() {
  if (fd_ >= 0) ::close(fd_);
}

std::shared_ptr<const DatasetIndex>
DatasetIndex::build(const std::string& spec, const std::function<bool(double)>& progress, size_t cacheBytes) {
  std::shared_ptr<DatasetIndex> index(new DatasetIndex(spec, cacheBytes));
  index->index(progress);
  return index;
}

void DatasetIndex::index(const std::function<bool(double)>& progress) {
  DatasetReader reader(spec_); // throws when the file is missing or unreadable
  if (spec_.rfind("builtin:", 0) == 0) {
    auto data = builtinResource("demo/dataset.jsonl");
    if (!data) throw Error("the demo dataset is missing from this build", {spec_});
    memory_ = *data;
  } else {
    // The descriptor rows are read back through: opened before the pass, so a file replaced
    // meanwhile is still the one indexed, and its size and time are what changedOnDisk compares.
    fd_ = ::open(spec_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0 || !statFile(fd_, fileSize_, fileMtimeNs_)) throw Error("cannot open dataset file", {spec_});
  }
  Conversation c;
  for (long n = 0; reader.next(c); ++n) {
    IndexedRow f = factsOf(c);
    f.offset = reader.lastRowOffset();
    f.bytes = uint32_t(reader.lastRowBytes());
    f.line = int32_t(std::min<long>(c.sourceLine, std::numeric_limits<int32_t>::max()));
    f.item = int32_t(std::min<long>(c.sourceItem, std::numeric_limits<int32_t>::max()));
    rows_.push_back(f);
    if (progress && (n & 1023) == 0 && !progress(reader.progress())) throw Error("cancelled", {spec_});
  }
  errors_ = reader.errors();
  rowsSkipped_ = reader.rowsSkipped();
  if (progress) progress(1.0);
}

std::string DatasetIndex::changedOnDisk() const {
  if (fd_ < 0) return {};
  struct stat st {};
  if (::stat(spec_.c_str(), &st) != 0) return spec_ + ": the dataset file was removed or renamed since it was opened";
  const int64_t mtime = int64_t(st.st_mtim.tv_sec) * 1000000000 + int64_t(st.st_mtim.tv_nsec);
  if (int64_t(st.st_size) != fileSize_ || mtime != fileMtimeNs_)
    return spec_ + ": the dataset file changed on disk since it was opened (" + std::to_string(fileSize_) + " -> " +
           std::to_string(int64_t(st.st_size)) + " bytes); reopen it to see its rows";
  return {};
}

std::string DatasetIndex::rowText(size_t r) const {
  const IndexedRow& f = rows_.at(r);
  if (fd_ < 0) {
    if (size_t(f.offset) + f.bytes > memory_.size()) throw Error("row is outside the dataset", {spec_, f.line});
    return std::string(memory_.substr(size_t(f.offset), f.bytes));
  }
  // The descriptor still reads the file that was indexed, but a file rewritten in place would read
  // other bytes: say so instead of showing them as the row.
  if (std::string why = changedOnDisk(); !why.empty()) throw Error(why, {spec_, f.line});
  std::string text(f.bytes, '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t got = ::pread(fd_, text.data() + done, text.size() - done, off_t(f.offset + int64_t(done)));
    if (got <= 0) throw Error("cannot read the row back from the dataset file", {spec_, f.line, -1, f.offset});
    done += size_t(got);
  }
  return text;
}

Conversation DatasetIndex::parse(size_t r, const std::string& text) const {
  const IndexedRow& f = rows_[r];
  std::string why;
  const OrderedJson json = parseOrderedJsonOrExplain(text, &why);
  if (json.is_discarded()) throw Error("the row no longer parses: " + why, {spec_, f.line, -1, f.offset});
  Conversation c = conversationFromJson(json);
  c.sourceFile = spec_;
  c.sourceLine = f.line;
  c.sourceItem = f.item;
  c.rowIndex = long(r);
  return c;
}

Conversation DatasetIndex::conversation(size_t r) const {
  if (r >= rows_.size())
    throw Error("row " + std::to_string(r) + " is outside the dataset (" + std::to_string(rows_.size()) + " rows)",
                {spec_});
  {
    std::lock_guard<std::mutex> lock(cacheMutex_);
    if (auto at = cached_.find(r); at != cached_.end()) {
      lru_.splice(lru_.begin(), lru_, at->second);
      if (changedOnDisk().empty()) return *at->second->second;
    }
  }
  Conversation c = parse(r, rowText(r));
  const size_t bytes = rows_[r].bytes;
  if (bytes > cacheBytes_) return c; // longer than the whole cache: parsed each time, never kept
  std::lock_guard<std::mutex> lock(cacheMutex_);
  if (cached_.count(r)) return c; // another thread cached it meanwhile
  lru_.emplace_front(r, std::make_shared<const Conversation>(c));
  cached_[r] = lru_.begin();
  cachedBytes_ += bytes;
  while (!lru_.empty() && (cachedBytes_ > cacheBytes_ || lru_.size() > kMaxCachedRows)) {
    cachedBytes_ -= rows_[lru_.back().first].bytes;
    cached_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return c;
}

void DatasetIndex::forEachRow(size_t from, const std::function<bool(size_t, const Conversation&)>& visit) const {
  if (std::string why = changedOnDisk(); !why.empty()) throw Error(why, {spec_});
  DatasetReader reader(spec_); // the same splitting and parsing as the index: row r is the r-th good row
  Conversation c;
  for (size_t r = 0; r < rows_.size() && reader.next(c); ++r) {
    if (r < from) continue;
    if (reader.lastRowOffset() != rows_[r].offset) // the file was rewritten in place
      throw Error(changedOnDisk().empty() ? "the dataset file no longer matches its index; reopen it" : changedOnDisk(),
                  {spec_, c.sourceLine});
    if (!visit(r, c)) return;
  }
}

size_t DatasetIndex::memoryBytes() const {
  std::lock_guard<std::mutex> lock(cacheMutex_);
  size_t errors = 0;
  for (const RowError& e : errors_) errors += sizeof(RowError) + e.file.size() + e.reason.size();
  // Parsed rows take a few times their file bytes; 3x is a round estimate, not a measurement.
  return rows_.size() * sizeof(IndexedRow) + errors + 3 * cachedBytes_;
}

} // namespace maskscope
