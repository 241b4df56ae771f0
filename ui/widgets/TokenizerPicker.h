// The toolbar's tokenizer drop-down: the built-in tokenizer, the recently used ones and the ones
// cached on disk (maskscope's cache and Hugging Face hub snapshots), each labelled by its folder or
// model name, never by "tokenizer.json"; "Other file…" opens any tokenizer.json / .model / folder.
#pragma once
#include <QComboBox>
#include <QString>
#include <QStringList>
#include <vector>

namespace maskscope {

class Session;

struct TokenizerChoice {
  QString label; // "qwen3", "Qwen/Qwen3-0.6B", "builtin:demo"
  QString spec;  // what Session::setTokenizer takes: a folder, a file or builtin:demo
};

// The name a person knows a tokenizer by: the model of a hub snapshot ("org/name"), the folder
// of a tokenizer.json / tokenizer.model, the file name of any other file, builtin:* as is.
QString tokenizerDisplayName(const QString& spec);

// Folders directly under maskscopeRoots, and hub snapshots (models--org--name/snapshots/*) under
// hubRoots, that hold a tokenizer.json or tokenizer.model; one entry per real folder (symlinks
// resolved, the shortest name kept), sorted by label.
std::vector<TokenizerChoice> cachedTokenizers(const QStringList& maskscopeRoots, const QStringList& hubRoots);
// <cache>/maskscope/tokenizers, and the hub cache ($HF_HUB_CACHE, $HF_HOME/hub or <cache>/huggingface/hub),
// <cache> being $XDG_CACHE_HOME or ~/.cache.
QStringList defaultMaskscopeTokenizerRoots();
QStringList defaultHubRoots();

class TokenizerPicker : public QComboBox {
  Q_OBJECT
public:
  // persistent: the recent list is kept in QSettings ("recentTokenizers"), as the app's window is.
  TokenizerPicker(Session* session, bool persistent, QWidget* parent = nullptr);

  // Re-reads the caches and selects the session's tokenizer.
  void refresh();
  QStringList recent() const { return recent_; }
  int indexOfSpec(const QString& spec) const;

private:
  void choose(int index);
  void remember(const QString& spec);

  Session* session_;
  bool persistent_ = false;
  QStringList recent_;
  bool filling_ = false;
};

} // namespace maskscope
