package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	const rev = "e28023b1a2b3c4d5e6f708192a3b4c5d6e7f8091"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-03T10:22:00Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	tests := []struct {
		name     string
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install at a tag", "v1.2.3", nil, "v1.2.3"},
		{"go install before any tag", "v0.0.0-20261203102200-e28023b1a2b3", nil, "v0.0.0-20261203102200-e28023b1a2b3"},
		{"clone at a tag", "v1.2.3", vcs("false"), "v1.2.3"},
		{"clone at a tag, edited", "v1.2.3+dirty", vcs("true"), "v1.2.3+dirty"},
		{"clone between tags", "v0.0.0-20261203102200-e28023b1a2b3", vcs("false"), "devel-e28023b1a2b3"},
		{"clone between tags, edited", "v0.0.0-20261203102200-e28023b1a2b3+dirty", vcs("true"), "devel-e28023b1a2b3+dirty"},
		{"clone, version not stamped", "(devel)", vcs("true"), "devel-e28023b1a2b3+dirty"},
		{"short revision", "(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "devel-abc"},
		{"-buildvcs=false", "(devel)", nil, "devel"},
		{"go test", "", nil, "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := &debug.BuildInfo{
				Path:     "github.com/zk-claims/zk/cmd/zk",
				Main:     debug.Module{Path: "github.com/zk-claims/zk", Version: tt.main},
				Settings: tt.settings,
			}
			if got := versionFromBuildInfo(bi); got != tt.want {
				t.Errorf("versionFromBuildInfo(%q) = %q, want %q", tt.main, got, tt.want)
			}
		})
	}
}

// The linker's -X main.version wins over the build info: the release build
// stamps the tag that way.
func TestBuildVersionLinkerWins(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v9.9.9"
	if got := buildVersion(); got != "v9.9.9" {
		t.Errorf("buildVersion() = %q with -X main.version=v9.9.9, want v9.9.9", got)
	}
	version = ""
	if got := buildVersion(); got == "" || got == "v9.9.9" {
		t.Errorf("buildVersion() = %q without a stamped version, want one from the build info", got)
	}
}

// A build no commit names exactly carries its executable's build ID, so
// that two such builds do not sign evidence alike.
func TestWithBuildID(t *testing.T) {
	tests := []struct{ v, id, want string }{
		{"devel", "c2Z96hpqx3a4oYesfxd0", "devel+c2Z96hpqx3a4oYesfxd0"},
		{"devel-e28023b1a2b3+dirty", "c2Z9", "devel-e28023b1a2b3+dirty.c2Z9"},
		{"v1.2.3+dirty", "c2Z9", "v1.2.3+dirty.c2Z9"},
		{"devel-e28023b1a2b3", "c2Z9", "devel-e28023b1a2b3"},
		{"v1.2.3", "c2Z9", "v1.2.3"},
		{"devel", "", "devel"},
	}
	for _, tt := range tests {
		asked := false
		id := func() string { asked = true; return tt.id }
		if got := withBuildID(tt.v, id); got != tt.want {
			t.Errorf("withBuildID(%q, %q) = %q, want %q", tt.v, tt.id, got, tt.want)
		}
		// A version a commit names is the build's name without the
		// executable read for its ID.
		if exact := tt.v != "devel" && !strings.HasSuffix(tt.v, "+dirty"); exact && asked {
			t.Errorf("withBuildID(%q): the build ID was read", tt.v)
		}
	}
}

// Outside ELF the build ID is the marked string at the start of the text;
// only an ID that reads as one is kept.
func TestReadBuildID(t *testing.T) {
	tests := []struct{ file, want string }{
		{"\x00\x01junk\xff Go build ID: \"a1/b2/c3/d4-_x\"\n \xff rest", "d4-_x"},
		{"\xff Go build ID: \"onlyone\"\n", "onlyone"},
		{"no marker here", ""},
		{"\xff Go build ID: \"a/b\x1b[31m\"\n", ""},
		{"\xff Go build ID: \"unterminated", ""},
	}
	for _, tt := range tests {
		if got := contentID(readBuildID(strings.NewReader(tt.file))); got != tt.want {
			t.Errorf("build ID of %q = %q, want %q", tt.file, got, tt.want)
		}
	}
	// The test binary is ELF on Linux: its note section holds the ID.
	if id := exeBuildID(); runtime.GOOS == "linux" && id == "" {
		t.Errorf("exeBuildID() = %q for the test binary, want its build ID", id)
	}
}
