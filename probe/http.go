package probe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPTarget is what an HTTP probe measures: GET requests to URL, each
// response read to the end.
type HTTPTarget struct {
	URL string
	// TLS configures https connections; nil means the system's roots and
	// the URL's host name.
	TLS *tls.Config
}

// HTTP sweeps cfg's concurrency levels against t. The result holds every
// level measured so far even when err is not nil (an interrupted sweep).
//
// Each stream keeps one HTTP/1.1 connection of its own, as wrk does, sends
// a request serialised once and reads the response with a lean reader
// (response.go). net/http's pooled Client costs the client several times
// the CPU per request that wrk spends (measured: 2.6–7.7× fewer requests
// per second against the same nginx), and the probe would measure itself
// rather than the server.
func HTTP(ctx context.Context, t HTTPTarget, cfg Config) (*Result, error) {
	u, err := url.ParseRequestURI(t.URL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q is not an http or https URL", t.URL)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	conns, err := newConnPool(u, t.TLS, slices.Max(cfg.Concurrency))
	if err != nil {
		return nil, err
	}
	defer conns.close()
	var fp fingerprint
	do := func(ctx context.Context, stream, _ int, r *request) error {
		resp, err := conns.get(stream).roundTrip(ctx, conns, cfg.Timeout, r, fp.wants())
		if err != nil {
			conns.drop(stream)
			return err
		}
		fp.note(resp.server, resp.simulated)
		if resp.status >= 400 {
			return fmt.Errorf("HTTP %s", strings.TrimSpace(fmt.Sprintf("%d %s", resp.status, resp.reason)))
		}
		r.units = 1
		return nil
	}
	res := newResult(ModeHTTP, t.URL, cfg)
	runs, err := sweep(ctx, cfg, do)
	res.finish(runs, &fp, err)
	return res, err
}

// connPool holds one connection per stream. A stream is one goroutine at
// a time, so a slot needs no lock.
type connPool struct {
	addr  string
	tls   *tls.Config
	wire  []byte // the request, serialised
	slots []*streamConn
}

func newConnPool(u *url.URL, tlsConfig *tls.Config, streams int) (*connPool, error) {
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "zk-probe")
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		return nil, err
	}
	p := &connPool{addr: u.Host, wire: wire.Bytes(), slots: make([]*streamConn, streams)}
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		p.addr = net.JoinHostPort(u.Hostname(), port)
	}
	if u.Scheme == "https" {
		p.tls = &tls.Config{ServerName: u.Hostname()}
		if tlsConfig != nil {
			p.tls = tlsConfig.Clone()
			if p.tls.ServerName == "" {
				p.tls.ServerName = u.Hostname()
			}
		}
	}
	return p, nil
}

// streamConn is one stream's connection.
type streamConn struct {
	conn net.Conn
	w    io.Writer // conn, or its raw wire (wire_linux.go)
	br   *bufio.Reader
	stop func() bool     // unregisters the interrupt of conn
	ctx  context.Context // the context whose end interrupts conn
}

// get returns stream's connection, nil until its first request dials.
func (p *connPool) get(stream int) *streamConn {
	if p.slots[stream] == nil {
		p.slots[stream] = &streamConn{}
	}
	return p.slots[stream]
}

// drop closes stream's connection after an error: its state is unknown.
func (p *connPool) drop(stream int) {
	if c := p.slots[stream]; c != nil {
		c.close()
	}
}

func (p *connPool) close() {
	for i := range p.slots {
		p.drop(i)
	}
}

func (c *streamConn) close() {
	if c.conn != nil {
		c.stop()
		c.conn.Close()
		c.conn = nil
	}
}

// roundTrip sends the request on c (dialling first if needed), reads the
// response to the end, and times it into r. The request timeout is a
// deadline on the connection; an interrupt (ctx) sets a deadline in the
// past, which unblocks a read or write at once. Both are per connection
// rather than a context per request, which would cost more than the
// request on a fast server.
func (c *streamConn) roundTrip(ctx context.Context, p *connPool, timeout time.Duration, r *request, keep bool) (responseHead, error) {
	if c.conn != nil && c.ctx != ctx {
		// A new level (each has its own context): the last one's end may
		// still set this connection's deadline in the past, at any moment,
		// so it is not reused.
		c.close()
	}
	if c.conn == nil {
		d := net.Dialer{Timeout: timeout}
		conn, err := d.DialContext(ctx, "tcp", p.addr)
		if err != nil {
			return responseHead{}, err
		}
		if p.tls != nil {
			tc := tls.Client(conn, p.tls)
			conn.SetDeadline(time.Now().Add(timeout))
			if err := tc.HandshakeContext(ctx); err != nil {
				conn.Close()
				return responseHead{}, err
			}
			conn = tc
		}
		var rw io.ReadWriter = conn
		if raw := newRawWire(conn); raw != nil {
			rw = raw
		}
		c.conn, c.w, c.br = conn, rw, bufio.NewReaderSize(rw, 32<<10)
		c.stop = context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
		c.ctx = ctx
		r.start = r.now() // a new connection's set-up is not the server's latency
	}
	if err := c.conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return responseHead{}, err
	}
	if _, err := c.w.Write(p.wire); err != nil {
		return responseHead{}, ioErr(ctx, timeout, err)
	}
	h, err := readResponseHead(c.br, keep)
	if err != nil {
		return h, ioErr(ctx, timeout, err)
	}
	r.first = r.now()
	err = discardBody(c.br, h)
	r.end = r.now()
	if err != nil {
		return h, ioErr(ctx, timeout, err)
	}
	if h.close {
		c.close() // the server closes the connection after this response
	}
	return h, nil
}

// ioErr names why an I/O failed: an interrupt (ctx's error), the request
// timeout, or the error itself.
func ioErr(ctx context.Context, timeout time.Duration, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no response within %v", timeout)
	}
	return err
}

// fingerprint keeps the first response's Server header.
type fingerprint struct {
	once      sync.Once
	done      atomic.Bool // set with server and simulated: wants reads it without the once
	server    string
	simulated bool
}

// SimulationHeader is the response header a simulated server sets (see
// package probetest), so a result made against one says so.
const SimulationHeader = "X-Zk-Simulation"

// wants reports whether the next response's headers are still needed.
func (f *fingerprint) wants() bool { return !f.done.Load() }

func (f *fingerprint) note(server string, simulated bool) {
	f.once.Do(func() {
		f.server, f.simulated = server, simulated
		f.done.Store(true)
	})
}

func newResult(mode, target string, cfg Config) *Result {
	return &Result{
		Schema:           Schema,
		Mode:             mode,
		URL:              target,
		Date:             time.Now().UTC().Format(time.RFC3339),
		DurationS:        cfg.Duration.Seconds(),
		RequestsPerLevel: cfg.Requests,
		WarmupPerStream:  cfg.Warmup,
		DrainS:           cfg.Drain.Seconds(),
		Env:              currentEnv(),
	}
}

// finish analyses the runs into r's levels.
func (r *Result) finish(runs []levelRun, fp *fingerprint, err error) {
	r.Server, r.Simulated = fp.server, fp.simulated
	r.WasCancelled = errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	for _, run := range runs {
		r.Levels = append(r.Levels, analyse(run, r.Mode))
	}
	if r.Levels == nil {
		r.Levels = []Level{}
	}
}
