// LLaMA-Factory's mm plugins in dataset preparation (data/mm_plugin.py at ff6d4d1): process_messages
// replaces each <image> placeholder of the messages with the image's tokens before the template encodes
// them. Reproduced: Qwen2VLPlugin (<|vision_start|> + <|image_pad|> x N + <|vision_end|>, N from the
// image's size after LLaMA-Factory's resizing and Qwen2-VL's smart_resize) and Gemma3Plugin (Gemma 3's
// full image sequence, 256 <image_soft_token>, pan-and-scan refused); other plugins are refused.
#pragma once
#include "core/frameworks/llamafactory/LlamaFactoryRows.h"

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope::llamafactory {

// The <image> tokens one image becomes under Qwen2VLPlugin: _preprocess_image (image_max_pixels /
// image_min_pixels, then at least 28 a side and an aspect ratio under 200), then the image processor's
// smart_resize (Qwen2VLImageProcessor's defaults, factor 28), image_grid_thw.prod() // merge_size**2.
int64_t qwen2vlImageSeqlen(const Template& t, const LfImage& image);

inline constexpr int kGemma3ImageSeqLength = 256; // Gemma3Processor's image_seq_length

// Gemma3Processor.full_image_sequence, what each image becomes under Gemma3Plugin (and the collator's
// fake image).
std::string gemma3FullImageSequence(const Template& t);
// Gemma3Plugin.process_messages on messages already validated; pan-and-scan is refused for rows with images.
std::vector<LfMessage> gemma3Messages(const Template& t, std::vector<LfMessage> messages, bool withImages);

// mm_plugin.process_messages for the template's plugin: throws Error where LLaMA-Factory raises (images
// for a template without an image token, a placeholder count that does not match the images) and for a
// plugin maskscope does not reproduce. Messages without images pass unchanged.
std::vector<LfMessage> processMessages(const Template& t, std::vector<LfMessage> messages,
                                       const std::vector<LfImage>& images);

} // namespace maskscope::llamafactory
