// Placeholder expansion (MediaExpansion.h). Qwen2-VL replaces each <|image_pad|> with the image's
// count of <|image_pad|> (the template already wrote <|vision_start|> and <|vision_end|>); Gemma 3
// replaces each <start_of_image> with "\n\n<start_of_image>" + 256 x <image_soft_token> +
// "<end_of_image>\n\n"; LLaVA repeats <image> 576 times. Qwen2-VL's <|video_pad|> becomes the
// video's count of <|video_pad|> likewise.
#include "core/media/MediaExpansion.h"

namespace maskscope {

namespace {

std::string repeated(const std::string& s, int64_t n) {
  std::string out;
  out.reserve(size_t(n) * s.size());
  for (int64_t i = 0; i < n; ++i) out += s;
  return out;
}

} // namespace

namespace {

// The next placeholder of either kind at or after `from`: its position and whether it is a video's.
std::pair<size_t, bool> nextPlaceholder(const std::string& text, size_t from, const VisionProcessor& p) {
  const size_t image = text.find(p.placeholder, from);
  const size_t video = p.videoToken.empty() ? std::string::npos : text.find(p.videoToken, from);
  return video < image ? std::pair{video, true} : std::pair{image, false};
}

} // namespace

ExpandedImages expandImagePlaceholders(const std::string& text, const std::vector<ImagePart>& images,
                                       const VisionProcessor& p, const std::vector<ImagePart>& videos,
                                       PixelBounds bounds) {
  ExpandedImages out;
  out.text.reserve(text.size());
  size_t from = 0;
  for (;;) {
    const auto [at, isVideo] = nextPlaceholder(text, from, p);
    if (at == std::string::npos) break;
    const std::string& placeholder = isVideo ? p.videoToken : p.placeholder;
    out.text.append(text, from, at - from);
    from = at + placeholder.size();
    const int k = isVideo ? out.videoPlaceholders++ : out.placeholders++;
    const std::vector<ImagePart>& parts = isVideo ? videos : images;
    ImageSpan span;
    span.video = isVideo;
    int64_t blockBegin = int64_t(out.text.size());
    std::string replacement = placeholder;
    if (size_t(k) < parts.size()) {
      const ImagePart& img = parts[size_t(k)];
      span.image = k;
      span.messageIndex = img.messageIndex;
      span.expectedTokens = isVideo ? videoTokenCount(p, img.frames, img.width, img.height, bounds)
                                    : imageTokenCount(p, img.width, img.height, bounds);
      const std::string tokens = repeated(isVideo ? p.videoToken : p.imageToken, span.expectedTokens);
      if (p.family == VisionFamily::Gemma3) {
        replacement = "\n\n" + p.blockStart + tokens + p.blockEnd + "\n\n";
        blockBegin += 2;
      } else {
        replacement = tokens;
      }
    }
    int64_t blockEnd =
        blockBegin + int64_t(replacement.size()) - (p.family == VisionFamily::Gemma3 && span.image >= 0 ? 4 : 0);
    // Qwen2-VL: the template's own markers around the placeholder belong to the block.
    if (p.family == VisionFamily::Qwen2VL) {
      if (out.text.ends_with(p.blockStart)) blockBegin -= int64_t(p.blockStart.size());
      if (text.compare(from, p.blockEnd.size(), p.blockEnd) == 0) blockEnd += int64_t(p.blockEnd.size());
    }
    out.edits.push_back({int64_t(at), int64_t(placeholder.size()), int64_t(replacement.size())});
    out.text += replacement;
    span.block = {blockBegin, blockEnd};
    out.images.push_back(span);
  }
  out.text.append(text, from, std::string::npos);
  return out;
}

int64_t positionAfterEdits(int64_t pos, const std::vector<TextEdit>& edits, bool isEnd) {
  int64_t shift = 0;
  for (const TextEdit& e : edits) {
    if (pos >= e.at + e.oldSize) {
      shift += e.newSize - e.oldSize;
    } else if (pos > e.at) {
      return e.at + shift + (isEnd ? e.newSize : 0);
    } else {
      break;
    }
  }
  return pos + shift;
}

ByteSpan spanAfterEdits(ByteSpan span, const std::vector<TextEdit>& edits) {
  return {positionAfterEdits(span.begin, edits, false), positionAfterEdits(span.end, edits, true)};
}

} // namespace maskscope
