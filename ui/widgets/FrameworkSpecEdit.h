// What the framework picker and the options form send to the session: a framework spec as an inline
// JSON object, built from the spec in use and one change, keeping only the options set (an option
// set back to its default is dropped, so the summary names the options that differ).
#pragma once
#include "core/frameworks/FrameworkSpec.h"

#include <QString>

namespace maskscope {

// {"framework": name}: the framework with its default version, collator and options.
QString frameworkSpecFor(const QString& framework);
// base with key set to value: "version" or "collator" (options the new collator does not have are
// dropped), the framework's type key (Axolotl's "type"), or an option name (set to its default
// value, it leaves the options set; null is a value of its own where the default is not null).
QString frameworkSpecWith(const FrameworkSpec& base, const std::string& key, const OrderedJson& value);
// frameworkOwnTemplate (core/frameworks/Framework.h) as "option = value"; "" when the framework renders
// with the toolbar's template (the tokenizer's own or the one picked).
QString frameworkOwnTemplateText(const FrameworkSpec& spec);
// The option of base's collator named name, or nullptr.
const OptionInfo* frameworkOption(const FrameworkSpec& base, const std::string& name);

} // namespace maskscope
