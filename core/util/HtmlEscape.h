// The one HTML escaper: the audit page, the position table's HTML output and Jinja's `escape`
// filter all go through it, so a dataset's text is escaped the same way everywhere.
#pragma once
#include <string>
#include <string_view>

namespace maskscope {

enum class HtmlEscapeStyle {
  // For pages maskscope writes: & < > " ' escaped (" as &quot;), control characters other than tab
  // and newline and invalid UTF-8 bytes shown as U+FFFD, so hostile bytes never reach the page raw.
  Page,
  // Byte for byte what MarkupSafe's escape() gives (Jinja's `e`/`escape` filter): & < > " ' escaped,
  // " as &#34;, every other byte unchanged. A template's output must match Python's exactly.
  MarkupSafe,
};

std::string htmlEscape(std::string_view text, HtmlEscapeStyle style = HtmlEscapeStyle::Page);

} // namespace maskscope
