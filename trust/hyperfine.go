package trust

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hyperfineOpts are hyperfine's options that take values: how many, and
// whether they are commands it runs (each through its shell, as its
// operands are).
var hyperfineOpts = map[string]struct {
	n       int
	command bool
}{
	"-s": {1, true}, "--setup": {1, true}, "-p": {1, true}, "--prepare": {1, true},
	"-c": {1, true}, "--cleanup": {1, true}, "--conclude": {1, true}, "--reference": {1, true},
	"-P": {3, false}, "--parameter-scan": {3, false}, "-L": {2, false}, "--parameter-list": {2, false},
	"-D": {1, false}, "--parameter-step-size": {1, false}, "-S": {1, false}, "--shell": {1, false},
	"-w": {1, false}, "--warmup": {1, false}, "-m": {1, false}, "--min-runs": {1, false},
	"-M": {1, false}, "--max-runs": {1, false}, "-r": {1, false}, "--runs": {1, false},
	"-u": {1, false}, "--time-unit": {1, false}, "-n": {1, false}, "--command-name": {1, false},
	"--style": {1, false}, "--sort": {1, false}, "--output": {1, false}, "--input": {1, false},
	"--export-asciidoc": {1, false}, "--export-csv": {1, false}, "--export-json": {1, false},
	"--export-markdown": {1, false}, "--export-orgmode": {1, false},
}

// maxHyperfineCommands bounds the commands a hyperfine's parameters make
// of its strings that zk parses; past it the command is opaque.
const maxHyperfineCommands = 1024

// maxHyperfineBytes bounds the bytes of those commands.
const maxHyperfineBytes = 16 << 20

// hyperfine inspects hyperfine's arguments. Each operand is a command it
// runs through its shell (sh -c; split into words as a shell would with
// -N), as are the values of --prepare, --setup, --cleanup, --conclude
// and --reference: they are read as sh -c strings are, once for each
// value of the parameters they name ({N} of -L N a,b or -P N 1 8), where
// they were read as words alone (hyperfine 'make bench' left the Makefile
// unbound, hyperfine 'sh ru?.sh' its glob unseen). A word no option of
// hyperfine's takes is read as a command: at worst a value read as one.
// Another --shell (python3) runs them as code zk does not read.
func (in *inspector) hyperfine(args []string, depth int) {
	var cmds []string
	params := map[string][]string{}
	var scans [][]string // -P's NAME MIN MAX, read once -D is known
	step := ""
	lang := syntax.LangBash
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			cmds = append(cmds, args[j+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			cmds = append(cmds, a)
			continue
		}
		name, v, eq := a, "", false
		if strings.HasPrefix(a, "--") {
			name, v, eq = strings.Cut(a, "=")
		} else if len(a) > 2 {
			// -r5, -r=5, -Ni: the first valued letter takes the rest.
			name = ""
			for k := 1; k < len(a); k++ {
				if _, ok := hyperfineOpts["-"+a[k:k+1]]; ok {
					name, v, eq = "-"+a[k:k+1], strings.TrimPrefix(a[k+1:], "="), k+1 < len(a)
					break
				}
			}
		}
		o, ok := hyperfineOpts[name]
		if !ok {
			continue // a flag (-N, -i, --show-output), or one zk does not know
		}
		var vals []string
		if eq {
			vals = append(vals, v)
		}
		for len(vals) < o.n && j+1 < len(args) {
			j++
			vals = append(vals, args[j])
		}
		if len(vals) < o.n {
			continue
		}
		switch {
		case o.command:
			cmds = append(cmds, vals[0])
		case name == "-L" || name == "--parameter-list":
			params[vals[0]] = strings.Split(vals[1], ",")
		case name == "-P" || name == "--parameter-scan":
			scans = append(scans, vals)
		case name == "-D" || name == "--parameter-step-size":
			step = vals[0]
		case name == "-S" || name == "--shell":
			l, ok := hyperfineShell(vals[0])
			if !ok {
				in.opaque("`hyperfine --shell %s` runs its commands with a program zk does not read", vals[0])
				return
			}
			lang = l
		}
	}
	for _, sc := range scans {
		params[sc[0]] = scan(sc[1], sc[2], step)
	}
	for _, c := range cmds {
		in.parsed[c] = true
		runs, ok := substitute(c, params)
		if !ok {
			in.opaque("`hyperfine`'s parameters make of %s over %d commands, or values zk cannot tell", quoteSrc(c), maxHyperfineCommands)
			continue
		}
		for _, r := range runs {
			in.script(r, lang, depth)
		}
	}
}

// hyperfineShell is the language of the shell hyperfine's --shell names,
// if it is one zk reads (none: words split as sh would).
func hyperfineShell(v string) (syntax.LangVariant, bool) {
	f := strings.Fields(v)
	if v == "none" {
		return syntax.LangBash, true
	}
	if len(f) == 0 {
		return 0, false
	}
	lang, ok := shells[filepath.Base(f[0])]
	return lang, ok
}

// scan is the values of hyperfine's -P NAME MIN MAX with its step (-D, ""
// for 1): whole numbers only, nil when they are not or are too many.
func scan(lo, hi, step string) []string {
	if step == "" {
		step = "1"
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	d, err3 := strconv.Atoi(step)
	// Bounded first, so that b-a cannot overflow.
	if err1 != nil || err2 != nil || err3 != nil || d <= 0 || a < -1e9 || b > 1e9 || b < a || (b-a)/d >= maxHyperfineCommands {
		return nil
	}
	var vs []string
	for x := a; x <= b; x += d {
		vs = append(vs, strconv.Itoa(x))
	}
	return vs
}

// substitute is c with each combination of the values of the parameters
// it names ({NAME}) put in, as hyperfine runs it; false when a parameter
// it names has no values zk knows, or they make over maxHyperfineCommands
// or over maxHyperfineBytes (a line of placeholders each given a long
// value would otherwise grow as their product).
func substitute(c string, params map[string][]string) ([]string, bool) {
	out := []string{c}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		vals, ph := params[name], "{"+name+"}"
		if !strings.Contains(c, ph) {
			continue
		}
		if len(vals) == 0 || len(out)*len(vals) > maxHyperfineCommands {
			return nil, false
		}
		size := 0
		for _, o := range out {
			n := strings.Count(o, ph)
			for _, v := range vals {
				size += len(o) + n*(len(v)-len(ph))
			}
		}
		if size > maxHyperfineBytes {
			return nil, false
		}
		next := make([]string, 0, len(out)*len(vals))
		for _, o := range out {
			for _, v := range vals {
				next = append(next, strings.ReplaceAll(o, ph, v))
			}
		}
		out = next
	}
	return out, true
}
