;; Drives the README's eglot configuration (loaded first with -l) in batch mode: opens
;; $GMONLENS_FILE, waits for the lens overlays the configuration draws once the server reports
;; "loaded", then asks for the hover (directly and through eldoc's function) and for workspace
;; symbols (xref-find-apropos's backend). Writes what it saw as JSON to $GMONLENS_RESULT.
(require 'cl-lib)
(require 'json)
(find-file (getenv "GMONLENS_FILE"))
(run-hooks 'post-command-hook) ; batch mode has no command loop: eglot-ensure connects here
(defun gmonlens-test--overlays ()
  (cl-remove-if-not (lambda (o) (overlay-get o 'gmonlens)) (overlays-in (point-min) (point-max))))
(let ((deadline (+ (float-time) 120)))
  (while (and (< (float-time) deadline) (not (gmonlens-test--overlays)))
    (accept-process-output nil 0.2)))
(let ((lenses (mapcar (lambda (o)
                        (list :line (line-number-at-pos (overlay-start o))
                              :title (substring-no-properties (overlay-get o 'before-string))))
                      (gmonlens-test--overlays)))
      (server (eglot-current-server))
      (eldoc nil))
  (goto-char (point-min))
  (search-forward "long work(")
  (backward-char 5)
  (let ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams))))
    (eglot-hover-eldoc-function (lambda (s &rest _) (setq eldoc s)))
    (let ((deadline (+ (float-time) 30)))
      (while (and (not eldoc) (< (float-time) deadline)) (accept-process-output nil 0.1)))
    (let ((symbols (xref-backend-apropos 'eglot "work"))
          (disasm (progn (gmonlens-disasm)
                         (with-current-buffer "*gmonlens-disasm work*"
                           (buffer-substring-no-properties (point-min) (point-max))))))
      (with-temp-file (getenv "GMONLENS_RESULT")
        (insert (json-encode
                 (list :lenses (vconcat lenses)
                       :hover (plist-get (plist-get hover :contents) :value)
                       :eldoc (and eldoc (substring-no-properties eldoc))
                       :apropos (vconcat (mapcar #'xref-item-summary symbols))
                       :disasm disasm)))))))
(kill-emacs 0)
