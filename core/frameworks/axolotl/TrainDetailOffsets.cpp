// training_detail -> trained tokens (ChatTemplatePrompter.get_offsets_for_train_detail and
// adjust_train_details, v0.18.0). The text is tokenized on its own; each token's span becomes
// (its start, the next token's start - 1), the last one ending at len(text) - 1, all in characters
// (code points, as Python indexes str); each detail is widened to token boundaries; a token is
// trained when a trained detail contains it wholly. maskscope's tokenizer reports byte offsets;
// they are turned into code point indices here.
#include "core/frameworks/axolotl/ChatTemplateStrategy.h"
#include "core/util/Error.h"
#include "core/util/Utf8.h"

namespace maskscope::axolotl {

namespace {

struct CharSpan {
  int64_t start = 0, end = 0; // inclusive end
};

// The code point index of each byte offset of text (a byte inside a sequence maps to its code point).
std::vector<int64_t> charIndexOfByte(const std::string& text) {
  std::vector<int64_t> index(text.size() + 1, 0);
  int64_t cp = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t begin = pos;
    utf8::decode(text, pos);
    for (size_t b = begin; b < pos; ++b) index[b] = cp;
    ++cp;
  }
  index[text.size()] = cp;
  return index;
}

void adjustDetails(const std::vector<TrainDetail>& details, const std::vector<CharSpan>& tokens,
                   std::vector<TrainDetail>& out, std::vector<std::string>& warnings) {
  const long n = long(tokens.size());
  for (const auto& d : details) {
    long begin = n; // first token starting at or after begin_offset
    for (long i = 0; i < n; ++i)
      if (tokens[size_t(i)].start >= d.begin) {
        begin = i;
        break;
      }
    if (begin > 0 && tokens[size_t(begin - 1)].end > d.begin) --begin;
    long end = -1; // last token ending at or before end_offset
    for (long i = n - 1; i >= 0; --i)
      if (tokens[size_t(i)].end <= d.end) {
        end = i;
        break;
      }
    if (end < n - 1 && tokens[size_t(end + 1)].start < d.end) ++end;
    if (begin <= end) {
      const int64_t b = tokens[size_t(begin)].start, e = tokens[size_t(end)].end;
      if (b != d.begin || e != d.end)
        warnings.push_back("Adjusting detail offsets: (" + std::to_string(d.begin) + ", " + std::to_string(d.end) +
                           ") -> (" + std::to_string(b) + ", " + std::to_string(e) + ")");
      out.push_back({b, e, d.train});
    } else {
      warnings.push_back("Could not adjust detail offsets: (" + std::to_string(d.begin) + ", " + std::to_string(d.end) +
                         "). Skipping this detail.");
    }
  }
}

} // namespace

std::vector<bool> ChatTemplateStrategy::trainedTokens(const std::string& text, const std::vector<TrainDetail>& details,
                                                      std::vector<std::string>& warnings) const {
  EncodeOptions eo;
  eo.addSpecialTokens = false;
  eo.tokenStrings = false;
  const Encoding enc = tokenizer_->encode(text, eo);
  if (enc.ids.empty()) throw Error("training_detail on an empty content (Axolotl fails with IndexError)");
  const auto charAt = charIndexOfByte(text);
  std::vector<CharSpan> tokens(enc.ids.size());
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i].start = charAt[size_t(std::clamp<int64_t>(enc.offsets[i].begin, 0, int64_t(text.size())))];
  for (size_t i = 0; i + 1 < tokens.size(); ++i) tokens[i].end = tokens[i + 1].start - 1;
  tokens.back().end = pythonLength(text) - 1;
  std::vector<TrainDetail> adjusted;
  adjustDetails(details, tokens, adjusted, warnings);
  std::vector<bool> trained(tokens.size(), false);
  for (size_t i = 0; i < tokens.size(); ++i)
    for (const auto& d : adjusted)
      if (tokens[i].start >= d.begin && tokens[i].end <= d.end && d.train) trained[i] = true;
  return trained;
}

} // namespace maskscope::axolotl
