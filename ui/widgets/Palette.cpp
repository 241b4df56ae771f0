// Colour choices shared by the views, per theme.
#include "ui/widgets/Palette.h"

#include <QApplication>
#include <cmath>

namespace maskscope::palette {

namespace {
Theme g_theme = Theme::Light;
bool dark() { return g_theme == Theme::Dark; }

double channel(double c) {
  c /= 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double luminance(const QColor& c) {
  return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue());
}
} // namespace

Theme theme() { return g_theme; }

QPalette qtPalette(Theme t) {
  QPalette p;
  if (t == Theme::Light) {
    p.setColor(QPalette::Window, QColor(0xf5, 0xf5, 0xf5));
    p.setColor(QPalette::WindowText, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xf0, 0xf0, 0xf0));
    p.setColor(QPalette::Text, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(QPalette::PlaceholderText, QColor(0x5f, 0x5f, 0x5f));
    p.setColor(QPalette::Button, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::ButtonText, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(QPalette::Highlight, QColor(0x00, 0x5a, 0x9e));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xe8));
    p.setColor(QPalette::ToolTipText, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(QPalette::Link, QColor(0x00, 0x4e, 0x8a));
  } else {
    p.setColor(QPalette::Window, QColor(0x23, 0x25, 0x29));
    p.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::Base, QColor(0x1b, 0x1d, 0x21));
    p.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2d, 0x32));
    p.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::PlaceholderText, QColor(0xa8, 0xa8, 0xa8));
    p.setColor(QPalette::Button, QColor(0x32, 0x35, 0x3b));
    p.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::Highlight, QColor(0x4d, 0xa3, 0xff));
    p.setColor(QPalette::HighlightedText, QColor(0x10, 0x10, 0x10));
    p.setColor(QPalette::ToolTipBase, QColor(0x32, 0x35, 0x3b));
    p.setColor(QPalette::ToolTipText, QColor(0xe8, 0xe8, 0xe8));
    p.setColor(QPalette::Link, QColor(0x8c, 0xc4, 0xff));
  }
  p.setColor(QPalette::Disabled, QPalette::Text, p.color(QPalette::PlaceholderText));
  p.setColor(QPalette::Disabled, QPalette::WindowText, p.color(QPalette::PlaceholderText));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, p.color(QPalette::PlaceholderText));
  return p;
}

void setTheme(Theme t) {
  g_theme = t;
  if (qobject_cast<QApplication*>(QCoreApplication::instance())) QApplication::setPalette(qtPalette(t));
}

void withTheme(Theme t, const std::function<void()>& f) {
  const Theme old = g_theme;
  g_theme = t;
  try {
    f();
  } catch (...) {
    g_theme = old;
    throw;
  }
  g_theme = old;
}

double contrastRatio(const QColor& a, const QColor& b) {
  double la = luminance(a), lb = luminance(b);
  if (la < lb) std::swap(la, lb);
  return (la + 0.05) / (lb + 0.05);
}

QColor roleColour(PositionKind kind) {
  switch (kind) {
  case PositionKind::System:
    return QColor(0x9e, 0x9a, 0xc8); // violet
  case PositionKind::User:
    return QColor(0x6b, 0xae, 0xd6); // light blue
  case PositionKind::Assistant:
    return QColor(0x31, 0xa3, 0x54); // green
  case PositionKind::Tool:
    return QColor(0xbc, 0x80, 0xbd);
  case PositionKind::Template:
    return QColor(0x96, 0x96, 0x96);
  case PositionKind::Padding:
    return QColor(0xfd, 0xae, 0x6b); // orange
  case PositionKind::Separator:
    return QColor(0x73, 0x73, 0x73);
  case PositionKind::Think:
    return QColor(0xe7, 0xba, 0x52); // amber: reasoning inside a reply
  case PositionKind::ToolCall:
    return QColor(0x1b, 0x9e, 0x77); // teal: a call the reply makes
  case PositionKind::Image:
    return QColor(0x8e, 0x6c, 0xc8); // violet: image tokens the processor expanded
  case PositionKind::Unknown:
    break;
  }
  return QColor(0xb0, 0xb0, 0xb0);
}

QColor graded() { return dark() ? QColor(0x6c, 0xb4, 0xff) : QColor(0x1f, 0x5f, 0xa0); }
QColor ignored() { return dark() ? QColor(0x8a, 0x8a, 0x8a) : QColor(0x9a, 0x9a, 0x9a); }
QColor padding() { return QColor(0xff, 0x7f, 0x0e); }
QColor gradedPad() { return dark() ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc0, 0x1f, 0x20); }
QColor warningText() { return gradedPad(); }
QColor maskedLmChip() { return dark() ? QColor(0x6b, 0x5a, 0x10) : QColor(0xff, 0xe8, 0x8a); }

QColor cellColour(CellState s) { return cellClassColour(CellClass(uint8_t(s))); }

QColor cellClassColour(CellClass c) {
  switch (c) {
  case CellClass::Allowed:
    return QColor(0x21, 0x66, 0xac); // deep blue
  case CellClass::Future:
    return dark() ? QColor(0x2b, 0x2d, 0x31) : QColor(0xf0, 0xf0, 0xf0); // close to the base: empty
  case CellClass::Padding:
    return dark() ? QColor(0x8a, 0x5a, 0x42) : QColor(0xf4, 0xa5, 0x82); // muted orange
  case CellClass::OtherExample:
    return dark() ? QColor(0x5c, 0x56, 0x80) : QColor(0xb2, 0xab, 0xd2); // muted violet
  case CellClass::OutsideWindow:
    return dark() ? QColor(0x3a, 0x62, 0x5a) : QColor(0x9f, 0xd3, 0xc4); // muted teal: the sliding band's edge
  case CellClass::AllowedPad:
    return dark() ? QColor(0xf0, 0x6a, 0x10) : QColor(0xd9, 0x48, 0x01); // saturated orange: a bug
  case CellClass::AllowedOtherExample:
    return dark() ? QColor(0xd0, 0x4c, 0xd8) : QColor(0x8e, 0x01, 0x52); // magenta: a bug
  }
  return Qt::black;
}

QColor cellClassStripe(CellClass c) {
  switch (c) {
  case CellClass::AllowedPad:
    return QColor(0xff, 0xe0, 0x8a); // light yellow stripes over the orange
  case CellClass::AllowedOtherExample:
    return QColor(0xf6, 0xc8, 0xec); // light pink stripes over the magenta
  default:
    return QColor();
  }
}

QChar cellClassGlyph(CellClass c) {
  switch (c) {
  case CellClass::AllowedPad:
    return QLatin1Char('!');
  case CellClass::AllowedOtherExample:
    return QChar(0x2260); // ≠: another example
  default:
    return cellGlyph(CellState(uint8_t(c)));
  }
}

QColor padQueryGrey() { return dark() ? QColor(0x44, 0x46, 0x4a) : QColor(0xc8, 0xc8, 0xc8); }
QColor greyedForPadQuery(const QColor& c) { return mix(c, padQueryGrey(), 0.4); }
QColor diffColour() { return QColor(0xff, 0xd4, 0x00); }
QColor specialStrip() { return QColor(0x80, 0x80, 0x80); }
QColor probabilityLow() { return dark() ? QColor(0x1b, 0x1d, 0x21) : QColor(0xff, 0xff, 0xff); }
QColor probabilityHigh() { return dark() ? QColor(0x6c, 0xb4, 0xff) : QColor(0x21, 0x66, 0xac); }

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor(int(a.red() + (b.red() - a.red()) * t), int(a.green() + (b.green() - a.green()) * t),
                int(a.blue() + (b.blue() - a.blue()) * t));
}

QString colourWord(const QColor& c) {
  const QColor hsl = c.toHsl();
  const int l = hsl.lightness(), sat = hsl.hslSaturation();
  if (sat < 40 || l < 25 || l > 240)
    return l > 200 ? QStringLiteral("light grey") : l < 70 ? QStringLiteral("dark grey") : QStringLiteral("grey");
  const int h = hsl.hslHue();
  const char* hue = h < 12 || h >= 340 ? "red"
                    : h < 40           ? "orange"
                    : h < 70           ? "yellow"
                    : h < 165          ? "green"
                    : h < 195          ? "teal"
                    : h < 245          ? "blue"
                    : h < 290          ? "violet"
                                       : "magenta";
  const QString word = QString::fromLatin1(hue);
  return l > 190 ? QStringLiteral("light ") + word : l < 70 ? QStringLiteral("dark ") + word : word;
}

QChar cellGlyph(CellState s) {
  switch (s) {
  case CellState::Allowed:
    return QChar(0x2713); // ✓
  case CellState::Future:
    return QChar(0x00B7); // · (above the diagonal: causal)
  case CellState::Padding:
    return QLatin1Char('P');
  case CellState::OtherExample:
    return QChar(0x00D7); // ×
  case CellState::OutsideWindow:
    return QLatin1Char('W'); // older than the sliding window
  }
  return QLatin1Char('?');
}

} // namespace maskscope::palette
