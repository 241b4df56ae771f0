// Colour choices shared by the views.
#include "ui/Palette.h"

namespace maskscope::palette {

QColor roleColour(PositionKind kind) {
  switch (kind) {
  case PositionKind::System: return QColor(0x9e, 0x9a, 0xc8);    // violet
  case PositionKind::User: return QColor(0x6b, 0xae, 0xd6);      // light blue
  case PositionKind::Assistant: return QColor(0x31, 0xa3, 0x54); // green
  case PositionKind::Tool: return QColor(0xbc, 0x80, 0xbd);
  case PositionKind::Template: return QColor(0x96, 0x96, 0x96);
  case PositionKind::Padding: return QColor(0xfd, 0xae, 0x6b);   // orange
  case PositionKind::Separator: return QColor(0x73, 0x73, 0x73);
  case PositionKind::Unknown: break;
  }
  return QColor(0xd9, 0xd9, 0xd9);
}

QColor cellColour(CellState s) {
  switch (s) {
  case CellState::Allowed: return QColor(0x21, 0x66, 0xac);      // deep blue
  case CellState::Future: return QColor(0xf0, 0xf0, 0xf0);       // near white
  case CellState::Padding: return QColor(0xf4, 0xa5, 0x82);      // orange
  case CellState::OtherExample: return QColor(0xb2, 0xab, 0xd2); // violet
  }
  return Qt::black;
}

} // namespace maskscope::palette
