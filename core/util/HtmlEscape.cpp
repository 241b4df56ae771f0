// The one HTML escaper (see HtmlEscape.h): the five markup characters always, and for pages
// maskscope writes, control characters and invalid UTF-8 shown as U+FFFD.
#include "core/util/HtmlEscape.h"
#include "core/util/Utf8.h"

namespace maskscope {
namespace {

// The entity for one of the five markup characters, or nullptr for any other code point.
const char* markupEntity(char32_t cp, HtmlEscapeStyle style) {
  switch (cp) {
  case '&':
    return "&amp;";
  case '<':
    return "&lt;";
  case '>':
    return "&gt;";
  case '"':
    return style == HtmlEscapeStyle::MarkupSafe ? "&#34;" : "&quot;";
  case '\'':
    return "&#39;";
  default:
    return nullptr;
  }
}

} // namespace

std::string htmlEscape(std::string_view text, HtmlEscapeStyle style) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  if (style == HtmlEscapeStyle::MarkupSafe) {
    for (const char c : text) {
      if (const char* entity = markupEntity(char32_t(static_cast<unsigned char>(c)), style))
        out += entity;
      else
        out.push_back(c);
    }
    return out;
  }
  for (size_t i = 0; i < text.size();) {
    const char32_t cp = utf8::decode(text, i);
    if (const char* entity = markupEntity(cp, style))
      out += entity;
    else if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7F)
      utf8::append(out, 0xFFFD);
    else
      utf8::append(out, cp);
  }
  return out;
}

} // namespace maskscope
