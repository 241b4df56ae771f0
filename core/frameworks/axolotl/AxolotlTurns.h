// The turns Axolotl's chat_template strategy renders, built from one dataset row as
// ChatTemplateStrategy.get_conversation_thread / transform_message do (v0.18.0): the messages
// under field_messages (a list, or a JSON string of one), keys renamed by message_property_mappings,
// roles mapped through `roles`, a row-level "system" prepended, <think>/<reasoning>/
// <|begin_of_thought|> blocks split into the reasoning key (split_thinking), list content joined
// into one string with per-part train flags, tool-call arguments given as JSON strings parsed.
// Each turn is the JSON object the template receives, plus Axolotl's "training" / "training_detail"
// / "reasoning_training_detail" keys where the row sets them.
#pragma once
#include "core/frameworks/axolotl/AxolotlConfig.h"

#include <string>
#include <vector>

namespace maskscope::axolotl {

// One span of a turn's content with its train flag: character offsets (Python str indices, code
// points), end inclusive, as Axolotl's training_detail writes them.
struct TrainDetail {
  int64_t begin = 0, end = 0;
  bool train = false;
};

// Messages per row: find_turn renders the conversation up to each trained turn twice, so the work
// grows with the square of the turns; a longer row is refused (no real conversation comes near).
inline constexpr size_t kMaxAxolotlTurns = 2048;

struct ThreadOptions {
  const AxolotlConfig* config = nullptr;
  // dataset role -> template role (Axolotl's default map, or the config's `roles` inverted)
  std::vector<std::pair<std::string, std::string>> roleMap;
};

ThreadOptions threadOptions(const AxolotlConfig& config);
// The role a dataset role maps to (unchanged when the map has no entry).
std::string mapRole(const ThreadOptions& options, const std::string& role);

// Throws Error(reason) when Axolotl would raise on the row (messages missing, not a list, an empty
// list, a message without a role, tool-call arguments that are not JSON, ...).
std::vector<OrderedJson> conversationThread(const OrderedJson& row, const ThreadOptions& options);

// The tools of the row (`tools`, a list or a JSON string of one; tool parameters given as JSON
// strings parsed), or null.
OrderedJson rowTools(const OrderedJson& row);

// A turn's training_detail / reasoning_training_detail as spans; Error when malformed.
std::vector<TrainDetail> trainDetails(const OrderedJson& detail, const char* key);

// remove_none_values: drops null members of objects, recursively (lists keep their nulls' slots).
OrderedJson removeNoneValues(const OrderedJson& value);

// Python's truth value of a JSON value (None, False, 0, "", [], {} are false).
bool pythonTruthy(const OrderedJson& value);

// The number of code points in s (Python's len()).
int64_t pythonLength(const std::string& s);

} // namespace maskscope::axolotl
