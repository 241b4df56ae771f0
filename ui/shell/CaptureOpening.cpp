// Capture folders in the app: the Session opens a batch of one as a batch dump (the batch files carry
// the trainer's special-token ids, core/batchio), with the tokenizer and template the manifest names.
#include "ui/shell/CaptureOpening.h"
#include "core/capture/CaptureManifest.h"
#include "core/commands/CaptureInputs.h"
#include "ui/shell/Session.h"

#include <QFileInfo>
#include <map>

namespace maskscope {

bool openCaptureFolder(Session& session, const QString& folder, const QString& batchFile, const QString& tokenizerGiven,
                       const QString& templateGiven) {
  CaptureManifest m;
  try {
    m = readCaptureManifest(folder.toStdString());
  } catch (const std::exception& e) {
    Q_EMIT session.errorOccurred(QString::fromUtf8(e.what()));
    return false;
  }
  const CaptureChoice c = captureChoice(m, tokenizerGiven.toStdString(), templateGiven.toStdString());
  const bool decode = !c.tokenizerSpec.empty();
  if (decode && !session.setPipeline(QString::fromStdString(c.tokenizerSpec), QString::fromStdString(c.templateSpec),
                                     session.collatorSpec()))
    return false;
  return session.openBatchDump(batchFile.isEmpty() ? QString::fromStdString(m.batchFiles.front()) : batchFile, decode);
}

QString captureDescription(const QString& batchPath) {
  // Read once per folder and modification time: the summary is redrawn on every batch change.
  static std::map<std::pair<QString, qint64>, QString> known;
  if (!batchPath.endsWith(QLatin1String(".safetensors"))) return {};
  const std::string folder = captureFolderOf(batchPath.toStdString());
  if (folder.empty()) return {};
  const QString dir = QString::fromStdString(folder);
  const std::pair<QString, qint64> key{
      dir, QFileInfo(dir + QStringLiteral("/capture.json")).lastModified().toMSecsSinceEpoch()};
  if (auto it = known.find(key); it != known.end()) return it->second;
  QString text;
  try {
    text = QString::fromStdString(readCaptureManifest(folder).oneLine());
  } catch (const std::exception& e) {
    text = QObject::tr("unreadable capture.json (%1)").arg(QString::fromUtf8(e.what()));
  }
  known[key] = text;
  return text;
}

} // namespace maskscope
