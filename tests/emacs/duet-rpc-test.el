;;; duet-rpc-test.el --- drive `duet-rpc rpc' with Emacs's own jsonrpc.el  -*- lexical-binding: t; -*-

;; Run: DUET_RPC_BIN=target/debug/duet-rpc emacs --batch -l tests/emacs/duet-rpc-test.el
;; Starts the daemon as a `jsonrpc-process-connection', calls every method,
;; checks the answers, sends notifications, calls `shutdown', and exits
;; non-zero on any mismatch.

(require 'jsonrpc)
(require 'cl-lib)

(defvar duet-test-failures 0)
(defvar duet-test-count 0)

(defun duet-test-check (what ok)
  "Report WHAT as passed when OK is non-nil, as failed otherwise."
  (setq duet-test-count (1+ duet-test-count))
  (if ok
      (message "ok %d - %s" duet-test-count what)
    (setq duet-test-failures (1+ duet-test-failures))
    (message "not ok %d - %s" duet-test-count what)))

(defun duet-test-error-code (thunk)
  "Call THUNK; return the JSON-RPC error code it signals, or nil."
  (condition-case err
      (progn (funcall thunk) nil)
    (jsonrpc-error (alist-get 'jsonrpc-error-code (cdr err)))))

(let* ((binary (expand-file-name (or (getenv "DUET_RPC_BIN") (error "DUET_RPC_BIN is not set"))))
       (stderr (get-buffer-create "*duet-rpc stderr*"))
       (process (make-process :name "duet-rpc"
                              :command (list binary "rpc")
                              :connection-type 'pipe
                              :coding 'utf-8-emacs-unix
                              :noquery t
                              :stderr stderr))
       (connection (jsonrpc-process-connection :name "duet-rpc" :process process))
       (version (getenv "DUET_RPC_VERSION")))
  (let ((init (jsonrpc-request connection :initialize nil)))
    (duet-test-check "initialize: serverInfo.name"
                     (equal (plist-get (plist-get init :serverInfo) :name) "duet-rpc"))
    (duet-test-check "initialize: serverInfo.version"
                     (equal (plist-get (plist-get init :serverInfo) :version) version))
    (duet-test-check "initialize: protocolVersion" (equal (plist-get init :protocolVersion) "2.0")))
  (let ((listed (jsonrpc-request connection :listMethods nil)))
    (duet-test-check "listMethods: six methods" (= (length listed) 6))
    (duet-test-check "listMethods: names and descriptions"
                     (cl-every (lambda (m) (and (stringp (plist-get m :name))
                                                (stringp (plist-get m :description))))
                               listed)))
  (let ((described (jsonrpc-request connection :describeMethods nil)))
    (duet-test-check "describeMethods: six signatures" (= (length described) 6))
    (duet-test-check "describeMethods: setLogLevel takes a level"
                     (cl-some (lambda (m) (and (equal (plist-get m :name) "setLogLevel")
                                               (equal (plist-get m :params) ["level: string"])))
                              described)))
  (duet-test-check "version"
                   (equal (plist-get (jsonrpc-request connection :version nil) :version) version))
  (let ((set (jsonrpc-request connection :setLogLevel '(:level "DEBUG"))))
    (duet-test-check "setLogLevel: normalised" (equal (plist-get set :level) "debug"))
    (duet-test-check "setLogLevel: success" (eq (plist-get set :success) t)))
  (duet-test-check "setLogLevel: an unknown level is -32602"
                   (eql (duet-test-error-code
                         (lambda () (jsonrpc-request connection :setLogLevel '(:level "loud"))))
                        -32602))
  (duet-test-check "an unknown method is -32601"
                   (eql (duet-test-error-code (lambda () (jsonrpc-request connection :nope nil))) -32601))
  ;; Notifications: no answer, and the daemon keeps serving.
  (jsonrpc-notify connection :setLogLevel '(:level "info"))
  (jsonrpc-notify connection :somethingUnknown nil)
  (duet-test-check "a request after notifications"
                   (equal (plist-get (jsonrpc-request connection :version nil) :version) version))
  ;; A non-ASCII payload: Content-Length counts bytes.
  (duet-test-check "non-ASCII params round-trip in the error data"
                   (condition-case err
                       (progn (jsonrpc-request connection :setLogLevel '(:level "ÍNFO✓")) nil)
                     (jsonrpc-error
                      (equal (plist-get (alist-get 'jsonrpc-error-data (cdr err)) :received) "ÍNFO✓"))))
  (let ((bye (jsonrpc-request connection :shutdown nil)))
    (duet-test-check "shutdown answers" (equal (plist-get bye :message) "Shutting down gracefully")))
  ;; A bound for a loaded machine: the daemon exits at once after shutdown,
  ;; and one that does not would never exit.
  (let ((deadline (+ (float-time) 10)))
    (while (and (process-live-p process) (< (float-time) deadline))
      (accept-process-output process 0.05)))
  (duet-test-check "the daemon exits after shutdown (within 10 s)" (not (process-live-p process)))
  (duet-test-check "with status 0" (eql (process-exit-status process) 0))
  ;; What the daemon wrote to stderr may still be in its pipe once it has
  ;; exited (on a loaded machine Emacs reads it later): read it to its end.
  (let ((pipe (get-buffer-process stderr))
        (deadline (+ (float-time) 10)))
    (while (and pipe (process-live-p pipe) (< (float-time) deadline))
      (accept-process-output pipe 0.05)))
  (with-current-buffer stderr
    (duet-test-check "it logged the unknown notification"
                     (string-match-p "notification of unknown method 'somethingUnknown'" (buffer-string))))
  (message "%d passed, %d failed" (- duet-test-count duet-test-failures) duet-test-failures)
  (kill-emacs (if (zerop duet-test-failures) 0 1)))
