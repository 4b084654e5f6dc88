package probe

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rivo/uniseg"
	"github.com/zk-claims/zk/internal/printable"
)

// Detect reports whether data is a probe's JSON (a single object whose
// "schema" is Schema) and decodes it. zk attach and zk run use it to render
// a probe's output as a table rather than as raw text.
func Detect(data []byte) (*Result, bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, false
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if json.Unmarshal(data, &head) != nil || head.Schema != Schema {
		return nil, false
	}
	var r Result
	if json.Unmarshal(data, &r) != nil {
		return nil, false
	}
	return &r, true
}

// TextWidth is the most columns RenderText's lines take, a terminal's 80:
// the table keeps to the figures a reader compares across levels, and the
// notes wrap. Everything else is in the markdown and the JSON.
const TextWidth = 80

// RenderMarkdown renders r as a markdown table with its denominators
// underneath, the shape that goes into a note: the concurrency column
// first, every rate column labelled aggregate (all streams) or per stream,
// and each level's warm-up, window and drain. It ends with a newline.
func RenderMarkdown(r *Result) string {
	var header []string
	var rows [][]string
	if r.Counts() == UnitTokens {
		header = []string{"concurrency requested / achieved", "decoding streams", "requests ok / failed",
			"aggregate tok/s (all streams) window · steady", "per-stream decode tok/s p50 [p10–p90]",
			"per-stream e2e tok/s p50", "TTFT ms p50 / p99", "check: aggregate decode ÷ (decoding streams × per-stream p50)",
			"warm-up · window · drain s"}
	} else {
		header = []string{"concurrency requested / achieved", "requests ok / failed",
			"aggregate req/s (all streams) window · steady", "per-stream req/s p50 [p10–p90]", "latency ms p50 / p99",
			"warm-up · window · drain s"}
	}
	for _, lv := range r.Levels {
		row := []string{concurrency(lv, true), requests(lv)}
		if r.Counts() == UnitTokens {
			row = append(row[:1], append([]string{num(lv.DecodingConcurrency)}, row[1:]...)...)
			row = append(row,
				value(lv.OutputTokenThroughput)+" · "+value(lv.SteadyOutputTokenThroughput),
				spread(lv.OutputTokenThroughputPerUser),
				p50(lv.OutputTokenThroughputPerUserE2E),
				p50p99(lv.TimeToFirstToken),
				check(lv, true))
		} else {
			row = append(row,
				num(lv.RequestThroughput.Avg)+" · "+value(lv.SteadyRequestThroughput),
				spread(lv.RequestThroughputPerUser),
				p50p99(lv.RequestLatency))
		}
		row = append(row, fmt.Sprintf("%s · %s · %s", num(lv.Warmup.Avg), num(lv.Window.Avg), num(lv.Drain.Avg)))
		rows = append(rows, row)
	}
	var b strings.Builder
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	for _, n := range notes(r, true) {
		b.WriteString("\n" + n + "\n") // a paragraph each
	}
	return b.String()
}

// RenderText renders r for a terminal: aligned columns no wider than
// TextWidth, plain text, the figures that answer the claim (concurrency,
// requests, aggregate beside per stream), and the same notes as
// RenderMarkdown, wrapped. --format markdown or json has the rest.
func RenderText(r *Result) string {
	var head [2][]string
	if r.Counts() == UnitTokens {
		head = [2][]string{
			{"concurrency", "requests", "aggregate tok/s", "per-stream tok/s", "TTFT ms", "check"},
			{"asked / held", "ok / failed", "(all streams)", "p50 [p10–p90]", "p50", "decode"},
		}
	} else {
		head = [2][]string{
			{"concurrency", "requests", "aggregate req/s", "per-stream req/s", "latency ms"},
			{"asked / held", "ok / failed", "(all streams)", "p50 [p10–p90]", "p50 / p99"},
		}
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, h := range head {
		fmt.Fprintln(tw, strings.Join(h, "\t")+"\t")
	}
	for _, lv := range r.Levels {
		row := []string{concurrency(lv, false), requests(lv)}
		if r.Counts() == UnitTokens {
			row = append(row, value(lv.OutputTokenThroughput), spread(lv.OutputTokenThroughputPerUser),
				p50(lv.TimeToFirstToken), check(lv, false))
		} else {
			row = append(row, num(lv.RequestThroughput.Avg), spread(lv.RequestThroughputPerUser), p50p99(lv.RequestLatency))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	// Right-aligned cells are padded on their left, the first one too:
	// those two columns of indent are room the table needs.
	table := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	b.Reset()
	for _, line := range table {
		b.WriteString(strings.TrimPrefix(line, "  ") + "\n")
	}
	for _, n := range notes(r, false) {
		b.WriteString(wrap(n, TextWidth))
	}
	return b.String()
}

// concurrency is a level's asked and held concurrency; a level an
// interrupt cut short is marked, in words (long) or, where the text table
// has no room for them, with a * that the notes explain.
func concurrency(lv Level, long bool) string {
	c := fmt.Sprintf("%d / %.2f", lv.Concurrency, lv.AchievedConcurrency)
	switch {
	case lv.Partial && long:
		c += " (interrupted)"
	case lv.Partial:
		c += " *"
	}
	return c
}

func requests(lv Level) string {
	return fmt.Sprintf("%d / %d", lv.Completed, lv.Failed)
}

// check is the consistency ratio, marked when flagged.
func check(lv Level, long bool) string {
	c := lv.Consistency
	switch {
	case c == nil:
		return "–"
	case !c.Flagged:
		return fmt.Sprintf("%.2f", c.Ratio)
	case long:
		return fmt.Sprintf("%.2f ⚠ off by more than %d%%", c.Ratio, int(math.Round(c.Tolerance*100)))
	}
	return fmt.Sprintf("%.2f !", c.Ratio)
}

// notes are the paragraphs under the table: how it was measured, what each
// column divides by, on what, and anything that went wrong. md marks them
// up for a note; otherwise they are plain text.
func notes(r *Result, md bool) []string {
	code := func(s string) string {
		if md {
			return "`" + s + "`"
		}
		return s
	}
	var out []string
	if r.Counts() == UnitTokens {
		out = append(out, "Closed loop: each stream sends its next request when its last one ends. "+
			"Aggregate = tokens from all streams together that arrived in the window, over the window. "+
			"Per stream = one request's decode rate (its tokens after the first, over the time between them: "+
			"the wait for a first token is left out, and shown as TTFT). Check = aggregate decode rate ÷ "+
			"(decoding streams × per-stream p50), like with like; flagged when off by more than 15%.")
	} else {
		out = append(out, "Closed loop: each stream sends its next request when its last one ends. "+
			"Aggregate = requests from all streams together that ended in the window, over the window. "+
			"Per stream = one stream's requests that ended in the window, over the window.")
	}
	what := "GET " + r.URL
	if r.Counts() == UnitTokens {
		what = fmt.Sprintf("POST %s, model %s, at most %d tokens a request", r.Endpoint, code(printable.Of(r.ModelID)), r.MaxTokens)
		if src := tokensSource(r); src != "" {
			what += "; tokens counted from " + src
		}
	}
	out = append(out, what+".", phases(r, md))
	if r.Simulated {
		sim := "SIMULATED server"
		if md {
			sim = "**Simulated server**"
		}
		out = append(out, sim+" ("+printable.Of(r.Server)+"): a shared token budget split across active streams, not a real model.")
	} else if r.Server != "" {
		out = append(out, "Server: "+printable.Of(r.Server)+".")
	}
	out = append(out, fmt.Sprintf("Client: %s/%s, %d CPUs, %s.", r.Env.OS, r.Env.Arch, r.Env.CPUs, cmp.Or(r.Env.Client, "zk")))
	if n := retried(r); n != "" {
		out = append(out, n)
	}
	out = append(out, failures(r)...)
	if n := burstNote(r); n != "" {
		out = append(out, n)
	}
	if n := serverNote(r); n != "" {
		out = append(out, n)
	}
	for _, lv := range r.Levels {
		if c := lv.Consistency; c != nil && c.Flagged {
			out = append(out, fmt.Sprintf("Check flagged at concurrency %d (%.2f): the median stream's decode rate does "+
				"not account for the aggregate; rates spread widely or changed during the window, or token counts "+
				"and their timing disagree.", lv.Concurrency, c.Ratio))
		}
	}
	if r.WasCancelled {
		what := "Interrupted"
		if !md {
			what = "Interrupted (* in the table)"
		}
		out = append(out, what+": the table holds what was measured before the interrupt.")
	}
	return out
}

// phases says how each level was bounded and, unless md (where the table
// has a column for it), how long its phases took.
func phases(r *Result, md bool) string {
	var bound []string
	if r.DurationS > 0 {
		bound = append(bound, fmt.Sprintf("a window of %s s", num(r.DurationS)))
	}
	if r.RequestsPerLevel > 0 {
		bound = append(bound, fmt.Sprintf("closed once %d requests ended in it", r.RequestsPerLevel))
	}
	drain := "are cancelled"
	if r.DrainS > 0 {
		drain = fmt.Sprintf("get %s s to finish (unmeasured), then are cancelled", num(r.DrainS))
	}
	s := fmt.Sprintf("Each level: %d warm-up request(s) per stream, %s; requests in flight at its close %s.",
		r.WarmupPerStream, strings.Join(bound, ", or "), drain)
	if len(r.Levels) == 0 || md {
		return s
	}
	var warm, win, dr, streams []string
	closedBy := map[string]bool{}
	for _, lv := range r.Levels {
		warm = append(warm, num(lv.Warmup.Avg))
		win = append(win, num(lv.Window.Avg))
		dr = append(dr, num(lv.Drain.Avg))
		streams = append(streams, strconv.Itoa(lv.Concurrency))
		closedBy[lv.WindowClosedBy] = true
	}
	s += fmt.Sprintf(" At %s streams: warm-up %s s, window %s s, drain %s s", strings.Join(streams, " / "),
		strings.Join(warm, " / "), strings.Join(win, " / "), strings.Join(dr, " / "))
	var by []string
	for _, why := range []string{ClosedByDuration, ClosedByRequests, ClosedByFailures, ClosedByInterrupt} {
		if closedBy[why] {
			by = append(by, why)
		}
	}
	return s + " (window closed by " + strings.Join(by, ", ") + ")."
}

// retried says which requests were sent again, if any were.
func retried(r *Result) string {
	var at []string
	for _, lv := range r.Levels {
		if lv.Retried > 0 {
			at = append(at, fmt.Sprintf("%d of %d at concurrency %d", lv.Retried, lv.Sent, lv.Concurrency))
		}
	}
	if len(at) == 0 {
		return ""
	}
	s := "Retried on a fresh connection, the reused one having closed before any response byte: " +
		strings.Join(at, ", ") + " (requests sent, warm-up and drain included)."
	if r.DialPerRequest {
		s += " Later requests dialled a connection each."
	}
	return s
}

// failures says, level by level, why requests failed: in the window (the
// table's failed column) and outside it, in the warm-up or the drain
// (counted nowhere else but the JSON), so a table of zeros cannot hide a
// warm-up that timed out.
func failures(r *Result) []string {
	var out []string
	for _, lv := range r.Levels {
		var parts []string
		if lv.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%d in the window (%s)", lv.Failed, errorList(lv.ErrorSummary)))
		}
		if lv.FailedOutsideWindow > 0 {
			parts = append(parts, fmt.Sprintf("%d outside it, in the warm-up or the drain (%s)",
				lv.FailedOutsideWindow, errorList(lv.ErrorSummaryOutsideWindow)))
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("Failed at concurrency %d: %s.", lv.Concurrency, strings.Join(parts, "; ")))
		}
	}
	return out
}

// burstNote says, level by level, how many requests were left out of the
// per-stream decode rate because the client read them in a burst, and why.
func burstNote(r *Result) string {
	var at []string
	for _, lv := range r.Levels {
		if lv.DecodeBursts > 0 {
			at = append(at, fmt.Sprintf("%d of %d at concurrency %d", lv.DecodeBursts, lv.Completed, lv.Concurrency))
		}
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf("Read in a burst, not timed: %s (requests completed in the window). Their chunks came more "+
		"than %d a read: the client was not reading while the server decoded them (a loaded client), so the time "+
		"between their first and last token is the client's. They are left out of per-stream decode, ITL, decoding "+
		"streams and the check; the aggregate counts their tokens.", strings.Join(at, ", "), burstChunksPerRead)
}

// serverNote sets the server's own account of the requests beside the
// probe's, where the server gave one.
func serverNote(r *Result) string {
	var source string
	var streams, rates, ratios, counts []string
	for _, lv := range r.Levels {
		a := lv.Server
		if a == nil {
			continue
		}
		source = a.Source
		streams = append(streams, strconv.Itoa(lv.Concurrency))
		rates = append(rates, num(a.DecodePerUser.P50))
		compared := a.Requests - a.NotCompared
		if compared > 0 {
			ratios = append(ratios, fmt.Sprintf("%.2f", a.Ratio))
		} else {
			ratios = append(ratios, "–")
		}
		counts = append(counts, strconv.Itoa(compared))
	}
	if len(streams) == 0 {
		return ""
	}
	return fmt.Sprintf("The server's own account of the same requests (%s, sent with each response): decode per request "+
		"p50 %s tok/s at %s streams; the probe's decode rate ÷ the server's, request by request, median %s (%s requests).",
		printable.Of(source), strings.Join(rates, " / "), strings.Join(streams, " / "), strings.Join(ratios, " / "), strings.Join(counts, " / "))
}

// errorList is "message ×count, …", each message made safe to show: a
// server's error bodies are its words.
func errorList(errs []ErrorCount) string {
	var s []string
	for _, e := range errs {
		s = append(s, fmt.Sprintf("%s ×%d", printable.Of(e.Message), e.Count))
	}
	return strings.Join(s, ", ")
}

// wrap breaks s into lines of at most width columns at spaces, each ending
// in a newline. A word longer than width (a URL) keeps a line of its own.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		l := uniseg.StringWidth(w)
		switch {
		case n == 0:
		case n+1+l > width:
			b.WriteString("\n")
			n = 0
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String() + "\n"
}

// tokensSource is where the levels' token counts came from, in words.
func tokensSource(r *Result) string {
	src := ""
	for _, lv := range r.Levels {
		switch {
		case lv.TokensSource == "":
		case src == "":
			src = lv.TokensSource
		case src != lv.TokensSource:
			src = "mixed"
		}
	}
	switch src {
	case "usage":
		return "the server's usage block"
	case "chunks":
		return "streamed chunks (no usage block; undercounts if the server bundles tokens)"
	case "mixed":
		return "the usage block where sent, else chunks"
	}
	return ""
}

func value(v *Value) string {
	if v == nil {
		return "–"
	}
	return num(v.Avg)
}

func spread(s *Stat) string {
	if s == nil {
		return "–"
	}
	return fmt.Sprintf("%s [%s–%s]", num(s.P50), num(s.P10), num(s.P90))
}

func p50(s *Stat) string {
	if s == nil {
		return "–"
	}
	return num(s.P50)
}

func p50p99(s *Stat) string {
	if s == nil {
		return "–"
	}
	return num(s.P50) + " / " + num(s.P99)
}

// num rounds x to about three significant figures, never to an exponent.
func num(x float64) string {
	switch ax := max(x, -x); {
	case x == 0:
		return "0"
	case ax >= 99.95:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case ax >= 9.995:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
}
