// Message content given as a list of parts, as processors take it: {"type": "text", "text": ...},
// {"type": "image", "width": W, "height": H} (or "image_url" with a size). maskscope never loads
// pixels: an image part must say its size, which decides how many tokens the processor writes.
#pragma once
#include "core/data/Conversation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

inline constexpr int64_t kMaxImageSide = 1 << 16; // pixels; a larger side is refused as a typo

// One image of a conversation, in the order the template meets it.
struct ImagePart {
  int messageIndex = -1;
  int partIndex = -1; // index in the message's content list
  int64_t width = 0;
  int64_t height = 0;
};

// True for an image part: "type" image or image_url, or an "image" / "image_url" key (the tests
// the Qwen2-VL template makes).
bool isImagePart(const OrderedJson& part);
// True for a video part ("type" video or a "video" key): not supported yet, refused by the reader.
bool isVideoPart(const OrderedJson& part);

// The size of an image part: "width" and "height" on the part, or inside its "image" / "image_url"
// object. Throws an Error starting with `where` when either is missing, not an integer or out of
// [1, kMaxImageSide].
ImagePart imagePartOf(const OrderedJson& part, const std::string& where);

// The image parts of every message whose content is a list (Message::extra["content"]), in order.
std::vector<ImagePart> imagePartsOf(const std::vector<Message>& messages);

} // namespace maskscope
