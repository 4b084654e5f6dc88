package vault

import (
	"fmt"
	"strings"
)

// Severity is how much a finding matters. Off silences a rule.
type Severity int

// The severities, least first.
const (
	Off Severity = iota
	Warning
	Error
)

// String is the severity as zk writes it.
func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "off"
}

// ParseSeverity reads "error", "warning" or "off".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "off", "none", "false":
		return Off, nil
	}
	return Off, fmt.Errorf("severity %q: want error, warning or off", s)
}

// Rule is one check zk makes, with its stable id (DESIGN.md §4).
type Rule struct {
	ID      string
	Default Severity
	// Summary says in one line when the rule fires.
	Summary string
	// Help says what to do about it.
	Help string
}

// Rule ids.
const (
	RuleFileSkipped       = "file/skipped"
	RuleFrontmatter       = "frontmatter/invalid"
	RuleMissingSection    = "structure/missing-section"
	RuleEmptySection      = "structure/empty-section"
	RuleSectionOrder      = "structure/section-order"
	RuleDuplicateSection  = "structure/duplicate-section"
	RuleTitle             = "structure/title"
	RuleFlattened         = "structure/flattened"
	RuleClaimNotAtomic    = "claim/not-atomic"
	RuleBrokenLink        = "links/broken"
	RuleBrokenHeading     = "links/broken-heading"
	RuleBrokenBlock       = "links/broken-block"
	RuleNameCollision     = "links/name-collision"
	RuleUntypedLink       = "links/untyped"
	RuleUnknownRelation   = "links/unknown-relation"
	RuleFalsifiersMissing = "falsifiers/missing"
	RuleMissingDate       = "maintenance/missing-date"
	RuleBadDate           = "maintenance/bad-date"
	RuleFutureDate        = "maintenance/future-date"
	RuleStale             = "maintenance/stale"
	RuleRunEdited         = "evidence/run-edited"
)

// Rules are every rule zk check knows, in the order DESIGN.md lists them.
var Rules = []Rule{
	{RuleFileSkipped, Warning, "a .md file that is not text or is too large to parse",
		"Convert the file to UTF-8 text, split it, or move it out of the vault; raise the size cap only if it really is a note."},
	{RuleFrontmatter, Error, "the frontmatter YAML does not parse",
		"Fix the YAML between the --- fences at the top of the note; quote values that contain a colon followed by a space."},
	{RuleMissingSection, Error, "a required section of the note's type is absent",
		"Add the heading the type's template writes, where the template puts it."},
	{RuleEmptySection, Warning, "a required section has no content",
		"Write the section, or say explicitly why it is empty (\"None yet.\")."},
	{RuleSectionOrder, Warning, "required sections are out of template order",
		"Move the section to where the template puts it, so every note reads the same way."},
	{RuleDuplicateSection, Warning, "a required section appears twice",
		"Merge the two sections into the first one."},
	{RuleTitle, Warning, "no H1, or the H1 differs from the file name",
		"Make the H1 the note's title and the file name the same text, so links and headings agree."},
	{RuleFlattened, Error, "the note's headings run inline, as when a note is flattened onto one line",
		"Put each heading at the start of a line of its own; the note was probably pasted or exported without its line breaks."},
	{RuleClaimNotAtomic, Warning, "the Claim has more than one paragraph of prose",
		"State one claim in one paragraph; move conditions to Scope & conditions and support to Evidence, or split the note."},
	{RuleBrokenLink, Error, "a link or embed whose target file does not exist",
		"Create the target note, fix the spelling, or remove the link. A link that names an alias must name the note: [[Note|Alias]]."},
	{RuleBrokenHeading, Warning, "a #Heading that is not found in the target",
		"Link to a heading the target has (the message names the closest), or add the heading."},
	{RuleBrokenBlock, Warning, "a #^block id that is not found in the target",
		"Link to a block id the target has, or add ^id at the end of the paragraph."},
	{RuleNameCollision, Warning, "two notes whose paths differ only by case or Unicode form, so links reach only one",
		"Rename or merge one of the notes: every link, by path or by name, reaches the one the message names, never this one."},
	{RuleUntypedLink, Warning, "a Links-section entry without \"— relation: justification\"",
		"Write each entry as - [[Target]] — relation: why the two notes relate."},
	{RuleUnknownRelation, Warning, "a relation not in the vocabulary",
		"Use one of the configured relations, or add the word to relations in .zk/config.toml."},
	{RuleFalsifiersMissing, Error, "Tests / falsifiers is present but lists no falsifier",
		"List at least one observation that would prove the claim wrong, as a list item."},
	{RuleMissingDate, Error, "no Last tended date",
		"Add \"- Last tended: YYYY-MM-DD\" under ## Maintenance (zk tend NOTE writes it)."},
	{RuleBadDate, Error, "a Last tended date that is not a real YYYY-MM-DD",
		"Write the date as YYYY-MM-DD, a date that exists on the calendar."},
	{RuleFutureDate, Warning, "Last tended is after today",
		"Set the date to the day you last tended the note (zk tend NOTE)."},
	{RuleStale, Warning, "the note is past its maintenance date",
		"Re-read the note against what you know now, then zk tend NOTE; set tend-every in its frontmatter for another cadence."},
	{RuleRunEdited, Warning, "a recorded run block no longer matches its checksum",
		"A run record is evidence: undo the edit (zk runs NOTE lists the runs; .zk/backups/ holds earlier versions), or run the falsifier again with zk run."},
}

// RuleByID returns the rule with the given id.
func RuleByID(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
