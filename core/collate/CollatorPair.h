// "A,B": two collator specs in one argument (`snapshot --compare`), where each side may be anything
// its caller takes (a preset or collator spec; the app's also framework specs and config files).
#pragma once
#include <functional>
#include <string>
#include <utility>

namespace maskscope {

// As splitCollatorPair(text) (core/collate/CollatorSpec.h), with check deciding whether one half is a
// valid spec (it throws Error naming why when it is not): the split is the one comma at which both
// halves pass; none, or more than one, throws Error.
std::pair<std::string, std::string> splitCollatorPair(const std::string& text,
                                                      const std::function<void(const std::string&)>& check);

} // namespace maskscope
