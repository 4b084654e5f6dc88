package probe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// responseHead is what the HTTP probe needs of a response: how it ended,
// whether the connection survives it, and the headers it fingerprints.
//
// The probe reads responses with this reader rather than net/http's
// ReadResponse, which builds a Response and a header map for every
// response: measured at one stream against nginx that was 1.2 µs of the
// client's 8 µs per request, a cost the probe would report as the
// server's. It keeps only what framing needs (RFC 9112 §6) and is held to
// ReadResponse by FuzzReadResponse.
type responseHead struct {
	status    int
	reason    string // of a status 400 and above
	close     bool   // the server closes the connection after this response
	length    int64  // body length, or -1: chunked or until close
	chunked   bool
	server    string
	simulated bool
}

// maxHeadBytes bounds a response head, as net/http's default does.
const maxHeadBytes = 1 << 20

// simulationHeaderLower is SimulationHeader as asciiEqualFold compares it.
var simulationHeaderLower = strings.ToLower(SimulationHeader)

var errMalformed = errors.New("malformed HTTP response")

// readResponseHead reads a response's status line and headers, skipping
// 1xx interim responses. keep asks for the Server and simulation headers.
func readResponseHead(br *bufio.Reader, keep bool) (responseHead, error) {
	for {
		h, err := readOneHead(br, keep)
		if err != nil || h.status >= 200 || h.status == 101 {
			return h, err
		}
	}
}

func readOneHead(br *bufio.Reader, keep bool) (responseHead, error) {
	h := responseHead{length: -1}
	budget := maxHeadBytes
	line, err := readLine(br, &budget)
	if err != nil {
		return h, unexpected(err)
	}
	proto, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || !bytes.HasPrefix(proto, []byte("HTTP/1.")) || len(proto) != 8 || proto[7] < '0' || proto[7] > '9' {
		return h, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	http10 := proto[7] == '0'
	code, reason, _ := bytes.Cut(bytes.TrimLeft(rest, " "), []byte(" "))
	if len(code) != 3 {
		return h, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	for _, b := range code {
		if b < '0' || b > '9' {
			return h, fmt.Errorf("%w: status line %q", errMalformed, line)
		}
		h.status = h.status*10 + int(b-'0')
	}
	if h.status < 100 {
		return h, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	if h.status >= 400 {
		h.reason = string(reason) // for the error; a success needs no copy
	}
	keepAlive, te := false, false
	if b, err := br.Peek(1); err == nil && (b[0] == ' ' || b[0] == '\t') {
		return h, fmt.Errorf("%w: head starts with a folded line", errMalformed)
	}
	var folded []byte
	for {
		line, err := readHeaderLine(br, &budget, &folded)
		if err != nil {
			return h, unexpected(err)
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 {
			return h, fmt.Errorf("%w: header line %q", errMalformed, line)
		}
		if bytes.ContainsAny(name, " \t") {
			continue // not a field name; net/http keeps it apart too
		}
		value = bytes.Trim(value, " \t")
		switch {
		case asciiEqualFold(name, "content-length"):
			n, err := strconv.ParseUint(string(value), 10, 63)
			if err != nil || (h.length >= 0 && int64(n) != h.length) {
				return h, fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
			h.length = int64(n)
		case asciiEqualFold(name, "transfer-encoding"):
			// One field, chunked, or nothing: as strict as net/http and
			// nginx, since framing is where responses get misread.
			// HTTP/1.0 has no transfer codings (RFC 9112 §6.1).
			if http10 {
				break
			}
			if te || !asciiEqualFold(value, "chunked") {
				return h, fmt.Errorf("%w: unsupported Transfer-Encoding %q", errMalformed, value)
			}
			te = true
		case asciiEqualFold(name, "connection"):
			for tok := range bytes.SplitSeq(value, []byte(",")) {
				tok = bytes.Trim(tok, " \t")
				h.close = h.close || asciiEqualFold(tok, "close")
				keepAlive = keepAlive || asciiEqualFold(tok, "keep-alive")
			}
		case keep && asciiEqualFold(name, "server"):
			h.server = string(value)
		case keep && asciiEqualFold(name, simulationHeaderLower):
			h.simulated = len(value) > 0
		}
	}
	if http10 {
		h.close = h.close || !keepAlive
	}
	h.chunked = te
	switch {
	case h.status < 200 || h.status == 204 || h.status == 304:
		h.length, h.chunked = 0, false
	case h.chunked:
		h.length = -1 // Transfer-Encoding overrides Content-Length
	case h.length < 0:
		h.close = true // the body runs until the server closes
	}
	return h, nil
}

// discardBody reads h's body to its end without keeping it.
func discardBody(br *bufio.Reader, h responseHead) error {
	switch {
	case h.chunked:
		return discardChunked(br)
	case h.length >= 0:
		n, err := br.Discard(int(min(h.length, 1<<62)))
		if int64(n) < h.length && err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	default:
		_, err := io.Copy(io.Discard, br)
		return err
	}
}

// discardChunked reads a chunked body (RFC 9112 §7.1), trailers included.
func discardChunked(br *bufio.Reader) error {
	budget := maxHeadBytes
	for {
		line, err := readLine(br, &budget)
		if err != nil {
			return unexpected(err)
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		size = bytes.TrimRight(size, " \t\r")
		n, err := strconv.ParseUint(string(size), 16, 63)
		if err != nil || len(size) == 0 {
			return fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if n == 0 {
			break
		}
		if _, err := br.Discard(int(n)); err != nil {
			return unexpected(err)
		}
		crlf, err := readLine(br, &budget)
		if err != nil {
			return unexpected(err)
		}
		if len(crlf) != 0 {
			return fmt.Errorf("%w: no CRLF after a chunk", errMalformed)
		}
		budget = maxHeadBytes
	}
	for { // trailers
		line, err := readLine(br, &budget)
		if err != nil {
			return unexpected(err)
		}
		if len(line) == 0 {
			return nil
		}
	}
}

// readHeaderLine returns the next header line with any obs-fold
// continuation lines (RFC 9112 §5.2) joined to it by a space, as net/http
// joins them. A folded line is copied into *scratch; an unfolded one, the
// usual case, is not copied.
func readHeaderLine(br *bufio.Reader, budget *int, scratch *[]byte) ([]byte, error) {
	line, err := readLine(br, budget)
	if err != nil || len(line) == 0 || !nextFolded(br) {
		return line, err
	}
	buf := append((*scratch)[:0], bytes.Trim(line, " \t")...)
	for nextFolded(br) {
		more, err := readLine(br, budget)
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, ' '), bytes.Trim(more, " \t")...)
	}
	*scratch = buf
	return buf, nil
}

// nextFolded reports whether the next line continues the one before it.
func nextFolded(br *bufio.Reader) bool {
	b, err := br.Peek(1)
	return err == nil && (b[0] == ' ' || b[0] == '\t')
}

// readLine returns the next line without its CRLF (or bare LF), charging
// its length to budget. The slice is valid until the next read of br.
func readLine(br *bufio.Reader, budget *int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, fmt.Errorf("%w: line longer than %d bytes", errMalformed, br.Size())
	}
	if err != nil {
		return nil, err
	}
	if *budget -= len(line); *budget < 0 {
		return nil, fmt.Errorf("%w: head larger than %d bytes", errMalformed, maxHeadBytes)
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// asciiEqualFold reports whether b equals lower, an ASCII lower-case
// string, ignoring ASCII case.
func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
