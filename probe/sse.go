package probe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEventBytes bounds one server-sent event, so a server that never sends
// a blank line cannot make the probe buffer without end.
const maxEventBytes = 1 << 20

// errEventTooLarge is returned for an event over maxEventBytes.
var errEventTooLarge = errors.New("server-sent event over 1 MiB")

// sseReader reads the data of server-sent events (the WHATWG EventSource
// format): lines up to a blank line make one event, "data:" lines carry its
// data (joined by newlines), lines starting with ":" are comments such as
// keep-alive pings, and other fields (event, id, retry) are ignored.
type sseReader struct {
	r    *bufio.Reader
	data []byte
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the data of the next event that has any, or io.EOF at the
// end of the stream. The slice is valid until the next call.
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	have := false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && have {
				return s.data, nil // a last event without its blank line
			}
			return nil, err
		}
		if len(line) == 0 {
			if have {
				return s.data, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 || string(field) != "data" {
			continue // a comment, or a field the probe has no use for
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if have {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > maxEventBytes {
			return nil, errEventTooLarge
		}
		s.data = append(s.data, value...)
		have = true
	}
}

// readLine returns one line without its CRLF or LF ending.
func (s *sseReader) readLine() ([]byte, error) {
	var long []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long)+len(chunk) > maxEventBytes {
				return nil, errEventTooLarge
			}
			long = append(long, chunk...)
			continue
		}
		if err != nil && (err != io.EOF || len(chunk)+len(long) == 0) {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading the event stream: %w", err)
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, nil
	}
}
