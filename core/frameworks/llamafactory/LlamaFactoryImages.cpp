// MMPluginMixin._validate_input / _validate_messages / _preprocess_image, Qwen2VLPlugin's
// _preprocess_image and process_messages and Gemma3Plugin's process_messages (mm_plugin.py at ff6d4d1),
// with the images' sizes standing in for the PIL images LLaMA-Factory opens.
#include "core/frameworks/llamafactory/LlamaFactoryImages.h"

#include "core/media/VisionProcessors.h"
#include "core/util/Error.h"
#include "core/util/StringReplace.h"

#include <cmath>

namespace maskscope::llamafactory {

namespace {

const std::string kImagePlaceholder = "<image>"; // IMAGE_PLACEHOLDER (the environment variable's default)

size_t countOf(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

} // namespace

std::string gemma3FullImageSequence(const Template& t) {
  // Gemma3Processor.full_image_sequence: "\n\n" + boi_token + image_token x image_seq_length + eoi_token
  // + "\n\n" (transformers models/gemma3/processing_gemma3.py; image_seq_length 256).
  std::string s = "\n\n" + t.visionBos;
  for (int i = 0; i < kGemma3ImageSeqLength; ++i) s += t.imageToken;
  return s + t.visionEos + "\n\n";
}

std::vector<LfMessage> gemma3Messages(const Template& t, std::vector<LfMessage> messages, bool withImages) {
  if (t.panAndScan && withImages)
    throw Error("image_do_pan_and_scan: Gemma 3's pan-and-scan crops (a block per crop, their count from the "
                "image processor) are not reproduced by maskscope");
  // Gemma3Plugin.process_messages (expand_mm_tokens): each <image> becomes "{{image}}", then every
  // "{{image}}" of the message the full image sequence.
  const std::string marker = "{{image}}", full = gemma3FullImageSequence(t);
  for (LfMessage& m : messages) m.content = replaceAll(replaceAll(m.content, kImagePlaceholder, marker), marker, full);
  return messages;
}

int64_t qwen2vlImageSeqlen(const Template& t, const LfImage& image) {
  int64_t w = image.width, h = image.height;
  // MMPluginMixin._preprocess_image: int() of the scaled sides (truncation), max first, then min.
  if (w * h > t.imageMaxPixels) {
    const double f = std::sqrt(double(t.imageMaxPixels) / double(w * h));
    w = int64_t(double(w) * f);
    h = int64_t(double(h) * f);
  }
  if (w * h < t.imageMinPixels) {
    if (w * h == 0) throw Error("an image resized to zero pixels (LLaMA-Factory raises ZeroDivisionError)");
    const double f = std::sqrt(double(t.imageMinPixels) / double(w * h));
    w = int64_t(double(w) * f);
    h = int64_t(double(h) * f);
  }
  // Qwen2VLPlugin._preprocess_image
  if (std::min(w, h) < 28) {
    w = std::max<int64_t>(w, 28);
    h = std::max<int64_t>(h, 28);
  }
  if (double(w) / double(h) > 200) w = h * 180;
  if (double(h) / double(w) > 200) h = w * 180;
  const ResizedImage r = qwenSmartResize(h, w); // grid (1, h/14, w/14), merge_size 2
  return (r.height / 14) * (r.width / 14) / 4;
}

std::vector<LfMessage> processMessages(const Template& t, std::vector<LfMessage> messages,
                                       const std::vector<LfImage>& images) {
  // _validate_input: images need a plugin with an image token.
  if (!images.empty() && t.imageToken.empty())
    throw Error("This model does not support image input. Please check whether the correct `template` is used. "
                "(template " +
                t.name + ")");
  if (t.mmPlugin == "base") return messages; // BasePlugin.process_messages
  size_t placeholders = 0;                   // _validate_messages
  for (const LfMessage& m : messages) placeholders += countOf(m.content, kImagePlaceholder);
  // Gemma3Plugin replaces "{{image}}" in every message, images or not (a literal one becomes an image block).
  if (images.empty() && placeholders == 0)
    return t.mmPlugin == "gemma3" ? gemma3Messages(t, std::move(messages), false) : messages;
  if (t.mmPlugin != "qwen2_vl" && t.mmPlugin != "gemma3")
    throw Error("template " + t.name + ": LLaMA-Factory's " + t.mmPlugin +
                " mm plugin is not reproduced by maskscope (reproduced: qwen2_vl, gemma3)");
  if (placeholders != images.size())
    throw Error("The number of images does not match the number of " + kImagePlaceholder + " tokens (" +
                std::to_string(images.size()) + " images, " + std::to_string(placeholders) + " placeholders)");
  if (t.mmPlugin == "gemma3") return gemma3Messages(t, std::move(messages), true);
  size_t next = 0;
  for (LfMessage& m : messages) {
    std::string out;
    size_t pos = 0;
    for (size_t p = m.content.find(kImagePlaceholder); p != std::string::npos;
         p = m.content.find(kImagePlaceholder, pos)) {
      const int64_t n = qwen2vlImageSeqlen(t, images[next++]);
      out += m.content.substr(pos, p - pos) + t.visionBos;
      for (int64_t i = 0; i < n; ++i) out += t.imageToken;
      out += t.visionEos;
      pos = p + kImagePlaceholder.size();
    }
    m.content = out + m.content.substr(pos);
  }
  return messages;
}

} // namespace maskscope::llamafactory
