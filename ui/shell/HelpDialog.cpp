// The help dialog and the first-start hint. Every swatch and glyph comes from ui/Palette and every
// shortcut from the window's own actions.
#include "ui/shell/HelpDialog.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/CellSwatch.h"
#include "ui/widgets/Palette.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

namespace maskscope {

namespace {
// The colour itself, never its hex code (a reader looks for the colour, not its number).
QString swatch(const QColor& c) {
  return QStringLiteral("<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>").arg(c.name());
}
QString swatchImage(const QString& name) { return QStringLiteral("<img src=\"%1\" width=18 height=18>").arg(name); }
QString row(const QString& cue, const QString& meaning) {
  return QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(cue, meaning);
}
} // namespace

QString HelpDialog::legendHtml() {
  QString html = tr("<h3>Token strip: role bands</h3><table cellspacing=4>");
  for (PositionKind k : {PositionKind::System, PositionKind::User, PositionKind::Assistant, PositionKind::Think,
                         PositionKind::ToolCall, PositionKind::Tool, PositionKind::Image, PositionKind::Template,
                         PositionKind::Padding, PositionKind::Separator, PositionKind::Unknown})
    html += row(swatch(palette::roleColour(k)), QString::fromLatin1(positionKindName(k)));
  html += tr("</table><h3>Labels</h3><table cellspacing=4>");
  html += row(swatch(palette::graded()) + QStringLiteral(" \u2713 L"),
              tr("graded: the label is kept (thick solid border in the strip, bold tinted row in the table)"));
  html += row(swatch(palette::ignored()) + QStringLiteral(" -100"),
              tr("ignored: label -100, cross-entropy skips it (dashed border)"));
  html += row(swatch(palette::padding()), tr("a padding position"));
  html += row(swatch(palette::gradedPad()), tr("a pad that is graded (a bug); also warning text"));
  html += tr("</table><h3>Token chips</h3><p>%1</p>").arg(TokenStripView::chipKey().toHtmlEscaped());
  html += tr("<h3>Attention grid cells (glyphs show when zoomed in)</h3><table cellspacing=4>");
  // Every class the grid paints, as its legend shows it (the swatch images: legendResources()).
  const char* why[] = {QT_TR_NOOP("the query may attend this key"),
                       QT_TR_NOOP("blocked: the key is in the future"),
                       QT_TR_NOOP("blocked: the key is padding"),
                       QT_TR_NOOP("blocked: the key belongs to another packed example"),
                       QT_TR_NOOP("blocked: a sliding-window layer, the key is older than the window"),
                       QT_TR_NOOP("allowed, but this key is padding (hatched): the mask lets the query read a pad"),
                       QT_TR_NOOP("allowed, but this key belongs to another example (hatched): packing leaks")};
  for (int i = 0; i < kCellClassCount; ++i) {
    const CellClass c = CellClass(i);
    const QColor stripe = palette::cellClassStripe(c);
    html += row(swatchImage(cellClassSwatchName(c)) + QLatin1Char(' ') + swatch(palette::cellClassColour(c)) +
                    (stripe.isValid() ? tr(" hatched with ") + swatch(stripe) : QString()) +
                    QStringLiteral(" <b>%1</b>").arg(palette::cellClassGlyph(c)),
                QStringLiteral("%1: %2").arg(QString::fromLatin1(cellClassName(c)), tr(why[i])));
  }
  html += row(swatchImage(cellClassSwatchName(CellClass::Allowed, true)) + QLatin1Char(' ') +
                  swatch(palette::greyedForPadQuery(palette::cellClassColour(CellClass::Allowed))),
              tr("a pad query row whose output nothing reads (the label after it is -100): greyed"));
  html += row(swatch(palette::gradedPad()),
              tr("on the grid's query strip: a pad query row whose output is graded (a bug; never greyed)"));
  return html + QStringLiteral("</table>");
}

QHash<QString, QImage> HelpDialog::legendResources() {
  QHash<QString, QImage> out;
  for (int i = 0; i < kCellClassCount; ++i)
    out.insert(cellClassSwatchName(CellClass(i)), cellClassSwatch(CellClass(i)));
  out.insert(cellClassSwatchName(CellClass::Allowed, true), cellClassSwatch(CellClass::Allowed, true));
  return out;
}

QStringList HelpDialog::shortcutLines(const QWidget* window) {
  QStringList lines;
  for (const QAction* a : window->findChildren<QAction*>()) {
    if (a->shortcut().isEmpty()) continue;
    QString text = a->text();
    text.remove(QLatin1Char('&'));
    const QString line = QStringLiteral("%1\t%2").arg(a->shortcut().toString(QKeySequence::NativeText), text);
    if (!lines.contains(line)) lines << line;
  }
  lines << tr("%1\tCopy the selected table rows (position table)")
               .arg(QKeySequence(QKeySequence::Copy).toString(QKeySequence::NativeText));
  return lines;
}

HelpDialog::HelpDialog(QWidget* window, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("maskscope help: legend and shortcuts"));
  auto* layout = new QVBoxLayout(this);
  browser_ = new QTextBrowser(this);
  const QHash<QString, QImage> swatches = legendResources();
  for (auto it = swatches.begin(); it != swatches.end(); ++it)
    browser_->document()->addResource(QTextDocument::ImageResource, QUrl(it.key()), it.value());
  QString keys = tr("<h3>Keyboard shortcuts</h3><table cellspacing=4>");
  for (const QString& line : shortcutLines(window)) {
    const QStringList parts = line.split(QLatin1Char('\t'));
    keys += row(QStringLiteral("<b>%1</b>").arg(parts.value(0).toHtmlEscaped()), parts.value(1).toHtmlEscaped());
  }
  browser_->setHtml(legendHtml() + keys + QStringLiteral("</table>") +
                    tr("<p>New to masking? <b>View \u2192 Teaching mode</b> walks through it step by step.</p>"));
  layout->addWidget(browser_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(640, 620);
}

QString firstStartHintKey() { return QStringLiteral("help/firstStartHintShown"); }

QWidget* showFirstStartHint(QMainWindow* window, const std::function<void()>& openTeaching) {
  QSettings settings;
  if (settings.value(firstStartHintKey(), false).toBool()) return nullptr;
  settings.setValue(firstStartHintKey(), true);
  auto* hint = new QWidget(window);
  hint->setObjectName(QStringLiteral("firstStartHint"));
  auto* layout = new QHBoxLayout(hint);
  layout->setContentsMargins(4, 0, 4, 0);
  layout->addWidget(new QLabel(QObject::tr("New here? Teaching mode walks through masking step by step."), hint));
  auto* open = new QPushButton(QObject::tr("Open Teaching"), hint);
  auto* close = new QPushButton(QStringLiteral("\u00d7"), hint);
  close->setToolTip(QObject::tr("Hide this hint (it is shown once)"));
  layout->addWidget(open);
  layout->addWidget(close);
  QObject::connect(open, &QPushButton::clicked, hint, [hint, openTeaching] {
    if (openTeaching) openTeaching();
    hint->hide();
  });
  QObject::connect(close, &QPushButton::clicked, hint, &QWidget::hide);
  window->statusBar()->addPermanentWidget(hint);
  return hint;
}

} // namespace maskscope
