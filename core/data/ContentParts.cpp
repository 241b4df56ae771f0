// Image parts of list contents (ContentParts.h): recognised as the Qwen2-VL template recognises
// them, sized from the part or its image / image_url object.
#include "core/data/ContentParts.h"
#include "core/util/Error.h"

namespace maskscope {

namespace {

bool typeIs(const OrderedJson& part, const char* type) {
  auto it = part.find("type");
  return it != part.end() && it->is_string() && it->get<std::string>() == type;
}

// The integer `key` of the part, or of its nested image / image_url object; 0 when absent.
const OrderedJson* sizeField(const OrderedJson& part, const char* key) {
  if (part.contains(key)) return &part[key];
  for (const char* nested : {"image", "image_url", "video"})
    if (part.contains(nested) && part[nested].is_object() && part[nested].contains(key)) return &part[nested][key];
  return nullptr;
}

int64_t side(const OrderedJson& part, const char* key, const std::string& where, const char* what = "image",
             int64_t most = kMaxImageSide) {
  const OrderedJson* v = sizeField(part, key);
  if (!v)
    throw Error(where + ": " + what + " part has no \"" + key + "\": maskscope never loads pixels, give the " + what +
                "'s " + (std::string(key) == "frames" ? "frame count" : "width and height (in pixels)") +
                " on the part");
  if (!v->is_number_integer()) throw Error(where + ": " + what + " \"" + key + "\" is not an integer");
  const int64_t n = v->get<int64_t>();
  if (n < 1 || n > most)
    throw Error(where + ": " + what + " \"" + key + "\" " + std::to_string(n) + " is outside [1, " +
                std::to_string(most) + "]");
  return n;
}

std::vector<ImagePart> partsOf(const std::vector<Message>& messages, bool videos) {
  std::vector<ImagePart> out;
  for (size_t m = 0; m < messages.size(); ++m) {
    const OrderedJson& extra = messages[m].extra;
    if (!extra.is_object() || !extra.contains("content") || !extra["content"].is_array()) continue;
    const OrderedJson& parts = extra["content"];
    for (size_t i = 0; i < parts.size(); ++i) {
      // the Qwen2-VL template's order of tests: an image test first, then the video one
      const bool image = isImagePart(parts[i]);
      if (videos ? (image || !isVideoPart(parts[i])) : !image) continue;
      const std::string where = "messages[" + std::to_string(m) + "].content[" + std::to_string(i) + "]";
      ImagePart p = videos ? videoPartOf(parts[i], where) : imagePartOf(parts[i], where);
      p.messageIndex = int(m);
      p.partIndex = int(i);
      out.push_back(p);
    }
  }
  return out;
}

} // namespace

bool isImagePart(const OrderedJson& part) {
  if (!part.is_object()) return false;
  return typeIs(part, "image") || typeIs(part, "image_url") || part.contains("image") || part.contains("image_url");
}

bool isVideoPart(const OrderedJson& part) {
  return part.is_object() && (typeIs(part, "video") || part.contains("video"));
}

ImagePart imagePartOf(const OrderedJson& part, const std::string& where) {
  ImagePart p;
  p.width = side(part, "width", where);
  p.height = side(part, "height", where);
  return p;
}

ImagePart videoPartOf(const OrderedJson& part, const std::string& where) {
  ImagePart p;
  p.frames = side(part, "frames", where, "video", kMaxVideoFrames);
  p.width = side(part, "width", where, "video");
  p.height = side(part, "height", where, "video");
  return p;
}

std::vector<ImagePart> imagePartsOf(const std::vector<Message>& messages) { return partsOf(messages, false); }

std::vector<ImagePart> videoPartsOf(const std::vector<Message>& messages) { return partsOf(messages, true); }

} // namespace maskscope
