// Export of what the app shows: any view as PNG or SVG (QSvgGenerator, vector text and shapes),
// and a self-contained HTML report of a row (token strip, attention grid image, findings, losses).
// Writes only the file the user named; never touches the inputs.
#pragma once
#include <QImage>
#include <QRect>
#include <QSize>
#include <QString>
#include <functional>

class QPainter;
class QWidget;

namespace maskscope {

class Session;
struct LintReport;
struct LossBreakdown;

using RenderFunction = std::function<void(QPainter&, QRect)>;

QImage renderToImage(const RenderFunction& render, QSize size, qreal devicePixelRatio = 1.0);
bool exportPng(const RenderFunction& render, QSize size, const QString& path, QString* error = nullptr);
bool exportSvg(const RenderFunction& render, QSize size, const QString& path, const QString& title,
               QString* error = nullptr);
// A whole widget (with its children) as PNG or SVG, by the path's extension.
bool exportWidget(QWidget* widget, const QString& path, QString* error = nullptr);

// The HTML report of the session's selected row; lint and loss may be null; grid may be null image.
QString htmlReport(const Session& session, const LintReport* lint, const LossBreakdown* loss, const QImage& grid);
bool writeTextFile(const QString& path, const QString& text, QString* error = nullptr);

} // namespace maskscope
