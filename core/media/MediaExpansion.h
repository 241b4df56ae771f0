// The processor's step between the chat template and the tokenizer: each image placeholder the
// template wrote is replaced by the image's tokens (VisionProcessors.h), in order, one image per
// placeholder, as Qwen2VLProcessor / Gemma3Processor / LlavaProcessor do before tokenizing.
#pragma once
#include "core/data/ContentParts.h"
#include "core/data/TokenizedConversation.h"
#include "core/media/VisionProcessors.h"

#include <string>
#include <vector>

namespace maskscope {

// One replacement in the text: `oldSize` bytes at `at` (original coordinates) became `newSize`.
struct TextEdit {
  int64_t at = 0;
  int64_t oldSize = 0;
  int64_t newSize = 0;
};

struct ExpandedImages {
  std::string text;
  std::vector<TextEdit> edits;   // in text order
  std::vector<ImageSpan> images; // one per placeholder, spans in the expanded text
  int placeholders = 0;          // image placeholders the template wrote
  int videoPlaceholders = 0;     // video placeholders likewise
};

// Expands the placeholders of `text` for `images` (the row's image parts in order). Placeholders
// beyond the images stay as written (the processor would fail on them: lint image-token-count-
// mismatch); images beyond the placeholders get none (lint image-without-placeholder).
// Video placeholders (Qwen2-VL's <|video_pad|>) take `videos` in order the same way; bounds are the
// processor's min_pixels / max_pixels.
ExpandedImages expandImagePlaceholders(const std::string& text, const std::vector<ImagePart>& images,
                                       const VisionProcessor& processor, const std::vector<ImagePart>& videos = {},
                                       PixelBounds bounds = {});

// A byte position of the text before the edits, in the text after them. A begin inside a replaced
// placeholder moves to its start, an end inside one to the end of its replacement.
int64_t positionAfterEdits(int64_t pos, const std::vector<TextEdit>& edits, bool isEnd);
ByteSpan spanAfterEdits(ByteSpan span, const std::vector<TextEdit>& edits);

} // namespace maskscope
