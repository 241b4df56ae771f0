// Tokenizer drop-down: what is on disk (core/tokenizer/TokenizerCache) and what was used, by name.
#include "ui/widgets/TokenizerPicker.h"
#include "core/tokenizer/TokenizerCache.h"
#include "ui/shell/Session.h"

#include <QFileDialog>
#include <QSettings>

namespace maskscope {

namespace {

constexpr int kMaxRecent = 8;
const QString kOther = QStringLiteral("@other");

QStringList toQt(const std::vector<std::string>& v) {
  QStringList out;
  for (const std::string& s : v) out << QString::fromStdString(s);
  return out;
}

std::vector<std::string> toStd(const QStringList& v) {
  std::vector<std::string> out;
  for (const QString& s : v) out.push_back(s.toStdString());
  return out;
}

} // namespace

QString tokenizerDisplayName(const QString& spec) {
  return QString::fromStdString(maskscope::tokenizerDisplayName(spec.toStdString()));
}

std::vector<TokenizerChoice> cachedTokenizers(const QStringList& maskscopeRoots, const QStringList& hubRoots) {
  std::vector<TokenizerChoice> out;
  for (const CachedTokenizer& c : maskscope::cachedTokenizers(toStd(maskscopeRoots), toStd(hubRoots)))
    out.push_back({QString::fromStdString(c.label), QString::fromStdString(c.path)});
  return out;
}

QStringList recentTokenizers() { return QSettings().value(QStringLiteral("recentTokenizers")).toStringList(); }

TokenizerPicker::TokenizerPicker(Session* session, bool persistent, QWidget* parent)
    : QComboBox(parent), session_(session), persistent_(persistent) {
  setObjectName(QStringLiteral("tokenizerBox"));
  setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  setMinimumContentsLength(14);
  setToolTip(tr("The tokenizer: built in, recently used, or cached (~/.cache/maskscope/tokenizers, Hugging Face hub)"));
  if (persistent_) recent_ = recentTokenizers();
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
  // A framework's pre-tokenized rows can be shown without a tokenizer: their ids as ids.
  if (session_->isFramework() || current == Session::noTokenizer())
    addChoice(tr("none (ids)"), Session::noTokenizer(), tr("no tokenizer: token ids shown as ids"));
  if (!current.startsWith(QLatin1String("builtin:")) && current != Session::noTokenizer())
    addChoice(tokenizerDisplayName(current), current, tr("in use"));
  if (!recent_.isEmpty()) insertSeparator(count());
  for (const QString& r : recent_) addChoice(tokenizerDisplayName(r), r, tr("recently used"));
  const auto cached = cachedTokenizers(toQt(defaultMaskscopeTokenizerRoots()), toQt(defaultHubRoots()));
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
  if (spec.startsWith(QLatin1String("builtin:")) || spec.isEmpty() || spec == Session::noTokenizer()) return;
  recent_.removeAll(spec);
  recent_.prepend(spec);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  if (persistent_) QSettings().setValue(QStringLiteral("recentTokenizers"), recent_);
}

} // namespace maskscope
