// What each token of an Axolotl row is (role, message, template text or content, reply, closing
// token), for lint and the app. Found from one render of the turns with message spans, tokenized
// the same way; it describes the positions, it never decides a label.
#pragma once
#include "core/data/Batch.h"
#include "core/template/JinjaChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace maskscope::axolotl {

// meta for inputIds (the row Axolotl built from turns). Positions the render does not explain
// (a legacy row whose prompt tokenized differently at the boundary) stay Unknown.
std::vector<PositionMeta> axolotlPositionMeta(const Tokenizer& tokenizer, const JinjaChatTemplate& chatTemplate,
                                              const std::vector<nlohmann::ordered_json>& turns,
                                              const nlohmann::ordered_json& tools, const RenderOptions& render,
                                              const std::vector<int64_t>& inputIds);

// The position kind of a chat role ("assistant" -> Assistant, "ipython" -> Tool, ...).
PositionKind kindOfRole(const std::string& role);

} // namespace maskscope::axolotl
