// Axolotl's multimodal labels (src/axolotl/processing_strategies.py, v0.18.0 = 2f5cb9da): which
// ProcessingStrategy get_processing_strategy picks, its role boundaries, the role scanner
// (_compute_role_keep_mask) and process_labels (pad and media tokens -100), and the row
// normalisation of ProcessingStrategy.__call__ (string contents become text parts, an image column
// fills the first bare image part). Used by MultiModalChatDataCollator (AxolotlMultimodal.cpp).
#pragma once
#include "core/tokenizer/Tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace maskscope::axolotl {

using OrderedJson = nlohmann::ordered_json;

// One role's token markers (RoleBoundary): empty end = the span runs to the end of the row.
struct RoleBoundary {
  std::string role;
  std::vector<int64_t> start, end;
  bool includeStart = false;
  bool includeEnd = true;
};

struct MultimodalSettings {
  std::string chatTemplateType; // cfg.chat_template ("" = unset): picks the strategy
  std::string processorType = "AutoProcessor";
  bool trainOnInputs = false;
  std::vector<std::string> rolesToTrain{"assistant"}; // None -> ["assistant"]
  std::string trainOnEos = "turn";                    // turn, all, none, last
  OrderedJson roleBoundaries;                         // cfg.role_boundaries (null or [] = built-ins)
  std::vector<std::string> fieldMessages{"messages"};
  std::optional<std::pair<int64_t, int64_t>> imageSize; // (width, height) of a column image
};

struct MultimodalStrategy {
  std::string className;                 // "Qwen2VLProcessingStrategy", ...
  std::vector<RoleBoundary> boundaries;  // empty: no role masking (the base strategy)
  std::set<int64_t> maskedIds;           // media tokens process_labels sets to -100
  std::vector<std::string> maskedTokens; // their strings, for the message
};

// get_processing_strategy for the family whose placeholder the template writes ("qwen2-vl",
// "gemma3", "llava"). Throws Error naming the strategy Axolotl would use where it is not reproduced.
MultimodalStrategy chooseMultimodalStrategy(const MultimodalSettings& s, const std::string& family,
                                            const Tokenizer& tokenizer, const std::string& source);

// _compute_role_keep_mask for one row: 1 where the row's role spans keep the label.
std::vector<uint8_t> roleKeepMask(const std::vector<int64_t>& ids, const std::vector<RoleBoundary>& boundaries,
                                  const std::set<std::string>& rolesToTrain, const std::string& trainOnEos);

// process_labels for one padded row.
std::vector<int64_t> multimodalLabels(const std::vector<int64_t>& ids, const MultimodalStrategy& strategy,
                                      const MultimodalSettings& s, std::optional<int64_t> padId);

// ProcessingStrategy.__call__ for one row: the row's "messages" as the collator renders them.
// Throws Error (Axolotl's ValueError text) for a row it refuses; warnings get its LOG.warning lines.
OrderedJson normalizeMultimodalRow(const OrderedJson& row, const MultimodalSettings& s,
                                   std::vector<std::string>& warnings);

} // namespace maskscope::axolotl
