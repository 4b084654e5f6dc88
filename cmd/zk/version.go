package main

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// version is set by the linker (-ldflags "-X main.version=v1.2.3", as the
// release build does); it wins over the build info, which knows only what
// the go command saw.
var version string

// buildVersion names the build that is running, so that an evidence block,
// a SARIF log or a check cache names the exact binary that produced it:
// the linker's version if one was stamped, else what the module's build
// info says (see versionFromBuildInfo), and for a build that no commit
// names exactly, the executable's Go build ID.
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return withBuildID("devel", exeBuildID)
	}
	return withBuildID(versionFromBuildInfo(bi), exeBuildID)
}

// withBuildID adds the executable's build ID to a version that does not
// name the build exactly: "devel" (go run, -buildvcs=false, a copy of the
// source without .git) becomes "devel+ID", and "…+dirty" (a commit plus
// uncommitted edits) "…+dirty.ID". Without it two such builds would sign
// their evidence alike. The ID is the last part of what "go tool buildid"
// prints for the executable: the toolchain's hash of the binary's content.
// id is asked only of such a version: every command names its version
// (--version), and reading the executable at every start of a build a
// commit names cost as much as a folder's walk.
func withBuildID(v string, id func() string) string {
	switch {
	case v == "devel":
		if id := id(); id != "" {
			return "devel+" + id
		}
	case strings.HasSuffix(v, "+dirty"):
		if id := id(); id != "" {
			return v + "." + id
		}
	}
	return v
}

// exeBuildID is the content part of the running executable's Go build ID,
// or "" if it has none (a build linked with -buildid=) or cannot be read.
// It is read once: a few kilobytes from the start of the file, where a
// checksum of the whole executable would read tens of megabytes at every
// start.
var exeBuildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	return contentID(readBuildID(f))
})

// readBuildID finds the Go build ID in an executable: in ELF, the note
// section the linker writes ("Go", type 4); elsewhere (Mach-O, PE), the
// marked string the linker puts at the start of the text, within the
// file's first megabyte.
func readBuildID(r io.ReaderAt) string {
	if ef, err := elf.NewFile(r); err == nil {
		if sec := ef.Section(".note.go.buildid"); sec != nil {
			data, err := io.ReadAll(io.LimitReader(sec.Open(), 4096))
			if err != nil || len(data) < 16 {
				return ""
			}
			order := ef.ByteOrder
			namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
			off := 12 + (int(namesz)+3)&^3
			if typ != 4 || namesz != 4 || string(data[12:14]) != "Go" || off+int(descsz) > len(data) {
				return ""
			}
			return string(data[off : off+int(descsz)])
		}
		return ""
	}
	buf := make([]byte, 1<<20)
	n, _ := r.ReadAt(buf, 0)
	buf = buf[:n]
	const mark = "\xff Go build ID: \""
	i := bytes.Index(buf, []byte(mark))
	if i < 0 {
		return ""
	}
	rest := buf[i+len(mark):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || j > 256 {
		return ""
	}
	return string(rest[:j])
}

// contentID is the last part of a build ID ("action/content", or four
// parts for a linked executable): the hash of the file's content. It is
// kept only if it reads as one (letters, digits, - and _), so that nothing
// odd in a binary reaches a version string.
func contentID(id string) string {
	id = id[strings.LastIndexByte(id, '/')+1:]
	if id == "" || len(id) > 64 {
		return ""
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return ""
		}
	}
	return id
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
