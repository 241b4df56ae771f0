// TRL's definition for the registry: its catalogue and the implementation of each collator.
#include "core/frameworks/FrameworkList.h"
#include "core/frameworks/trl/Trl.h"

namespace maskscope {

FrameworkDefinition trlFramework() {
  FrameworkDefinition d;
  d.info = trl::catalogue();
  setCollatorFactories(d.info, {{"DataCollatorForLanguageModeling", trl::makeLanguageModeling},
                                {"DataCollatorForPreference", trl::makePreference},
                                {"DataCollatorForCompletionOnlyLM", trl::makeCompletionOnly}});
  // An SFTConfig saved as JSON with "framework": "trl" is read by the generic JSON path.
  return d;
}

} // namespace maskscope
