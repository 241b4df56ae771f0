// A half-open range [begin, end) of UTF-8 bytes in some text.
#pragma once
#include <cstdint>

namespace maskscope {

struct ByteSpan {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
  bool contains(int64_t pos) const { return pos >= begin && pos < end; }
  bool overlaps(const ByteSpan& o) const { return begin < o.end && o.begin < end; }
  friend bool operator==(const ByteSpan&, const ByteSpan&) = default;
};

} // namespace maskscope
