package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

// The repository's release files, read from the module root.
const (
	actionFile     = "../../action.yml"
	preCommitFile  = "../../.pre-commit-hooks.yaml"
	goreleaserFile = "../../.goreleaser.yaml"
	installPath    = "github.com/zk-claims/zk/cmd/zk"
)

type actionSpec struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			Uses  string            `yaml:"uses"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction() (actionSpec, error) {
	var a actionSpec
	b, err := os.ReadFile(actionFile)
	if err != nil {
		return a, err
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("action.yml: %w", err)
	}
	return a, nil
}

// TestActionYAML: the composite Action has the inputs the README shows,
// sets up Go before installing zk from the module path, runs zk check with
// annotations and --fail-on, and never pastes an input into a script
// (script injection): inputs go through env.
func TestActionYAML(t *testing.T) {
	a, err := readAction()
	if err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	for _, in := range []string{"vault", "fail-on", "version", "sarif"} {
		spec, ok := a.Inputs[in]
		if !ok {
			t.Errorf("input %q missing", in)
			continue
		}
		if spec.Description == "" {
			t.Errorf("input %q has no description", in)
		}
	}
	if d := a.Inputs["version"].Default; d != "latest" {
		t.Errorf("input version defaults to %q, want latest", d)
	}
	setup, install, check := -1, -1, -1
	for i, s := range a.Runs.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			setup = i
		case strings.Contains(s.Run, "go install \""+installPath+"@${ZK_VERSION}\""):
			install = i
			if s.Env["ZK_VERSION"] != "${{ inputs.version }}" {
				t.Errorf("install step: ZK_VERSION = %q, want the version input", s.Env["ZK_VERSION"])
			}
		case strings.Contains(s.Run, "zk check"):
			check = i
			for _, want := range []string{"--format github", `--fail-on "$ZK_FAIL_ON"`, "--format sarif"} {
				if !strings.Contains(s.Run, want) {
					t.Errorf("check step does not run zk check %s", want)
				}
			}
		}
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %q: a composite run step needs a shell", s.Name)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q pastes an expression into its script; pass it through env", s.Name)
		}
	}
	if setup < 0 || install < 0 || check < 0 || !(setup < install && install < check) {
		t.Errorf("steps: setup-go at %d, go install at %d, zk check at %d; want all three, in that order", setup, install, check)
	}
}

// TestPreCommitHooks: the zk-check hook builds with language golang and
// runs zk check on Markdown files, passing their paths.
func TestPreCommitHooks(t *testing.T) {
	b, err := os.ReadFile(preCommitFile)
	if err != nil {
		t.Fatal(err)
	}
	var hooks []map[string]any
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	var hook map[string]any
	for _, h := range hooks {
		if h["id"] == "zk-check" {
			hook = h
		}
	}
	if hook == nil {
		t.Fatal("no zk-check hook")
	}
	want := map[string]any{"entry": "zk check", "language": "golang"}
	for k, v := range want {
		if hook[k] != v {
			t.Errorf("zk-check %s = %v, want %v", k, hook[k], v)
		}
	}
	if types, _ := hook["types"].([]any); len(types) != 1 || types[0] != "markdown" {
		t.Errorf("zk-check types = %v, want [markdown]", hook["types"])
	}
	if pf, ok := hook["pass_filenames"]; ok && pf != true {
		t.Errorf("zk-check pass_filenames = %v, want the paths passed", pf)
	}
}

// TestGoreleaserStampsVersion: the release build's -X flag names a
// variable that exists, so the archives say their tag and not "devel".
func TestGoreleaserStampsVersion(t *testing.T) {
	b, err := os.ReadFile(goreleaserFile)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Main    string   `yaml:"main"`
			Ldflags []string `yaml:"ldflags"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: version %d with %d builds, want version 2 with one build", cfg.Version, len(cfg.Builds))
	}
	bld := cfg.Builds[0]
	if bld.Main != "./cmd/zk" {
		t.Errorf("builds main = %q, want ./cmd/zk", bld.Main)
	}
	if !regexp.MustCompile(`-X main\.version=v\{\{ *\.Version *\}\}`).MatchString(strings.Join(bld.Ldflags, " ")) {
		t.Errorf("ldflags %q do not stamp main.version", bld.Ldflags)
	}
	src, err := os.ReadFile("version.go")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^var version string$`).Match(src) {
		t.Error("version.go does not declare var version string, the -X target")
	}
	if got := strings.Join(bld.Goos, ",") + "/" + strings.Join(bld.Goarch, ","); got != "linux,darwin,windows/amd64,arm64" {
		t.Errorf("targets %s, want linux,darwin,windows/amd64,arm64", got)
	}
}

// actionStepCmd is the testscript command "actionstep NAME FILE": it writes
// the run script of action.yml's step NAME to FILE, so a script can run it
// with bash against the real zk (action.txtar).
func actionStepCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: actionstep NAME FILE")
	}
	a, err := readAction()
	ts.Check(err)
	for _, s := range a.Runs.Steps {
		if s.Name == args[0] {
			ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(s.Run), 0o644))
			return
		}
	}
	ts.Fatalf("action.yml has no step %q", args[0])
}
