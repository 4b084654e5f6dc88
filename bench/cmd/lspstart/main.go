// Command lspstart times a language server's start on a vault, as an
// editor sees it: it starts the server (the command after --), sends
// initialize, initialized and didOpen of one note, and prints the time to
// that note's first diagnostics (from the start, and from didOpen) and to
// the answer of a references request on it (which waits for every note's
// links), then shuts the server down and prints the CPU it spent (user
// and system), and on Linux the CPU it had spent at its first diagnostics
// and the time its threads waited for a core until then: on a loaded
// machine the wall times are the load's as much as the server's.
//
//	go run ./bench/cmd/lspstart -vault /tmp/v -note 'Permanent Notes/17/x.md' -- zk --vault /tmp/v lsp
//
// Run it under /usr/bin/time -v for the peak memory: the server is its
// child, and getrusage reports the larger of the two.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	vault := flag.String("vault", "", "the vault's folder")
	note := flag.String("note", "", "the vault path of the note to open")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up after this long")
	flag.Parse()
	if *vault == "" || *note == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: lspstart -vault DIR -note PATH -- server args...")
		os.Exit(2)
	}
	if err := run(*vault, *note, flag.Args(), *timeout); err != nil {
		fmt.Fprintf(os.Stderr, "lspstart: %v\n", err)
		os.Exit(1)
	}
}

func run(vault, note string, server []string, timeout time.Duration) error {
	abs, err := filepath.Abs(vault)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(abs, filepath.FromSlash(note)))
	if err != nil {
		return err
	}
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(abs, filepath.FromSlash(note)))}).String()
	root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()

	start := time.Now()
	cmd := exec.Command(server[0], server[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	msgs := make(chan map[string]any)
	go read(bufio.NewReader(out), msgs)
	send := func(m map[string]any) error {
		m["jsonrpc"] = "2.0"
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(b), b)
		return err
	}
	// wait reads messages until one satisfies ok, answering the server's
	// own requests (configuration, registration) with null.
	wait := func(ok func(map[string]any) bool) error {
		for m := range msgs {
			if _, isReq := m["method"]; isReq && m["id"] != nil {
				if err := send(map[string]any{"id": m["id"], "result": nil}); err != nil {
					return err
				}
			}
			if ok(m) {
				return nil
			}
		}
		return fmt.Errorf("the server closed its output (after %v)", time.Since(start).Round(time.Millisecond))
	}
	isResponse := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool {
			v, _ := m["id"].(float64)
			_, isReq := m["method"]
			return !isReq && v == id
		}
	}
	if err := send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"processId": os.Getpid(), "rootUri": root, "capabilities": map[string]any{},
		"workspaceFolders": []any{map[string]any{"uri": root, "name": filepath.Base(abs)}},
	}}); err != nil {
		return err
	}
	if err := wait(isResponse(1)); err != nil {
		return err
	}
	send(map[string]any{"method": "initialized", "params": map[string]any{}})
	opened := time.Now()
	send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": string(src)}}})
	if err := wait(func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "textDocument/publishDiagnostics" && p["uri"] == uri
	}); err != nil {
		return err
	}
	first, afterOpen := time.Since(start), time.Since(opened)
	firstCPU, firstWait := schedstat(cmd.Process.Pid)
	send(map[string]any{"id": 2, "method": "textDocument/references", "params": map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 2},
		"context": map[string]any{"includeDeclaration": false}}})
	if err := wait(isResponse(2)); err != nil {
		return err
	}
	whole := time.Since(start)
	send(map[string]any{"id": 3, "method": "shutdown"})
	wait(isResponse(3))
	send(map[string]any{"method": "exit"})
	in.Close()
	cmd.Wait()
	cpu := time.Duration(0)
	if st := cmd.ProcessState; st != nil {
		cpu = st.UserTime() + st.SystemTime()
	}
	fmt.Printf("first diagnostics %.2f s (%.3f s after didOpen; server CPU %.3f s, %.3f s waiting for a core), whole vault known (references answered) %.2f s, server CPU %.2f s\n",
		first.Seconds(), afterOpen.Seconds(), firstCPU.Seconds(), firstWait.Seconds(), whole.Seconds(), cpu.Seconds())
	return nil
}

// schedstat is the CPU time the process pid has spent so far, and the
// time its threads waited for a core (Linux's /proc/PID/task/*/schedstat:
// on-CPU and run-queue nanoseconds); zero elsewhere. On a loaded machine
// the wait is the load's share of a wall time.
func schedstat(pid int) (cpu, wait time.Duration) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		on, _ := strconv.ParseInt(f[0], 10, 64)
		queued, _ := strconv.ParseInt(f[1], 10, 64)
		cpu, wait = cpu+time.Duration(on), wait+time.Duration(queued)
	}
	return cpu, wait
}

// read decodes the server's messages (Content-Length framing) onto msgs.
func read(r *bufio.Reader, msgs chan<- map[string]any) {
	defer close(msgs)
	for {
		n := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if n < 0 {
			return
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			msgs <- m
		}
	}
}
