// The framework catalogue as the reference page docs/frameworks.md: every framework, version (with
// the upstream source it was read from), behaviour switch, collator and option with its kind and
// default, generated from frameworkDefinitions() so the page cannot drift from what the code accepts.
#pragma once
#include <string>

namespace maskscope {

// The whole page, Markdown; test_framework_core checks docs/frameworks.md is exactly this.
std::string frameworkCatalogueMarkdown();

} // namespace maskscope
