// The attention grid's drawing measures (margins for labels and ticks, the kind strips, the
// probability scale) and the short token labels, shared by its geometry and its painting.
#pragma once
#include "core/util/Utf8.h"

#include <QChar>
#include <QString>

namespace maskscope::gridmetrics {

constexpr int kLeft = 92;           // room for query token labels (a 9-character token and its index at 11 px)
constexpr int kTop = 90;            // room for key token labels (the selected one in bold)
constexpr int kLeftTicks = 48;      // zoomed out only numbers are drawn: give the grid the room
constexpr int kTopTicks = 52;       // the two caption lines, then the numbers
constexpr double kLabelCell = 13.0; // cells at least this big get token labels and glyphs
constexpr int kStrip = 10;          // the kind strips along the top and left of the grid
constexpr int kScale = 54;          // room on the right for the probability colour scale

inline QString shortToken(const QString& t, int max = 9) {
  QString v = QString::fromStdString(utf8::visibleWhitespace(t.toStdString()));
  // Special tokens such as <|im_start|> / <|im_end|> are told apart by their middle, which
  // truncation cut off ("<|im_e..."): show them as the strip does, a diamond and the name.
  if (v.size() > 4 && v.startsWith(QLatin1String("<|")) && v.endsWith(QLatin1String("|>")))
    v = QChar(0x25C6) + v.mid(2, v.size() - 4);
  return v.size() > max ? v.left(max - 1) + QChar(0x2026) : v;
}

inline int niceStep(double cellsPerLabel) {
  static const int steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
  for (int s : steps)
    if (s >= cellsPerLabel) return s;
  return 10000;
}

} // namespace maskscope::gridmetrics
