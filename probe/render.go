package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
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

// table is a result laid out once, for markdown and for a terminal.
type table struct {
	header []string
	rows   [][]string
	notes  []string
}

// RenderMarkdown renders r as a markdown table with its denominators
// underneath: the concurrency column first, every rate column labelled
// aggregate or per stream. It ends with a newline.
func RenderMarkdown(r *Result) string {
	t := layout(r)
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.header, " | ") + " |\n|")
	for range t.header {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range t.rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	for _, n := range t.notes {
		b.WriteString("\n" + n + "\n") // a paragraph each
	}
	return b.String()
}

// RenderText renders r as aligned columns for a terminal, with the same
// columns and notes as RenderMarkdown.
func RenderText(r *Result) string {
	t := layout(r)
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(t.header, "\t")+"\t")
	for _, row := range t.rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	for _, n := range t.notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

func layout(r *Result) table {
	var t table
	if r.Mode == ModeOpenAI {
		t.header = []string{"concurrency requested / achieved", "requests ok / failed",
			"aggregate tok/s window · steady", "per-stream decode tok/s p50 [p10–p90]",
			"per-stream e2e tok/s p50", "TTFT ms p50 / p99", "check: aggregate ÷ (achieved × per-stream p50)"}
	} else {
		t.header = []string{"concurrency requested / achieved", "requests ok / failed",
			"aggregate req/s window · steady", "per-stream req/s p50 [p10–p90]", "latency ms p50 / p99"}
	}
	for _, lv := range r.Levels {
		row := []string{
			fmt.Sprintf("%d / %.2f", lv.Concurrency, lv.AchievedConcurrency),
			fmt.Sprintf("%d / %d", lv.Completed, lv.Failed),
		}
		if lv.Partial {
			row[0] += " (interrupted)"
		}
		if r.Mode == ModeOpenAI {
			check := "–"
			if c := lv.Consistency; c != nil {
				check = fmt.Sprintf("%.2f", c.Ratio)
				if c.Flagged {
					check += " ⚠ off by more than " + strconv.Itoa(int(c.Tolerance*100)) + "%"
				}
			}
			row = append(row,
				value(lv.OutputTokenThroughput)+" · "+value(lv.SteadyOutputTokenThroughput),
				spread(lv.OutputTokenThroughputPerUser),
				p50(lv.OutputTokenThroughputPerUserE2E),
				p50p99(lv.TimeToFirstToken),
				check)
		} else {
			row = append(row,
				num(lv.RequestThroughput.Avg)+" · "+value(lv.SteadyRequestThroughput),
				spread(lv.RequestThroughputPerUser),
				p50p99(lv.RequestLatency))
		}
		t.rows = append(t.rows, row)
	}
	t.notes = notes(r)
	return t
}

// notes are the lines under the table: what was measured, how, on what.
func notes(r *Result) []string {
	var bounds []string
	if r.DurationS > 0 {
		bounds = append(bounds, fmt.Sprintf("at most %s s", num(r.DurationS)))
	}
	if r.RequestsPerLevel > 0 {
		bounds = append(bounds, fmt.Sprintf("at most %d requests", r.RequestsPerLevel))
	}
	what := "GET " + r.URL
	if r.Mode == ModeOpenAI {
		what = fmt.Sprintf("%s · model %s · max %d tokens", r.Endpoint, r.ModelID, r.MaxTokens)
		if src := tokensSource(r); src != "" {
			what += " · tokens counted from " + src
		}
	}
	out := []string{
		"Closed loop: each of `concurrency` streams sends its next request when the last one ends. " +
			"Aggregate = all streams together over the level's window; per stream = one stream's rate " +
			"(HTTP: per stream over the level; openai: per request, decode excludes time to first token).",
		fmt.Sprintf("%s · per level %s after %d warm-up request(s) per stream · client %s/%s, %d CPUs",
			what, strings.Join(bounds, " and "), r.WarmupPerStream, r.Env.OS, r.Env.Arch, r.Env.CPUs),
	}
	if r.Simulated {
		out = append(out, "**Simulated server** ("+r.Server+"): a shared token budget split across active streams, not a real model.")
	} else if r.Server != "" {
		out = append(out, "Server: "+r.Server+".")
	}
	if r.WasCancelled {
		out = append(out, "Interrupted: the table holds what was measured before the interrupt.")
	}
	return out
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
