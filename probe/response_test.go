package probe

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name, in string
		status   int
		close    bool
		server   string
		rest     string // what is left for the next response
		wantErr  bool
	}{
		{name: "content-length", in: "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 3\r\n\r\nabcNEXT", status: 200, server: "nginx", rest: "NEXT"},
		{name: "bare LF", in: "HTTP/1.1 200 OK\nContent-Length: 1\n\nxNEXT", status: 200, rest: "NEXT"},
		{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nNEXT", status: 200, rest: "NEXT"},
		{name: "chunked overrides length", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: CHUNKED\r\n\r\n1\r\nx\r\n0\r\n\r\nNEXT", status: 200, rest: "NEXT"},
		{name: "until close", in: "HTTP/1.1 200 OK\r\n\r\neverything", status: 200, close: true},
		{name: "connection close", in: "HTTP/1.1 503 Busy\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", status: 503, close: true},
		{name: "1.0 closes", in: "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200, close: true},
		{name: "1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\nNEXT", status: 200, rest: "NEXT"},
		{name: "1.0 ignores transfer-encoding", in: "HTTP/1.0 200 OK\r\nTransfer-Encoding: gzip\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nxNEXT", status: 200, rest: "NEXT"},
		{name: "interim skipped", in: "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nNEXT", status: 200, rest: "NEXT"},
		{name: "no body on 304", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\nNEXT", status: 304, rest: "NEXT"},
		{name: "simulation header", in: "HTTP/1.1 200 OK\r\nx-zk-simulation: 1\r\nContent-Length: 0\r\n\r\n", status: 200},
		{name: "two lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", wantErr: true},
		{name: "signed length", in: "HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx", wantErr: true},
		{name: "gzip coding", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", wantErr: true},
		{name: "short body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", wantErr: true},
		{name: "short chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", wantErr: true},
		{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", wantErr: true},
		{name: "not HTTP", in: "SSH-2.0-OpenSSH\r\n\r\n", wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "head cut", in: "HTTP/1.1 200 OK\r\nContent-Le", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tt.in))
			h, err := readResponseHead(br, true)
			if err == nil {
				err = discardBody(br, h)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			rest, _ := io.ReadAll(br)
			if h.status != tt.status || h.close != tt.close || h.server != tt.server || string(rest) != tt.rest {
				t.Errorf("got status %d close %v server %q rest %q; want %d %v %q %q",
					h.status, h.close, h.server, rest, tt.status, tt.close, tt.server, tt.rest)
			}
			if want := strings.Contains(tt.in, "simulation"); h.simulated != want {
				t.Errorf("simulated = %v, want %v", h.simulated, want)
			}
		})
	}
}

// FuzzReadResponse holds the probe's response reader to net/http's: for
// every input net/http reads as an HTTP/1.x response to a GET (its body
// included, 1xx interim responses skipped as its Transport does), the
// probe's reader reads it too, with the same status and connection
// outcome, and stops at the same byte. Where net/http refuses an input the
// probe may be more lenient; framing is what must agree.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\ngone",
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		for line := range bytes.Lines(data) {
			if len(line) >= 4096 {
				return // longer than the read buffer: refused by design
			}
		}
		want, wantRest, err := referenceRead(data, req)
		if err != nil {
			return // refused by net/http, or not HTTP/1.x (the probe speaks 1.1)
		}
		br := bufio.NewReader(bytes.NewReader(data))
		h, err := readResponseHead(br, true)
		if err == nil {
			err = discardBody(br, h)
		}
		if err != nil {
			t.Fatalf("net/http read %d %v, the probe failed: %v", want.StatusCode, want.Close, err)
		}
		rest, _ := io.ReadAll(br)
		if h.status != want.StatusCode || h.close != want.Close || len(rest) != wantRest ||
			h.server != want.Header.Get("Server") {
			t.Fatalf("probe: status %d close %v server %q, %d bytes left; net/http: %d %v %q, %d left",
				h.status, h.close, h.server, len(rest), want.StatusCode, want.Close, want.Header.Get("Server"), wantRest)
		}
	})
}

// referenceRead reads one final response with net/http, returning how
// many bytes of data are left after it.
func referenceRead(data []byte, req *http.Request) (*http.Response, int, error) {
	br := bufio.NewReader(bytes.NewReader(data))
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return nil, 0, err
		}
		if resp.ProtoMajor != 1 || resp.StatusCode < 100 {
			return nil, 0, errors.New("not HTTP/1.x")
		}
		_, err = io.Copy(io.Discard, resp.Body)
		if err != nil {
			return nil, 0, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == 101 {
			rest, err := io.ReadAll(br)
			if err != nil {
				return nil, 0, err
			}
			return resp, len(rest), nil
		}
	}
}
