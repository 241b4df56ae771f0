// Which message keys Axolotl lets through to the template: JinjaTemplateAnalyzer.get_message_vars
// (src/axolotl/prompt_strategies/jinja_template_analyzer.py, v0.18.0). As it is written, it returns
// the attribute names and constant string subscripts read on a variable literally named `message`
// anywhere in the template (`message.tool_calls`, `message['name']`, `message.function.name` gives
// both `function` and `name`); a template whose loop variable has another name (`for m in
// messages`) gets the empty set, and `message.get('x')` yields `get`, not `x`.
#pragma once
#include "core/template/jinja/Template.h"

#include <set>
#include <string>

namespace maskscope::axolotl {

std::set<std::string> templateMessageVariables(const jinja::Template& compiled);

} // namespace maskscope::axolotl
