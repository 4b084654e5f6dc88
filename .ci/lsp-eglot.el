;;; lsp-eglot.el --- Emacs eglot headless as a real client of zk lsp  -*- lexical-binding: t -*-
;; Open a note, read its diagnostics, go to the definition of a link,
;; run zk.tend (the server's workspace/applyEdit applied by eglot),
;; complete a link, list the references to a heading, read the code
;; lenses, rename a heading.  Run by .ci/lsp-eglot-test.sh with ZK, VAULT
;; and NOTE set.  eglot has no code lens display: the lenses are asked
;; for over eglot's own connection to the server.

(require 'package)
;; Debian's elpa-eglot lives in the system's package folder.
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'eglot)
(require 'flymake)
(require 'xref)

(defvar zk-ci-zk (getenv "ZK"))
(defvar zk-ci-vault (file-name-as-directory (expand-file-name (getenv "VAULT"))))
(defvar zk-ci-note (getenv "NOTE"))

(defun zk-ci-finish (code msg)
  (princ (concat msg "\n"))
  (kill-emacs code))

(defun zk-ci-check (ok msg)
  (unless ok
    ;; The end of the protocol's log, to see what went wrong.
    (when-let ((server (ignore-errors (eglot-current-server)))
               (events (ignore-errors (jsonrpc-events-buffer server))))
      (with-current-buffer events
        (princ (buffer-substring-no-properties (max (point-min) (- (point-max) 4000)) (point-max)))))
    (zk-ci-finish 1 (concat "FAIL: " msg)))
  ok)

(defun zk-ci-ok (fmt &rest args)
  (princ (concat "ok " (apply #'format fmt args) "\n")))

(defun zk-ci-wait (pred secs)
  "Wait up to SECS seconds for PRED, serving the server's messages."
  (let ((deadline (+ (float-time) secs)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(defun zk-ci-goto (text &optional skip)
  "Move point to the first TEXT of the buffer, plus SKIP characters."
  (goto-char (point-min))
  (zk-ci-check (search-forward text nil t) (format "%S not in %s" text (buffer-name)))
  (goto-char (+ (match-beginning 0) (or skip 0))))

(defun zk-ci-files (xrefs)
  "The files and lines of XREFS, as \"name:line\"."
  (mapcar (lambda (x)
            (let ((loc (xref-item-location x)))
              (format "%s:%s" (file-name-nondirectory (xref-location-group loc))
                      (xref-location-line loc))))
          xrefs))

;; A markdown mode of our own: Emacs 28 has none, and eglot names the
;; language after the mode ("markdown").
(define-derived-mode markdown-mode text-mode "Markdown")
(add-to-list 'auto-mode-alist '("\\.md\\'" . markdown-mode))
(setq eglot-server-programs `((markdown-mode . (,zk-ci-zk "lsp"))))
;; The vault is the project: notes of every folder share one server, and
;; zk takes the vault from the project's root eglot sends (rootUri), no
;; --vault needed.
(add-hook 'project-find-functions
          (lambda (dir)
            (when (string-prefix-p zk-ci-vault (file-name-as-directory (expand-file-name dir)))
              (cons 'transient zk-ci-vault))))
;; Edits the server asks for (zk.tend's workspace/applyEdit) and a rename
;; reaching a note not open would prompt; headless, the answer is yes.
(setq eglot-confirm-server-initiated-edits nil)
(advice-add 'y-or-n-p :override (lambda (prompt) (princ (format "(yes to) %s\n" prompt)) t))

(find-file (expand-file-name zk-ci-note zk-ci-vault))
(apply #'eglot (eglot--guess-contact))
(zk-ci-check (eglot-current-server) "eglot did not connect to zk lsp")
(zk-ci-ok "connected: %s" (plist-get (eglot--server-info (eglot-current-server)) :name))

;; Diagnostics: the note was last tended long ago.
(zk-ci-check (zk-ci-wait (lambda () (or eglot--diagnostics (flymake-diagnostics))) 30) "no diagnostics within 30 s")
(flymake-start)
(zk-ci-check (zk-ci-wait (lambda () (flymake-diagnostics)) 10) "flymake shows no diagnostics")
(let ((texts (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
  (zk-ci-check (cl-some (lambda (s) (string-match-p "\\[maintenance/stale\\]" s)) texts)
               (format "diagnostics %S lack maintenance/stale" texts))
  (zk-ci-ok "diagnostics: %s" (mapconcat #'identity texts " | ")))

;; Definition: on the first [[link]] of the Links section.
(zk-ci-goto "[[A Speedup Reported" 5)
(let ((defs (zk-ci-files (xref-backend-definitions 'eglot (xref-backend-identifier-at-point 'eglot)))))
  (zk-ci-check (cl-some (lambda (f) (string-prefix-p "A Speedup Reported Without Its Baseline Cannot Be Checked.md" f)) defs)
               (format "definition: %S" defs))
  (zk-ci-ok "definition: %S" defs))

;; zk.tend through workspace/executeCommand: the server answers, and asks
;; eglot to apply the edit to the buffer (workspace/applyEdit).
(let ((res (eglot-execute-command (eglot-current-server) 'zk.tend (vector (eglot--path-to-uri buffer-file-name)))))
  (zk-ci-check (eq (plist-get res :inEditor) t) (format "zk.tend answered %S" res))
  (zk-ci-check (zk-ci-wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "- Last tended: 2026-12-02" nil t))) 10)
               (format "after zk.tend the buffer reads %S"
                       (save-excursion (zk-ci-goto "Last tended") (buffer-substring (line-beginning-position) (line-end-position)))))
  (zk-ci-ok "zk.tend applied by eglot: %S" res))

;; Completion: "[[Percent" typed on a new line; eglot's own capf.
(goto-char (point-max))
(insert "\nSee [[Percent")
(eglot--signal-textDocument/didChange)
(let* ((capf (eglot-completion-at-point))
       (labels (and capf (mapcar #'substring-no-properties (all-completions "" (nth 2 capf))))))
  (zk-ci-check (member "Percentiles Cannot Be Averaged Across Hosts" labels) (format "completion: %S" labels))
  (zk-ci-ok "completion: %S" labels))
(set-buffer-modified-p nil)

;; References to a heading: "## Evidence" of a note another note links
;; into ([[A Mean Latency Hides the Tail a User Waits On#Evidence|...]]).
(find-file (expand-file-name "3. Resources/Permanent Notes/A Mean Latency Hides the Tail a User Waits On.md" zk-ci-vault))
(zk-ci-check (zk-ci-wait (lambda () (eglot-current-server)) 10) "the second note is not managed by eglot")
(zk-ci-goto "## Evidence" 4)
(let ((refs (zk-ci-files (xref-backend-references 'eglot (xref-backend-identifier-at-point 'eglot)))))
  (zk-ci-check (member "A Benchmark Measures Capability Not Lived Experience.md:14" refs)
               (format "references to ## Evidence: %S" refs))
  (zk-ci-ok "references to ## Evidence: %S" refs))

;; Code lens, over eglot's connection: the backlinks and the links to
;; the heading.
(let* ((lenses (jsonrpc-request (eglot-current-server) :textDocument/codeLens
                                `(:textDocument ,(eglot--TextDocumentIdentifier))))
       (titles (mapcar (lambda (l) (plist-get (plist-get l :command) :title)) lenses)))
  (zk-ci-check (member "1 link to this heading" titles) (format "code lenses: %S" titles))
  (zk-ci-check (cl-some (lambda (s) (string-match-p "^[0-9]+ backlinks?$" s)) titles) (format "code lenses: %S" titles))
  (zk-ci-ok "code lenses: %S" titles))

;; Rename the heading: the heading and the other note's link to it, both
;; edited by eglot.
(zk-ci-goto "## Evidence" 4)
(eglot-rename "Evidence seen")
(zk-ci-goto "## Evidence")
(let ((line (buffer-substring (line-beginning-position) (line-end-position))))
  (zk-ci-check (equal line "## Evidence seen") (format "after the rename the heading reads %S" line)))
(with-current-buffer (find-buffer-visiting (expand-file-name "3. Resources/Permanent Notes/A Benchmark Measures Capability Not Lived Experience.md" zk-ci-vault))
  (zk-ci-check (save-excursion (goto-char (point-min)) (search-forward "#Evidence seen|the latency example]]" nil t))
               "the linking note's [[...#Evidence|...]] was not renamed"))
(zk-ci-ok "rename: ## Evidence -> ## Evidence seen, and the link to it")

(zk-ci-finish 0 (format "eglot %s (Emacs %s) lsp client: all passed"
                        (package-version-join (package-desc-version (cadr (assq (quote eglot) package-alist))))
                        emacs-version))
