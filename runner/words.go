package runner

import (
	"errors"
	"fmt"
	"strings"
)

// ErrShellSyntax is returned by Split for a command that needs a shell.
var ErrShellSyntax = errors.New("shell syntax in a command run without a shell")

// Split splits a command written in a note into argv, as a shell would
// split words, and no further: single quotes keep everything, double
// quotes keep everything but \" and \\, a backslash escapes the next
// character. Anything a shell would expand or interpret ($, `, |, ;, &,
// <, >, (, ), a leading ~) is refused with ErrShellSyntax rather than
// passed on literally, because the user would expect the shell's meaning;
// to use a shell, write sh -c '...'. Newlines separate words like spaces.
func Split(line string) ([]string, error) {
	var (
		argv []string
		word strings.Builder
		in   bool // inside a word
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				argv, in = append(argv, word.String()), false
				word.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("split %q: unterminated single quote", line)
			}
			word.WriteString(line[i+1 : i+1+j])
			i, in = i+1+j, true
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) && (line[j+1] == '"' || line[j+1] == '\\') {
					j++
				} else if line[j] == '$' || line[j] == '`' {
					return nil, fmt.Errorf("split %q: %w: %q inside double quotes; write sh -c '...'", line, ErrShellSyntax, line[j])
				}
				word.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, fmt.Errorf("split %q: unterminated double quote", line)
			}
			i, in = j, true
		case c == '\\':
			if i+1 < len(line) {
				i++
				word.WriteByte(line[i])
			}
			in = true
		case strings.IndexByte("$`|;&<>()", c) >= 0, c == '~' && !in:
			return nil, fmt.Errorf("split %q: %w: %q; write sh -c '...'", line, ErrShellSyntax, c)
		default:
			word.WriteByte(c)
			in = true
		}
	}
	if in {
		argv = append(argv, word.String())
	}
	if len(argv) == 0 {
		return nil, ErrNoCommand
	}
	return argv, nil
}

// Quote writes argv as a POSIX shell would read it back, quoting only the
// words that need it: what a record shows and a user can paste.
func Quote(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quoteWord(a)
	}
	return strings.Join(words, " ")
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("@%+=:,./-_", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
