package main

import (
	"runtime/debug"
	"strings"
)

// version is set by the linker (-ldflags "-X main.version=v1.2.3", as the
// release build does); it wins over the build info, which knows only what
// the go command saw.
var version string

// buildVersion names the build that is running, so that an evidence block,
// a SARIF log or a check cache names the exact binary that produced it:
// the linker's version if one was stamped, else what the module's build
// info says (see versionFromBuildInfo).
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionFromBuildInfo(bi)
}

// versionFromBuildInfo turns build info into a version:
//   - "go install …/cmd/zk@v1.2.3" (or @latest): the module version, which
//     is the tag, or a pseudo-version when no tag is there yet;
//   - a build from a clone at a tag: that tag ("+dirty" when the work tree
//     had changes, as the go command stamps it);
//   - a build from a clone between tags: "devel-" and the revision's first
//     12 hex digits (as in a pseudo-version), "+dirty" when the work tree had
//     changes; the go command's own pseudo-version for it, v0.0.0-date-rev,
//     would read like a release that does not exist;
//   - anything else (go test, -buildvcs=false, no VCS): "devel".
func versionFromBuildInfo(bi *debug.BuildInfo) string {
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	short := rev
	if len(short) > 12 {
		short = short[:12]
	}
	v := bi.Main.Version
	known := v != "" && v != "(devel)"
	switch {
	case rev == "" && known:
		// Built from the module cache: no VCS, the version is the module's.
		return v
	case rev == "":
		return "devel"
	case known && !strings.Contains(v, short):
		// A tag at this revision (a pseudo-version would end in it).
		return v
	case dirty:
		return "devel-" + short + "+dirty"
	default:
		return "devel-" + short
	}
}
