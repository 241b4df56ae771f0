// TRL's definition for the registry: its catalogue and the implementation of each collator.
#include "core/frameworks/FrameworkList.h"
#include "core/frameworks/trl/Trl.h"

namespace maskscope {

FrameworkDefinition trlFramework() {
  FrameworkDefinition d;
  d.info = trl::catalogue();
  d.make = [](const FrameworkSpec& spec) -> std::unique_ptr<FrameworkImpl> {
    if (spec.collator == "DataCollatorForPreference") return trl::makePreference(spec);
    if (spec.collator == "DataCollatorForCompletionOnlyLM") return trl::makeCompletionOnly(spec);
    return trl::makeLanguageModeling(spec);
  };
  // An SFTConfig saved as JSON with "framework": "trl" is read by the generic JSON path.
  return d;
}

} // namespace maskscope
