package httpapi

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// net/http writes an HTTP/1.x answer through a connection buffer of 4 KiB
// that no setting changes. When the header and the body are larger
// together, which a checkout session with its options and widget snippet
// is, the answer leaves in two writes: the full buffer while the body is
// being written, the rest when the handler returns. Each write is a TCP
// segment the client must wait for, and a wake-up on both sides.
//
// Listener and ConnContext let this package's handler hold a connection's
// writes while it answers and send the answer in one write: the handler
// holds the connection when a request starts. When the handler has
// answered and nothing was held (the whole answer is in net/http's
// buffer) the connection is let go and net/http writes the answer in one
// write after the handler returns, as it would without Listener. When
// part of it was held and the answer has a Content-Length, the handler
// flushes net/http's buffers and releases the connection, which writes
// what it held at once. An answer without a Content-Length is let go when
// its handler flushes or returns, and net/http writes the rest as it
// would.

// maxHeld bounds what a held connection keeps: past it, what is held is
// written out at once and the rest of the answer passes through, so that a
// large answer is never copied whole.
const maxHeld = 64 << 10

// Listener returns ln whose connections this package's handler can hold
// while it answers, so that an answer leaves in one write rather than two
// when its header and body exceed net/http's 4 KiB connection buffer. Use
// it with ConnContext:
//
//	srv := &http.Server{Handler: h, ConnContext: httpapi.ConnContext}
//	err := srv.Serve(httpapi.Listener(ln))
//
// A listener that wraps this one (tls.NewListener) keeps the effect for
// HTTP/1.1; HTTP/2 connections are never held. Without ConnContext the
// connections behave as ln's.
func Listener(ln net.Listener) net.Listener { return coalescingListener{ln} }

// ConnContext is the http.Server ConnContext that makes connections
// accepted through Listener known to this package's handler. It returns
// ctx unchanged for any other connection.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = tc.NetConn() // a *tls.Conn over our connection
	}
	if cc, ok := c.(*coalescingConn); ok {
		return context.WithValue(ctx, connKey{}, cc)
	}
	return ctx
}

type connKey struct{}

// heldConn returns the connection of r when it can be held: accepted by
// Listener, made known by ConnContext, and speaking HTTP/1.x, where one
// request at a time is answered on a connection. A request with an
// Expect header is not held: its client waits for "100 Continue", which
// net/http writes when the handler reads the body, before it sends the
// body.
func heldConn(r *http.Request) *coalescingConn {
	if r.ProtoMajor != 1 || r.Header.Get("Expect") != "" {
		return nil
	}
	cc, _ := r.Context().Value(connKey{}).(*coalescingConn)
	return cc
}

type coalescingListener struct{ net.Listener }

func (l coalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coalescingConn{Conn: c}, nil
}

// heldBuffers recycles the buffers of held answers, so that an idle
// connection keeps none.
var heldBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// coalescingConn is a connection whose writes can be held and sent as one.
type coalescingConn struct {
	net.Conn

	mu   sync.Mutex
	held bool
	buf  *[]byte // what is held; nil when nothing is
}

// hold makes the writes that follow wait for release.
func (c *coalescingConn) hold() {
	c.mu.Lock()
	c.held = true
	c.mu.Unlock()
}

// release writes what was held in one write and lets writes through
// again. It may be called when nothing is held.
func (c *coalescingConn) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = false
	_, err := c.flushLocked(nil)
	return err
}

// flushLocked writes what is held followed by p, in one write when the
// connection can gather (net.Buffers uses writev on TCP connections), and
// reports p's bytes written.
func (c *coalescingConn) flushLocked(p []byte) (int, error) {
	if c.buf == nil {
		if p == nil {
			return 0, nil
		}
		return c.Conn.Write(p)
	}
	held := *c.buf
	bufs := net.Buffers{held}
	if len(p) > 0 {
		bufs = append(bufs, p)
	}
	n, err := bufs.WriteTo(c.Conn)
	if cap(held) <= maxHeld {
		*c.buf = held[:0]
		heldBuffers.Put(c.buf)
	}
	c.buf = nil
	written := int(n) - len(held)
	if written < 0 {
		written = 0
	}
	return written, err
}

func (c *coalescingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held {
		return c.flushLocked(p)
	}
	if c.buf == nil {
		c.buf = heldBuffers.Get().(*[]byte)
	}
	if len(*c.buf)+len(p) > maxHeld {
		return c.flushLocked(p)
	}
	*c.buf = append(*c.buf, p...)
	return len(p), nil
}

// Close closes at once, without taking the lock: a write blocked on a slow
// client holds it, and closing is what ends such a write. An answer still
// held is dropped, as one in net/http's own buffer would be; net/http
// closes a connection only after the handler has let it go, unless it is
// closing it abruptly.
func (c *coalescingConn) Close() error { return c.Conn.Close() }

// letGoIfEmpty ends the hold when nothing is held, and reports whether
// it did.
func (c *coalescingConn) letGoIfEmpty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf != nil {
		return false
	}
	c.held = false
	return true
}

// finishHeld ends the hold of a request's connection once its handler
// has answered, and reports whether the answer left before the handler
// returned. When nothing is held the whole answer is still in net/http's
// buffer: the connection is let go and net/http writes it after the
// handler returns, in one write, and stops its background read of the
// connection right after. The client's next request then nearly always
// arrives after that, and is read in one read rather than its first byte
// by the background read and the rest by another (decision 0045).
// Otherwise an answer with a declared Content-Length is flushed from
// net/http's buffers first, so that release writes it whole.
func finishHeld(cc *coalescingConn, sw *statusWriter) (early bool) {
	if cc == nil {
		return false
	}
	if cc.letGoIfEmpty() {
		return false
	}
	if sw.status != 0 && sw.Header().Get("Content-Length") != "" {
		http.NewResponseController(sw.ResponseWriter).Flush()
	}
	cc.release()
	return true
}
