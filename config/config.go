// Package config reads zk's settings from a vault's .zk/config.toml.
//
// zk keeps everything under one table, [claims], so that the file can also
// be the config of zk-org/zk (the other "zk", which reads .zk/config.toml
// too and ignores tables it does not know): neither tool reads the other's
// keys. Inside [claims] every key is known; an unknown one is reported,
// never silently ignored, so that a typo does not pass for a setting.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/templates"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/evidence/measure"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/tending"
)

// File is where the config lives, relative to the vault root.
const File = ".zk/config.toml"

// Table is the TOML table that holds zk's settings.
const Table = "claims"

// DefaultTemplates is the vault folder searched for type templates.
const DefaultTemplates = ".zk/templates"

// DefaultConfidence is the share of resamples that must agree for a
// verdict (docs/falsifiers.md, noise).
const DefaultConfidence = "95%"

// DefaultType is the note type zk ships.
const DefaultType = "permanent"

// Config is the [claims] table.
type Config struct {
	// Ignore are doublestar globs of vault paths zk does not read.
	Ignore []string `toml:"ignore"`
	// TendEvery is the default interval between tendings ("90d").
	TendEvery string `toml:"tend-every"`
	// TendedKeys are the frontmatter properties read as Last tended.
	TendedKeys []string `toml:"tended-keys"`
	// Relations is the vocabulary of Links-section relations.
	Relations []string `toml:"relations"`
	// RestsOn are the relations by which a note rests on its target: a
	// refuted target warns the note (links/rests-on-refuted).
	RestsOn []string `toml:"rests-on"`
	// Templates is the vault folder holding type templates (NAME.md).
	Templates string `toml:"templates"`
	// Rules maps a rule id to "error", "warning" or "off".
	Rules map[string]string `toml:"rules"`
	// Overrides set rules' severities in some paths, over Rules; of
	// several that match a path, the last wins ([[claims.overrides]]).
	Overrides []Override `toml:"overrides"`
	// CheckComments makes zk check report the links inside %% comments,
	// which Obsidian records but a reader never sees: off by default.
	CheckComments bool `toml:"check-comments"`
	// Numbers is how falsifiers' captures read numbers when the
	// falsifier declares nothing: "1,234.5", "1.234,5", or "" (only what
	// every convention reads alike). Confidence is the share of bootstrap
	// resamples that must agree for a verdict ("95%"); a falsifier's own
	// "numbers:" and "confidence:" items win.
	Numbers    string `toml:"numbers"`
	Confidence string `toml:"confidence"`
	// Types are the note types by name; "permanent" always exists.
	Types map[string]*Type `toml:"types"`
	// IndexDir is the folder of the search index; "" means one folder per
	// vault in the user cache folder, outside the vault so that sync
	// clients and git never see it. A relative path is taken from the
	// vault root, and must stay inside the vault and out of its dot
	// folders: a vault is shared data, and its config may not direct
	// writes outside it, nor into .git or .obsidian (Parse warns and drops
	// such a value). $ZK_INDEX_DIR overrides it, and may name any folder.
	IndexDir string `toml:"index-dir"`
	// Languages maps doublestar globs of vault paths to the language the
	// notes there are written in ("fr/**" = "fr"), for search; a note's
	// frontmatter lang or language wins, and a note no glob matches has
	// its language detected from its text.
	Languages map[string]string `toml:"languages"`
}

// Override is one [[claims.overrides]]: the rules' severities in the
// vault paths that match Paths (doublestar globs, case ignored, as
// Ignore's), for the notes of Types (configured types' names, case
// ignored); with both, the notes of those types in those paths. By path
// because the rule adopters most want scoped, links/broken, fires in
// notes of no type too (an inbox); by type because a note that says
// type: literature is one wherever it lives, and wants the rules of
// claims no more than its folder does.
type Override struct {
	Paths []string          `toml:"paths"`
	Types []string          `toml:"types"`
	Rules map[string]string `toml:"rules"`
}

// Type is one note type, [claims.types.NAME].
type Type struct {
	// Template is the template's file name in the templates folder.
	Template string `toml:"template"`
	// Paths are doublestar globs of the vault paths of notes of the type.
	Paths []string `toml:"paths"`
	// Property and Value select notes by frontmatter (type: permanent).
	Property string `toml:"property"`
	Value    string `toml:"value"`
	// TendEvery overrides the default interval for notes of the type.
	TendEvery string `toml:"tend-every"`
	// Folder is where zk new writes notes of the type: a folder of the
	// vault, not a dot folder (Parse warns and drops any other); "" for
	// the folder its notes live in (workspace's NewNoteFolder).
	Folder string `toml:"folder"`
}

// Default is the configuration of a vault without a config file.
func Default() *Config {
	c := &Config{}
	c.fill()
	return c
}

// fill sets every setting left empty to its default.
func (c *Config) fill() {
	if c.TendEvery == "" {
		c.TendEvery = vault.DefaultInterval.String()
	}
	if c.TendedKeys == nil {
		c.TendedKeys = slices.Clone(tending.DefaultTendedKeys)
	}
	if c.Relations == nil {
		c.Relations = slices.Clone(lint.DefaultRelations)
	}
	if c.RestsOn == nil {
		// The default ones the vocabulary keeps: a vocabulary that
		// drops supports does not rest on it either.
		for _, r := range lint.RestsOnRelations {
			if slices.ContainsFunc(c.Relations, func(v string) bool { return strings.EqualFold(v, r) }) {
				c.RestsOn = append(c.RestsOn, r)
			}
		}
		if c.RestsOn == nil {
			c.RestsOn = []string{}
		}
	}
	if c.Ignore == nil {
		c.Ignore = []string{}
	}
	if c.Templates == "" {
		c.Templates = DefaultTemplates
	}
	if c.Confidence == "" {
		c.Confidence = DefaultConfidence
	}
	if c.Rules == nil {
		c.Rules = map[string]string{}
	}
	if c.Types == nil {
		c.Types = map[string]*Type{}
	}
	if c.Types[DefaultType] == nil {
		c.Types[DefaultType] = &Type{}
	}
	for name, t := range c.Types {
		if t.Template == "" {
			t.Template = name + ".md"
		}
		if t.Property == "" {
			t.Property = "type"
		}
		if t.Value == "" {
			t.Value = name
		}
		if t.Paths == nil {
			t.Paths = []string{}
			if name == DefaultType {
				t.Paths = slices.Clone(vault.DefaultTypePaths)
			}
		}
	}
}

// Load reads the config of the vault at dir. A vault without the file
// gets Default. Unknown keys in [claims] come back as warnings; a value
// zk cannot use is an error.
func Load(dir string) (*Config, []string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	defer root.Close()
	b, err := Read(root)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	c, warnings, err := Parse(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", File, err)
	}
	return c, warnings, nil
}

// MaxSize caps the config file zk reads: it came with the vault.
const MaxSize = 1 << 20

// Read reads the vault's config file, as zk reads every file of its own
// in a vault: never through a symlink, a regular file, at most MaxSize.
func Read(root *os.Root) ([]byte, error) {
	return ownfile.Read(root, File, MaxSize)
}

// Parse reads a config file's text.
func Parse(b []byte) (*Config, []string, error) {
	var f struct {
		Claims *Config `toml:"claims"`
	}
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == Table {
			w := fmt.Sprintf("%s: unknown key %s", File, k)
			if s := suggestKey(k); s != "" {
				w += fmt.Sprintf(" (did you mean %s?)", s)
			}
			warnings = append(warnings, w)
		}
	}
	c := f.Claims
	if c == nil {
		c = &Config{}
	}
	for id := range c.Rules {
		if len(lint.RulesNamed(id)) == 0 {
			warnings = append(warnings, fmt.Sprintf("%s: unknown rule %q in [%s.rules]", File, id, Table))
		}
	}
	if c.IndexDir != "" && !vault.Local(c.IndexDir) {
		warnings = append(warnings, fmt.Sprintf("%s: index-dir %q is outside the vault, and a vault's config may not direct writes outside it; using the default (set $ZK_INDEX_DIR to put the index elsewhere)", File, c.IndexDir))
		c.IndexDir = ""
	} else if c.IndexDir != "" && vault.InDotFolder(c.IndexDir) {
		warnings = append(warnings, fmt.Sprintf("%s: index-dir %q is in a dot folder (.zk, .obsidian, .git...), and a vault's config may not direct writes there; using the default (set $ZK_INDEX_DIR to put the index elsewhere)", File, c.IndexDir))
		c.IndexDir = ""
	}
	for name, t := range c.Types {
		if t == nil || t.Folder == "" || (vault.Local(t.Folder) && !vault.InDotFolder(t.Folder)) {
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s: types.%s.folder %q is outside the vault's note folders (outside it, or in a dot folder: .zk, .obsidian, .git...), and a vault's config may not direct writes there; using the default", File, name, t.Folder))
		t.Folder = ""
	}
	slices.Sort(warnings)
	c.fill()
	if err := errors.Join(c.validate(), c.validateOverrides(b)); err != nil {
		return nil, warnings, err
	}
	return c, warnings, nil
}

// suggestKey is the key zk reads where k, a key of [claims] it does not,
// stands: the same but for _ written for -, or a plural's s (tended_keys,
// type in an override); "" when there is none.
func suggestKey(k toml.Key) string {
	var of any
	switch {
	case len(k) == 2:
		of = Config{}
	case len(k) == 4 && k[1] == "types":
		of = Type{}
	case len(k) == 3 && k[1] == "overrides":
		of = Override{}
	default:
		return ""
	}
	norm := func(s string) string {
		return strings.TrimSuffix(strings.ReplaceAll(strings.ToLower(s), "_", "-"), "s")
	}
	want := norm(k[len(k)-1])
	t := reflect.TypeOf(of)
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("toml"); tag != "" && norm(tag) == want {
			return tag
		}
	}
	return ""
}

// validateOverrides refuses an override that names no path, an unknown
// rule, a severity or a glob zk cannot read: unlike [claims.rules]'s
// unknown rule, which is warned, an override is new, and a typo in it
// would pass for a scope that silences nothing. Each error names its
// line in b, the file's text, where one can be found.
func (c *Config) validateOverrides(b []byte) error {
	const maxErrors = 10
	var errs []error
	more := 0
	heads := overrideHeads(b)
	lines := strings.Split(string(b), "\n")
	globs, types := 0, 0
	for _, o := range c.Overrides {
		globs += len(o.Paths)
		types += len(o.Types)
	}
	if globs > MaxOverrideGlobs {
		// Each note's path is matched against every glob: a vault's
		// config may not make a check cost its notes times a million.
		errs = append(errs, fmt.Errorf("[[%s.overrides]]: %d globs in paths, over the %d zk reads: merge the overrides that set the same rules, or name folders rather than notes", Table, globs, MaxOverrideGlobs))
		return errors.Join(errs...)
	}
	if types > MaxOverrideGlobs {
		// And each note's type against every type named.
		errs = append(errs, fmt.Errorf("[[%s.overrides]]: %d types named, over the %d zk reads: merge the overrides that set the same rules", Table, types, MaxOverrideGlobs))
		return errors.Join(errs...)
	}
	known := c.TypeNames()
	for i, o := range c.Overrides {
		head, end := 0, len(lines)
		if len(heads) == len(c.Overrides) {
			head = heads[i]
			if i+1 < len(heads) {
				end = heads[i+1] - 1
			}
		}
		// at is "line N: " for the first line of the override holding s
		// (its header when none does), or "" when the overrides are
		// written as an inline array.
		at := func(s string) string {
			if head == 0 {
				return ""
			}
			for n := head; n <= end && n <= len(lines); n++ {
				if strings.Contains(lines[n-1], s) {
					return fmt.Sprintf("line %d: ", n)
				}
			}
			return fmt.Sprintf("line %d: ", head)
		}
		name := fmt.Sprintf("[[%s.overrides]] #%d", Table, i+1)
		// fail reports one error at the line holding s; past the first
		// maxErrors it only counts, so that a file of a thousand typos
		// is neither a thousand lines nor a thousand scans of the file.
		fail := func(s, format string, args ...any) {
			if len(errs) == maxErrors {
				more++
				return
			}
			errs = append(errs, fmt.Errorf("%s%s: "+format, append([]any{at(s), name}, args...)...))
		}
		if len(o.Paths) == 0 && len(o.Types) == 0 {
			fail("[[", "paths and types are empty: name the globs of the vault paths, or the note types, it sets the rules of")
		}
		for _, typ := range o.Types {
			if !slices.ContainsFunc(known, func(n string) bool { return strings.EqualFold(n, typ) }) {
				fail(typ, "types: unknown note type %q (known: %s; [%s.types.NAME] adds one)", typ, strings.Join(known, ", "), Table)
			}
		}
		for _, g := range o.Paths {
			if err := vault.ValidGlob(g); err != nil {
				fail(g, "paths: %w", err)
			}
		}
		ids := make([]string, 0, len(o.Rules))
		for id := range o.Rules {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if len(lint.RulesNamed(id)) == 0 {
				fail(id, "rules: unknown rule %q (README's Rules lists them; a group, links, or all names several)", id)
			} else if _, err := lint.ParseSeverity(o.Rules[id]); err != nil {
				fail(id, "rules.%q: %w", id, err)
			}
		}
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("and %d more errors in [[%s.overrides]]", more, Table))
	}
	return errors.Join(errs...)
}

// MaxOverrideGlobs caps the globs of all overrides' paths together.
const MaxOverrideGlobs = MaxGlobs

// MaxGlobs caps the globs of a setting that every file or note is
// matched against: ignore, languages, and the paths of all types
// together.
const MaxGlobs = 256

// overrideHeads are the lines (from 1) of the [[claims.overrides]]
// headers in b, in order.
func overrideHeads(b []byte) []int {
	var out []int
	for n, l := range strings.Split(string(b), "\n") {
		l = strings.Join(strings.Fields(l), "")
		if strings.HasPrefix(l, "[["+Table+".overrides]]") {
			out = append(out, n+1)
		}
	}
	return out
}

// validate checks every value that Parse cannot check by type.
func (c *Config) validate() error {
	var errs []error
	if _, err := vault.ParseInterval(c.TendEvery); err != nil {
		errs = append(errs, fmt.Errorf("%s.tend-every: %w", Table, err))
	}
	if c.Numbers != "" {
		if _, err := measure.ParseNumbers(c.Numbers); err != nil {
			errs = append(errs, fmt.Errorf("%s.%w", Table, err))
		}
	}
	if _, err := evidence.ParseConfidence(c.Confidence); err != nil {
		errs = append(errs, fmt.Errorf("%s.%w", Table, err))
	}
	for _, r := range c.RestsOn {
		// A relation not in the vocabulary is one no entry may name
		// (links/unknown-relation): most likely one the vocabulary renamed.
		if !slices.ContainsFunc(c.Relations, func(v string) bool { return strings.EqualFold(v, r) }) {
			errs = append(errs, fmt.Errorf("%s.rests-on: %q is not one of relations (%s)", Table, r, strings.Join(c.Relations, ", ")))
		}
	}
	for id, s := range c.Rules {
		if _, err := lint.ParseSeverity(s); err != nil {
			errs = append(errs, fmt.Errorf("%s.rules.%q: %w", Table, id, err))
		}
	}
	// Every path the walk meets is matched against each ignore glob, and
	// every note against each type's: a vault's config may not make a
	// walk cost its files times a million. Capped before each is read.
	if len(c.Ignore) > MaxGlobs {
		errs = append(errs, fmt.Errorf("%s.ignore: %d globs, over the %d zk reads: name folders (Archive/**) rather than files", Table, len(c.Ignore), MaxGlobs))
	} else {
		for _, g := range c.Ignore {
			if err := vault.ValidGlob(g); err != nil {
				errs = append(errs, fmt.Errorf("%s.ignore: %w", Table, err))
			}
		}
	}
	if len(c.Languages) > MaxGlobs {
		errs = append(errs, fmt.Errorf("%s.languages: %d globs, over the %d zk reads: name folders (fr/**) rather than notes", Table, len(c.Languages), MaxGlobs))
	} else {
		globs := slices.Sorted(maps.Keys(c.Languages)) // the same error first each run
		for _, g := range globs {
			if err := vault.ValidGlob(g); err != nil {
				errs = append(errs, fmt.Errorf("%s.languages: %w", Table, err))
			}
		}
	}
	typeGlobs := 0
	for _, t := range c.Types {
		typeGlobs += len(t.Paths)
	}
	if typeGlobs > MaxGlobs {
		return errors.Join(append(errs, fmt.Errorf("%s.types: %d globs in paths, over the %d zk reads: name folders (Literature/**) rather than notes", Table, typeGlobs, MaxGlobs))...)
	}
	for _, name := range c.TypeNames() {
		t := c.Types[name]
		for _, g := range t.Paths {
			if err := vault.ValidGlob(g); err != nil {
				errs = append(errs, fmt.Errorf("%s.types.%s.paths: %w", Table, name, err))
			}
		}
		if t.TendEvery != "" {
			if _, err := vault.ParseInterval(t.TendEvery); err != nil {
				errs = append(errs, fmt.Errorf("%s.types.%s.tend-every: %w", Table, name, err))
			}
		}
		if strings.ContainsAny(t.Template, `/\`) {
			errs = append(errs, fmt.Errorf("%s.types.%s.template: %q must be a file name in %s", Table, name, t.Template, c.Templates))
		}
	}
	return errors.Join(errs...)
}

// TypeNames are the configured types: "permanent" first, then the others
// by name, which is also the order a note's type is decided in.
func (c *Config) TypeNames() []string {
	names := make([]string, 0, len(c.Types))
	for name := range c.Types {
		if name != DefaultType {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return append([]string{DefaultType}, names...)
}

// Severities are the rule severities the config sets.
func (c *Config) Severities() map[string]lint.Severity { return severities(c.Rules) }

// severities are rules' severities by rule id, a group or "all" giving
// each of its rules the severity the rule's own id does not: the more
// specific name wins, whatever the file's order (as zk-ignore names
// rules).
func severities(rules map[string]string) map[string]lint.Severity {
	out := make(map[string]lint.Severity, len(rules))
	by := make(map[string]int, len(rules)) // the specificity each was set by
	names := make([]string, 0, len(rules))
	for name := range rules {
		names = append(names, name)
	}
	slices.Sort(names) // "links" and "links/*" both set: the same one wins each run
	for _, name := range names {
		sev, _ := lint.ParseSeverity(rules[name]) // validated by Parse
		for _, id := range lint.RulesNamed(name) {
			if k := lint.NameSpecificity(name, id); k > by[id] {
				out[id], by[id] = sev, k
			}
		}
	}
	return out
}

// RuleOverrides are the overrides' severities, in the file's order;
// match builds a matcher of a list of globs (as ignore's). An override
// by type alone matches every path.
func (c *Config) RuleOverrides(match func(globs []string) func(string) bool) []lint.Override {
	out := make([]lint.Override, len(c.Overrides))
	for i, o := range c.Overrides {
		out[i] = lint.Override{Types: o.Types, Severity: severities(o.Rules)}
		if len(o.Paths) > 0 {
			out[i].Match = match(o.Paths)
		}
	}
	return out
}

// Interval is the default tending interval.
func (c *Config) Interval() vault.Interval {
	iv, err := vault.ParseInterval(c.TendEvery)
	if err != nil {
		return vault.DefaultInterval
	}
	return iv
}

// ReadFunc reads a vault file by its vault path; vault.Vault.ReadFile
// with a size cap is one.
type ReadFunc func(path string) ([]byte, error)

// Template returns the template of a type: the vault's own file in the
// templates folder if there is one, else the one zk ships. from is the
// vault path it came from, or "" for the embedded one.
func (c *Config) Template(name string, read ReadFunc) (tmpl []byte, from string, err error) {
	t, ok := c.Types[name]
	if !ok {
		return nil, "", fmt.Errorf("%w: %q (known: %s)", ErrUnknownType, name, strings.Join(c.TypeNames(), ", "))
	}
	p := path.Join(filepath.ToSlash(c.Templates), t.Template)
	b, err := read(p)
	switch {
	case err == nil:
		return b, p, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("template of type %s: %w", name, err)
	}
	if b, ok := templates.Default(name); ok {
		return b, "", nil
	}
	return nil, "", fmt.Errorf("template of type %s: no %s, and zk ships none: write it, a note whose headings are the sections a note of the type must have, in order", name, p)
}

// ErrUnknownType is returned for a type the config does not define.
var ErrUnknownType = errors.New("unknown note type")

// NoteTypes builds the vault's note types, each with the schema its
// template gives.
func (c *Config) NoteTypes(read ReadFunc) ([]*vault.NoteType, error) {
	var out []*vault.NoteType
	for _, name := range c.TypeNames() {
		t := c.Types[name]
		tmpl, from, err := c.Template(name, read)
		if err != nil {
			return nil, err
		}
		s, ok := embeddedSchema(name)
		if from != "" || !ok {
			s, err = vault.ParseSchema(tmpl)
		}
		if err != nil {
			if from == "" {
				from = "the embedded template"
			}
			return nil, fmt.Errorf("type %s: %s: %w", name, from, err)
		}
		nt := &vault.NoteType{Name: name, Schema: s, Paths: t.Paths, Property: t.Property, Value: t.Value}
		if t.TendEvery != "" {
			nt.Interval, _ = vault.ParseInterval(t.TendEvery) // validated by Parse
		}
		out = append(out, nt)
	}
	return out, nil
}

// embeddedSchema is the schema of the template zk ships for a type, as
// vault.ParseSchema reads it (TestEmbeddedSchemas holds the two together).
// A vault that keeps no template of its own would otherwise have every
// command that opens it parse the shipped one through goldmark, whose first
// parse in a process builds its tables and faults its code in: about 0.7
// ms of an unchanged zk links' 85 at 10,000 notes. A new value each call:
// the caller owns it.
func embeddedSchema(typ string) (*vault.Schema, bool) {
	switch typ {
	case "permanent":
		return &vault.Schema{
			Title: true,
			Sections: []vault.SchemaSection{
				{Title: "Claim", Level: 2},
				{Title: "Scope & conditions", Level: 2},
				{Title: "Evidence", Level: 2},
				{Title: "Links", Level: 2},
				{Title: "Tests / falsifiers", Level: 2},
				{Title: "Maintenance", Level: 2},
			},
			TendedIn: "Maintenance",
		}, true
	}
	return nil, false
}

// Judging is the config's part of how a run is judged: the falsifier's
// own items override it (evidence.Judge).
func (c *Config) Judging(runID string) evidence.Settings {
	s := evidence.Settings{RunID: runID}
	s.Confidence, _ = evidence.ParseConfidence(c.Confidence) // validated on load
	if n, err := measure.ParseNumbers(c.Numbers); err == nil {
		s.Numbers = n
	}
	return s
}
