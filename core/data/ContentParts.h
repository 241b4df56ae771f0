// Message content given as a list of parts, as processors take it: {"type": "text", "text": ...},
// {"type": "image", "width": W, "height": H} (or "image_url" with a size). maskscope never loads
// pixels: an image part must say its size, which decides how many tokens the processor writes;
// a video part ({"type": "video", "frames": N, "width": W, "height": H}) its frame count and size.
#pragma once
#include "core/data/Conversation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

inline constexpr int64_t kMaxImageSide = 1 << 16;   // pixels; a larger side is refused as a typo
inline constexpr int64_t kMaxVideoFrames = 1 << 14; // frames of one video part

// One image of a conversation, in the order the template meets it.
struct ImagePart {
  int messageIndex = -1;
  int partIndex = -1; // index in the message's content list
  int64_t width = 0;
  int64_t height = 0;
  int64_t frames = 0; // video parts: the frames the processor receives (0 for an image)
};

// True for an image part: "type" image or image_url, or an "image" / "image_url" key (the tests
// the Qwen2-VL template makes).
bool isImagePart(const OrderedJson& part);
// True for a video part ("type" video or a "video" key).
bool isVideoPart(const OrderedJson& part);

// The size of an image part: "width" and "height" on the part, or inside its "image" / "image_url"
// object. Throws an Error starting with `where` when either is missing, not an integer or out of
// [1, kMaxImageSide].
ImagePart imagePartOf(const OrderedJson& part, const std::string& where);

// The size and frame count of a video part: "frames", "width" and "height" on the part or inside
// its "video" object. Throws like imagePartOf; frames must be in [1, kMaxVideoFrames].
ImagePart videoPartOf(const OrderedJson& part, const std::string& where);

// The image parts of every message whose content is a list (Message::extra["content"]), in order.
std::vector<ImagePart> imagePartsOf(const std::vector<Message>& messages);
// The video parts likewise (frames > 0), in order.
std::vector<ImagePart> videoPartsOf(const std::vector<Message>& messages);

} // namespace maskscope
