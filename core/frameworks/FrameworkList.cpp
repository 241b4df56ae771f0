// The frameworks of this build, in the order the help, the docs and the app's picker list them.
#include "core/frameworks/FrameworkList.h"

namespace maskscope {

const std::vector<FrameworkDefinition>& frameworkDefinitions() {
  static const std::vector<FrameworkDefinition> list = {
      trlFramework(), transformersFramework(), axolotlFramework(), unslothFramework(),
      // llamafactory, torchtune (fw-factory): one line each here.
  };
  return list;
}

} // namespace maskscope
