// The interned tool-name table (ToolNames.h): a mutex-guarded list and its index.
#include "core/data/ToolNames.h"

#include <mutex>
#include <unordered_map>
#include <vector>

namespace maskscope {

namespace {

struct Table {
  std::mutex mutex;
  std::vector<std::string> names;
  std::unordered_map<std::string, uint16_t> ids;
};

Table& table() {
  static Table t;
  return t;
}

// At most kMaxToolNameBytes, never ending inside a UTF-8 sequence.
std::string_view capped(std::string_view s) {
  if (s.size() <= kMaxToolNameBytes) return s;
  size_t n = kMaxToolNameBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

} // namespace

uint16_t internToolName(std::string_view name) {
  name = capped(name);
  if (name.empty()) return 0;
  Table& t = table();
  std::lock_guard lock(t.mutex);
  const std::string key(name);
  if (auto it = t.ids.find(key); it != t.ids.end()) return it->second;
  if (t.names.size() >= kMaxToolNames) return 0;
  t.names.push_back(key);
  const auto id = static_cast<uint16_t>(t.names.size());
  t.ids.emplace(key, id);
  return id;
}

std::string toolNameOf(uint16_t id) {
  if (id == 0) return {};
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return id <= t.names.size() ? t.names[id - 1] : std::string();
}

} // namespace maskscope
