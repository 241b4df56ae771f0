// The framework definitions this build knows, one function per framework (each in its folder under
// core/frameworks/<name>/). FrameworkList.cpp lists them in order; add a line there for a new one.
#pragma once
#include "core/frameworks/Framework.h"

namespace maskscope {

FrameworkDefinition trlFramework();          // core/frameworks/trl/
FrameworkDefinition transformersFramework(); // core/frameworks/transformers/
FrameworkDefinition axolotlFramework();      // core/frameworks/axolotl/
FrameworkDefinition unslothFramework();      // core/frameworks/unsloth/

} // namespace maskscope
