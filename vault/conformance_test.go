package vault

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestConformance compares zk's reading of 89 real notes with Obsidian's
// own metadata cache for them (../shared/conformance/obsidian-cache, the
// same comparison as check.py there). It needs $ZK_CONFORMANCE_DIR, the
// obsidian-cache folder; .ci/run always sets it. Any difference fails.
func TestConformance(t *testing.T) {
	dir := os.Getenv("ZK_CONFORMANCE_DIR")
	if dir == "" {
		t.Skip("ZK_CONFORMANCE_DIR is not set (see the README's Tests section)")
	}
	var vaultNotes map[string]any
	readJSON(t, filepath.Join(dir, "resolvedLinks.json"), &vaultNotes)
	dumps, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	cats := []string{"links", "embeds", "headings", "blocks", "tags", "frontmatterLinks", "frontmatter", "frontmatterPosition", "resolved"}
	exact, total := 0, 0
	for _, f := range dumps {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if name == "resolvedLinks" || name == "unresolvedLinks" {
			continue
		}
		var d struct {
			CachedMetadata    map[string]any `json:"cachedMetadata"`
			FileContents      string         `json:"fileContents"`
			FilePath          string         `json:"filePath"`
			ResolveLinkToPath map[string]any `json:"resolveLinkToPath"`
		}
		readJSON(t, f, &d)
		if d.CachedMetadata == nil {
			continue
		}
		total++
		want := d.CachedMetadata
		want["resolved"] = d.ResolveLinkToPath
		// The vault check.py lays out: every note of the source vault, every
		// path a link resolves to, and the note itself.
		files := map[string]bool{d.FilePath: true}
		for p := range vaultNotes {
			files[p] = true
		}
		for _, p := range d.ResolveLinkToPath {
			if s, ok := p.(string); ok {
				files[s] = true
			}
		}
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		n := NewParser().Parse(d.FilePath, []byte(d.FileContents))
		var got map[string]any
		b, err := json.Marshal(n.Obsidian(NewResolver(paths)))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		ok := true
		for _, c := range cats {
			w, g := normCategory(c, want[c]), normCategory(c, got[c])
			if !reflect.DeepEqual(w, g) {
				ok = false
				t.Errorf("%s %s:\n obsidian: %v\n zk:       %v", name, c, w, g)
			}
		}
		if ok {
			exact++
		}
	}
	t.Logf("conformance: %d/%d notes exact", exact, total)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// normCategory mirrors check.py's norm(): it keeps what is compared and
// drops what is not (listItems, sections).
func normCategory(cat string, v any) any {
	pos := func(p any) string {
		m, _ := p.(map[string]any)
		if m == nil {
			return ""
		}
		s := ""
		for _, k := range []string{"start", "end"} {
			q, _ := m[k].(map[string]any)
			s += fmt.Sprintf("(%v,%v,%v)", q["line"], q["col"], q["offset"])
		}
		return s
	}
	list, _ := v.([]any)
	obj, _ := v.(map[string]any)
	var out []string
	switch cat {
	case "links", "embeds":
		for _, x := range list {
			m := x.(map[string]any)
			out = append(out, fmt.Sprintf("%q %q %q %s", m["link"], m["original"], m["displayText"], pos(m["position"])))
		}
	case "headings":
		for _, x := range list {
			m := x.(map[string]any)
			out = append(out, fmt.Sprintf("%q %v %s", m["heading"], m["level"], pos(m["position"])))
		}
	case "blocks":
		for k, x := range obj {
			m := x.(map[string]any)
			out = append(out, fmt.Sprintf("%q %q %s", k, m["id"], pos(m["position"])))
		}
		sort.Strings(out)
	case "tags":
		for _, x := range list {
			m := x.(map[string]any)
			out = append(out, fmt.Sprintf("%q %s", m["tag"], pos(m["position"])))
		}
	case "frontmatterLinks":
		for _, x := range list {
			m := x.(map[string]any)
			out = append(out, fmt.Sprintf("%q %q %q %q", m["key"], m["link"], m["original"], m["displayText"]))
		}
	case "frontmatterPosition":
		return pos(v)
	case "frontmatter", "resolved":
		if obj == nil {
			obj = map[string]any{}
		}
		b, _ := json.Marshal(obj) // encoding/json sorts map keys
		return string(b)
	}
	return out
}
