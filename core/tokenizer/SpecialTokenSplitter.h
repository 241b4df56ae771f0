// Splits text on special-token strings (leftmost, longest first), as transformers does before
// handing the pieces in between to the model tokenizer.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

struct TextChunk {
  std::string_view text;
  int64_t offset = 0;    // byte offset of text in the whole input
  int specialIndex = -1; // index into the special strings when this chunk is one, else -1
};

class SpecialTokenSplitter {
public:
  explicit SpecialTokenSplitter(std::vector<std::string> specials);
  std::vector<TextChunk> split(std::string_view text) const;
  const std::vector<std::string>& specials() const { return specials_; }

private:
  std::vector<std::string> specials_;
};

} // namespace maskscope
