#!/usr/bin/env bash
# zk lsp driven by a second real client: Emacs with eglot, headless, on a
# copy of examples/vault. eglot is built into Emacs 29 and later; Debian
# 12's Emacs is 28, whose eglot is the elpa-eglot package. Skips, saying
# so, where emacs or eglot is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v emacs >/dev/null; then
  echo "eglot client test skipped: emacs missing (Debian: apt-get install emacs-nox elpa-eglot)"; exit 0
fi
if ! emacs --batch -Q --eval "(progn (add-to-list 'package-directory-list \"/usr/share/emacs/site-lisp/elpa\") (package-initialize) (require 'eglot))" 2>/dev/null; then
  echo "eglot client test skipped: $(emacs --version | head -1) has no eglot (Debian 12: apt-get install elpa-eglot)"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/zk" ./cmd/zk
cp -r examples/vault "$work/vault"
# Notes written this second are refused as maybe mid-write; age them.
find "$work/vault" -name '*.md' -exec touch -d '1 minute ago' {} +
export ZK="$work/zk" VAULT="$work/vault" ZK_TODAY=2026-12-02
export NOTE="3. Resources/Permanent Notes/A Rate Needs Its Denominator to Be Compared.md"
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state" HOME="$work/home"
mkdir -p "$HOME"
timeout 120 emacs --batch -Q -l .ci/lsp-eglot.el
