package config

import (
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zk-claims/zk/templates"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// TestCommentedIsDefault uncomments every setting zk init writes and
// reads the result: it must be exactly the default configuration.
func TestCommentedIsDefault(t *testing.T) {
	text := regexp.MustCompile(`(?m)^# ("?[a-z][a-z/-]*"? = .*)$`).ReplaceAllString(string(Commented()), "$1")
	got, warnings, err := Parse([]byte(text))
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Parse: %v %v\n%s", err, warnings, text)
	}
	want := Default()
	if len(got.Rules) != len(lint.Rules()) {
		t.Errorf("uncommented rules = %d, want every rule (%d)", len(got.Rules), len(lint.Rules()))
	}
	for id, sev := range got.Severities() {
		if r, _ := lint.RuleByID(id); r.Default != sev {
			t.Errorf("rule %s = %v, want its default %v", id, sev, r.Default)
		}
	}
	got.Rules, want.Rules = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("uncommented config = %+v\nwant the default %+v", got, want)
	}
	// Commented, it sets nothing at all.
	blank, _, err := Parse(Commented())
	if err != nil || !reflect.DeepEqual(blank, Default()) {
		t.Errorf("commented config = %+v, %v; want the default", blank, err)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, toml string
		warnings   []string
		err        string
	}{
		{name: "empty"},
		{name: "zk-org/zk's own tables are not ours", toml: "[notebook]\ndir = \"x\"\n[note]\nfilename = \"{{id}}\"\n[claims]\ntend-every = \"30d\"\n"},
		{name: "unknown key", toml: "[claims]\ntend-evry = \"30d\"\n", warnings: []string{".zk/config.toml: unknown key claims.tend-evry"}},
		{name: "unknown nested key", toml: "[claims.types.permanent]\nfolders = [\"x\"]\n", warnings: []string{".zk/config.toml: unknown key claims.types.permanent.folders (did you mean folder?)"}},
		// A key written with _ for - (or in another case) is named as zk reads it.
		{name: "underscore for dash", toml: "[claims]\ntended_keys = [\"reviewed\"]\n", warnings: []string{".zk/config.toml: unknown key claims.tended_keys (did you mean tended-keys?)"}},
		{name: "underscore in a type", toml: "[claims.types.permanent]\ntend_every = \"30d\"\n", warnings: []string{".zk/config.toml: unknown key claims.types.permanent.tend_every (did you mean tend-every?)"}},
		{name: "override key", toml: "[[claims.overrides]]\npaths = [\"a/**\"]\ntype = [\"permanent\"]\n", warnings: []string{".zk/config.toml: unknown key claims.overrides.type (did you mean types?)"}},
		{name: "unlike any", toml: "[claims]\nfoo = 1\n", warnings: []string{".zk/config.toml: unknown key claims.foo"}},
		{name: "unknown rule", toml: "[claims.rules]\n\"links/brokn\" = \"off\"\n", warnings: []string{`.zk/config.toml: unknown rule "links/brokn" in [claims.rules]`}},
		{name: "bad severity", toml: "[claims.rules]\n\"links/broken\" = \"loud\"\n", err: `severity "loud"`},
		{name: "bad interval", toml: "[claims]\ntend-every = \"soon\"\n", err: "claims.tend-every"},
		{name: "bad glob", toml: "[claims]\nignore = [\"[\"]\n", err: "not a valid glob"},
		{name: "template with a folder", toml: "[claims.types.permanent]\ntemplate = \"../x.md\"\n", err: "must be a file name"},
		{name: "wrong type", toml: "[claims]\nrelations = \"extends\"\n", err: "relations"},
		{name: "not TOML", toml: "[claims\n", err: "toml"},
		// Every path the walk meets is matched against each glob: a
		// vault's config may not make a walk cost its files times a million.
		{name: "ignore globs over the cap", toml: "[claims]\nignore = [" + strings.Repeat(`"a/**",`, 257) + "]\n",
			err: "claims.ignore: 257 globs, over the 256 zk reads: name folders (Archive/**) rather than files"},
		{name: "ignore globs at the cap", toml: "[claims]\nignore = [" + strings.Repeat(`"a/**",`, 256) + "]\n"},
		{name: "languages' globs over the cap", toml: "[claims.languages]\n" + langGlobs(257),
			err: "claims.languages: 257 globs, over the 256 zk reads"},
		{name: "a bad languages glob", toml: "[claims.languages]\n\"fr/[\" = \"fr\"\n", err: `claims.languages: "fr/[" is not a valid glob`},
		{name: "types' paths over the cap", toml: "[claims.types.permanent]\npaths = [" + strings.Repeat(`"a/**",`, 200) + "]\n[claims.types.idea]\npaths = [" + strings.Repeat(`"b/**",`, 57) + "]\n",
			err: "claims.types: 257 globs in paths, over the 256 zk reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warnings, err := Parse([]byte(tt.toml))
			if tt.err == "" && err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("Parse error = %v, want one containing %q", err, tt.err)
			}
			if tt.err == "" && !reflect.DeepEqual(warnings, tt.warnings) {
				t.Errorf("warnings = %q, want %q", warnings, tt.warnings)
			}
		})
	}
}

// langGlobs is n [claims.languages] lines, each a glob of its own.
func langGlobs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\"d%d/**\" = \"fr\"\n", i)
	}
	return b.String()
}

func TestNoteTypes(t *testing.T) {
	c, _, err := Parse([]byte("[claims.types.literature]\npaths = [\"Literature/**\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) ([]byte, error) {
		if p == ".zk/templates/literature.md" {
			return []byte("# {{title}}\n## Source\n## Summary\n"), nil
		}
		return nil, &notExist{p}
	}
	types, err := c.NoteTypes(read)
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != 2 || types[0].Name != "permanent" || types[1].Name != "literature" {
		t.Fatalf("types = %v, want permanent then literature", types)
	}
	if got := types[0].Schema.TendedIn; got != "Maintenance" {
		t.Errorf("permanent TendedIn = %q, want Maintenance", got)
	}
	if got := len(types[1].Schema.Sections); got != 2 {
		t.Errorf("literature has %d sections, want 2", got)
	}
	c.Types["other"] = &Type{Template: "other.md"}
	if _, err := c.NoteTypes(read); err == nil || !strings.Contains(err.Error(), "zk ships none") {
		t.Errorf("a type without a template: err = %v", err)
	}
}

// Every template zk ships has its schema written out (embeddedSchema), and
// it is the one vault.ParseSchema reads from the template; a vault's own
// template of the same name is still read.
func TestEmbeddedSchemas(t *testing.T) {
	for _, name := range templates.Names() {
		b, _ := templates.Default(name)
		want, err := vault.ParseSchema(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, ok := embeddedSchema(name)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("embeddedSchema(%q) = %#v, %v; the template reads as %#v", name, got, ok, want)
		}
	}
	c, _, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	own := func(p string) ([]byte, error) {
		if p == ".zk/templates/permanent.md" {
			return []byte("# {{title}}\n## Claim\n## Maintenance\n- Last tended: {{date}}\n"), nil
		}
		return nil, &notExist{p}
	}
	types, err := c.NoteTypes(own)
	if err != nil {
		t.Fatal(err)
	}
	if got := types[0].Schema.Sections; len(got) != 2 || got[1].Title != "Maintenance" {
		t.Errorf("a vault's own permanent.md: sections %v, want Claim and Maintenance", got)
	}
}

type notExist struct{ p string }

func (e *notExist) Error() string        { return e.p + ": no such file" }
func (e *notExist) Is(target error) bool { return target == fs.ErrNotExist }

// A vault's config may not send the index outside the vault, nor into a
// dot folder: Parse warns and drops an index-dir that is absolute, climbs
// out or names a dot folder.
func TestIndexDirInsideVault(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		keep bool
	}{
		{".zk/index", false},
		{".obsidian/idx", false},
		{"a/.git/idx", false},
		{"idx", true},
		{"a/.b/../idx", true},
		{"a/../idx", true},
		{"/tmp/x", false},
		{"../x", false},
		{"a/../../x", false},
		{"..", false},
	} {
		c, warnings, err := Parse([]byte("[claims]\nindex-dir = " + strconv.Quote(tc.dir) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if kept := c.IndexDir == tc.dir; kept != tc.keep || (len(warnings) == 0) != tc.keep {
			t.Errorf("index-dir %q: kept %q, warnings %q; want kept = %v", tc.dir, c.IndexDir, warnings, tc.keep)
		}
	}
}

// A type's folder, where zk new writes, is one of the vault's note
// folders: Parse warns and drops one outside the vault or in a dot folder.
func TestTypeFolderConfined(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		keep bool
	}{
		{"Ideas", true},
		{"a/b", true},
		{".obsidian/plugins/x", false},
		{".git/hooks", false},
		{".zk", false},
		{"notes/.trash", false},
		{"../out", false},
		{"/tmp/x", false},
	} {
		c, warnings, err := Parse([]byte("[claims.types.idea]\nfolder = " + strconv.Quote(tc.dir) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if kept := c.Types["idea"].Folder == tc.dir; kept != tc.keep || (len(warnings) == 0) != tc.keep {
			t.Errorf("folder %q: kept %q, warnings %q; want kept = %v", tc.dir, c.Types["idea"].Folder, warnings, tc.keep)
		}
	}
}

// TestOverrides reads [[claims.overrides]] in file order, the example
// zk init writes among them, and refuses what it cannot use, naming the
// line where it can.
func TestOverrides(t *testing.T) {
	example := strings.ReplaceAll(OverrideExample, "# ", "")
	c, warnings, err := Parse([]byte(example + `[[claims.overrides]]
paths = ["**/Permanent Notes/**"]
[claims.overrides.rules]
"links/broken" = "error"
`))
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Parse: %v %v", err, warnings)
	}
	want := []Override{
		{Paths: []string{"Inbox/**"}, Rules: map[string]string{"links/broken": "off"}},
		{Paths: []string{"**/Permanent Notes/**"}, Rules: map[string]string{"links/broken": "error"}},
	}
	if !reflect.DeepEqual(c.Overrides, want) {
		t.Errorf("Overrides = %+v, want %+v", c.Overrides, want)
	}
	ovs := c.RuleOverrides(func(globs []string) func(string) bool {
		return func(p string) bool { return strings.HasPrefix(p, strings.TrimSuffix(globs[0], "**")) }
	})
	if len(ovs) != 2 || !ovs[0].Match("Inbox/A.md") || ovs[0].Severity["links/broken"] != lint.Off || ovs[1].Severity["links/broken"] != lint.Error {
		t.Errorf("RuleOverrides = %+v", ovs)
	}

	var typos strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&typos, "\"r%04d\" = \"off\"\n", i)
	}
	manyTypos := typos.String()
	for _, tt := range []struct{ text, want string }{
		{"[[claims.overrides]]\nrules = { \"links/broken\" = \"off\" }\n", `line 1: [[claims.overrides]] #1: paths and types are empty`},
		{"[[claims.overrides]]\npaths = [\"a/**\"]\nrules = { \"links/nope\" = \"off\" }\n", `line 3: [[claims.overrides]] #1: rules: unknown rule "links/nope"`},
		{"[[claims.overrides]]\npaths = [\"a/**\"]\n[[claims.overrides]]\npaths = [\"a/[\"]\n", `line 4: [[claims.overrides]] #2: paths: "a/[" is not a valid glob`},
		{"[[claims.overrides]]\npaths = [\"a/**\"]\nrules = { \"links/broken\" = \"loud\" }\n", `line 3: [[claims.overrides]] #1: rules."links/broken": severity "loud"`},
		// An inline array has no header to count: the error names the override alone.
		{"[claims]\noverrides = [{ paths = [\"a/**\"], rules = { \"links/nope\" = \"off\" } }]\n", `[[claims.overrides]] #1: rules: unknown rule "links/nope"`},
		{"[[claims.overrides]]\ntypes = [\"literatur\"]\nrules = { \"links/broken\" = \"off\" }\n", `line 2: [[claims.overrides]] #1: types: unknown note type "literatur" (known: permanent; [claims.types.NAME] adds one)`},
		{"[[claims.overrides]]\npaths = [\"a/**\"]\n[claims.overrides.rules]\n" + manyTypos, `line 4: [[claims.overrides]] #1: rules: unknown rule "r0000"`},
		{"[[claims.overrides]]\npaths = [" + strings.Repeat(`"a/**",`, MaxOverrideGlobs+1) + "]\n", `[[claims.overrides]]: 257 globs in paths, over the 256 zk reads`},
		// Each note's type is matched against every type named too.
		{"[[claims.overrides]]\ntypes = [" + strings.Repeat(`"permanent",`, 257) + "]\n", `[[claims.overrides]]: 257 types named, over the 256 zk reads`},
	} {
		_, _, err := Parse([]byte(tt.text))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error starting %q", tt.text, err, tt.want)
		}
	}
	// An override by note type: a configured type's name, case ignored,
	// alone or with paths.
	c, _, err = Parse([]byte(`[claims.types.literature]
paths = ["Literature/**"]
[[claims.overrides]]
types = ["Literature"]
rules = { "falsifiers/missing" = "warning" }
[[claims.overrides]]
paths = ["Archive/**"]
types = ["permanent", "literature"]
rules = { "falsifiers/missing" = "off" }
`))
	if err != nil {
		t.Fatalf("Parse with types: %v", err)
	}
	ovs = c.RuleOverrides(func(globs []string) func(string) bool {
		return func(p string) bool { return strings.HasPrefix(p, strings.TrimSuffix(globs[0], "**")) }
	})
	lo := lint.Options{Overrides: ovs}
	for _, tt := range []struct {
		path, typ string
		want      lint.Severity
	}{
		{"Literature/A.md", "literature", lint.Warning},
		{"Archive/A.md", "literature", lint.Off},
		{"Archive/A.md", "permanent", lint.Off},
		{"Archive/A.md", "", lint.Error},
		{"Notes/A.md", "permanent", lint.Error},
	} {
		if got := lo.SeverityAt("falsifiers/missing", tt.path, tt.typ); got != tt.want {
			t.Errorf("SeverityAt(%s, %q) = %v, want %v", tt.path, tt.typ, got, tt.want)
		}
	}
	// A thousand typos are ten errors and a count of the rest.
	_, _, err = Parse([]byte("[[claims.overrides]]\npaths = [\"a/**\"]\n[claims.overrides.rules]\n" + manyTypos))
	if lines := strings.Split(err.Error(), "\n"); len(lines) != 11 || lines[10] != "and 990 more errors in [[claims.overrides]]" {
		t.Errorf("%d lines of errors, ending %q; want 10 and a count of 990 more", len(lines), lines[len(lines)-1])
	}
}

// FuzzParse: any config text parses or is refused, never a panic, and
// an override that parses names only rules zk has, each with a
// severity, and globs that match.
func FuzzParse(f *testing.F) {
	f.Add([]byte(OverrideExample))
	f.Add([]byte(strings.ReplaceAll(OverrideExample, "# ", "")))
	f.Add([]byte("[[claims.overrides]]\npaths = [\"a/[\"]\n[claims.overrides.rules]\n\"links/broken\" = \"loud\"\n"))
	f.Add([]byte("[claims]\noverrides = [{ paths = [\"**\"], rules = { \"all\" = \"off\" } }]\n"))
	f.Add(Commented())
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _, err := Parse(b)
		if err != nil {
			return
		}
		for _, o := range c.Overrides {
			if len(o.Paths) == 0 && len(o.Types) == 0 {
				t.Fatalf("an override with no paths and no types parsed: %+v", o)
			}
			for _, typ := range o.Types {
				if !slices.ContainsFunc(c.TypeNames(), func(n string) bool { return strings.EqualFold(n, typ) }) {
					t.Fatalf("unknown type %q parsed", typ)
				}
			}
			for _, g := range o.Paths {
				if vault.ValidGlob(g) != nil {
					t.Fatalf("bad glob %q parsed", g)
				}
			}
			for id, s := range o.Rules {
				if len(lint.RulesNamed(id)) == 0 {
					t.Fatalf("unknown rule %q parsed", id)
				}
				if _, err := lint.ParseSeverity(s); err != nil {
					t.Fatalf("severity %q parsed", s)
				}
			}
		}
	})
}

// TestRuleGroups: the config names rules as zk-ignore does, by id, by
// group ("links", "links/*") or "all", in [claims.rules] and in an
// override; the more specific name wins, whatever the file's order.
func TestRuleGroups(t *testing.T) {
	c, warnings, err := Parse([]byte(`[claims.rules]
"links/broken" = "error"
"links" = "warning"
"all" = "off"
"maintenance/*" = "warning"

[[claims.overrides]]
paths = ["Inbox/**"]
rules = { "links" = "off", "links/broken-heading" = "error" }
`))
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Parse: %v %q", err, warnings)
	}
	opts := lint.Options{Severity: c.Severities(), Overrides: c.RuleOverrides(func(globs []string) func(string) bool {
		return func(p string) bool { return strings.HasPrefix(p, "Inbox/") }
	})}
	for _, tt := range []struct {
		rule, path string
		want       lint.Severity
	}{
		{"links/broken", "A.md", lint.Error},               // its id over its group
		{"links/broken-heading", "A.md", lint.Warning},     // its group over all
		{"structure/title", "A.md", lint.Off},              // all
		{"maintenance/stale", "A.md", lint.Warning},        // group/*
		{"links/broken", "Inbox/A.md", lint.Off},           // the override's group
		{"links/broken-heading", "Inbox/A.md", lint.Error}, // the override's id over its group
		{"structure/title", "Inbox/A.md", lint.Off},        // the override names it not
	} {
		if got := opts.SeverityAt(tt.rule, tt.path, ""); got != tt.want {
			t.Errorf("SeverityAt(%s, %s) = %v, want %v", tt.rule, tt.path, got, tt.want)
		}
	}
	// A name that is no rule nor group is still refused in an override,
	// warned in [claims.rules].
	if _, _, err := Parse([]byte("[[claims.overrides]]\npaths = [\"a/**\"]\nrules = { \"link\" = \"off\" }\n")); err == nil || !strings.Contains(err.Error(), `unknown rule "link"`) {
		t.Errorf("an override naming %q: %v, want unknown rule", "link", err)
	}
	if _, w, _ := Parse([]byte("[claims.rules]\n\"link\" = \"off\"\n")); len(w) != 1 {
		t.Errorf("[claims.rules] naming %q: warnings %q, want one", "link", w)
	}
}
