package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/view"
)

// findingWriter prints a check's result in one format; color is only
// ever true for a terminal.
type findingWriter func(w io.Writer, r checkReport, color bool) error

var findingWriters = map[string]findingWriter{
	"text":   writeText,
	"json":   writeCheckJSON,
	"sarif":  writeSARIF,
	"github": writeGitHub,
}

// writeText prints "path:line:col: severity rule message", the form
// editors' problem matchers and Vim's errorformat read.
func writeText(w io.Writer, r checkReport, color bool) error {
	// Appended to, not formatted (an unchanged check prints thousands of
	// lines), and written a 64 KiB chunk at a time into one buffer: the
	// whole output in memory of its own (1.3 MB at 10,000 notes) cost a
	// page fault every 4 KiB of it.
	const chunk = 64 << 10
	b := make([]byte, 0, chunk+4<<10)
	for _, f := range r.Findings {
		if !color {
			b = append(b, printable.Of(f.Path)...)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(f.Line), 10)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(f.Column), 10)
			b = append(b, ": "...)
			b = append(b, f.Severity.String()...)
			b = append(b, ' ')
			b = append(b, f.Rule...)
			b = append(b, ' ')
			b = append(b, printable.Of(f.Text(lint.CommandLine))...)
			b = append(b, '\n')
		} else {
			sev := ansiYellow
			if f.Severity == lint.Error {
				sev = ansiRed
			}
			b = fmt.Appendf(b, "%s%s:%d:%d:%s %s%s%s %s%s%s %s\n", ansiBold, printable.Of(f.Path), f.Line, f.Column, ansiReset,
				sev, f.Severity, ansiReset, ansiDim, f.Rule, ansiReset, printable.Of(f.Text(lint.CommandLine)))
		}
		if len(b) >= chunk {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	if len(b) == 0 {
		return nil
	}
	_, err := w.Write(b)
	return err
}

// writeCheckJSON prints view.NewCheck's document a finding at a time.
func writeCheckJSON(w io.Writer, r checkReport, _ bool) error {
	return writeJSONArray(w, view.NewCheckSummary(r.CheckResult), "findings", len(r.Findings), func(i int) any { return view.NewFinding(r.Findings[i], lint.CommandLine) })
}

// rulesURL is where each rule's help lives: the README's zk check section,
// one anchor per rule.
const rulesURL = "https://github.com/zk-claims/zk/blob/main/README.md"

// ruleAnchor is the README anchor of a rule's entry ("rule-links-broken").
func ruleAnchor(id string) string { return "rule-" + strings.ReplaceAll(id, "/", "-") }

// SARIF 2.1.0, the subset code-scanning tools read
// (https://docs.oasis-open.org/sarif/sarif/v2.1.0/).
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool                      sarifTool     `json:"tool"`
		OriginalURIBaseIDs        any           `json:"originalUriBaseIds,omitempty"`
		Results                   []sarifResult `json:"results"`
		ColumnKind                string        `json:"columnKind"`
		AutomationDetailsProperty any           `json:"automationDetails,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string        `json:"id"`
		Name                 string        `json:"name"`
		ShortDescription     sarifText     `json:"shortDescription"`
		FullDescription      sarifText     `json:"fullDescription"`
		Help                 sarifText     `json:"help"`
		HelpURI              string        `json:"helpUri"`
		DefaultConfiguration sarifSeverity `json:"defaultConfiguration"`
	}
	sarifSeverity struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region sarifRegion `json:"region"`
		} `json:"physicalLocation"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
)

func sarifLevel(s lint.Severity) string {
	if s == lint.Error {
		return "error"
	}
	return "warning"
}

// writeSARIF prints a SARIF 2.1.0 log: every rule with its help text and
// a link to its README entry, every finding with its region. URIs are
// relative to the working directory (the %SRCROOT% base: a CI job runs
// from the repository's root).
func writeSARIF(w io.Writer, r checkReport, _ bool) error {
	log, index := sarifHead()
	return writeJSONArray(w, log, "results", len(r.Findings), func(i int) any { return sarifResultOf(r, r.Findings[i], index) })
}

// sarifHead is the SARIF log without its results, which are written one
// at a time, and each rule's index in the log.
func sarifHead() (sarifLog, map[string]int) {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "zk", Version: buildVersion(),
			InformationURI: "https://github.com/zk-claims/zk"}},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	index := map[string]int{}
	for i, rule := range lint.Rules() {
		index[rule.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   rule.ID,
			Name:                 ruleName(rule.ID),
			ShortDescription:     sarifText{rule.Summary},
			FullDescription:      sarifText{rule.Summary + ". " + rule.Help},
			Help:                 sarifText{rule.Help},
			HelpURI:              rulesURL + "#" + ruleAnchor(rule.ID),
			DefaultConfiguration: sarifSeverity{sarifLevel(rule.Default)},
		})
	}
	return sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}, index
}

// sarifResultOf is finding f of report r as a SARIF result.
func sarifResultOf(r checkReport, f lint.Finding, index map[string]int) sarifResult {
	res := sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity), Message: sarifText{f.Text(lint.CommandLine)}}
	var loc sarifLocation
	loc.PhysicalLocation.ArtifactLocation.URI = sarifURI(r.path(f.Path))
	loc.PhysicalLocation.ArtifactLocation.URIBaseID = "%SRCROOT%"
	loc.PhysicalLocation.Region = sarifRegion{StartLine: f.Line, StartColumn: f.Column, EndLine: f.EndLine, EndColumn: f.EndColumn}
	res.Locations = []sarifLocation{loc}
	return res
}

// ruleName is a rule id in SARIF's PascalCase name form: LinksBroken.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '/' || r == '-' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// sarifURI percent-encodes a vault path as a relative URI reference.
func sarifURI(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
			('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// writeGitHub prints GitHub Actions workflow commands, which the runner
// turns into annotations on the files of a pull request: each file named
// from the working directory, the repository's root in a CI job.
func writeGitHub(w io.Writer, r checkReport, _ bool) error {
	b := bufio.NewWriterSize(w, 64<<10) // a line at a time, not all of them in memory
	for _, f := range r.Findings {
		props := []string{"file=" + ghProperty(r.path(f.Path)), "line=" + strconv.Itoa(f.Line), "col=" + strconv.Itoa(f.Column)}
		if f.EndLine > 0 {
			props = append(props, "endLine="+strconv.Itoa(f.EndLine), "endColumn="+strconv.Itoa(f.EndColumn))
		}
		props = append(props, "title="+ghProperty(f.Rule))
		fmt.Fprintf(b, "::%s %s::%s\n", f.Severity, strings.Join(props, ","), ghMessage(f.Text(lint.CommandLine)))
	}
	return b.Flush()
}

// ghMessage escapes a workflow command's message: its line breaks as the
// runner reads them, any other control character as printable writes it
// (a CI log is read on terminals too).
func ghMessage(s string) string { return printable.Of(ghMessageEscapes.Replace(s)) }

// ghProperty escapes a workflow command's property value, as ghMessage.
func ghProperty(s string) string { return printable.Of(ghPropertyEscapes.Replace(s)) }

// The replacers are made once, not for each finding (a replacer per
// call was a fifth of the memory of 500,000 annotations); a Replacer is
// safe for concurrent use.
var (
	ghMessageEscapes  = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghPropertyEscapes = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)
