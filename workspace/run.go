package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/shutdown"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// RunRequest is zk run's, for one falsifier of one note.
type RunRequest struct {
	// Note is the note argument; Falsifier (field "falsifier") picks the
	// falsifier tested: its number or a piece of its text, "" for the
	// only one.
	Note, Falsifier string
	// Argv is the command to run; nil runs the command written under the
	// falsifier, and only when the user approved it (NotApprovedError).
	Argv []string
	// Timeout (field "timeout") kills the command's process group; zero
	// is runner.DefaultTimeout.
	Timeout time.Duration
	// MaxLog bounds the log kept of stdout (and of stderr); zero is
	// runner.DefaultMaxLog.
	MaxLog int64
	// Tend also sets the note's Last tended date to today.
	Tend bool
	// DryRun decides what would run, and runs and writes nothing.
	DryRun bool
	// Live receives the command's stdout and stderr as they come; nil
	// for none.
	Live io.Writer
}

// RunResult is what a run did.
type RunResult struct {
	// Note is the note's vault path; Falsifier the falsifier tested.
	Note      string
	Falsifier evidence.Falsifier
	// Argv is the command, run or (DryRun) that would run, in Dir.
	Argv []string
	Dir  string
	// Timeout is the timeout the command ran under.
	Timeout time.Duration
	// Run is the record written into the note (zero for a dry run).
	Run evidence.Run
}

// Status is how the command ended: "exit N", or what stopped it.
func (r RunResult) Status() string {
	if r.Run.Status != "" {
		return r.Run.Status
	}
	return "exit " + strconv.Itoa(r.Run.Exit)
}

// testOnlyLogWriter, when a test sets it, stands between the runner and
// the run's log: a writer that fails stands for a full disk.
var testOnlyLogWriter func(io.Writer) io.Writer

// Run runs a command that tests one of a note's falsifiers, and records
// the dated result in the note's Evidence section, with its verdict from
// the falsifier's criterion. A signal (ctx ending) stops the command and
// the run is still recorded, as interrupted, holding the process's exit
// (shutdown.Hold) until it is.
func (w *Workspace) Run(ctx context.Context, req RunRequest) (RunResult, error) {
	if req.Timeout == 0 {
		req.Timeout = runner.DefaultTimeout
	}
	if req.Timeout < 0 {
		return RunResult{}, usage(fmt.Errorf("%s must be positive", w.field("timeout")))
	}
	if req.MaxLog <= 0 {
		req.MaxLog = runner.DefaultMaxLog
	}
	e, err := w.evidenceNote(ctx, req.Note, "runs", req.Falsifier, req.Tend)
	if err != nil {
		return RunResult{}, err
	}
	return w.run(ctx, e, req)
}

// run runs and records req's command for the note e, already read.
func (w *Workspace) run(ctx context.Context, e *evidenceNote, req RunRequest) (RunResult, error) {
	v, p, fals := w.Vault, e.path, e.falsifier
	if err := checkCriterion(p, fals); err != nil {
		return RunResult{}, err
	}
	out := RunResult{Note: p, Falsifier: fals, Argv: req.Argv, Dir: v.Dir, Timeout: req.Timeout}
	if out.Argv == nil {
		argv, err := noteCommand(v, p, fals)
		if err != nil {
			return RunResult{}, err
		}
		out.Argv = argv
	}
	if req.DryRun {
		return out, nil
	}

	// From here a signal stops the command, and the run is still recorded,
	// as interrupted, before zk exits.
	release := shutdown.Hold(ctx)
	defer release()
	if err := ctx.Err(); err != nil {
		return RunResult{}, err // interrupted before anything ran: nothing to record
	}
	r, logFile, err := evidence.NewRun(v, w.environment())
	if err != nil {
		return RunResult{}, err
	}
	r.Falsifier, r.FalsifierID, r.Command = fals.Text, fals.ID, runner.Quote(out.Argv)
	// The log is zk's copy; the result is what matters. A log that cannot
	// be written (a full disk) costs the log, never the result: the output
	// still streams live, its tail still goes into the note.
	var file io.Writer = logFile
	if testOnlyLogWriter != nil {
		file = testOnlyLogWriter(file)
	}
	lw := &logWriter{w: file, sum: sha256.New()}
	// stderr is kept apart: stdout is the measurement a criterion reads.
	errFile, err := evidence.NewErrLog(v, &r)
	if err != nil {
		logFile.Finish()
		return RunResult{}, err
	}
	ew := &logWriter{w: errFile}
	res, err := runner.Run(ctx, runner.Command{
		Argv:    out.Argv,
		Dir:     v.Dir,
		Env:     runEnv(os.Environ(), v.Dir, p, zkCache()),
		Timeout: req.Timeout,
		Live:    req.Live,
		Log:     lw,
		ErrLog:  ew,
		MaxLog:  req.MaxLog,
	})
	logErr := lw.err
	if err != nil && (logErr != nil && errors.Is(err, logErr) || ew.err != nil && errors.Is(err, ew.err)) {
		err = nil // the runner's "write log" error: the result stands
	}
	if ferr := logFile.Finish(); logErr == nil && ferr != nil {
		logErr = ferr
	}
	if ferr := errFile.Finish(); ew.err == nil && ferr != nil {
		ew.err = ferr
	}
	if err != nil {
		return RunResult{}, err
	}
	if res.StartErr != nil {
		// Nothing ran: no record in the note, no verdict, no logs.
		v.Root().Remove(filepath.FromSlash(r.Log))
		v.Root().Remove(filepath.FromSlash(r.ErrLog))
		return RunResult{}, &NotStartedError{Note: p, Command: out.Argv[0], Err: res.StartErr}
	}
	if res.ErrBytes == 0 && ew.err == nil {
		// Nothing on stderr: no empty file beside the log.
		if v.Root().Remove(filepath.FromSlash(r.ErrLog)) == nil {
			r.ErrLog = ""
		}
	}
	describe(&r, res, req.Timeout)
	if ew.err != nil {
		w.warn("the stderr log %s is incomplete (%v)", r.ErrLog, ew.err)
	}
	if logErr != nil {
		w.warn("the log %s is incomplete (%v); the result is recorded all the same", r.Log, logErr)
		r.Output.Error = fmt.Sprintf("the full log could not be written (%v); it holds the first %d of %d bytes", logErr, lw.n, res.Bytes)
	}
	// repeat: N runs the command N-1 times more, each stdout its own log,
	// and the samples of all are pooled; a run that fails ends it.
	var more []repeated
	if n, _ := fals.Repeats(); n > 1 && r.Status == "" && logErr == nil && !res.Truncated {
		for k := 2; k <= n; k++ {
			rr, err := runAgain(ctx, v, r.ID, k, runner.Command{
				Argv: out.Argv, Dir: v.Dir, Env: runEnv(os.Environ(), v.Dir, p, zkCache()),
				Timeout: req.Timeout, Live: req.Live, MaxLog: req.MaxLog,
			}, req.Timeout)
			if err != nil {
				return RunResult{}, err
			}
			more = append(more, rr)
			if rr.outcome.Failed != "" || rr.outcome.Exit != 0 {
				break
			}
		}
		r.Output.Runs, r.Output.Repeat = 1+len(more), n
	}
	if logErr == nil {
		// What each log holds, so that a judgement again reads it only
		// as the run wrote it.
		r.LogSums = []string{evidence.SumOf(lw.sum.Sum(nil))}
		for _, m := range more {
			r.LogSums = append(r.LogSums, m.sum)
		}
	}
	if err := judgeRun(v, &r, fals, res, logErr, w.Config.Judging(r.ID), more...); err != nil {
		return RunResult{}, err
	}
	if failed(r) && len(res.ErrTail) > 0 {
		// The reason a run decided nothing is in the note, not only in a
		// log.
		r.Output.ErrLast = res.ErrTail[len(res.ErrTail)-1]
	}
	if err := probeTable(v, p, &r, res); err != nil {
		return RunResult{}, err
	}
	if r, err = w.record(e, r); err != nil {
		return RunResult{}, err
	}
	out.Run = r
	return out, nil
}

// logWriter is the run's log file, counting what reached it and keeping
// the first error; sum, when set, hashes what reached it.
type logWriter struct {
	w   io.Writer
	n   int64
	err error
	sum hash.Hash
}

func (l *logWriter) Write(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.w.Write(p)
	l.n += int64(n)
	l.err = err
	if l.sum != nil {
		l.sum.Write(p[:n])
	}
	return n, err
}

// probeTable shows the output of a zk probe --format json run as its
// table (and chart), as an attached result would, instead of the JSON's
// last lines.
func probeTable(v *vault.Vault, notePath string, r *evidence.Run, res runner.Result) error {
	if res.Truncated || res.Bytes == 0 || r.Output.Error != "" {
		return nil
	}
	data, err := v.ReadFile(r.Log, res.Bytes)
	if err != nil {
		return err
	}
	md, ok, err := probeEvidence(v, notePath, r.ID, data)
	if err != nil || !ok {
		return err
	}
	r.Format, r.Table, r.Output.Tail = "zk probe", strings.Split(strings.TrimRight(md, "\n"), "\n"), nil
	return nil
}

// describe fills in the record from what the runner saw; judgeRun then
// decides the verdict.
func describe(r *evidence.Run, res runner.Result, timeout time.Duration) {
	r.Duration, r.Exit = res.Duration, res.Exit
	r.Output = &evidence.Output{Lines: res.Lines, Bytes: res.Bytes, Tail: res.Tail, Truncated: res.Truncated, ErrLines: res.ErrLines}
	r.Status = statusOf(res, timeout)
	if res.StartErr != nil {
		r.Output.Error = res.StartErr.Error()
	}
}

// statusOf says how a command that did not exit by itself ended; "" when
// it did.
func statusOf(res runner.Result, timeout time.Duration) string {
	switch {
	case res.StartErr != nil:
		return "could not start"
	case res.TimedOut:
		return "timed out after " + timeout.String()
	case res.Interrupted:
		return "interrupted"
	case res.Signal != "":
		return "killed by " + res.Signal
	}
	return ""
}

// repeated is one more run of a falsifier's command (repeat: N): how it
// ended and the vault path of its stdout log.
type repeated struct {
	outcome evidence.Outcome
	log     string
	bytes   int64
	sum     string // evidence.LogSum of its log
}

// runAgain runs c once more as run k of run id, its stdout to
// .zk/runs/ID.k.log and its stderr to .zk/runs/ID.k.stderr.log (removed
// when empty).
func runAgain(ctx context.Context, v *vault.Vault, id string, k int, c runner.Command, timeout time.Duration) (repeated, error) {
	logFile, logPath, err := evidence.NewLog(v, evidence.RepeatLogName(id, k))
	if err != nil {
		return repeated{}, err
	}
	errFile, errPath, err := evidence.NewLog(v, strings.TrimSuffix(evidence.RepeatLogName(id, k), ".log")+".stderr.log")
	if err != nil {
		logFile.Finish()
		return repeated{}, err
	}
	lw, ew := &logWriter{w: logFile, sum: sha256.New()}, &logWriter{w: errFile}
	c.Log, c.ErrLog = lw, ew
	res, err := runner.Run(ctx, c)
	ferr := logFile.Finish()
	errFile.Finish()
	if res.ErrBytes == 0 {
		v.Root().Remove(filepath.FromSlash(errPath))
	}
	rr := repeated{outcome: evidence.Outcome{Exit: res.Exit, Failed: statusOf(res, timeout)}, log: logPath, bytes: res.Bytes, sum: evidence.SumOf(lw.sum.Sum(nil))}
	switch {
	case lw.err != nil || ferr != nil:
		rr.outcome.Failed = "ran, but its log is incomplete, so its output is not all there"
	case res.Truncated:
		rr.outcome.Failed = "printed more than the log keeps (--max-output)"
	case err != nil:
		return rr, err
	}
	return rr, nil
}

// failed says the run decided nothing, or its command failed: its block
// quotes the last line of stderr.
func failed(r evidence.Run) bool {
	switch r.Verdict {
	case evidence.VerdictInconclusive, evidence.VerdictError:
		return true
	}
	return r.Status != "" || r.Exit != 0
}

// judgeRun sets r's verdict and criterion statement from the falsifier's
// criterion and the command's output, read back from its log. (A command
// that could not start never gets here: it is not a run.)
func judgeRun(v *vault.Vault, r *evidence.Run, f evidence.Falsifier, res runner.Result, logErr error, settings evidence.Settings, more ...repeated) error {
	var data []byte
	if res.Bytes > 0 && f.Criterion != "" && logErr == nil {
		var err error
		if data, err = v.ReadFile(r.Log, res.Bytes); err != nil {
			return err
		}
	}
	o := evidence.Outcome{Exit: res.Exit, Failed: r.Status}
	switch {
	case logErr != nil:
		o.Failed = "ran, but its log is incomplete, so its output is not all there"
	case res.Truncated:
		o.Failed = "printed more than the log keeps (--max-output)"
	}
	outcomes, outputs := []evidence.Outcome{o}, [][]byte{data}
	for _, m := range more {
		var d []byte
		if m.bytes > 0 && f.Criterion != "" {
			var err error
			if d, err = v.ReadFile(m.log, m.bytes); err != nil {
				return err
			}
		}
		outcomes, outputs = append(outcomes, m.outcome), append(outputs, d)
	}
	j := evidence.JudgeRuns(f, outcomes, outputs, settings)
	r.Verdict, r.Criterion = j.Verdict, j.Statement
	if f.Criterion != "" {
		r.JudgedWith = f.Under(settings).JudgedWith()
	}
	return nil
}

// runEnv is the environment a falsifier's command runs in: env with
// ZK_VAULT and ZK_NOTE set to the vault's folder and the note, and PATH
// without its entries that are not absolute. An empty entry, ".", or
// "bin" finds commands in the folder the command runs in, the vault's:
// a script or a Makefile's recipe calling python3 would run a python3 the
// vault put there, a file no approval names (Go's exec refuses that for
// the command itself, ErrDot; a shell it starts does not).
//
// Two tools run, instead of the code an approval binds, what they built
// from it before, kept where a vault can ship it: Python loads a module's
// __pycache__/*.pyc without reading its source when the .pyc's header
// holds the source's mtime and size, and cargo runs the test binary in
// target/ when target/'s fingerprints say it is fresh. A vault shipping
// one so stamped ran it while the approved source was unchanged
// (trust-pycache.txtar, trust-cargo-target.txtar). So PYTHONPYCACHEPREFIX
// and CARGO_TARGET_DIR are folders of zk's cache folder cache (the
// latter one per vault), unless env sets them to absolute paths, the
// user's own; a relative one would be read from the vault's folder. With
// no cache folder (""), they are left as they are.
func runEnv(env []string, dir, note, cache string) []string {
	own := map[string]string{}
	if cache != "" {
		sum := sha256.Sum256([]byte(dir))
		own["PYTHONPYCACHEPREFIX"] = filepath.Join(cache, "pycache")
		own["CARGO_TARGET_DIR"] = filepath.Join(cache, "cargo-target", hex.EncodeToString(sum[:8]))
	}
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		switch {
		case name == "ZK_VAULT" || name == "ZK_NOTE":
			continue
		case name == "PATH":
			kv = "PATH=" + absolutePath(val)
		case name == "PYTHONPYCACHEPREFIX" || name == "CARGO_TARGET_DIR":
			if !filepath.IsAbs(val) {
				continue
			}
			delete(own, name)
		}
		out = append(out, kv)
	}
	for _, name := range []string{"PYTHONPYCACHEPREFIX", "CARGO_TARGET_DIR"} {
		if v, ok := own[name]; ok {
			out = append(out, name+"="+v)
		}
	}
	return append(out, "ZK_VAULT="+dir, "ZK_NOTE="+note)
}

// zkCache is zk's folder in the user's cache folder, outside every vault,
// where a falsifier's tools keep what they build (runEnv). Without one
// (no home folder), a folder of the system's temporary one would be
// another user's to fill: "".
func zkCache() string {
	dir, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Join(dir, "zk")
}

// absolutePath is the search path p with only its absolute entries.
func absolutePath(p string) string {
	var keep []string
	for _, e := range filepath.SplitList(p) {
		if filepath.IsAbs(e) {
			keep = append(keep, e)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
