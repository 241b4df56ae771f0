// duplicate-row and mixed-row-shapes over the rows in file order (see DatasetRowChecks.h). The
// duplicate table is open addressing on the 64-bit hash (linear probing, at most half full).
#include "core/lint/DatasetRowChecks.h"

#include <cctype>
#include <climits>
#include <string_view>

namespace maskscope {

namespace {

// FNV-1a over the normalised bytes, then the splitmix64 finaliser so that every bit of the hash
// depends on every byte (the table indexes by the low bits).
class RowHasher {
public:
  void byte(unsigned char b) { h_ = (h_ ^ b) * 0x100000001b3ULL; }
  void raw(std::string_view s) {
    for (char c : s) byte(static_cast<unsigned char>(c));
  }
  void mark(unsigned char m) { byte(0x1f), byte(m); } // field separator (0x1f never ends a UTF-8 text)
  // A text with its whitespace normalised: runs become one space, the ends are dropped.
  void text(std::string_view s) {
    bool pendingSpace = false, any = false;
    for (char c : s) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        pendingSpace = any;
        continue;
      }
      if (pendingSpace) byte(' ');
      pendingSpace = false;
      any = true;
      byte(static_cast<unsigned char>(c));
    }
  }
  uint64_t value() const {
    uint64_t z = h_ + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z == 0 ? 1 : z; // 0 marks an empty slot
  }

private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

std::string withArticle(const std::string& noun) {
  return (noun.find_first_of("AEIOUaeiou") == 0 ? "an " : "a ") + noun;
}

} // namespace

uint64_t normalisedRowHash(const Conversation& c) {
  RowHasher h;
  if (c.plainText) {
    h.mark('P');
    h.text(c.plainPrompt);
    h.mark('C');
    h.text(c.plainCompletion);
  }
  for (const Message& m : c.messages) {
    h.mark('R');
    h.raw(m.role);
    h.mark('T');
    h.text(m.content);
    if (!m.extra.is_null()) {
      h.mark('E');
      h.raw(m.extra.dump());
    }
  }
  if (!c.tools.is_null()) {
    h.mark('O');
    h.raw(c.tools.dump());
  }
  h.mark('S');
  h.raw(std::to_string(c.promptMessageCount));
  return h.value();
}

void DatasetRowChecks::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? size_t(1) << 12 : old.size() * 2, Slot{});
  used_ = 0;
  for (const Slot& s : old)
    if (s.hash) findOrInsert(s.hash, RowLocation{s.line ? long(s.line) : -1, s.item});
}

const DatasetRowChecks::Slot* DatasetRowChecks::findOrInsert(uint64_t hash, const RowLocation& at) {
  const bool remember = used_ < kMaxRemembered;
  if (remember && (used_ + 1) * 2 > slots_.size()) grow();
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = size_t(hash) & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.hash == hash) return &s;
    if (s.hash != 0) continue;
    if (remember) {
      s.hash = hash;
      s.line = at.line > 0 && at.line <= long(UINT32_MAX) ? uint32_t(at.line) : 0;
      s.item = at.item >= 0 && at.item <= long(INT32_MAX) ? int32_t(at.item) : -1;
      ++used_;
    }
    return nullptr;
  }
}

void DatasetRowChecks::check(const Conversation& c, bool report, std::vector<Finding>& out) {
  const RowLocation here{c.sourceLine, c.sourceItem};
  if (!firstShape_) {
    firstShape_ = c.shape;
    firstShapeAt_ = here;
  } else if (c.shape != *firstShape_ && report) {
    Finding f = makeFinding("mixed-row-shapes", c.rowIndex, std::nullopt,
                            locationLabel(c.rowIndex, here) + ": " + withArticle(rowShapeName(c.shape)) +
                                " row in a file whose first row (" + locationLabel(0, firstShapeAt_) + ") is " +
                                withArticle(rowShapeName(*firstShape_)) +
                                " row: datasets.load_dataset reads one schema per file, so it refuses the file or "
                                "gives this row's missing columns as null");
    locate(f, here);
    out.push_back(std::move(f));
  }
  const bool full = used_ >= kMaxRemembered;
  if (const Slot* first = findOrInsert(normalisedRowHash(c), here); first && report) {
    const std::string firstAt =
        first->line ? locationLabel(-1, RowLocation{long(first->line), first->item}) : std::string("an earlier row");
    Finding f = makeFinding("duplicate-row", c.rowIndex, std::nullopt,
                            locationLabel(c.rowIndex, here) + " repeats " + firstAt +
                                " (the same roles and texts once runs of whitespace are made one space)");
    locate(f, here);
    out.push_back(std::move(f));
  }
  if (!full && used_ >= kMaxRemembered && !capReported_) {
    capReported_ = true;
    if (report)
      out.push_back(makeFinding("duplicate-row", std::nullopt, std::nullopt,
                                "duplicate-row remembers the first " + std::to_string(kMaxRemembered) +
                                    " rows; later rows are compared with those only, not with each other",
                                Severity::Info));
  }
}

} // namespace maskscope
