// Names of position kinds, as shown in the UI and in JSON.
#include "core/data/Batch.h"

namespace maskscope {

const char* positionKindName(PositionKind k) {
  switch (k) {
  case PositionKind::System:
    return "system";
  case PositionKind::User:
    return "user";
  case PositionKind::Assistant:
    return "assistant";
  case PositionKind::Tool:
    return "tool";
  case PositionKind::Template:
    return "template";
  case PositionKind::Padding:
    return "pad";
  case PositionKind::Separator:
    return "separator";
  case PositionKind::Think:
    return "think";
  case PositionKind::ToolCall:
    return "tool_call";
  case PositionKind::Image:
    return "image";
  case PositionKind::Unknown:
    break;
  }
  return "unknown";
}

} // namespace maskscope
