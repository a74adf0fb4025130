;; Drives the README's eglot configuration (loaded first with -l) in batch mode: opens
;; $GMONLENS_FILE, waits for the lens overlays the configuration draws once the server reports
;; "loaded", then asks for the hover (directly and through eldoc's function) and for workspace
;; symbols (xref-find-apropos's backend). Writes what it saw as JSON to $GMONLENS_RESULT.
(require 'cl-lib)
(require 'json)
(setq gmonlens-trusted-folders (list default-directory)) ; the configuration's: gmonlens-record may run here
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
      ;; M-x gmonlens-record: `./build/app 300`; once loaded, the lens above work says 300 calls
      (gmonlens-record "./build/app 300")
      (let ((deadline (+ (float-time) 120)))
        (while (and (< (float-time) deadline) (not gmonlens-record-last))
          (accept-process-output nil 0.2)))
      (let ((deadline (+ (float-time) 60)) (after nil))
        (while (and (< (float-time) deadline) (not after))
          (setq after (cl-find-if (lambda (o) (string-match-p "300 calls" (overlay-get o 'before-string)))
                                  (gmonlens-test--overlays)))
          (unless after (accept-process-output nil 0.2)))
        (with-temp-file (getenv "GMONLENS_RESULT")
          (insert (json-encode
                   (list :lenses (vconcat lenses)
                         :hover (plist-get (plist-get hover :contents) :value)
                         :eldoc (and eldoc (substring-no-properties eldoc))
                         :apropos (vconcat (mapcar #'xref-item-summary symbols))
                         :disasm disasm
                         :record (list :usable (eq (plist-get gmonlens-record-last :usable) t)
                                       :out_dir (plist-get gmonlens-record-last :out_dir)
                                       :message (plist-get gmonlens-record-last :message))
                         :lens_after_record (and after (substring-no-properties
                                                        (overlay-get after 'before-string)))))))))))
(kill-emacs 0)
