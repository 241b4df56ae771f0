// strftime_now(format), the global transformers gives chat templates: Python's strftime over the
// current local time, or over RenderSettings::now ("2024-07-26") when the caller fixes the date.
#pragma once
#include <optional>
#include <string>

namespace maskscope::jinja {

// Throws JinjaError(ValueError) when now is not a YYYY-MM-DD date.
std::string strftimeNow(const std::string& format, const std::optional<std::string>& now);

} // namespace maskscope::jinja
