package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/lazyre"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
)

// The evidence block (docs/design.md, evidence blocks). A recorded run is one contiguous
// block at the end of a note's Evidence section: a start marker, a folded
// callout that people read, and an end marker carrying a checksum of the
// lines between, so a hand edit of a record can be told apart from the
// record (the idea of cog's -c checksum).
//
//	<!-- zk:run id=20261202T140312Z-3f9c v=1 -->
//	> [!success]- Falsifier run 2026-12-02 14:03 UTC · exit 0 · 12.4 s
//	> - **Falsifier:** Re-run the same deployment at concurrency 1 ...
//	> - **Command:** `zk probe openai --concurrency 1,16`
//	> - **Environment:** linux/amd64 · 16 CPU · zk v0.3.0
//	> - **Output:** 214 lines, last 20 below; full log `.zk/runs/20261202T140312Z-3f9c.log`
//	>
//	> ```text
//	> ...
//	> ```
//	<!-- zk:run-end id=20261202T140312Z-3f9c sum=sha256:... -->

// ErrNoEvidence is returned by InsertRun for a note without an Evidence
// section: there is nowhere to put the record.
var ErrNoEvidence = errors.New("the note has no Evidence section")

// EvidenceSection is the title of the section run blocks go into.
const EvidenceSection = "Evidence"

// FalsifierSections are the titles, in order of preference, of the section
// whose list items are the note's falsifiers.
var FalsifierSections = []string{"Tests / falsifiers", "Falsifiers", "Tests"}

// Verdict is what a run says about the claim. A falsifier with a
// criterion ("refuted if: EXPR" under it in the note) gets refutes when
// the criterion holds on the command's output, supports when it was
// evaluated and does not hold, and inconclusive when the command failed,
// timed out, or the criterion could not be evaluated. A run without a
// criterion has no verdict (VerdictNone): an exit code of 0 shows that a
// command ran, not that the claim survived. Blocks recorded before
// criteria existed carry git bisect run's reading of the exit code (see
// VerdictOf) and are read back as written.
type Verdict string

// The verdicts, and what zk attach records.
const (
	VerdictSupports     Verdict = "supports"
	VerdictRefutes      Verdict = "refutes"
	VerdictInconclusive Verdict = "inconclusive"
	VerdictError        Verdict = "error"
	VerdictAttached     Verdict = "attached"
	// VerdictNone records a run of a falsifier without a criterion.
	VerdictNone Verdict = "none"
)

// ExitInconclusive is the exit code a falsifier uses to say it could not
// decide (git bisect run's "skip").
const ExitInconclusive = 125

// callouts maps a verdict to its Obsidian callout type, and back.
var callouts = map[Verdict]string{
	VerdictSupports:     "success",
	VerdictRefutes:      "failure",
	VerdictInconclusive: "question",
	VerdictError:        "bug",
	VerdictAttached:     "info",
	VerdictNone:         "note",
}

// Callout returns the Obsidian callout type that shows v.
func (v Verdict) Callout() string {
	if c, ok := callouts[v]; ok {
		return c
	}
	return "note"
}

// VerdictOf reads an exit code as a verdict, as blocks recorded before
// criteria did; Judge decides the verdict of a new run.
func VerdictOf(exit int) Verdict {
	switch exit {
	case 0:
		return VerdictSupports
	case ExitInconclusive:
		return VerdictInconclusive
	default:
		return VerdictRefutes
	}
}

// Run is one recorded falsifier run, or a result recorded by zk attach. It
// is both what RenderRun writes and what ParseRuns reads back.
type Run struct {
	// ID is the UTC start time and four random hex digits,
	// e.g. 20261202T140312Z-3f9c; see NewRunID.
	ID string
	// Started is when the command started (or the result was attached).
	Started time.Time
	// Attached marks a result recorded from a file rather than run.
	Attached bool
	// Rejudges, when set, is the id of the run whose output this record
	// judges again under the falsifier's criterion as it is now (zk run
	// --rejudge): nothing ran.
	Rejudges string
	Verdict  Verdict
	// Exit is the command's exit code, or -1 when it did not exit by
	// itself (timed out, killed, could not start) or was not run.
	Exit int
	// Status replaces "exit N" in the title when the command did not exit
	// by itself: "timed out after 10m0s", "could not start".
	Status   string
	Duration time.Duration
	// Falsifier is the falsifier's text, quoted from the note; may be empty.
	Falsifier string
	// FalsifierID is the block id of the falsifier's list item (without
	// its ^): what ties the run to the falsifier when its text is reworded
	// or the list reordered. Empty in blocks recorded before ids, which
	// are tied by Falsifier.
	FalsifierID string
	// Command is the command as a shell would read it, for zk run; the
	// file name, for zk attach.
	Command string
	// Format names the format of an attached result zk read, such as
	// "hyperfine"; empty for text.
	Format string
	// Measured is, for an attached result, when its file was last
	// modified: the latest the measurement can have been made, which
	// decides whether it can answer a refutation (an older result answers
	// no newer refutation). Zero when the block does not say (attached
	// before zk recorded it).
	Measured    time.Time
	Environment string
	// Output is the captured output, for zk run.
	Output *Output
	// Table holds Markdown lines shown instead of output (zk attach of a
	// result zk knows how to read, such as hyperfine JSON).
	Table []string
	// Text is the text shown for a result zk does not know how to read.
	Text []string
	// Log is the vault path of the full log (stdout: the measurement) or
	// the attached copy; ErrLog that of the run's stderr, when it printed
	// any.
	Log    string
	ErrLog string
	// LogSums name the bytes of each stdout log the record was judged on,
	// in run order (Logs), or of an attached result's copy: LogSum's.
	// Judging the record again reads a log only while it still holds
	// them (Rejudger); empty in records written before them.
	LogSums []string
	// Criterion states the criterion, the values it read and what it
	// found, or why it could not be evaluated; empty for a falsifier
	// without one. It is inside the checksum, as the verdict is.
	Criterion string
	// JudgedWith names what judged the run besides the criterion the
	// statement quotes: the falsifier's captures, number convention and
	// confidence, as Falsifier.JudgedWith writes them; empty when it has
	// none of them.
	JudgedWith string
	// Before is, for a judgement again (Rejudges), what the falsifier's
	// latest record said until then: its verdict and statement.
	Before string

	// Set by ParseRuns only.

	// LogCut says the record's output field says its log is not the
	// whole output (cut at the size cap, or not all written): a criterion
	// judged again on it is not evaluated. Stopped says a repeat (repeat:
	// N) failed and stopped the command's runs.
	LogCut  bool
	Stopped bool

	// Line is the 0-based line of the start marker.
	Line int
	// Problem says why the block does not match its checksum, or is
	// empty when it does.
	Problem string
	// Gone, set by LatestRuns only, marks the record of a refuting run
	// the ledger keeps for the note and whose block is gone from it
	// (evidence/run-vanished): it refutes, as the ledger says, and
	// nothing else of it is known (its criterion, how its command
	// ended), so nothing can judge its output again.
	Gone bool
	// Runs is how many times the command ran, as the block's Output
	// field says (a falsifier's repeat: N); 1 when it says nothing.
	// Repeat is how many runs its falsifier's repeat: asked for, which a
	// failed run may have stopped short of (Stopped); 1 likewise.
	Runs, Repeat int
}

// Logs lists the vault paths of a recorded run's stdout logs, in run
// order: ID.log, then ID.2.log… for a command run several times. Judging
// the record again reads them all (evidence.JudgeRuns).
func (r Run) Logs() []string {
	logs := []string{path.Join(RunsDir, r.ID+".log")}
	for k := 2; k <= r.Runs; k++ {
		logs = append(logs, path.Join(RunsDir, RepeatLogName(r.ID, k)))
	}
	return logs
}

var runsRe = lazyre.New(`^run (\d+) (?:of \d+ )?times \(repeat: (\d+)\)`)

// Output is what a command printed, as a record keeps it.
type Output struct {
	// Lines and Bytes count everything the command printed.
	Lines int
	Bytes int64
	// Tail holds the last lines, already cleaned of escapes.
	Tail []string
	// Truncated says the log stopped at the size cap.
	Truncated bool
	// Error is why the command could not start, if it could not.
	Error string
	// ErrLines counts the lines the command printed on stderr, which
	// are not in Lines; ErrLast, when set, is the last of them, quoted in
	// the block (for a run that failed or decided nothing, it says why).
	ErrLines int
	ErrLast  string
	// Runs is how many times the command ran of the Repeat a falsifier
	// asked for (repeat: N; a failed run stops them), each run's stdout
	// in its own log; 0 or 1: once.
	Runs, Repeat int
}

// NewRunID makes a run id from a start time and four random hex digits.
func NewRunID(started time.Time, random [2]byte) string {
	return started.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(random[:])
}

// LogSum names the bytes of a log as a record keeps them: the first 16
// hex digits of their SHA-256 (as sha256sum prints it), so a reader can
// check a log by hand; SumOf is the same of a sum computed already.
func LogSum(data []byte) string {
	sum := sha256.Sum256(data)
	return SumOf(sum[:])
}

// SumOf is LogSum of a log whose SHA-256 is sum.
func SumOf(sum []byte) string { return "sha256:" + hex.EncodeToString(sum)[:16] }

// startedOf is when run id started, as NewRunID wrote it; zero for an
// id that does not say.
func startedOf(id string) time.Time {
	t, _ := time.Parse("20060102T150405Z", strings.SplitN(id, "-", 2)[0])
	return t
}

// RenderRun renders r as a block, with lines ended by nl ("\n" or "\r\n").
// The block ends with its end marker and no line ending.
func RenderRun(r Run, nl string) []byte {
	lines := runBody(r)
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- zk:run id=%s v=1 -->%s", r.ID, nl)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString(nl)
	}
	fmt.Fprintf(&b, "<!-- zk:run-end id=%s sum=%s -->", r.ID, runSum(r.ID, lines))
	return b.Bytes()
}

// runBody renders the lines between the markers.
func runBody(r Run) []string {
	verdict := r.Verdict
	if verdict == "" {
		verdict = VerdictOf(r.Exit)
	}
	when := r.Started.UTC().Format("2006-01-02 15:04") + " UTC"
	var title string
	switch {
	case r.Rejudges != "":
		title = fmt.Sprintf("Judged again %s · run %s", when, oneLine(r.Rejudges))
	case r.Attached:
		title = fmt.Sprintf("Result attached %s · %s", when, oneLine(r.Command))
	default:
		status := r.Status
		if status == "" {
			status = fmt.Sprintf("exit %d", r.Exit)
		}
		title = fmt.Sprintf("Falsifier run %s · %s · %s", when, oneLine(status), formatDuration(r.Duration))
	}
	out := []string{fmt.Sprintf("> [!%s]- %s", verdict.Callout(), title)}
	field := func(name, value string) {
		out = append(out, fmt.Sprintf("> - **%s:** %s", name, value))
	}
	if r.Falsifier != "" {
		field("Falsifier", oneLine(r.Falsifier))
	}
	if r.FalsifierID != "" {
		field("Falsifier id", oneLine(r.FalsifierID))
	}
	switch {
	case r.Rejudges != "":
	case r.Attached:
		field("Source", inlineCode(r.Command))
		if r.Format != "" {
			field("Format", oneLine(r.Format))
		}
		if !r.Measured.IsZero() {
			field("Measured", r.Measured.UTC().Format(measuredLayout)+" (the file's modification time)")
		}
	default:
		field("Command", inlineCode(r.Command))
	}
	if r.Criterion != "" {
		field("Criterion", oneLine(r.Criterion))
	}
	if r.JudgedWith != "" {
		field("Judged with", oneLine(r.JudgedWith))
	}
	if r.Before != "" {
		field("Before", oneLine(r.Before))
	}
	if r.Environment != "" {
		field("Environment", oneLine(r.Environment))
	}
	var shown []string
	switch {
	case r.Output != nil:
		o := r.Output
		shown = cleanLines(o.Tail)
		if o.Error != "" {
			field("Error", oneLine(o.Error))
		}
		desc := plural(o.Lines, "line")
		switch {
		case o.Lines == 0:
			desc = "none"
		case len(shown) == 0:
		case len(shown) < o.Lines:
			desc += fmt.Sprintf(", last %d below", len(shown))
		default:
			desc += ", below"
		}
		if o.Truncated {
			desc += "; log cut at the size cap"
		}
		if r.Log != "" {
			desc += "; full log " + inlineCode(r.Log)
		}
		if o.Runs > 1 {
			times := fmt.Sprintf("run %d times (repeat: %d), their samples pooled", o.Runs, max(o.Repeat, o.Runs))
			if o.Repeat > o.Runs {
				times = fmt.Sprintf("run %d of %d times (repeat: %d), stopped by a run that failed", o.Runs, o.Repeat, o.Repeat)
			}
			others := inlineCode(path.Join(RunsDir, RepeatLogName(r.ID, 2)))
			if o.Runs > 2 {
				others = "logs " + others + " to " + inlineCode(path.Join(RunsDir, RepeatLogName(r.ID, o.Runs)))
			} else {
				others = "log " + others
			}
			desc = fmt.Sprintf("%s; the first run's %s; the others' %s", times, desc, others)
		}
		field("Output", desc)
		if o.ErrLines > 0 {
			e := "stderr " + plural(o.ErrLines, "line")
			if r.ErrLog != "" {
				e += " in " + inlineCode(r.ErrLog)
			}
			if o.ErrLast != "" {
				e += "; the last: " + inlineCode(printable.Of(o.ErrLast))
			}
			field("Stderr", e)
		}
	case r.Rejudges != "":
		field("Output", "judged again from the log "+inlineCode(r.Log)+"; nothing ran")
	case r.Log != "":
		field("Copy", inlineCode(r.Log))
	}
	if len(r.LogSums) > 0 && r.Rejudges == "" {
		field("Log sum", strings.Join(r.LogSums, ", "))
	}
	body := append([]string(nil), cleanLines(r.Table)...)
	if len(body) == 0 {
		shown = append(shown, cleanLines(r.Text)...)
	}
	if len(shown) > 0 {
		fence := codeFence(shown)
		body = append(body, fence+"text")
		body = append(body, shown...)
		body = append(body, fence)
	}
	if len(body) > 0 {
		out = append(out, ">")
		for _, l := range body {
			if l == "" {
				out = append(out, ">")
			} else {
				out = append(out, "> "+l)
			}
		}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// measuredLayout is how a block writes an attached result's Measured
// time: to the second, as a run's id dates it.
const measuredLayout = "2006-01-02 15:04:05 UTC"

// formatDuration writes d to three significant figures, as a person reads
// a stopwatch: "0.153 s", "12.4 s", "2m14s".
func formatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 1:
		return strconv.FormatFloat(s, 'f', 3, 64) + " s"
	case s < 10:
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	case s < 60:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	default:
		return d.Round(time.Second).String()
	}
}

// parseDuration reads what formatDuration writes.
func parseDuration(s string) (time.Duration, bool) {
	if f, ok := strings.CutSuffix(s, " s"); ok {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v < 0 {
			return 0, false
		}
		return time.Duration(v * float64(time.Second)), true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil && d >= 0
}

// oneLine keeps s on one line, so that it cannot break the block.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)), " ")
}

// cleanLines makes every element one line of valid UTF-8 without control
// characters, splitting at newlines: whatever the lines hold, the block's
// structure stays.
func cleanLines(in []string) []string {
	var out []string
	for _, l := range in {
		l = strings.ToValidUTF8(l, "\uFFFD")
		for part := range strings.SplitSeq(strings.ReplaceAll(l, "\r\n", "\n"), "\n") {
			out = append(out, strings.TrimRight(strings.Map(func(r rune) rune {
				switch {
				case r == '\t':
					return r
				case r < ' ' || r == 0x7f:
					return -1
				}
				return r
			}, part), " \t"))
		}
	}
	return out
}

// codeFence returns a backtick fence longer than any backtick run in lines
// (the CommonMark rule), so no output can close it early.
func codeFence(lines []string) string {
	n := 3
	for _, l := range lines {
		if k := longestRun(l, '`') + 1; k > n {
			n = k
		}
	}
	return strings.Repeat("`", n)
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// inlineCode writes s as a Markdown code span, with a backtick run longer
// than any inside s.
func inlineCode(s string) string {
	s = oneLine(s)
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// runSum is the checksum in the end marker: sha256 over the id and the
// lines between the markers, each without its line ending and trailing
// blanks, so that converting a note to CRLF or an editor trimming trailing
// spaces does not count as an edit.
func runSum(id string, lines []string) string {
	h := sha256.New()
	h.Write([]byte(id))
	for _, l := range lines {
		h.Write([]byte{'\n'})
		h.Write([]byte(strings.TrimRight(l, " \t\r")))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// InsertRun splices r's block into src at the end of the Evidence section,
// after its last non-blank line, with a blank line before and after it.
// The result is src with one contiguous insertion; line endings follow the
// note's own (CRLF if its first line ends so). A note without an Evidence
// section gives ErrNoEvidence and is not touched.
func InsertRun(src []byte, r Run) ([]byte, error) {
	at, ok := EvidenceEnd(src)
	if !ok {
		return nil, ErrNoEvidence
	}
	nl := vault.LineEnding(src)
	block := RenderRun(r, nl)
	var ins []byte
	switch {
	case at == len(src) && !vault.HasFinalNewline(src):
		// The last line has no line ending: keep it so.
		ins = append([]byte(nl+nl), block...)
	default:
		ins = append([]byte(nl), block...)
		ins = append(ins, nl...)
		if at < len(src) && !isBlankLine(src[at:]) {
			ins = append(ins, nl...)
		}
	}
	return vault.SpliceBytes(src, at, at, string(ins)), nil
}

// EvidenceEnd returns the offset where a new block goes: just after the
// line ending of the last non-blank line of the Evidence section (its
// heading, if the section is empty), or the end of src.
func EvidenceEnd(src []byte) (int, bool) {
	n := vault.NewParser().Parse("", src)
	s, ok := n.Section(EvidenceSection, 0)
	if !ok {
		return 0, false
	}
	at := s.Body
	for off := s.Body; off < s.End; {
		end := bytes.IndexByte(src[off:s.End], '\n')
		next := s.End
		if end >= 0 {
			next = off + end + 1
		}
		if len(bytes.TrimSpace(src[off:next])) > 0 {
			at = next
		}
		off = next
	}
	if at < s.Body {
		at = s.Body
	}
	return at, true
}

// isBlankLine reports whether the first line of b holds only blanks.
func isBlankLine(b []byte) bool {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return len(bytes.TrimSpace(b)) == 0
}

var (
	runStartRe = lazyre.New(`^<!-- zk:run id=(\S+) v=(\d+) -->[ \t]*$`)
	runEndRe   = lazyre.New(`^<!-- zk:run-end id=(\S+) sum=(\S+) -->[ \t]*$`)
	runTitleRe = lazyre.New(`^> \[!(\w+)\][-+]? (Falsifier run|Result attached|Judged again) (\d{4}-\d\d-\d\d \d\d:\d\d) UTC · (.*)$`)
	// runIDRe is a run id as NewRunID makes it.
	runIDRe    = lazyre.New(`^\d{8}T\d{6}Z-[0-9a-f]{4}$`)
	runFieldRe = lazyre.New(`^> - \*\*(\w+(?: \w+)?):\*\* (.*)$`)
	exitRe     = lazyre.New(`^exit (-?\d+)$`)
)

// ParseRuns reads every run block of a note, in order. A block whose lines
// no longer match the checksum in its end marker, or whose end marker is
// missing, is returned with Problem set.
func ParseRuns(src []byte) []Run {
	if !bytes.Contains(src, []byte("<!-- zk:run")) {
		return nil // most notes: no need to split them into lines
	}
	lines := splitLines(src)
	var runs []Run
	for i := 0; i < len(lines); i++ {
		m := runStartRe().FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		r := Run{ID: m[1], Line: i, Exit: -1, Runs: 1, Repeat: 1}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if runStartRe().MatchString(lines[j]) {
				break
			}
			if e := runEndRe().FindStringSubmatch(lines[j]); e != nil {
				end = j
				if e[1] != r.ID {
					r.Problem = fmt.Sprintf("the end marker names run %s", e[1])
				} else if sum := runSum(r.ID, lines[i+1:j]); e[2] != sum {
					r.Problem = "the block was edited after it was recorded (checksum mismatch)"
				}
				break
			}
		}
		if m[2] != "1" && r.Problem == "" {
			r.Problem = fmt.Sprintf("unknown block version %s", m[2])
		}
		var body []string // none without an end marker
		if end >= 0 {
			body = lines[i+1 : end]
			i = end
		} else {
			r.Problem = "the block has no end marker"
		}
		readRun(&r, body)
		runs = append(runs, r)
	}
	return runs
}

// EditedRuns returns the run blocks of src that no longer match their
// checksum: what the evidence/run-edited rule reports.
func EditedRuns(src []byte) []Run {
	var out []Run
	for _, r := range ParseRuns(src) {
		if r.Problem != "" {
			out = append(out, r)
		}
	}
	return out
}

// EditedRunsOf are the blocks of src edited since they were recorded
// (EditedRuns) that name falsifier f, by its id or else its text: what
// an edit left of them says whose they were, which is all there is to
// say why f reads as never run (falsifiers/never-run beside
// evidence/run-edited).
func EditedRunsOf(src []byte, f Falsifier) []Run {
	var out []Run
	for _, r := range EditedRuns(src) {
		if f.ID != "" && r.FalsifierID == f.ID || r.FalsifierID == "" && r.Falsifier != "" && oneLine(r.Falsifier) == oneLine(f.Text) {
			out = append(out, r)
		}
	}
	return out
}

// readRun fills r from the lines of its block.
func readRun(r *Run, body []string) {
	r.Started = startedOf(r.ID)
	for k, l := range body {
		if k == 0 {
			m := runTitleRe().FindStringSubmatch(l)
			if m == nil {
				continue
			}
			for v, c := range callouts {
				if strings.EqualFold(c, m[1]) {
					r.Verdict = v
				}
			}
			r.Attached = m[2] == "Result attached"
			if r.Started.IsZero() {
				r.Started, _ = time.Parse("2006-01-02 15:04", m[3])
			}
			if m[2] == "Judged again" {
				if id, ok := strings.CutPrefix(m[4], "run "); ok && runIDRe().MatchString(id) {
					r.Rejudges = id
				}
				continue
			}
			parts := strings.Split(m[4], " · ")
			if r.Attached {
				continue
			}
			if d, ok := parseDuration(parts[len(parts)-1]); ok && len(parts) > 1 {
				r.Duration = d
				parts = parts[:len(parts)-1]
			}
			status := strings.Join(parts, " · ")
			if e := exitRe().FindStringSubmatch(status); e != nil {
				r.Exit, _ = strconv.Atoi(e[1])
			} else {
				r.Status = status
			}
			continue
		}
		m := runFieldRe().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		switch m[1] {
		case "Falsifier":
			r.Falsifier = m[2]
		case "Falsifier id":
			if IsBlockID(m[2]) {
				r.FalsifierID = m[2]
			}
		case "Command", "Source":
			r.Command = uninlineCode(m[2])
		case "Environment":
			r.Environment = m[2]
		case "Format":
			r.Format = m[2]
		case "Measured":
			when, _, _ := strings.Cut(m[2], " (")
			if t, err := time.Parse(measuredLayout, when); err == nil {
				r.Measured = t
			}
		case "Criterion":
			r.Criterion = m[2]
		case "Judged with":
			r.JudgedWith = m[2]
		case "Before":
			r.Before = m[2]
		case "Log sum":
			r.LogSums = strings.Split(m[2], ", ")
		case "Output":
			r.LogCut = strings.Contains(m[2], "; log cut at the size cap")
			if k := runsRe().FindStringSubmatch(m[2]); k != nil {
				r.Runs, _ = strconv.Atoi(k[1])
				r.Repeat, _ = strconv.Atoi(k[2])
				r.Stopped = strings.HasPrefix(m[2], "run "+k[1]+" of ")
			}
		case "Error":
			r.LogCut = r.LogCut || strings.HasPrefix(m[2], "the full log could not be written")
		}
	}
}

// uninlineCode reads back what inlineCode writes.
func uninlineCode(s string) string {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	if n == 0 || len(s) < 2*n || strings.Repeat("`", n) != s[len(s)-n:] {
		return s
	}
	inner := s[n : len(s)-n]
	if len(inner) >= 2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' {
		inner = inner[1 : len(inner)-1]
	}
	return inner
}

// splitLines splits src into lines without their endings ("\n" or "\r\n").
func splitLines(src []byte) []string {
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Falsifier is one falsifier of a note: a top-level item of its Tests /
// falsifiers list, and the command written with it, if any.
type Falsifier struct {
	// N is its 1-based number in the list.
	N int
	// Text is the item's first line, as written, without the item's
	// block id when that ends the line.
	Text string
	// ID is the block id ending the item's paragraph (^f-3f9c), without
	// its ^: the falsifier's identity, which survives rewording and
	// reordering. zk run writes one on a falsifier's first run (see
	// Record); empty until then.
	ID string
	// Line is the item's 0-based line.
	Line int
	// Command is the command written under the item, as written: a
	// nested "- run: `CMD`" item or a ```zk-run fenced block. Empty when
	// there is none.
	Command string
	// CommandLine is the 0-based line of Command.
	CommandLine int
	// Criterion is the expression of a nested "- refuted if: `EXPR`"
	// item, without its code span; empty when there is none.
	Criterion string
	// CriterionLine is the 0-based line of Criterion.
	CriterionLine int
	// Captures are the nested "- capture: `NAME = REGEXP`" items, and
	// CaptureLines their 0-based lines.
	Captures     []string
	CaptureLines []int
	// Numbers is a nested "- numbers: 1,234.5" item: how its captures
	// read numbers; Confidence a nested "- confidence: 95%" item: the
	// share of resamples that must agree. Empty when absent (the config
	// decides); each with its 0-based line.
	Numbers        string
	NumbersLine    int
	Confidence     string
	ConfidenceLine int
	// Repeat is a nested "- repeat: N" item: the command runs N times
	// and its samples are pooled; empty when absent (once).
	Repeat     string
	RepeatLine int
	// defaults are the config's numbers and confidence, which judge it
	// where it has no item of its own (Under). A record states them as
	// it states the items (JudgedWith): a verdict reached at the config's
	// 90% read as one reached at 95% once the config said 99%.
	defaults defaults
}

var (
	runItemRe       = lazyre.New("^run:[ \t]*(`+)[ \t]?(.*?)[ \t]?(`+)[ \t]*$")
	criterionItemRe = lazyre.New(`(?i)^refuted if:[ \t]*(.*)$`)
	captureItemRe   = lazyre.New(`(?i)^capture:[ \t]*(.*)$`)
	numbersItemRe   = lazyre.New(`(?i)^numbers:[ \t]*(.*)$`)
	confidenceRe    = lazyre.New(`(?i)^confidence:[ \t]*(.*)$`)
	repeatItemRe    = lazyre.New(`(?i)^repeat:[ \t]*(.*)$`)
)

// Falsifiers lists the falsifiers of a note, in order.
func Falsifiers(n *vault.Note) []Falsifier {
	var s vault.Section
	ok := false
	for _, title := range FalsifierSections {
		if s, ok = n.Section(title, 0); ok {
			break
		}
	}
	if !ok {
		return nil
	}
	var out []Falsifier
	var spans []vault.Span // of each falsifier's item
	// An item's nesting in the section: a slice, not a map, as every
	// note's check reads its falsifiers.
	depth := make([]int, len(n.ListItems))
	for i, it := range n.ListItems {
		if off := it.Span.Start.Offset; off < s.Body || off >= s.End {
			continue
		}
		d := 0
		if it.Parent >= 0 {
			d = depth[it.Parent] + 1
		}
		depth[i] = d
		switch {
		case d == 0:
			out = append(out, Falsifier{N: len(out) + 1, Text: strings.TrimSpace(it.Text), Line: it.Span.Start.Line})
			spans = append(spans, it.Span)
		case d == 1 && len(out) > 0:
			f, text, line := &out[len(out)-1], strings.TrimSpace(it.Text), it.Span.Start.Line
			if m := runItemRe().FindStringSubmatch(text); m != nil && m[1] == m[3] && f.Command == "" {
				f.Command, f.CommandLine = m[2], line
			} else if m := criterionItemRe().FindStringSubmatch(text); m != nil && f.Criterion == "" {
				f.Criterion, f.CriterionLine = strings.TrimSpace(uninlineCode(strings.TrimSpace(m[1]))), line
			} else if m := captureItemRe().FindStringSubmatch(text); m != nil {
				f.Captures = append(f.Captures, strings.TrimSpace(m[1]))
				f.CaptureLines = append(f.CaptureLines, line)
			} else if m := numbersItemRe().FindStringSubmatch(text); m != nil && f.Numbers == "" {
				f.Numbers, f.NumbersLine = strings.TrimSpace(m[1]), line
			} else if m := confidenceRe().FindStringSubmatch(text); m != nil && f.Confidence == "" {
				f.Confidence, f.ConfidenceLine = strings.TrimSpace(m[1]), line
			} else if m := repeatItemRe().FindStringSubmatch(text); m != nil && f.Repeat == "" {
				f.Repeat, f.RepeatLine = strings.TrimSpace(m[1]), line
			}
		}
	}
	if len(n.BlockIDs) > 0 && len(out) > 0 {
		// A block id whose block starts on an item's line ends that
		// item's paragraph (Obsidian's position for it covers the block).
		byLine := make(map[int]int, len(out))
		for i, f := range out {
			byLine[f.Line] = i
		}
		for _, b := range n.BlockIDs {
			i, ok := byLine[b.Span.Start.Line]
			if !ok || out[i].ID != "" {
				continue
			}
			out[i].ID = b.ID
			if t, ok := strings.CutSuffix(out[i].Text, "^"+b.ID); ok && (t == "" || t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
				out[i].Text = strings.TrimSpace(t)
			}
		}
	}
	for i := range out {
		if out[i].Command != "" {
			continue
		}
		// The item's span may stop before a fence's closing line, so the
		// fence is read up to the next falsifier.
		limit := s.End
		if i+1 < len(spans) {
			limit = spans[i+1].Start.Offset
		}
		if cmd, line, ok := fencedCommand(n.Src, spans[i], limit); ok {
			out[i].Command, out[i].CommandLine = cmd, line
		}
	}
	return out
}

var zkRunFenceRe = lazyre.New("^[ \t>]*(```+|~~~+)[ \t]*zk-run[ \t]*$")

// fencedCommand finds a ```zk-run fenced block opening inside an item and
// returns its lines, joined by newlines and without the item's indent.
func fencedCommand(src []byte, sp vault.Span, limit int) (string, int, bool) {
	region := src[sp.Start.Offset:min(limit, len(src))]
	if !bytes.Contains(region, []byte("zk-run")) {
		// No fence can open here: most falsifiers have none, and
		// splitting their lines was most of Falsifiers' time.
		return "", 0, false
	}
	lines := splitLines(region)
	for i, l := range lines {
		if sp.Start.Line+i > sp.End.Line {
			break // the opening line must be inside the item
		}
		m := zkRunFenceRe().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		var body []string
		for _, b := range lines[i+1:] {
			t := strings.TrimSpace(b)
			if strings.HasPrefix(t, m[1][:3]) && strings.Trim(t, m[1][:1]) == "" && len(t) >= len(m[1]) {
				return strings.Join(body, "\n"), sp.Start.Line + i, true
			}
			cut := 0
			for cut < indent && cut < len(b) && (b[cut] == ' ' || b[cut] == '\t') {
				cut++
			}
			body = append(body, b[cut:])
		}
		return "", 0, false
	}
	return "", 0, false
}
