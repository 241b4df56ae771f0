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
  for (const char* nested : {"image", "image_url"})
    if (part.contains(nested) && part[nested].is_object() && part[nested].contains(key)) return &part[nested][key];
  return nullptr;
}

int64_t side(const OrderedJson& part, const char* key, const std::string& where) {
  const OrderedJson* v = sizeField(part, key);
  if (!v)
    throw Error(where + ": image part has no \"" + key +
                "\": maskscope never loads pixels, give the image's width and height (in pixels) on the part");
  if (!v->is_number_integer()) throw Error(where + ": image \"" + key + "\" is not an integer");
  const int64_t n = v->get<int64_t>();
  if (n < 1 || n > kMaxImageSide)
    throw Error(where + ": image \"" + key + "\" " + std::to_string(n) + " is outside [1, " +
                std::to_string(kMaxImageSide) + "]");
  return n;
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

std::vector<ImagePart> imagePartsOf(const std::vector<Message>& messages) {
  std::vector<ImagePart> out;
  for (size_t m = 0; m < messages.size(); ++m) {
    const OrderedJson& extra = messages[m].extra;
    if (!extra.is_object() || !extra.contains("content") || !extra["content"].is_array()) continue;
    const OrderedJson& parts = extra["content"];
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!isImagePart(parts[i])) continue;
      ImagePart p = imagePartOf(parts[i], "messages[" + std::to_string(m) + "].content[" + std::to_string(i) + "]");
      p.messageIndex = int(m);
      p.partIndex = int(i);
      out.push_back(p);
    }
  }
  return out;
}

} // namespace maskscope
