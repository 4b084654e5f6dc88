package lint

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

// Rule is one check zk makes: its stable id (the README's Rules), its default
// severity, what it says, and the function that runs it. The checker
// loops over Rules; SARIF's rule metadata, zk init's config and the
// README's rule list are read from the same table.
type Rule struct {
	ID      string
	Default Severity
	// Summary says in one line when the rule fires.
	Summary string
	// Help says what to do about it.
	Help string
	// typed rules look only at notes of a type; whole rules skip a note
	// whose headings run inline (structure/flattened says so once, instead
	// of every section reported missing).
	typed, whole bool
	// check runs the rule over one note. It is nil for the rules reported
	// once every note is read: file/skipped, and the link rules, which
	// need every target's headings and block ids (checker.linkFindings).
	check func(nc *noteCheck)
}

// Rule ids.
const (
	RuleFileSkipped       = "file/skipped"
	RuleFileUntrusted     = "file/untrusted"
	RuleFilePartlyRead    = "file/partly-read"
	RuleFrontmatter       = "frontmatter/invalid"
	RuleTypeMismatch      = "frontmatter/type-mismatch"
	RuleMissingProperty   = "frontmatter/missing-property"
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
	RuleRefuted           = "falsifiers/refuted"
	RuleRefutedDeleted    = "falsifiers/refuted-deleted"
	RuleNeverRun          = "falsifiers/never-run"
	RuleStaleRun          = "evidence/stale-run"
	RuleRestsOnRefuted    = "links/rests-on-refuted"
	RuleRunVanished       = "evidence/run-vanished"
	RuleCriterionChanged  = "falsifiers/criterion-changed"
	RuleFlaky             = "falsifiers/flaky"
	RuleBareCapture       = "falsifiers/bare-capture"
)

// Rules are every rule zk check knows, in the order zk reports them
// (the design's order, docs/design.md). It is a function, not a variable, because the
// rules' functions report through the checker, which reads the table.
func Rules() []Rule {
	return []Rule{
		{ID: RuleFileSkipped, Default: Warning, Summary: "a .md file that is not text or is too large to parse",
			Help: "Convert the file to UTF-8 text, split it, or move it out of the vault; raise the size cap only if it really is a note."},
		{ID: RuleFileUntrusted, Default: Warning, Summary: "a file under .zk/ that zk will not act on: a move journal it did not write here, a symlink, a FIFO, one too large",
			Help: "It came with the vault, or from another machine: zk never acts on it. Look at it, then delete it; a journal zk wrote here and could not finish is kept as .failed.json instead."},
		{ID: RuleFilePartlyRead, Default: Warning, Summary: "a note too costly to parse in full (over 2 s of CPU, quotes or list items nested over 100 deep on a line, over 65,536 brackets left open in a paragraph, or link destinations or reference definitions read quadratically), read by the plain scanner: its frontmatter, headings and wikilinks alone",
			Help:  "Split the note or undo its deepest nesting; until then its Markdown links, embeds, blocks and block ids are not read, so check says nothing of them.",
			check: (*noteCheck).partlyRead},
		{ID: RuleFrontmatter, Default: Error, Summary: "the frontmatter YAML does not parse",
			Help:  "Fix the YAML between the --- fences at the top of the note; quote values that contain a colon followed by a space.",
			check: (*noteCheck).frontmatter},
		{ID: RuleMissingSection, Default: Error, Summary: "a required section of the note's type is absent",
			Help:  "Add the heading the type's template writes, where the template puts it.",
			typed: true, whole: true, check: (*noteCheck).missingSections},
		{ID: RuleEmptySection, Default: Warning, Summary: "a required section has no content",
			Help:  "Write the section, or say explicitly why it is empty (\"None yet.\").",
			typed: true, whole: true, check: (*noteCheck).emptySections},
		{ID: RuleSectionOrder, Default: Warning, Summary: "required sections are out of template order",
			Help:  "Move the section to where the template puts it, so every note reads the same way.",
			typed: true, whole: true, check: (*noteCheck).sectionOrder},
		{ID: RuleDuplicateSection, Default: Warning, Summary: "a required section appears twice",
			Help:  "Merge the two sections into the first one.",
			typed: true, whole: true, check: (*noteCheck).duplicateSections},
		{ID: RuleTitle, Default: Warning, Summary: "no H1, or the H1 differs from the file name",
			Help:  "Make the H1 the note's title and the file name the same text, so links and headings agree.",
			typed: true, whole: true, check: (*noteCheck).title},
		{ID: RuleFlattened, Default: Error, Summary: "the note's headings run inline, as when a note is flattened onto one line",
			Help:  "Put each heading at the start of a line of its own; the note was probably pasted or exported without its line breaks.",
			typed: true, check: (*noteCheck).flattenedFinding},
		{ID: RuleClaimNotAtomic, Default: Warning, Summary: "the Claim has more than one paragraph of prose",
			Help:  "State one claim in one paragraph; move conditions to Scope & conditions and support to Evidence, or split the note.",
			typed: true, whole: true, check: (*noteCheck).claim},
		{ID: RuleBrokenLink, Default: Error, Summary: "a link or embed whose target file does not exist",
			Help: "Create the target note, fix the spelling, or remove the link. A link that names an alias must name the note: [[Note|Alias]]."},
		{ID: RuleBrokenHeading, Default: Warning, Summary: "a #Heading that is not found in the target",
			Help: "Link to a heading the target has (the message names the closest), or add the heading."},
		{ID: RuleBrokenBlock, Default: Warning, Summary: "a #^block id that is not found in the target",
			Help: "Link to a block id the target has, or add ^id at the end of the paragraph."},
		{ID: RuleNameCollision, Default: Warning, Summary: "two notes whose paths differ only by case or Unicode form, so links reach only one",
			Help: "Rename or merge one of the notes: every link, by path or by name, reaches the one the message names, never this one."},
		{ID: RuleUntypedLink, Default: Warning, Summary: "a Links-section entry without \"— relation: justification\"",
			Help:  "Write each entry as - [[Target]] — relation: why the two notes relate.",
			typed: true, whole: true, check: (*noteCheck).untypedLinks},
		{ID: RuleUnknownRelation, Default: Warning, Summary: "a relation not in the vocabulary",
			Help:  "Use one of the configured relations, or add the word to relations in .zk/config.toml.",
			typed: true, whole: true, check: (*noteCheck).unknownRelations},
		{ID: RuleFalsifiersMissing, Default: Error, Summary: "Tests / falsifiers is present but lists no falsifier",
			Help:  "List at least one observation that would prove the claim wrong, as a list item.",
			typed: true, whole: true, check: (*noteCheck).falsifiers},
		{ID: RuleBareCapture, Default: Warning, Summary: "a capture whose pattern has no text or anchor around its number, so it reads the first number of any output",
			Help:  "The name before = is not looked for: write the text the output prints before the number after the =, as in capture: `failing = failing = ([0-9]+)`.",
			check: (*noteCheck).bareCaptures},
		{ID: RuleMissingDate, Default: Error, Summary: "no Last tended date",
			Help:  "Add \"- Last tended: YYYY-MM-DD\" under ## Maintenance (zk tend NOTE writes it).",
			typed: true, whole: true, check: (*noteCheck).missingDate},
		{ID: RuleBadDate, Default: Error, Summary: "a Last tended date that is not a real YYYY-MM-DD",
			Help:  "Write the date as YYYY-MM-DD, a date that exists on the calendar.",
			whole: true, check: (*noteCheck).badDate},
		{ID: RuleFutureDate, Default: Warning, Summary: "Last tended is after today",
			Help:  "Set the date to the day you last tended the note (zk tend NOTE).",
			whole: true, check: (*noteCheck).futureDate},
		{ID: RuleStale, Default: Warning, Summary: "the note is past its maintenance date",
			Help:  "Re-read the note against what you know now, then zk tend NOTE; set tend-every in its frontmatter for another cadence.",
			whole: true, check: (*noteCheck).stale},
		{ID: RuleRunEdited, Default: Warning, Summary: "a recorded run block no longer matches its checksum (if the ledger says it refuted, it still refutes)",
			Help:  "A run record is evidence: undo the edit (zk runs NOTE lists the runs; .zk/backups/ holds earlier versions), or run the falsifier again with zk run.",
			check: (*noteCheck).runEdited},
		{ID: RuleRefuted, Default: Error, Summary: "a falsifier's refutation stands: a run refuted the claim (its block says so, or the ledger for a block edited) and no later judged run answers it",
			Help:  "Revise the claim or its scope so the result no longer refutes it, or answer the run: run the falsifier again if the run was wrong, and say why in Evidence. A run under a criterion the refuting output passes answers only after zk run --rejudge NOTE --falsifier N records that revision; a result older than the refuting run answers nothing.",
			check: (*noteCheck).refuted},
		{ID: RuleRefutedDeleted, Default: Error, Summary: "a run that refutes the claim stands, and its falsifier is no longer in the note",
			Help:  "Put the falsifier back (the block quotes its text and id: end its item with ^ID) and run it again, or revise the claim: deleting a falsifier does not answer its refutation.",
			check: (*noteCheck).refutedDeleted},
		{ID: RuleRunVanished, Default: Error, Summary: "a run that refuted the claim was recorded in the note (moved, or holding its falsifier id now) and its block is gone; with the note gone, at the ledger's line",
			Help:  "Restore the block (its log is .zk/runs/ID.log; .zk/backups/ holds earlier versions of the note), or answer the refutation with a new run: deleting it does not unrefute the claim.",
			check: (*noteCheck).runVanished},
		{ID: RuleCriterionChanged, Default: Warning, Summary: "a falsifier's criterion is not the one its latest run was judged by; the message judges the run again",
			Help:  "The recorded verdict holds for the criterion it states, not for the one written now: zk run --rejudge NOTE --falsifier N records the judgement under the criterion as written (nothing runs), or run the falsifier again.",
			check: (*noteCheck).criterionChanged},
		{ID: RuleFlaky, Default: Warning, Summary: "a falsifier's verdict flipped between refutes and supports twice or more over its latest judged runs under its criterion",
			Help:  "The latest run's verdict stands, but one reading of this falsifier cannot tell the claim from noise: give it - repeat: N, so that each run judges its criterion over N runs' samples, or measure what it reads more steadily.",
			check: (*noteCheck).flaky},
		{ID: RuleNeverRun, Default: Warning, Summary: "a falsifier with a command and a criterion that was never run",
			Help:  "Approve the command (zk trust NOTE --falsifier N), then run it: zk run NOTE --falsifier N.",
			check: (*noteCheck).neverRun},
		{ID: RuleStaleRun, Default: Warning, Summary: "a falsifier's latest run is older than the note's tending interval",
			Help:  "Run the falsifier again (zk run NOTE --falsifier N): the evidence is as old as the claim's tending allows.",
			check: (*noteCheck).staleRun},
		{ID: RuleRestsOnRefuted, Default: Warning, Summary: "a Links entry extends, supports, refines, applies in or is evidence for a refuted note, directly or through a chain",
			Help: "Revisit the note: the note it rests on was refuted (the message names the chain). Change the relation, or revise this claim."},
		{ID: RuleTypeMismatch, Default: Warning, Summary: "a property's value does not fit the type .obsidian/types.json declares for it",
			Help:  "Write the value as its type wants (a number unquoted, a date as YYYY-MM-DD, a list as - items), or change the property's type in Obsidian's Properties view.",
			check: (*noteCheck).typeMismatch},
		{ID: RuleMissingProperty, Default: Warning, Summary: "a property the note type's template writes in its frontmatter is absent",
			Help:  "Add the property (empty if it has no value yet), as the template writes it.",
			typed: true, check: (*noteCheck).missingProperties},
	}
}

// RuleByID returns the rule with the given id.
func RuleByID(id string) (Rule, bool) {
	for _, r := range Rules() {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
