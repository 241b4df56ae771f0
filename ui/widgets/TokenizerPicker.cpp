// Tokenizer drop-down: what is on disk and what was used, by name.
#include "ui/widgets/TokenizerPicker.h"
#include "ui/shell/Session.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMap>
#include <QSettings>
#include <QStandardPaths>

namespace maskscope {

namespace {

constexpr int kMaxRecent = 8;
const QString kOther = QStringLiteral("@other");

bool holdsTokenizer(const QDir& d) {
  return d.exists(QStringLiteral("tokenizer.json")) || d.exists(QStringLiteral("tokenizer.model"));
}

// .../models--Qwen--Qwen3-0.6B/snapshots/<hash> -> "Qwen/Qwen3-0.6B"; empty when not a snapshot.
QString hubModelName(const QString& folder) {
  const QStringList parts = QDir::cleanPath(folder).split(QLatin1Char('/'), Qt::SkipEmptyParts);
  if (parts.size() < 3 || parts[parts.size() - 2] != QLatin1String("snapshots")) return {};
  const QString repo = parts[parts.size() - 3];
  if (!repo.startsWith(QLatin1String("models--"))) return {};
  return repo.mid(8).replace(QStringLiteral("--"), QStringLiteral("/"));
}

QString cacheHome() {
  const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
  return xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.cache") : xdg;
}

} // namespace

QString tokenizerDisplayName(const QString& spec) {
  if (spec.isEmpty()) return QStringLiteral("builtin:demo");
  if (spec.startsWith(QLatin1String("builtin:"))) return spec;
  const QFileInfo info(spec);
  QString folder = info.isDir() ? info.absoluteFilePath() : QString();
  if (!info.isDir()) {
    const QString file = info.fileName();
    if (file != QLatin1String("tokenizer.json") && file != QLatin1String("tokenizer.model")) return file;
    folder = info.absolutePath();
  }
  const QString hub = hubModelName(folder);
  return hub.isEmpty() ? QFileInfo(folder).fileName() : hub;
}

std::vector<TokenizerChoice> cachedTokenizers(const QStringList& maskscopeRoots, const QStringList& hubRoots) {
  QMap<QString, TokenizerChoice> byTarget; // canonical folder -> choice
  auto add = [&](const QString& folder) {
    if (!holdsTokenizer(QDir(folder))) return;
    const QString target = QFileInfo(folder).canonicalFilePath();
    const TokenizerChoice c{tokenizerDisplayName(folder), folder};
    auto it = byTarget.find(target);
    if (it == byTarget.end() || c.label.size() < it->label.size()) byTarget.insert(target, c);
  };
  for (const QString& root : maskscopeRoots)
    for (const QFileInfo& f : QDir(root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
      add(f.absoluteFilePath());
  for (const QString& root : hubRoots)
    for (const QFileInfo& repo : QDir(root).entryInfoList({QStringLiteral("models--*")}, QDir::Dirs, QDir::Name))
      for (const QFileInfo& snap : QDir(repo.absoluteFilePath() + QStringLiteral("/snapshots"))
                                       .entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot))
        add(snap.absoluteFilePath());
  std::vector<TokenizerChoice> out(byTarget.begin(), byTarget.end());
  std::sort(out.begin(), out.end(), [](const TokenizerChoice& a, const TokenizerChoice& b) {
    return a.label.compare(b.label, Qt::CaseInsensitive) < 0;
  });
  return out;
}

QStringList defaultMaskscopeTokenizerRoots() { return {cacheHome() + QStringLiteral("/maskscope/tokenizers")}; }

QStringList defaultHubRoots() {
  if (const QString hub = qEnvironmentVariable("HF_HUB_CACHE"); !hub.isEmpty()) return {hub};
  if (const QString home = qEnvironmentVariable("HF_HOME"); !home.isEmpty()) return {home + QStringLiteral("/hub")};
  return {cacheHome() + QStringLiteral("/huggingface/hub")};
}

TokenizerPicker::TokenizerPicker(Session* session, bool persistent, QWidget* parent)
    : QComboBox(parent), session_(session), persistent_(persistent) {
  setObjectName(QStringLiteral("tokenizerBox"));
  setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  setMinimumContentsLength(14);
  setToolTip(tr("The tokenizer: built in, recently used, or cached (~/.cache/maskscope/tokenizers, Hugging Face hub)"));
  if (persistent_) recent_ = QSettings().value(QStringLiteral("recentTokenizers")).toStringList();
  connect(this, &QComboBox::activated, this, &TokenizerPicker::choose);
  connect(session_, &Session::pipelineChanged, this, [this] {
    remember(session_->tokenizerSpec());
    refresh();
  });
  refresh();
}

int TokenizerPicker::indexOfSpec(const QString& spec) const {
  for (int i = 0; i < count(); ++i)
    if (itemData(i).toString() == spec) return i;
  return -1;
}

void TokenizerPicker::refresh() {
  filling_ = true;
  clear();
  auto addChoice = [this](const QString& label, const QString& spec, const QString& origin) {
    if (indexOfSpec(spec) >= 0) return;
    addItem(label, spec);
    setItemData(count() - 1, QStringLiteral("%1 (%2)").arg(spec, origin), Qt::ToolTipRole);
  };
  addChoice(QStringLiteral("builtin:demo"), QStringLiteral("builtin:demo"), tr("built in"));
  const QString current = session_->tokenizerSpec();
  if (!current.startsWith(QLatin1String("builtin:"))) addChoice(tokenizerDisplayName(current), current, tr("in use"));
  if (!recent_.isEmpty()) insertSeparator(count());
  for (const QString& r : recent_) addChoice(tokenizerDisplayName(r), r, tr("recently used"));
  const auto cached = cachedTokenizers(defaultMaskscopeTokenizerRoots(), defaultHubRoots());
  if (!cached.empty()) insertSeparator(count());
  for (const TokenizerChoice& c : cached) addChoice(c.label, c.spec, tr("cached"));
  insertSeparator(count());
  addItem(tr("Other file or folder\u2026"), kOther);
  setCurrentIndex(std::max(0, indexOfSpec(current)));
  setToolTip(current);
  filling_ = false;
}

void TokenizerPicker::choose(int index) {
  if (filling_ || index < 0) return;
  QString spec = itemData(index).toString();
  if (spec == kOther)
    spec = QFileDialog::getOpenFileName(this, tr("Tokenizer"), {},
                                        tr("Tokenizers (tokenizer.json tokenizer.model *.json *.model)"));
  if (spec.isEmpty() || spec == session_->tokenizerSpec() || !session_->setTokenizer(spec))
    refresh(); // cancelled or refused (the session reports why): show the tokenizer in use again
}

void TokenizerPicker::remember(const QString& spec) {
  if (spec.startsWith(QLatin1String("builtin:")) || spec.isEmpty()) return;
  recent_.removeAll(spec);
  recent_.prepend(spec);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  if (persistent_) QSettings().setValue(QStringLiteral("recentTokenizers"), recent_);
}

} // namespace maskscope
