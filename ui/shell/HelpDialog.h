// Help: a legend of every colour and glyph the views use (read from ui/Palette, so it cannot drift
// from what is drawn), the keyboard shortcuts (read from the window's actions), and the one-time
// first-start hint that points to teaching mode (remembered in QSettings).
#pragma once
#include <QDialog>
#include <QString>
#include <QStringList>
#include <functional>

class QMainWindow;
class QTextBrowser;

namespace maskscope {

class HelpDialog : public QDialog {
  Q_OBJECT
public:
  explicit HelpDialog(QWidget* window, QWidget* parent = nullptr);

  // The legend as HTML: role bands, label cues and attention cells, each with its palette colour.
  static QString legendHtml();
  // "Ctrl+O  Open dataset or batch dump" for every action of `window` that has a shortcut.
  static QStringList shortcutLines(const QWidget* window);
  QTextBrowser* browser() const { return browser_; }

private:
  QTextBrowser* browser_ = nullptr;
};

// The QSettings key that records that the first-start hint was shown.
QString firstStartHintKey();
// On the first start (the key unset) shows a hint in the window's status bar with a button that
// calls openTeaching, records the key and returns the hint; afterwards does nothing, returns null.
QWidget* showFirstStartHint(QMainWindow* window, const std::function<void()>& openTeaching);

} // namespace maskscope
